// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
// A store connection in a forked child: the parent's distributor refuses there (it would talk
// over the parent's socket), and destroying it there says nothing to the server, so the
// parent's connection keeps working. Every test that uses this forks: `forked_child` in its
// name.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>

#include <flakeid/errors.hpp>

#include "../fork_child.hpp"

namespace flakeid_test {

/// `Backend` as in segment_scenarios.hpp: `store(ns, timeout)` and `distributor_type`.
/// What happened when a forked child used its parent's distributor.
struct fork_outcome {
  bool child_exited = false;  // the child finished (did not hang) with status 0
  std::string child_said;     // the error it got, or "handed out <n>"
  std::uint64_t first = 0;    // the parent's range before the fork
  std::uint64_t next = 0;     // the parent's next range after the child was done
  std::string parent_error;   // what the parent's next call threw, if anything
};

/// The expected refusal of the child, for a connection described as `what` ("this connection
/// to", "this session of") followed by its server.
inline bool is_fork_refusal(const std::string& text, const std::string& what) {
  const std::string tail =
      " was made before fork() and belongs to the parent process: rebuild it in the child";
  return text.rfind("flakeid: " + what + " ", 0) == 0 && text.size() > tail.size() &&
         text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

/// The parent takes a range of 100, forks; the child calls the same distributor and destroys
/// it; then the parent takes the next range on its own connection.
template <class Backend>
fork_outcome use_a_distributor_in_a_forked_child(Backend& b, const std::string& ns) {
  auto store = b.store(ns, std::chrono::milliseconds{5000});
  std::optional<typename Backend::distributor_type> d{store.distributor("orders")};
  fork_outcome o;
  o.first = d->next_max_id(100);  // opens the parent's connection
  const forked_child_result r = run_in_forked_child([&] {
    std::string out;
    try {
      out = "handed out " + std::to_string(d->next_max_id(100));
    } catch (const flakeid::forked_process_error& e) {
      out = e.what();
    } catch (const std::exception& e) {
      out = std::string("other: ") + e.what();
    }
    d.reset();  // the child's copy goes: no goodbye on the parent's socket
    return out;
  });
  o.child_exited = r.exited_with(0);
  o.child_said = r.text;
  try {
    o.next = d->next_max_id(100);
  } catch (const std::exception& e) {
    o.parent_error = e.what();
  }
  return o;
}

/// The scenario of every backend: the child is refused (its connection described as `what`,
/// "this connection to" or "this session of"), and the parent's connection is untouched: the
/// next range follows at once, on the same socket. Each test asserts its result:
/// `EXPECT_TRUE(forked_child_is_refused_and_the_parent_goes_on(b, ...))`.
template <class Backend>
::testing::AssertionResult forked_child_is_refused_and_the_parent_goes_on(Backend& b,
                                                                          const std::string& what) {
  const fork_outcome o = use_a_distributor_in_a_forked_child(b, "fork");
  if (!o.child_exited) return ::testing::AssertionFailure() << "the child failed: " << o.child_said;
  if (!is_fork_refusal(o.child_said, what))
    return ::testing::AssertionFailure() << "the child was not refused: " << o.child_said;
  if (!o.parent_error.empty())
    return ::testing::AssertionFailure() << "the parent's next call failed: " << o.parent_error;
  if (o.next != o.first + 100)
    return ::testing::AssertionFailure()
           << "the parent's next range ends at " << o.next << ", not " << o.first + 100;
  return ::testing::AssertionSuccess();
}

/// The scenario on a backend whose `connection_words` say how its refusal names the connection.
template <class Backend>
void forked_child_distributor_refuses(Backend& b) {
  EXPECT_TRUE(forked_child_is_refused_and_the_parent_goes_on(b, Backend::connection_words));
}

}  // namespace flakeid_test
