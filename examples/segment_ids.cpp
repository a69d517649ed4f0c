// Daily order numbers (20250318-0001) from a grouped segment counter, across midnight under a
// manual clock; then invoice numbers from a host-local file store, which a restart continues
// above everything the last run reserved.
#include <unistd.h>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include <flakeid/flakeid.hpp>

int main() {
  using namespace std::chrono;
  using namespace std::chrono_literals;

  // Order numbers restart at 1 every day (UTC+8 here), keyed orders@YYYYMMDD in the store.
  flakeid::manual_clock clock{sys_time<milliseconds>{sys_days{2025y / 3 / 18}} + 15h + 59min + 59s};
  flakeid::memory_store store;
  flakeid::grouped_segment_generator orders{
      store.distributor("orders"), flakeid::group_period::day, {.step = 50}, clock, 8h};
  std::puts("order numbers, day by day (UTC+8):");
  for (int i = 0; i < 3; ++i) std::printf("  %s\n", orders.next().to_string().c_str());
  clock.advance(1s);  // midnight in UTC+8
  for (int i = 0; i < 3; ++i) std::printf("  %s\n", orders.next().to_string().c_str());
  std::printf("  as one number: %llu\n", static_cast<unsigned long long>(orders.next().packed(4)));
  std::printf(
      "  store counters: orders@20250318 = %llu, orders@20250319 = %llu (reserved by segments)\n",
      static_cast<unsigned long long>(store.current("orders@20250318")),
      static_cast<unsigned long long>(store.current("orders@20250319")));

  // Invoice numbers from a file store: a second run picks up above the first run's segment.
  const auto dir = std::filesystem::temp_directory_path() /
                   ("flakeid_segment_ids_" + std::to_string(::getpid()));
  flakeid::file_store files{dir};
  for (int run = 1; run <= 2; ++run) {
    flakeid::segment_generator invoices{files.distributor("invoices"), {.step = 100}};
    std::printf("invoice numbers, run %d:", run);
    for (int i = 0; i < 4; ++i)
      std::printf(" INV-%06llu", static_cast<unsigned long long>(invoices.next_id()));
    std::puts("");
  }  // each run reserved a segment of 100 on disk; what it did not hand out is skipped
  std::printf("  counter file %s holds %llu\n",
              std::filesystem::path(files.distributor("invoices").path()).filename().c_str(),
              static_cast<unsigned long long>(files.current("invoices")));
  std::filesystem::remove_all(dir);
}
