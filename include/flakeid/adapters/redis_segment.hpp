// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/redis_segment.hpp
/// Forwarding header, kept for one release: `redis_segment_store` (now `redis_store`) and `redis_distributor` are now in `adapters/redis.hpp` (leases and segments of one server).

#include "redis.hpp"
