// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file detail/lease_skew.hpp
/// How a lease compares its clock with its store's (`lease_options::max_skew`): one reading of
/// the store's clock between two readings of this one, and what they show.

#include <chrono>
#include <string>

#include "../lease_store.hpp"
#include "../version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {
namespace detail {

/// This clock read before (`before`) and after (`after`) the store read its own (`store`).
struct skew_reading {
  lease_time before{};
  lease_time store{};
  lease_time after{};
};

/// What a `skew_reading` shows against a largest skew `m`.
enum class skew_verdict {
  within,  ///< both readings lie within `m` of the store's: so did this clock when the store read
  ahead,   ///< even the first reading lies more than `m` ahead of the store's
  behind,  ///< even the last reading lies more than `m` behind the store's
  unsure,  ///< neither: the readings lie too far apart (a slow answer, a pause, a step between)
};

/// Judges `r` against `m` (at least 0). While this clock runs forward, it read the store's
/// moment as something in `[before, after]`; `within` says that whole span lies in
/// `[store - m, store + m]`.
[[nodiscard]] constexpr skew_verdict judge_skew(const skew_reading& r,
                                                std::chrono::milliseconds m) noexcept {
  if (r.before - r.store > m) return skew_verdict::ahead;
  if (r.store - r.after > m) return skew_verdict::behind;
  if (r.after >= r.before && r.store - r.before <= m && r.after - r.store <= m)
    return skew_verdict::within;
  return skew_verdict::unsure;
}

/// This clock minus the store's, at the midpoint of this clock's two readings.
[[nodiscard]] constexpr std::chrono::milliseconds skew_of(const skew_reading& r) noexcept {
  return r.before + (r.after - r.before) / 2 - r.store;
}

/// The largest skew a lease with options `o` accepts: `o.max_skew`, by default (0)
/// `safe_guard / 2`; `milliseconds::max()` when it compares nothing (`skew_unchecked`, or a
/// default under 1 ms: a `safe_guard` that small says the clocks agree exactly).
[[nodiscard]] inline std::chrono::milliseconds max_skew_of(const lease_options& o) noexcept {
  if (o.max_skew.count() > 0) return o.max_skew;
  const std::chrono::milliseconds half = o.safe_guard / 2;
  return half.count() > 0 ? half : lease_options::skew_unchecked;
}

/// The message of a `clock_skew_error` for reading `r`, judged `v` (not `within`) against `m`,
/// on the store `where`.
inline std::string skew_message(const skew_reading& r, skew_verdict v, std::chrono::milliseconds m,
                                const std::string& where) {
  const std::string limit = "; a lease accepts at most " + std::to_string(m.count()) +
                            " ms either way (max_skew, by default safe_guard / 2)";
  if (v == skew_verdict::unsure)
    return "flakeid: this clock could not be compared with the clock of " + where +
           ": its readings before and after the store's lie " +
           std::to_string((r.after - r.before).count()) + " ms apart" + limit +
           ", so the store must answer within twice that (a slow answer, or this process paused)";
  const std::chrono::milliseconds skew = skew_of(r);
  return "flakeid: this clock is " +
         std::to_string((v == skew_verdict::ahead ? skew : -skew).count()) + " ms " +
         (v == skew_verdict::ahead ? "ahead of" : "behind") + " the clock of " + where +
         " (Unix ms " + std::to_string(unix_ms_of(r.store)) + " there)" + limit +
         ": set this host's clock right (NTP) or raise safe_guard";
}

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
