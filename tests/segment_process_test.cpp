// Segment generators across processes through the file store: 40 forked processes drawing
// 100,000 IDs each, restarts after a process was killed with SIGKILL mid-run, and a pre-fork
// server whose children rebuild their generators.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <new>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <flakeid/segment.hpp>
#include <flakeid/store/file.hpp>

#include "adapters/segment_scenarios.hpp"
#include "fork_child.hpp"
#include "temp_dir.hpp"

using namespace std::chrono_literals;

namespace {

using flakeid_test::temp_dir;

constexpr int processes = 40;
constexpr std::size_t ids_per_process = 100'000;

/// A child's work: draws `ids_per_process` IDs from generator `Gen` on the file store and writes
/// them to `out`.
template <class Gen, class Options>
void draw_into(const std::filesystem::path& store_dir, const std::filesystem::path& out,
               Options opts) {
  flakeid::file_store store{store_dir};
  std::vector<std::uint64_t> ids(ids_per_process);
  {
    Gen gen{store.distributor("orders"), opts};
    for (std::size_t i = 0; i < ids.size(); i += 1000) {
      if (i % 2000 == 0) {
        gen.next_ids(std::span(ids).subspan(i, 1000));
      } else {
        for (std::size_t k = i; k < i + 1000; ++k) ids[k] = gen.next_id();
      }
    }
    gen.close();
  }
  std::ofstream f(out, std::ios::binary);
  f.write(reinterpret_cast<const char*>(ids.data()),
          static_cast<std::streamsize>(ids.size() * sizeof(std::uint64_t)));
  if (!f) throw std::runtime_error("cannot write " + out.string());
}

/// Forks `processes` children running `Gen`, then checks every process's IDs are strictly
/// increasing and all are distinct. Returns the counter's final value.
template <class Gen, class Options>
std::uint64_t run_forked(const temp_dir& dir, Options opts) {
  expect_children_exit_cleanly(fork_children(processes, [&](int p) {
    draw_into<Gen>(dir.path / "store", dir.path / ("ids." + std::to_string(p)), opts);
  }));
  std::vector<std::uint64_t> all;
  all.reserve(std::size_t{processes} * ids_per_process);
  for (int p = 0; p < processes; ++p) {
    std::ifstream f(dir.path / ("ids." + std::to_string(p)), std::ios::binary);
    std::vector<std::uint64_t> ids(ids_per_process);
    f.read(reinterpret_cast<char*>(ids.data()),
           static_cast<std::streamsize>(ids.size() * sizeof(std::uint64_t)));
    EXPECT_TRUE(f) << "process " << p << " wrote no IDs";
    EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()) &&
                std::adjacent_find(ids.begin(), ids.end()) == ids.end())
        << "process " << p << "'s IDs are not strictly increasing";
    all.insert(all.end(), ids.begin(), ids.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "an ID was handed out twice";
  EXPECT_EQ(all.size(), std::size_t{processes} * ids_per_process);
  return flakeid::file_store{dir.path / "store"}.current("orders");
}

/// What a child killed mid-run handed out, in memory shared with the parent.
struct shared_log {
  static constexpr std::size_t capacity = 1'000'000;
  std::atomic<std::uint64_t> count;
  std::uint64_t ids[capacity];
};

}  // namespace

TEST(segment_process_test, forty_processes_on_a_chain_one_store_call_per_segment) {
  temp_dir dir("seg_chain");
  constexpr std::uint64_t step = 1000;
  const std::uint64_t final_max =
      run_forked<flakeid::segment_chain_generator<flakeid::file_distributor>>(
          dir, flakeid::segment_chain_options{
                   .segment = {.step = step}, .min_ahead = 2, .max_ahead = 8});
  // The counter advanced by `step` per store call: count them.
  const std::uint64_t calls = final_max / step;
  RecordProperty("store_calls", std::to_string(calls));
  const std::uint64_t segments_used = std::uint64_t{processes} * ids_per_process / step;  // 4000
  EXPECT_GE(calls, segments_used);
  // Besides one call per segment used, each process may leave its prefetched chain unused.
  EXPECT_LE(calls, segments_used + std::uint64_t{processes} * (8 + 2))
      << "more than one store call per segment";
}

TEST(segment_process_test, forty_processes_on_a_segment_generator) {
  temp_dir dir("seg_plain");
  constexpr std::uint64_t step = 2500;
  const std::uint64_t final_max = run_forked<flakeid::segment_generator<flakeid::file_distributor>>(
      dir, flakeid::segment_options{.step = step});
  EXPECT_EQ(final_max / step,
            std::uint64_t{processes} * ids_per_process / step);  // no segment wasted
}

