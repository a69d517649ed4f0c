#pragma once
// eventually: polls a condition until it holds or a bound passes. The bound only ends a broken
// run (a test never asserts how soon the condition came), so a slow machine waits longer and
// passes the same.

#include <chrono>
#include <thread>

namespace flakeid_test {

/// Polls `pred` every `every` until it holds or `limit` has passed; then its last answer.
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit = std::chrono::seconds{30},
                std::chrono::milliseconds every = std::chrono::milliseconds{1}) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(every);
  }
  return pred();
}

}  // namespace flakeid_test
