// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file fmt.hpp
/// {fmt} formatters for flakeid's types: `fmt::format("{}", parts)` prints
/// `flakeid::to_string(parts)`, with a string's format spec (width, fill, alignment). Include
/// this header where you format with {fmt} (it includes `<fmt/format.h>`; link `fmt::fmt`, or
/// define `FMT_HEADER_ONLY`); the rest of flakeid does not depend on fmt. Needs fmt 9 or later.

#include <fmt/format.h>

#include <string>

#include "format.hpp"

#define FLAKEID_HAS_FMT 1

/// `fmt::format("{}", parts)`: the text of `flakeid::to_string(parts)`, with a string's spec.
template <>
struct fmt::formatter<flakeid::id_parts> : fmt::formatter<fmt::string_view> {
  template <class FormatContext>
  auto format(const flakeid::id_parts& p, FormatContext& ctx) const {
    const std::string s = flakeid::to_string(p);
    return fmt::formatter<fmt::string_view>::format(fmt::string_view(s.data(), s.size()), ctx);
  }
};
