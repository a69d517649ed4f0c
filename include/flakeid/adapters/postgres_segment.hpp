// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/postgres_segment.hpp
/// Forwarding header, kept for one release: `postgres_segment_store` (now `postgres_store`) and `postgres_distributor` are now in `adapters/postgres.hpp` (leases and segments of one database).

#include "postgres.hpp"
