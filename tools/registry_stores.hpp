// The registry kinds of flakeid's programs (`flakeid gen --config`, flakeid-serve): the standard
// layouts and stores plus each server store the programs were built with, by the schemes of
// docs/registry.md. Defined once, in registry_stores.cpp (the static library
// flakeid_registry_stores): building every generator kind is the costly part to compile.
#pragma once

#include <flakeid/registry.hpp>

namespace flakeid_tools {

flakeid::registry_kinds program_registry_kinds();

}  // namespace flakeid_tools
