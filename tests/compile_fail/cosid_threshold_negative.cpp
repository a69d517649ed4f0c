// expect: narrow
#include <flakeid/snowflake.hpp>

// CosId takes a negative threshold as 0 (a restart every tick); flakeid's threshold is
// unsigned, so a negative value copied from a CosId setting does not compile: write 0.
[[maybe_unused]] flakeid::cosid_threshold<0>* control = nullptr;
[[maybe_unused]] flakeid::cosid_threshold<-1>* copied = nullptr;
