// Fuzz target: the text decoders (text.hpp). Arbitrary text given to from_radix62,
// from_radix36, from_crockford32 and from_friendly (every preset, UTC offsets in and out of
// range; also layouts with any epoch and tick) either throws invalid_id_error (std::invalid_argument for an offset past ±18 h) or gives
// an ID whose encoding is the canonical form of the text; and an arbitrary ID encodes to text
// that decodes back to it.
//
// Input: a selector byte, a layout byte, a 2-byte UTC offset, an 8-byte ID, an 8-byte epoch and a
// 4-byte tick (for the layouts built here rather than taken from the presets), then the text.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <flakeid/flakeid.hpp>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"

namespace {

using namespace std::chrono;
using flakeid::field_kind;

// ---- radix 62 and 36 ----------------------------------------------------------------------------

// Canonical radix text: without its leading zeros ("0" for zero).
std::string_view strip_zeros(std::string_view s) {
  while (s.size() > 1 && s.front() == '0') s.remove_prefix(1);
  return s;
}

template <class Decode, class Encode>
void check_radix(std::string_view text, std::uint64_t id, std::size_t width, Decode decode,
                 Encode encode) {
  try {
    const std::uint64_t v = decode(text);
    FLAKEID_FUZZ_CHECK(!text.empty() && text.size() <= width);
    FLAKEID_FUZZ_CHECK(encode(v, flakeid::radix_padding::none) == strip_zeros(text));
    const std::string padded = encode(v, flakeid::radix_padding::full);
    FLAKEID_FUZZ_CHECK(padded.size() == width);
    if (text.size() == width) FLAKEID_FUZZ_CHECK(padded == text);
    FLAKEID_FUZZ_CHECK(decode(padded) == v);
  } catch (const flakeid::invalid_id_error&) {
  }
  const std::string plain = encode(id, flakeid::radix_padding::none);
  const std::string padded = encode(id, flakeid::radix_padding::full);
  FLAKEID_FUZZ_CHECK(decode(plain) == id);
  FLAKEID_FUZZ_CHECK(decode(padded) == id);
  FLAKEID_FUZZ_CHECK(padded.size() == width && strip_zeros(padded) == plain);
}

// ---- Crockford base32 ---------------------------------------------------------------------------

// Canonical Crockford text: upper case, O written 0, I and L written 1.
std::string crockford_canonical(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    if (c == 'O') c = '0';
    if (c == 'I' || c == 'L') c = '1';
  }
  return out;
}

void check_crockford(std::string_view text, std::uint64_t id) {
  try {
    const std::uint64_t v = flakeid::from_crockford32(text);
    FLAKEID_FUZZ_CHECK(flakeid::to_crockford32(v) == crockford_canonical(text));
  } catch (const flakeid::invalid_id_error&) {
  }
  const std::string s = flakeid::to_crockford32(id);
  FLAKEID_FUZZ_CHECK(s.size() == flakeid::crockford32_width);
  FLAKEID_FUZZ_CHECK(flakeid::from_crockford32(s) == id);
  // Text order is ID order.
  const std::uint64_t next = id + 1;
  if (next != 0) FLAKEID_FUZZ_CHECK(s < flakeid::to_crockford32(next));
}

// ---- friendly form ------------------------------------------------------------------------------

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

unsigned digits_at(std::string_view s, std::size_t pos, std::size_t n) {
  unsigned v = 0;
  for (std::size_t i = 0; i < n; ++i) v = v * 10 + static_cast<unsigned>(s[pos + i] - '0');
  return v;
}

// The canonical friendly text of accepted `text`, worked out here from std::chrono alone: the
// time floored to the start of its tick and written again, each number without leading zeros.
std::string friendly_canonical(const flakeid::layout& l, std::string_view text,
                               std::int64_t offset_min) {
  const std::size_t dash = text.find('-');
  const std::string_view time_text = text.substr(0, dash);
  const bool millis = time_text.size() == 17;
  const year_month_day ymd{year{static_cast<int>(digits_at(time_text, 0, 4))},
                           month{digits_at(time_text, 4, 2)}, day{digits_at(time_text, 6, 2)}};
  FLAKEID_FUZZ_CHECK(ymd.ok());
  const auto local = sys_days{ymd} + hours{digits_at(time_text, 8, 2)} +
                     minutes{digits_at(time_text, 10, 2)} + seconds{digits_at(time_text, 12, 2)} +
                     milliseconds{millis ? digits_at(time_text, 14, 3) : 0};
  const std::int64_t unix_ms = local.time_since_epoch().count() - offset_min * 60'000;
  FLAKEID_FUZZ_CHECK(unix_ms >= l.epoch_ms);
  const std::int64_t floored =
      l.epoch_ms + (unix_ms - l.epoch_ms) / l.tick_ms * l.tick_ms + offset_min * 60'000;
  const sys_time<milliseconds> t{milliseconds{floored}};
  const auto day_start = floor<days>(t);
  const year_month_day d{day_start};
  const hh_mm_ss<milliseconds> hms{t - day_start};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d%02u%02u%02lld%02lld%02lld", static_cast<int>(d.year()),
                static_cast<unsigned>(d.month()), static_cast<unsigned>(d.day()),
                static_cast<long long>(hms.hours().count()),
                static_cast<long long>(hms.minutes().count()),
                static_cast<long long>(hms.seconds().count()));
  std::string out = buf;
  if (millis) {
    std::snprintf(buf, sizeof buf, "%03lld", static_cast<long long>(hms.subseconds().count()));
    out += buf;
  }
  for (std::size_t start = dash; start != std::string_view::npos;) {
    const std::size_t end = text.find('-', start + 1);
    const std::string_view part =
        text.substr(start + 1, end == std::string_view::npos ? end : end - start - 1);
    FLAKEID_FUZZ_CHECK(all_digits(part));
    out += '-';
    out += strip_zeros(part);
    start = end;
  }
  return out;
}

