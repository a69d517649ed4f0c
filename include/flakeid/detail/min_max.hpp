// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file detail/min_max.hpp
/// `std::min` and `std::max` of two values, for headers on the generator's path that should not
/// pull in `<algorithm>`.

#include "../version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {
namespace detail {

/// `std::min` and `std::max` of two values, without `<algorithm>` on the generator's path.
template <class T>
[[nodiscard]] constexpr T smaller(T a, T b) noexcept {
  return b < a ? b : a;
}
template <class T>
[[nodiscard]] constexpr T larger(T a, T b) noexcept {
  return a < b ? b : a;
}

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
