// The registry's type-erased handle (`registry::source(name)`, one virtual call per ID) against
// the generator it hands out by reference (`registry::get<G>(name)`, no dispatch), in the same
// run: a chain on the memory store (a few nanoseconds an ID, where a call's cost shows) and a
// snowflake of a wide layout (41 timestamp bits, 22 sequence bits: never out of capacity).
// Ratios are in docs/benchmarks.md ("The registry's handle").
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include <flakeid/registry.hpp>

namespace {

inline constexpr flakeid::layout wide{
    {flakeid::fields::timestamp(41), flakeid::fields::sequence(22)}, 1288834974657};

flakeid::registry& ids() {
  static flakeid::registry r = flakeid::registry::from_text(
      R"({"generators": {
        "chain": {"kind": "chain", "store": "memory:", "key": "bench", "step": 100000},
        "wide": {"kind": "snowflake", "layout": "wide", "worker": 0}}})",
      flakeid::registry_kinds::standard().layout<wide>("wide"));
  return r;
}

template <class G>
void generator(benchmark::State& st, const char* name) {
  G& g = ids().get<G>(name);
  for (auto _ : st) benchmark::DoNotOptimize(g.next_id());
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations()));
}

void handle(benchmark::State& st, const char* name) {
  flakeid::id_source& s = ids().source(name);
  for (auto _ : st) benchmark::DoNotOptimize(s.next_id());
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations()));
}

void generator_chain(benchmark::State& st) {
  generator<flakeid::segment_chain_generator<flakeid::memory_distributor>>(st, "chain");
}
void handle_chain(benchmark::State& st) { handle(st, "chain"); }
void generator_wide(benchmark::State& st) {
  generator<flakeid::classic_snowflake<wide>>(st, "wide");
}
void handle_wide(benchmark::State& st) { handle(st, "wide"); }

}  // namespace

BENCHMARK(generator_chain)->Name("registry/generator/chain");
BENCHMARK(handle_chain)->Name("registry/handle/chain");
BENCHMARK(generator_wide)->Name("registry/generator/wide");
BENCHMARK(handle_wide)->Name("registry/handle/wide");

BENCHMARK_MAIN();
