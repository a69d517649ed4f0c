// Fuzz target: the registry's JSON reader (include/flakeid/registry/json.hpp). Arbitrary text
// either throws json_parse_error at a byte inside the text or one past its end, or gives a value
// whose compact text reads back to the same value (the same text again), with every string and
// key as read.
#include <cstddef>
#include <cstdint>
#include <flakeid/registry/json.hpp>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"

namespace {

using flakeid::detail::json_value;

bool same(const json_value& a, const json_value& b) {
  if (a.type() != b.type() || a.text() != b.text() || a.keys() != b.keys() ||
      a.values().size() != b.values().size())
    return false;
  for (std::size_t i = 0; i < a.values().size(); ++i)
    if (!same(a.values()[i], b.values()[i])) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const json_value v = json_value::parse(text);
    const std::string dumped = v.dump();
    const json_value again = json_value::parse(dumped);
    FLAKEID_FUZZ_CHECK(same(v, again));
    FLAKEID_FUZZ_CHECK(again.dump() == dumped);
  } catch (const flakeid::detail::json_parse_error& e) {
    FLAKEID_FUZZ_CHECK(e.byte() >= 1 && e.byte() <= size + 1);
  }
  return 0;
}
