// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file segment_stores.hpp
/// Forwarding header, kept for one release: the stores now have one home each,
/// `store/memory.hpp` (`memory_store`, formerly `memory_segment_store`) and `store/file.hpp`
/// (`file_store`; `file_segment_store` stays as the name of its segment-only form).

#include "store/memory.hpp"

#if defined(__unix__) || defined(__APPLE__)
#include "store/file.hpp"
#endif
