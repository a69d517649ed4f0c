#pragma once
/// \file flakeid.hpp
/// The umbrella header: everything in flakeid's core (the adapters for Redis and PostgreSQL
/// have their own headers and targets).

#include "errors.hpp"
#include "layout.hpp"
#include "layouts.hpp"
#include "text.hpp"
#include "format.hpp"
#include "layout_spec.hpp"
