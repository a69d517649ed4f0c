// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file flakeid.hpp
/// The umbrella header: everything in flakeid's core, with its two stores, `memory_store` and
/// `file_store`, and the worker-id sources `fixed_node`, `env_worker_id`,
/// `statefulset_ordinal`, `private_ipv4_node`, `host_pid_guess`, `lease` and
/// `clock_guard_file`. The other four stores have their own headers and CMake targets:
/// `redis_store` (adapters/redis.hpp, `flakeid::redis`), `postgres_store` (adapters/postgres.hpp,
/// `flakeid::postgres`), `mysql_store` with the worker-id source `mysql_worker_node`
/// (adapters/mysql.hpp, `flakeid::mysql`) and `zookeeper_store` with `zookeeper_leaf_worker`
/// (adapters/zookeeper.hpp, `flakeid::zookeeper`).
///
/// On Windows it brings the portable core: layouts, codec, text, SQL, clocks, generators, the
/// back-fill minter, segment generators with the memory store's counters, and the worker-id
/// sources `fixed_node` and `env_worker_id`. Leases (the memory store's too), the clock guard,
/// the file store and the host-derived worker ids (`statefulset_ordinal`, `private_ipv4_node`,
/// `host_pid_guess`) are POSIX only.

#include "backfill.hpp"
#include "clock.hpp"
#include "errors.hpp"
#include "format.hpp"
#include "layout.hpp"
#include "layout_spec.hpp"
#include "layouts.hpp"
#include "policies.hpp"
#include "segment.hpp"
#include "snowflake.hpp"
#include "sql.hpp"
#include "store/memory.hpp"
#include "striped.hpp"
#include "text.hpp"
#include "text_converter.hpp"
#include "tsc_clock.hpp"
#include "version.hpp"
#include "worker_id.hpp"

#if !defined(_WIN32)
#include "clock_guard.hpp"
#include "host_worker_id.hpp"
#include "lease.hpp"
#include "store/file.hpp"
#include "store/memory_lease.hpp"
#endif