TEST(segment_process_test, restart_after_sigkill_never_repeats_a_number) {
  temp_dir dir("seg_crash");
  void* mem = ::mmap(nullptr, sizeof(shared_log), PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  auto* log = new (mem) shared_log;
  std::vector<std::uint64_t> handed_out;

  // Three runs killed at different points, each with a different generator, then a clean one.
  const std::size_t kill_after[] = {20'000, 75'000, 40'000};
  for (int run = 0; run < 3; ++run) {
    log->count.store(0);
    child_process child([&](child_pipe) {
      flakeid::file_store store{dir.path};
      auto draw = [&](auto& gen) {
        for (std::uint64_t c = 0;; ++c) {
          if (c == shared_log::capacity) {
            for (;;) ::pause();
          }
          log->ids[c] = gen.next_id();
          log->count.store(c + 1, std::memory_order_release);
        }
      };
      if (run == 1) {
        flakeid::segment_generator<flakeid::file_distributor> gen{store.distributor("orders"), 300};
        draw(gen);
      } else {
        flakeid::segment_chain_generator<flakeid::file_distributor> gen{
            store.distributor("orders"),
            {.segment = {.step = 500}, .min_ahead = 2, .max_ahead = 16}};
        draw(gen);
      }
    });
    const auto deadline = std::chrono::steady_clock::now() + 120s;
    while (log->count.load(std::memory_order_acquire) < kill_after[run] &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(1ms);
    child.signal(SIGKILL);
    const int status = child.wait();
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;
    const std::uint64_t n = log->count.load(std::memory_order_acquire);
    ASSERT_GE(n, kill_after[run]) << "run " << run << " was too slow";
    // Everything the dead process handed out lies below what the store has on disk.
    const std::uint64_t on_disk = flakeid::file_store{dir.path}.current("orders");
    const std::uint64_t before =
        handed_out.empty() ? 0 : *std::max_element(handed_out.begin(), handed_out.end());
    for (std::uint64_t i = 0; i < n; ++i) {
      ASSERT_LE(log->ids[i], on_disk);
      ASSERT_GT(log->ids[i], before) << "run " << run << " repeated a number of an earlier run";
      handed_out.push_back(log->ids[i]);
    }
  }
  ::munmap(mem, sizeof(shared_log));

  // A new process (here: this one) goes on above every number handed out before the crashes.
  flakeid::file_store store{dir.path};
  flakeid::segment_chain_generator<flakeid::file_distributor> gen{store.distributor("orders"),
                                                                  {.segment = {.step = 500}}};
  flakeid_test::expect_goes_on_above(gen, handed_out);
}

// A pre-fork server: the parent keeps drawing from a chain and a plain generator on the file
// store (in two threads, so that its engine's lock, its worker's store call and the counter
// file's flock are taken at any moment), and forks children one after another. Each child's
// inherited generators refuse at once; the child rebuilds its own and draws; no child waits on a
// lock its copy of the parent holds, and no ID is handed out twice.
TEST(segment_process_test, pre_fork_server_forked_child_rebuilds_and_never_repeats_an_id) {
  temp_dir dir("seg_prefork");
  flakeid::file_store store{dir.path};
  flakeid::segment_chain_generator<flakeid::file_distributor> chain{
      store.distributor("orders"), {.segment = {.step = 100}, .min_ahead = 2, .max_ahead = 8}};
  flakeid::segment_generator<flakeid::file_distributor> plain{store.distributor("orders"), 50};
  std::atomic<bool> stop{false};
  std::vector<std::uint64_t> parent_chain;
  std::vector<std::uint64_t> parent_plain;
  // The parent's threads rest a moment every 8 IDs: a file lock is not fair, and two threads
  // that ask for it again at once could keep a child away from it for as long as they run.
  // They still take it several times a millisecond.
  const auto paced = [&](auto& gen, std::vector<std::uint64_t>& out) {
    while (!stop.load()) {
      out.push_back(gen.next_id());
      if (out.size() % 8 == 0) std::this_thread::sleep_for(50us);
    }
  };
  std::thread a([&] { paced(chain, parent_chain); });
  std::thread b([&] { paced(plain, parent_plain); });
  std::vector<std::uint64_t> children;
  for (int i = 0; i < 8; ++i) {
    const forked_child_result r = run_in_forked_child([&] {
      std::string refused;
      try {
        (void)chain.next_id();
      } catch (const flakeid::forked_process_error&) {
        refused += "chain;";
      }
      try {
        (void)plain.next_id();
      } catch (const flakeid::forked_process_error&) {
        refused += "plain;";
      }
      flakeid::segment_chain_generator<flakeid::file_distributor> own{
          store.distributor("orders"), {.segment = {.step = 100}, .min_ahead = 2, .max_ahead = 8}};
      std::vector<std::uint64_t> ids(2000);
      own.next_ids(ids);
      return refused + '\n' + bytes_of(ids);
    });
    EXPECT_FALSE(r.hung) << "child " << i << " never finished; its threads:\n" << r.waits;
    EXPECT_TRUE(r.exited_with(0)) << r.text;
    const auto nl = r.text.find('\n');
    if (nl == std::string::npos) {
      ADD_FAILURE() << "child " << i << " reported nothing: " << r.text;
      continue;  // the parent's threads are joined below
    }
    EXPECT_EQ(r.text.substr(0, nl), "chain;plain;") << "child " << i;
    const std::vector<std::uint64_t> ids = ids_of(r.text.substr(nl + 1));
    EXPECT_EQ(ids.size(), 2000U);
    children.insert(children.end(), ids.begin(), ids.end());
  }
  stop.store(true);
  a.join();
  b.join();
  std::vector<std::uint64_t> all = children;
  all.insert(all.end(), parent_chain.begin(), parent_chain.end());
  all.insert(all.end(), parent_plain.begin(), parent_plain.end());
  std::sort(all.begin(), all.end());
  const auto repeated = static_cast<std::size_t>(
      all.size() - static_cast<std::size_t>(std::unique(all.begin(), all.end()) - all.begin()));
  EXPECT_EQ(repeated, 0U) << "IDs handed out twice";
}
