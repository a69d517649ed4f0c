// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/postgres_lease.hpp
/// Forwarding header, kept for one release: `postgres_lease` is now in `adapters/postgres.hpp` (`postgres_store`, whose `.lease()` makes the same lease).

#include "postgres.hpp"
