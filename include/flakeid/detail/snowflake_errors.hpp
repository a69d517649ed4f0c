// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file detail/snowflake_errors.hpp
/// The errors `basic_snowflake` throws for a clock gone back and a lease fence that is down, and
/// the fence of a generator that needs none. The messages are written with `snprintf` into a
/// buffer (`std::string` arithmetic here would be compiled into every generator), and the
/// functions are kept out of line (they never return), so the generator's fast path stays small.

#include <chrono>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "../errors.hpp"
#include "../version.hpp"
#include "../worker_id.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {
namespace detail {

/// Throws `clock_backwards_error` for a step back of `step_ms` past what the policy tolerates
/// (`bound_ms`; 0: none).
[[noreturn]] FLAKEID_NOINLINE inline void throw_backwards(std::int64_t step_ms,
                                                          std::int64_t bound_ms) {
  char msg[160];
  if (bound_ms > 0)
    (void)std::snprintf(msg, sizeof msg,
                        "flakeid: clock moved back by %lld ms; the policy tolerates up to %lld ms",
                        static_cast<long long>(step_ms), static_cast<long long>(bound_ms));
  else
    (void)std::snprintf(msg, sizeof msg,
                        "flakeid: clock moved back by %lld ms; the policy tolerates no step back",
                        static_cast<long long>(step_ms));
  throw clock_backwards_error(msg, std::chrono::milliseconds{step_ms});
}
/// Throws `lease_lost_error` for an ID of timestamp `ts_ms` past the fence's deadline
/// (`INT64_MIN`: the fence is down).
[[noreturn]] FLAKEID_NOINLINE inline void throw_lease_lost(std::int64_t ts_ms,
                                                           std::int64_t deadline_ms) {
  char msg[256];
  const int n = std::snprintf(
      msg, sizeof msg, "flakeid: the worker-id lease does not cover timestamp %lld (Unix ms): ",
      static_cast<long long>(ts_ms));
  const std::size_t at = n > 0 ? static_cast<std::size_t>(n) : 0;
  if (deadline_ms == INT64_MIN)
    (void)std::snprintf(msg + at, sizeof msg - at, "%s",
                        "the lease was released or lost, or this is a forked child; take a new "
                        "lease");
  else
    (void)std::snprintf(msg + at, sizeof msg - at,
                        "it holds until %lld and its renewal is not confirmed; minting stops "
                        "until it is",
                        static_cast<long long>(deadline_ms));
  throw lease_lost_error(msg);
}
/// The fence of a generator that needs none: no deadline.
inline const lease_fence& no_fence() noexcept {
  static const lease_fence f;
  return f;
}

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
