// Fuzz target: parse_layout (layout_spec.hpp) on arbitrary text. It either throws
// invalid_layout_error whose message quotes the spec, or gives a valid layout whose to_spec
// parses back to an equal layout (and writes the same spec again).
//
// Input: the spec text, as is.
#include <cstddef>
#include <cstdint>
#include <flakeid/flakeid.hpp>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"

namespace {

using flakeid::field_kind;

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

bool is_preset_name(std::string_view s) {
  for (const std::string_view name : flakeid::preset_names())
    if (name == s) return true;
  return false;
}

void check_layout(const flakeid::layout& l) {
  FLAKEID_FUZZ_CHECK(l.total_bits == 63 || l.total_bits == 64);
  FLAKEID_FUZZ_CHECK(l.has(field_kind::timestamp) && l.has(field_kind::sequence));
  FLAKEID_FUZZ_CHECK(l.tick_ms > 0 && l.epoch_ms >= 0);
  unsigned sum = 0;
  for (const flakeid::field f : l.fields()) sum += f.bits;
  FLAKEID_FUZZ_CHECK(sum == l.total_bits);
  FLAKEID_FUZZ_CHECK(l.expires_at() >= l.epoch());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view spec(reinterpret_cast<const char*>(data), size);
  flakeid::layout l = flakeid::layouts::twitter;
  try {
    l = flakeid::parse_layout(spec);
  } catch (const flakeid::invalid_layout_error& e) {
    const std::string_view what = e.what();
    const std::string_view name_prefix = "flakeid: unknown layout name ";
    const std::string_view spec_prefix = "flakeid: invalid layout spec \"";
    FLAKEID_FUZZ_CHECK(what.substr(0, spec_prefix.size()) == spec_prefix ||
                       what.substr(0, name_prefix.size()) == name_prefix);
    FLAKEID_FUZZ_CHECK(!is_preset_name(trimmed(spec)));
    return 0;
  }
  check_layout(l);
  if (is_preset_name(trimmed(spec)))
    FLAKEID_FUZZ_CHECK(l == flakeid::layout_by_name(trimmed(spec)));
  const std::string written = flakeid::to_spec(l);
  const flakeid::layout back = flakeid::parse_layout(written);
  FLAKEID_FUZZ_CHECK(back == l);
  FLAKEID_FUZZ_CHECK(flakeid::to_spec(back) == written);
  // The preset a spec names and the preset's own spec give the same layout.
  for (const std::string_view name : flakeid::preset_names())
    if (flakeid::layout_by_name(name) == l)
      FLAKEID_FUZZ_CHECK(to_spec(flakeid::layout_by_name(name)) == written);
  return 0;
}
