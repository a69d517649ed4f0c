// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/redis_lease.hpp
/// Forwarding header, kept for one release: `redis_lease` is now in `adapters/redis.hpp` (`redis_store`, whose `.lease()` makes the same lease).

#include "redis.hpp"
