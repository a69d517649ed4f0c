// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file file_lease.hpp
/// Forwarding header, kept for one release: `file_lease` and the file store's leases
/// are in `store/file.hpp`.

#include "store/file.hpp"