void check_friendly(const flakeid::layout& l, std::string_view text, std::uint64_t id,
                    std::int64_t offset_min) {
  const minutes offset{offset_min};
  const bool offset_ok = offset_min >= -1080 && offset_min <= 1080;
  try {
    const std::uint64_t v = flakeid::from_friendly(l, text, offset);
    FLAKEID_FUZZ_CHECK(offset_ok);
    FLAKEID_FUZZ_CHECK(l.is_valid(v));
    const std::string s = flakeid::to_friendly(l, v, offset);
    FLAKEID_FUZZ_CHECK(s == friendly_canonical(l, text, offset_min));
    FLAKEID_FUZZ_CHECK(flakeid::from_friendly(l, s, offset) == v);
  } catch (const flakeid::invalid_id_error&) {
    FLAKEID_FUZZ_CHECK(offset_ok);
  } catch (const std::invalid_argument&) {
    FLAKEID_FUZZ_CHECK(!offset_ok);
  }
  if (!offset_ok) return;
  // An ID of the layout: its friendly form reads back to it, unless its time (at the offset)
  // falls outside years 0000 to 9999.
  id &= ~l.reserved_mask();
  std::string s;
  try {
    s = flakeid::to_friendly(l, id, offset);
  } catch (const flakeid::timestamp_overflow_error&) {
    const auto local = l.decompose(id).timestamp + offset;
    const auto last = sys_days{year{9999} / December / 31} + days{1};
    FLAKEID_FUZZ_CHECK(local >= last || local < sys_days{year{0} / January / 1});
    return;
  }
  FLAKEID_FUZZ_CHECK(s.size() <= flakeid::friendly_max_size);
  FLAKEID_FUZZ_CHECK(flakeid::from_friendly(l, s, offset) == id);
}

// A layout for the friendly form: a preset (`pick` below 0x80), or one of a few field lists with
// an arbitrary epoch and tick (whole seconds half the time). Null when the layout is invalid.
std::optional<flakeid::layout> friendly_layout(std::uint8_t pick, std::uint64_t epoch,
                                               std::uint32_t tick) {
  if (pick < 0x80) {
    const auto names = flakeid::preset_names();
    return flakeid::layout_by_name(names[pick % names.size()]);
  }
  using flakeid::field;
  static constexpr field shapes[][5] = {
      {{field_kind::timestamp, 41},
       {field_kind::datacenter, 5},
       {field_kind::worker, 5},
       {field_kind::sequence, 12}},
      {{field_kind::timestamp, 31}, {field_kind::worker, 10}, {field_kind::sequence, 22}},
      {{field_kind::timestamp, 48}, {field_kind::sequence, 16}},
      {{field_kind::reserved, 1},
       {field_kind::timestamp, 20},
       {field_kind::worker, 20},
       {field_kind::sequence, 18},
       {field_kind::gene, 5}},
  };
  static constexpr std::size_t counts[] = {4, 3, 2, 5};
  const std::size_t shape = pick % 4;
  const std::int64_t epoch_ms = static_cast<std::int64_t>(epoch % 300'000'000'000'000);
  const std::int64_t tick_ms =
      (tick & 1) != 0 ? std::int64_t{1000} * ((tick >> 1) % 3600 + 1) : (tick >> 1) % 100'000 + 1;
  try {
    return flakeid::layout(std::span<const field>(shapes[shape], counts[shape]), epoch_ms,
                           milliseconds{tick_ms});
  } catch (const flakeid::invalid_layout_error&) {
    return std::nullopt;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  flakeid_fuzz::input in(data, size);
  const std::uint8_t which = in.byte();
  const std::uint8_t pick = in.byte();
  const auto raw_offset = static_cast<std::int16_t>(in.byte() | in.byte() << 8);
  const std::uint64_t id = in.u64();
  const std::uint64_t epoch = in.u64();
  const std::uint32_t tick = std::uint32_t{in.byte()} | std::uint32_t{in.byte()} << 8 |
                             std::uint32_t{in.byte()} << 16 | std::uint32_t{in.byte()} << 24;
  const std::size_t header = 24;
  const std::string_view text =
      size > header ? std::string_view(reinterpret_cast<const char*>(data + header), size - header)
                    : std::string_view{};
  switch (which % 4) {
    case 0:
      check_radix(
          text, id, flakeid::radix62_width, flakeid::from_radix62,
          [](std::uint64_t v, flakeid::radix_padding p) { return flakeid::to_radix62(v, p); });
      break;
    case 1:
      check_radix(
          text, id, flakeid::radix36_width, flakeid::from_radix36,
          [](std::uint64_t v, flakeid::radix_padding p) { return flakeid::to_radix36(v, p); });
      break;
    case 2: check_crockford(text, id); break;
    default: {
      const std::optional<flakeid::layout> l = friendly_layout(pick, epoch, tick);
      if (!l) break;
      // Mostly offsets in range (whole hours or any minute); sometimes anything.
      std::int64_t offset = raw_offset;
      if ((which & 0x80) == 0) offset %= 1081;
      if ((which & 0x40) != 0) offset = offset / 60 * 60;
      check_friendly(*l, text, id, offset);
      break;
    }
  }
  return 0;
}
