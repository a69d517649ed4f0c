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

#include "../fork_child.hpp"

namespace flakeid_test {

/// `Backend` as in segment_scenarios.hpp: `store(ns, timeout)` and `distributor_type`.
template <class Backend>
void forked_child_distributor_refuses_and_leaves_the_parents_connection(
    Backend& b, const std::string& ns, const std::string& what = "flakeid: this connection to ") {
  auto store = b.store(ns, std::chrono::milliseconds{5000});
  std::optional<typename Backend::distributor_type> d{store.distributor("orders")};
  const std::uint64_t first = d->next_max_id(100);  // opens the parent's connection
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
  EXPECT_TRUE(r.exited_with(0)) << r.text;
  const std::string where = r.text.substr(0, r.text.find(" was made"));
  EXPECT_EQ(r.text, where +
                        " was made before fork() and belongs to the parent process: "
                        "rebuild it in the child");
  EXPECT_EQ(where.rfind(what, 0), 0U) << where;
  // The parent's connection is untouched: the next range follows at once, on the same socket.
  std::uint64_t next = 0;
  EXPECT_NO_THROW(next = d->next_max_id(100));
  EXPECT_EQ(next, first + 100);
}

}  // namespace flakeid_test
