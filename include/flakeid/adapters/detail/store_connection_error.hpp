// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/detail/store_connection_error.hpp
/// Internal: the error the adapters' connections throw, before each adapter wraps it into its
/// own public error type (`lease_store_error`, `segment_store_error`).

#include <stdexcept>

namespace flakeid::detail {

/// A store connection failed: it could not connect, timed out, lost the connection, or the
/// server answered with an error. The message names the server and has no "flakeid: " prefix.
class store_connection_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace flakeid::detail
