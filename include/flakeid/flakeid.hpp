// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file flakeid.hpp
/// The umbrella header: everything in flakeid's core (the adapters for Redis and PostgreSQL
/// have their own headers and targets).

#include "clock.hpp"
#include "clock_guard.hpp"
#include "errors.hpp"
#include "file_lease.hpp"
#include "format.hpp"
#include "layout.hpp"
#include "layout_spec.hpp"
#include "layouts.hpp"
#include "lease.hpp"
#include "policies.hpp"
#include "segment.hpp"
#include "segment_stores.hpp"
#include "snowflake.hpp"
#include "sql.hpp"
#include "striped.hpp"
#include "text.hpp"
#include "tsc_clock.hpp"
#include "worker_id.hpp"
