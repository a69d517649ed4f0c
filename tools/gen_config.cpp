// flakeid gen --config FILE --name NAME: mints with a generator of a registry configuration
// (docs/registry.md), the file an application or `flakeid serve` reads.
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "gen.hpp"

#if defined(FLAKEID_HAS_REGISTRY)
#include "registry_stores.hpp"
#endif

namespace flakeid_cli {

#if defined(FLAKEID_HAS_REGISTRY)
namespace {

/// A registry error whose cause is the store (it refused, no worker id is free) is a failure
/// (exit 1), not bad input: the nested error says which.
[[noreturn]] void rethrow_registry(const flakeid::registry_error& e) {
  try {
    std::rethrow_if_nested(e);
  } catch (const std::invalid_argument&) {
    throw e;
  } catch (const std::exception&) {
    throw std::runtime_error(e.what());
  }
  throw e;
}

}  // namespace

int run_gen_config(const context& c, const arguments& a, gen_request& r) {
  for (const std::string_view o :
       {"--layout", "--generator", "--worker", "--datacenter", "--gene", "--store", "--key",
        "--step", "--start", "--stride", "--remainder", "--redis", "--postgres", "--to"})
    if (a.get(o))
      fail("flakeid gen: option " + quote(o) +
           " does not apply with --config: the entry says how it mints and writes");
  const auto file = a.get("--config");
  const auto name = a.get("--name");
  if (!file || !name) fail("flakeid gen: --config FILE and --name NAME go together");
  if (c.io.sandbox) fail("flakeid gen: this run may not read a configuration");
  try {
    const flakeid::registry ids = flakeid::registry::from_file(
        std::string(*file), flakeid_tools::program_registry_kinds(), *name);
    flakeid::id_source& s = ids.source(*name);
    std::vector<std::uint64_t> batch(
        static_cast<std::size_t>(std::min<std::uint64_t>(r.count, 4096)));
    for (std::uint64_t left = r.count; left != 0;) {
      const std::span<std::uint64_t> part(
          batch.data(), static_cast<std::size_t>(std::min<std::uint64_t>(left, batch.size())));
      s.next_ids(part);
      record_writer& w = *r.writer;
      for (const std::uint64_t id : part) {
        if (w.kind() == format::text) {
          w.line(s.to_text(id));
          continue;
        }
        w.begin();
        w.str("id", std::to_string(id));
        w.str("text", s.to_text(id));
        w.end();
      }
      w.flush(c);
      left -= part.size();
    }
  } catch (const flakeid::registry_error& e) {
    rethrow_registry(e);
  }
  return exit_ok;
}
#else
int run_gen_config(const context&, const arguments&, gen_request&) {
  fail(
      "flakeid gen: this flakeid was built without the registry (it needs POSIX), so --config "
      "is not available");
}
#endif

}  // namespace flakeid_cli
