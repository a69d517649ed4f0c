// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file version.hpp
/// The version of these headers, the inline namespace that carries it, and the one attribute
/// macro the headers share (`FLAKEID_NOINLINE`).
///
///     #if FLAKEID_VERSION >= 100  // 0.1.0 or later
///
/// Every flakeid name is declared in `flakeid::FLAKEID_ABI_NAMESPACE` (`flakeid::v0_1`), an
/// inline namespace, and used as `flakeid::name`. Two parts of one program built with versions
/// whose ABI differs then name different functions and types, and fail to link instead of
/// silently mixing two definitions of one inline function. Until 1.0 the namespace changes with
/// the minor version, from 1.0 on with the major version. CMake checks at configure time that
/// these numbers are `project(flakeid VERSION ...)`'s.

#include <string_view>

#define FLAKEID_VERSION_MAJOR 0
#define FLAKEID_VERSION_MINOR 1
#define FLAKEID_VERSION_PATCH 0
/// One number to compare: major * 10000 + minor * 100 + patch.
#define FLAKEID_VERSION \
  (FLAKEID_VERSION_MAJOR * 10000 + FLAKEID_VERSION_MINOR * 100 + FLAKEID_VERSION_PATCH)
/// The inline namespace of this version's ABI.
#define FLAKEID_ABI_NAMESPACE v0_1

/// Keeps a function out of line: a slow path (a new segment, a new thread block) or an error, so
/// that the fast path that calls it, inlined into the caller, stays a few instructions.
#if defined(__GNUC__) || defined(__clang__)
#define FLAKEID_NOINLINE __attribute__((noinline))
#elif defined(_MSC_VER)
#define FLAKEID_NOINLINE __declspec(noinline)
#else
#define FLAKEID_NOINLINE
#endif

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

/// The version of these headers as text, `"0.1.0"`.
inline constexpr std::string_view version = "0.1.0";

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
