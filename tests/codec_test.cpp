// The codec of flakeid::layout: compose / decompose round trips, range checks and their messages,
// reserved bits, time ranges for SQL, time_left, gene_of and shard_of.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <flakeid/flakeid.hpp>

#include "adapters/expect_error.hpp"

using namespace std::chrono;
using flakeid::field_kind;
using flakeid::id_parts;
namespace layouts = flakeid::layouts;
namespace fields = flakeid::fields;

namespace {

using time_point = flakeid::layout::time_point;

struct named_layout {
  std::string_view name;
  const flakeid::layout& layout;
};

/// Every preset of flakeid::layouts with its name (layout_spec_test checks that the names list
/// every preset).
std::vector<named_layout> all_presets() {
  std::vector<named_layout> out;
  for (const std::string_view name : flakeid::preset_names())
    out.push_back({name, flakeid::layout_by_name(name)});
  return out;
}

/// `f(l)` for every preset `l`, its name in the trace of what fails.
template <class F>
void for_every_preset(F f) {
  for (const named_layout& preset : all_presets()) {
    SCOPED_TRACE(preset.name);
    f(preset.layout);
  }
}

constexpr time_point utc(year_month_day day, hours h = hours{0}, minutes m = minutes{0},
                         seconds s = seconds{0}, milliseconds ms = milliseconds{0}) {
  return time_point{sys_days{day}} + h + m + s + ms;
}

using flakeid_test::expect_error;

/// Parts with every field the layout has set at random (fields it lacks stay 0), and the
/// timestamp matching the ticks, exactly as decompose returns them.
id_parts random_parts(const flakeid::layout& l, std::mt19937_64& rng) {
  id_parts p;
  p.ticks = rng() & l.max_value(field_kind::timestamp);
  p.timestamp = l.time_at(p.ticks);
  p.datacenter = rng() & l.max_value(field_kind::datacenter);
  p.worker = rng() & l.max_value(field_kind::worker);
  p.sequence = rng() & l.max_value(field_kind::sequence);
  p.gene = rng() & l.max_value(field_kind::gene);
  return p;
}

/// Parts with every field at its maximum.
id_parts max_parts(const flakeid::layout& l) {
  id_parts p;
  p.ticks = l.max_ticks();
  p.timestamp = l.time_at(p.ticks);
  p.datacenter = l.max_value(field_kind::datacenter);
  p.worker = l.max_value(field_kind::worker);
  p.sequence = l.max_value(field_kind::sequence);
  p.gene = l.max_value(field_kind::gene);
  return p;
}

// ---- round trips ------------------------------------------------------------------------------

TEST(codec_test, round_trips_random_parts_for_every_preset) {
  std::mt19937_64 rng(20240824);
  for_every_preset([&](const flakeid::layout& l) {
    for (int i = 0; i < 20000; ++i) {
      const id_parts p = random_parts(l, rng);
      const std::uint64_t id = l.compose(p);
      ASSERT_TRUE(l.is_valid(id)) << id;
      ASSERT_EQ(l.decompose(id), p) << id;
      ASSERT_EQ(l.decompose_unchecked(id), p) << id;
      // The time alone, or the ticks alone, give the same ID.
      id_parts by_ticks = p;
      by_ticks.timestamp = time_point{};
      ASSERT_EQ(l.compose(by_ticks), id);
      id_parts by_time = p;
      by_time.ticks = 0;
      by_time.timestamp += l.tick() - 1ms;  // any instant in the tick floors to it
      ASSERT_EQ(l.compose(by_time), id);
    }
  });
}

TEST(codec_test, round_trips_random_ids_for_every_preset) {
  std::mt19937_64 rng(7);
  for_every_preset([&](const flakeid::layout& l) {
    for (int i = 0; i < 20000; ++i) {
      const std::uint64_t id = rng() & l.max_id();
      ASSERT_EQ(l.compose(l.decompose(id)), id);
    }
    EXPECT_EQ(l.decompose(0), id_parts{l.epoch()});
    EXPECT_EQ(l.compose(l.decompose(0)), 0U);
    EXPECT_EQ(l.compose(max_parts(l)), l.max_id());
    EXPECT_EQ(l.decompose(l.max_id()), max_parts(l));
  });
}

TEST(codec_test, round_trips_layouts_with_unusual_field_order) {
  // Sequence above worker, the gene between them, a 10 ms tick; 63 bits.
  constexpr flakeid::layout odd{
      {fields::timestamp(40), fields::sequence(10), fields::gene(4), fields::worker(9)},
      1600000000000,
      10ms};
  static_assert(odd.shift(field_kind::sequence) == 13 && odd.shift(field_kind::gene) == 9 &&
                odd.shift(field_kind::worker) == 0 && odd.shift(field_kind::timestamp) == 23);
  // A reserved gap below the timestamp, the gene in the middle; 64 bits.
  constexpr flakeid::layout gap{{fields::timestamp(41), fields::reserved(2), fields::sequence(10),
                                 fields::gene(4), fields::worker(7)},
                                1600000000000};
  static_assert(gap.reserved_mask() == (std::uint64_t{3} << 21));
  static_assert(gap.time_ordered());
  // Worker above the timestamp: decodes fine, but IDs do not sort by time.
  constexpr flakeid::layout worker_first{
      {fields::worker(8), fields::timestamp(41), fields::gene(3), fields::sequence(12)},
      1600000000000};
  static_assert(!worker_first.time_ordered());

  std::mt19937_64 rng(42);
  for (const flakeid::layout* l : {&odd, &gap, &worker_first}) {
    for (int i = 0; i < 20000; ++i) {
      const id_parts p = random_parts(*l, rng);
      const std::uint64_t id = l->compose(p);
      ASSERT_EQ(l->decompose(id), p);
      ASSERT_EQ(l->compose(l->decompose(id)), id);
    }
  }
  // Field by field, hand-computed: ticks 5, sequence 3, gene 9, worker 300.
  EXPECT_EQ(odd.compose({time_point{}, 5, 0, 300, 3, 9}),
            (5ULL << 23) | (3 << 13) | (9 << 9) | 300);
  EXPECT_EQ(worker_first.compose({time_point{}, 5, 0, 200, 7, 6}),
            (200ULL << 56) | (5ULL << 15) | (6 << 12) | 7);
  EXPECT_EQ(gap.gene_of(gap.compose({time_point{}, 1, 0, 0, 0, 11})), 11U);
  EXPECT_FALSE(gap.is_valid(1ULL << 21));
}

/// `l.compose(parts)` throws `field_range_error` with message `what`.
void expect_compose_error(const flakeid::layout& l, const flakeid::id_parts& parts,
                          std::string_view what) {
  expect_error<flakeid::field_range_error>([&] { (void)l.compose(parts); }, what);
}

// ---- compose: range checks --------------------------------------------------------------------

TEST(codec_test, compose_rejects_parts_that_do_not_fit_with_exact_messages) {
  constexpr auto& t = layouts::twitter;
  expect_compose_error(t, {time_point{}, 1, 0, 32, 0, 0},
                       "flakeid: worker 32 is out of range [0, 31] for a 5-bit field");
  expect_compose_error(t, {time_point{}, 1, 32, 0, 0, 0},
                       "flakeid: datacenter 32 is out of range [0, 31] for a 5-bit field");
  expect_compose_error(t, {time_point{}, 1, 0, 0, 4096, 0},
                       "flakeid: sequence 4096 is out of range [0, 4095] for a 12-bit field");
  expect_compose_error(t, {time_point{}, 1, 0, 0, 0, 1},
                       "flakeid: gene 1 is out of range [0, 0]: the layout has no gene field");
  expect_compose_error(layouts::mastodon, {time_point{}, 1, 0, 7, 0, 0},
                       "flakeid: worker 7 is out of range [0, 0]: the layout has no worker field");
  expect_compose_error(layouts::sonyflake, {time_point{}, 1, 0, 65536, 0, 0},
                       "flakeid: worker 65536 is out of range [0, 65535] for a 16-bit field");
  expect_compose_error(layouts::seed_gene, {time_point{}, 1, 0, 0, 0, 32},
                       "flakeid: gene 32 is out of range [0, 31] for a 5-bit field");
  expect_compose_error(
      layouts::baidu, {time_point{}, 1, 0, 0, ~0ULL, 0},
      "flakeid: sequence 18446744073709551615 is out of range [0, 8191] for a 13-bit field");
  // Ticks past the field are a time past the layout's range.
  expect_error<flakeid::timestamp_overflow_error>(
      [&] {
        (void)t.compose({time_point{}, 1ULL << 41, 0, 0, 0, 0});
      },
      "flakeid: timestamp 2199023255552 ticks is out of range [0, 2199023255551]");
  // The largest values that fit are accepted.
  EXPECT_EQ(t.compose({time_point{}, (1ULL << 41) - 1, 31, 31, 4095, 0}), t.max_id());
}

TEST(codec_test, compose_rejects_one_past_every_field_of_every_preset) {
  for_every_preset([&](const flakeid::layout& l) {
    for (field_kind k :
         {field_kind::datacenter, field_kind::worker, field_kind::sequence, field_kind::gene}) {
      id_parts p = max_parts(l);
      EXPECT_NO_THROW((void)l.compose(p));
      std::uint64_t* field = k == field_kind::datacenter ? &p.datacenter
                             : k == field_kind::worker   ? &p.worker
                             : k == field_kind::sequence ? &p.sequence
                                                         : &p.gene;
      *field = l.max_value(k) + 1;
      const std::string expected =
          "flakeid: " + std::string(to_string(k)) + " " + std::to_string(*field) +
          " is out of range [0, " + std::to_string(l.max_value(k)) + "]" +
          (l.has(k) ? " for a " + std::to_string(l.bits(k)) + "-bit field"
                    : ": the layout has no " + std::string(to_string(k)) + " field");
      expect_error<flakeid::field_range_error>([&] { (void)l.compose(p); }, expected);
    }
    id_parts p = max_parts(l);
    p.timestamp = time_point{};
    p.ticks = l.max_ticks() + 1;
    EXPECT_THROW((void)l.compose(p), flakeid::timestamp_overflow_error);
  });
}

TEST(codec_test, compose_takes_time_from_ticks_or_timestamp_and_they_must_agree) {
  constexpr auto& s = layouts::sonyflake;  // 10 ms ticks
  const time_point t = utc(2022y / July / 19, 10h, 34min, 9s, 750ms);
  const std::uint64_t expected = 24869724975ULL << 24;
  EXPECT_EQ(s.compose({t, 0, 0, 0, 0, 0}), expected);                       // timestamp only
  EXPECT_EQ(s.compose({t + 9ms, 0, 0, 0, 0, 0}), expected);                 // floored to its tick
  EXPECT_EQ(s.compose({time_point{}, 24869724975, 0, 0, 0, 0}), expected);  // ticks only
  EXPECT_EQ(s.compose({t + 5ms, 24869724975, 0, 0, 0, 0}), expected);       // both, agreeing
  EXPECT_EQ(s.compose({t + 10ms, 0, 0, 0, 0, 0}), expected + (1ULL << 24));
  expect_error<std::invalid_argument>(
      [&] {
        (void)s.compose({t + 10ms, 24869724975, 0, 0, 0, 0});
      },
      "flakeid: id_parts disagree: ticks is 24869724975 but timestamp falls in tick 24869724976; "
      "set one of them, or both alike");
  // Neither set: the first tick.
  EXPECT_EQ(s.compose({}), 0U);
  // A timestamp set to the epoch itself with ticks 0 is tick 0.
  EXPECT_EQ(layouts::twitter.compose({layouts::twitter.epoch(), 0, 0, 0, 0, 0}), 0U);
  EXPECT_EQ(layouts::twitter.compose({layouts::twitter.epoch() + 5ms, 0, 0, 0, 0, 0}), 5ULL << 22);
}

// ---- decompose: reserved bits -----------------------------------------------------------------

TEST(codec_test, checked_decompose_rejects_reserved_bits) {
  constexpr auto& t = layouts::twitter;
  constexpr std::uint64_t bit63 = 1ULL << 63;
  static_assert(!t.is_valid(bit63) && t.is_valid(bit63 - 1));
  expect_error<flakeid::invalid_id_error>(
      [&] { (void)t.decompose(bit63 | 5); },
      "flakeid: ID 9223372036854775813 sets reserved bits (mask 9223372036854775808); this layout "
      "keeps them 0");
  // The unchecked form ignores the reserved bit and decodes the rest.
  EXPECT_EQ(t.decompose_unchecked(bit63 | 5), t.decompose(5));
  // The non-throwing form says no instead.
  static_assert(noexcept(t.try_decompose(bit63)));
  static_assert(!t.try_decompose(bit63 | 5).has_value());
  static_assert(t.try_decompose(5) == t.decompose(5));
  EXPECT_EQ(t.try_decompose(1741610183685046272U), t.decompose(1741610183685046272U));

  constexpr auto& js = layouts::cosid_js;  // 11 reserved high bits
  for (unsigned bit = 53; bit < 64; ++bit) {
    SCOPED_TRACE(bit);
    const std::uint64_t id = (1ULL << bit) | 12345;
    EXPECT_FALSE(js.is_valid(id));
    EXPECT_THROW((void)js.decompose(id), flakeid::invalid_id_error);
    EXPECT_NO_THROW((void)js.decompose_unchecked(id));
    EXPECT_EQ(js.decompose_unchecked(id), js.decompose(12345));
  }
  expect_error<flakeid::invalid_id_error>(
      [&] { (void)js.decompose(1ULL << 53); },
      "flakeid: ID 9007199254740992 sets reserved bits (mask 9007199254740992); this layout keeps "
      "them 0");
  EXPECT_NO_THROW((void)js.decompose((1ULL << 53) - 1));

  // Every bit is used in a 64-bit layout without a reserved field.
  for (std::uint64_t id : {~0ULL, 1ULL << 63}) {
    EXPECT_TRUE(layouts::discord.is_valid(id));
    EXPECT_NO_THROW((void)layouts::discord.decompose(id));
  }
  // The invalid_id_error is a std::invalid_argument.
  EXPECT_THROW((void)t.decompose(bit63), std::invalid_argument);
}

// ---- time ranges ------------------------------------------------------------------------------

/// Checks `id_range(from, to)` against every millisecond from `margin` before `from` to `margin`
/// after `to`: an ID minted at an instant inside `[from, to)` lies in the range, whatever its
/// other fields; one minted in a tick wholly outside `[from, to)` does not.
void expect_range_holds(const flakeid::layout& l, time_point from, time_point to,
                        milliseconds margin) {
  SCOPED_TRACE(flakeid::detail::format_utc(from) + " .. " + flakeid::detail::format_utc(to));
  const flakeid::id_bounds r = l.id_range(from, to);
  EXPECT_EQ(r.empty(), from == to);
  const id_parts most = max_parts(l);
  int inside = 0;
  int outside = 0;
  for (time_point t = from - margin; t < to + margin; t += 1ms) {
    const time_point tick_start = l.time_at(l.ticks_at(t));
    const time_point tick_end = tick_start + l.tick();
    const bool in = from <= t && t < to;
    const bool wholly_out = tick_end <= from || tick_start >= to;
    id_parts low{t};
    id_parts high = most;
    high.timestamp = t;
    high.ticks = 0;
    for (const id_parts& p : {low, high}) {
      const std::uint64_t id = l.compose(p);
      if (in && !r.contains(id))
        FAIL() << "ID " << id << " minted at " << flakeid::detail::format_utc(t)
               << " is missing from [" << r.lo << ", " << r.hi << ")";
      if (wholly_out && r.contains(id))
        FAIL() << "ID " << id << " minted at " << flakeid::detail::format_utc(t) << " lies in ["
               << r.lo << ", " << r.hi << ")";
    }
    inside += in;
    outside += wholly_out;
  }
  EXPECT_GT(outside, 0);
  if (from != to) {
    EXPECT_GT(inside, 0);
    EXPECT_EQ(r.lo, l.min_id_at(from));
    EXPECT_EQ(r.hi, l.max_id_at(to - 1ms) + 1);
  }
}

TEST(codec_test, id_range_holds_ids_minted_inside_for_1_ms_ticks) {
  constexpr auto& l = layouts::twitter;
  const time_point t = utc(2024y / January / 1);
  expect_range_holds(l, t, t + 1ms, 3ms);
  expect_range_holds(l, t, t + 7ms, 3ms);
  expect_range_holds(l, t + 2ms, t + 2ms, 3ms);
  expect_range_holds(layouts::cosid_js, t, t + 4ms, 3ms);
  expect_range_holds(layouts::discord, t + 1ms, t + 3ms, 3ms);
}

TEST(codec_test, id_range_holds_ids_minted_inside_for_10_ms_ticks) {
  constexpr auto& l = layouts::sonyflake;
  const time_point t = utc(2022y / July / 19, 10h, 34min, 9s, 750ms);  // a tick boundary
  expect_range_holds(l, t, t + 10ms, 25ms);                            // exactly one tick
  expect_range_holds(l, t + 3ms, t + 17ms, 25ms);                      // starts and ends mid-tick
  expect_range_holds(l, t + 9ms, t + 11ms, 25ms);                      // straddles a boundary
  expect_range_holds(l, t + 4ms, t + 4ms, 25ms);                       // empty
  expect_range_holds(l, t, t + 30ms, 25ms);
  // Mid-tick bounds widen to whole ticks.
  EXPECT_EQ(l.id_range(t + 3ms, t + 17ms),
            (flakeid::id_bounds{24869724975ULL << 24, 24869724977ULL << 24}));
}

TEST(codec_test, id_range_holds_ids_minted_inside_for_1_s_ticks) {
  const time_point c = utc(2022y / March / 20, 5h, 36min, 17s);  // a second after cosid's epoch
  expect_range_holds(layouts::cosid_seconds, c, c + 1s, 2500ms);
  expect_range_holds(layouts::cosid_seconds, c + 250ms, c + 1750ms, 2500ms);
  expect_range_holds(layouts::cosid_seconds, c + 999ms, c + 1001ms, 2500ms);
  const time_point b = utc(2019y / December / 31, 16h);  // 2020-01-01 00:00 at UTC+8
  expect_range_holds(layouts::baidu, b, b + 1s, 2500ms);
  expect_range_holds(layouts::baidu, b + 500ms, b + 2500ms, 2500ms);
  expect_range_holds(layouts::baidu, b + 1ms, b + 1ms, 2500ms);
}

TEST(codec_test, min_and_max_id_at_exact_values) {
  // Hand-computed: 2024-01-01T00:00Z is 415232225343 ms after Twitter's epoch.
  const time_point t = utc(2024y / January / 1);
  EXPECT_EQ(layouts::twitter.min_id_at(t), 1741610183685046272U);  // 415232225343 << 22
  EXPECT_EQ(layouts::twitter.max_id_at(t), 1741610183689240575U);  // ... | (2^22 - 1)
  // One day of Twitter IDs: [min_id_at(day), min_id_at(next day)).
  EXPECT_EQ(layouts::twitter.id_range(t, t + days{1}),
            (flakeid::id_bounds{1741610183685046272U, 1741972571550646272U}));
  // 10 ms ticks: any instant of a tick gives the same bounds.
  const time_point s = utc(2022y / July / 19, 10h, 34min, 9s, 757ms);
  EXPECT_EQ(layouts::sonyflake.min_id_at(s), 417244747766169600U);  // 24869724975 << 24
  EXPECT_EQ(layouts::sonyflake.max_id_at(s), 417244747782946815U);  // ... | (2^24 - 1)
  // 1 s ticks.
  const time_point c = utc(2022y / March / 20, 5h, 36min, 17s, 924ms);
  EXPECT_EQ(layouts::cosid_seconds.min_id_at(c), 303015856902766592U);  // 70551377 << 32
  EXPECT_EQ(layouts::cosid_seconds.max_id_at(c), 303015861197733887U);
  const time_point b = utc(2019y / December / 31, 16h) + 500ms;
  EXPECT_EQ(layouts::baidu.min_id_at(b), 3921628122788659200U);  // 114134400 << 35
  EXPECT_EQ(layouts::baidu.max_id_at(b), 3921628157148397567U);
  // Reserved high bits stay clear.
  EXPECT_EQ(layouts::cosid_js.min_id_at(c), 288978443976704U);  // 70551377924 << 12
  EXPECT_EQ(layouts::cosid_js.max_id_at(c), 288978443980799U);
  // Mastodon: the Unix milliseconds shifted by 16.
  const time_point m = utc(2019y / December / 8, 3h, 48min, 33s, 849ms);
  EXPECT_EQ(layouts::mastodon.min_id_at(m), 103270115826008064U);
  EXPECT_EQ(layouts::mastodon.max_id_at(m), 103270115826073599U);
  // The first and last instants of a layout.
  EXPECT_EQ(layouts::twitter.min_id_at(layouts::twitter.epoch()), 0U);
  EXPECT_EQ(layouts::twitter.max_id_at(layouts::twitter.expires_at()), layouts::twitter.max_id());
  EXPECT_EQ(
      layouts::twitter.id_range(layouts::twitter.expires_at(), layouts::twitter.expires_at() + 1ms),
      (flakeid::id_bounds{layouts::twitter.min_id_at(layouts::twitter.expires_at()), 1ULL << 63}));
}

TEST(codec_test, time_helpers_take_any_sys_time_and_round_as_documented) {
  const auto& l = layouts::twitter;
  const time_point t = utc(2024y / January / 1);
  // Finer than a millisecond: floored to the millisecond, the tick an ID minted then carries.
  const sys_time<nanoseconds> t_ns = t + 999999ns;
  EXPECT_EQ(l.min_id_at(t_ns), l.min_id_at(t));
  EXPECT_EQ(l.max_id_at(t_ns), l.max_id_at(t));
  EXPECT_EQ(l.ticks_at(t_ns), l.ticks_at(t));
  EXPECT_EQ(l.time_left(t_ns), l.time_left(t));
  // Coarser: the same as the millisecond it starts.
  EXPECT_EQ(l.min_id_at(sys_seconds{floor<seconds>(t)}), l.min_id_at(t));
  EXPECT_EQ(l.id_range(sys_days{2024y / January / 1}, sys_days{2024y / January / 2}),
            l.id_range(t, t + days{1}));
  // id_range: from floored, to rounded up, so an ID minted in the to's millisecond, before to,
  // is inside.
  const flakeid::id_bounds r = l.id_range(t_ns, t_ns + 1ns);
  EXPECT_EQ(r, l.id_range(t, t + 1ms));
  EXPECT_TRUE(r.contains(l.max_id_at(t)));
  EXPECT_EQ(l.id_range(t_ns, t + 2ms), l.id_range(t, t + 2ms));
  // system_clock::now() as it is, whatever its period.
  static_assert(requires { l.id_range(system_clock::now() - 1h, system_clock::now()); });
  static_assert(requires { l.min_id_at(system_clock::now()); });
}

TEST(codec_test, times_outside_the_layout_throw_timestamp_overflow) {
  constexpr auto& t = layouts::twitter;
  const time_point before = t.epoch() - 1ms;
  const time_point after = t.expires_at() + 1ms;
  const std::string before_msg =
      "flakeid: time 2010-11-04T01:42:54.656Z is outside the layout's range "
      "[2010-11-04T01:42:54.657Z, 2080-07-10T17:30:30.208Z]";
  const std::string after_msg =
      "flakeid: time 2080-07-10T17:30:30.209Z is outside the layout's range "
      "[2010-11-04T01:42:54.657Z, 2080-07-10T17:30:30.208Z]";
  using overflow = flakeid::timestamp_overflow_error;
  expect_error<overflow>([&] { (void)t.ticks_at(before); }, before_msg);
  expect_error<overflow>([&] { (void)t.ticks_at(after); }, after_msg);
  expect_error<overflow>([&] { (void)t.min_id_at(before); }, before_msg);
  expect_error<overflow>([&] { (void)t.max_id_at(after); }, after_msg);
  expect_error<overflow>([&] { (void)t.compose({before}); }, before_msg);
  expect_error<overflow>([&] { (void)t.compose({after}); }, after_msg);
  expect_error<overflow>([&] { (void)t.id_range(before, t.epoch() + 1s); }, before_msg);
  // `to` is exclusive: it may be one past expires_at(), not two.
  EXPECT_NO_THROW((void)t.id_range(t.epoch(), after));
  expect_error<overflow>([&] { (void)t.id_range(t.epoch(), after + 1ms); }, after_msg);
  EXPECT_EQ(t.ticks_at(t.epoch()), 0U);
  EXPECT_EQ(t.ticks_at(t.expires_at()), t.max_ticks());

  // A 1 s tick: the last millisecond of the last second is still in range.
  constexpr auto& b = layouts::baidu;
  EXPECT_EQ(b.ticks_at(b.expires_at()), b.max_ticks());
  expect_error<overflow>([&] { (void)b.ticks_at(b.expires_at() + 1ms); },
                         "flakeid: time 2024-11-20T13:24:16.000Z is outside the layout's range "
                         "[2016-05-19T16:00:00.000Z, 2024-11-20T13:24:15.999Z]");
  // A 64-bit layout in its last tick: the range's end would need a 65th bit.
  constexpr auto& d = layouts::discord;
  const std::string past_the_last_id =
      "flakeid: id_range up to 2154-05-15T07:35:11.104Z holds the layout's last ID, 2^64 - 1, so "
      "its upper bound would be 2^64, which no 64-bit bound holds: query id >= "
      "min_id_at(from) alone";
  expect_error<overflow>([&] { (void)d.id_range(d.expires_at(), d.expires_at() + 1ms); },
                         past_the_last_id);
  expect_error<overflow>([&] { (void)d.id_range(d.expires_at() - 100ms, d.expires_at() + 1ms); },
                         past_the_last_id);
  EXPECT_EQ(d.max_id_at(d.expires_at()), ~0ULL);
}

TEST(codec_test, id_range_rejects_from_after_to) {
  const time_point t = utc(2024y / January / 1);
  expect_error<std::invalid_argument>(
      [&] { (void)layouts::twitter.id_range(t + 1ms, t); },
      "flakeid: id_range needs from <= to (got from 2024-01-01T00:00:00.001Z, to "
      "2024-01-01T00:00:00.000Z)");
  EXPECT_EQ(layouts::twitter.id_range(t, t),
            (flakeid::id_bounds{1741610183685046272U, 1741610183685046272U}));
}

TEST(codec_test, layouts_not_ordered_by_time_reject_time_ranges) {
  constexpr flakeid::layout worker_first{
      {fields::worker(8), fields::timestamp(41), fields::gene(3), fields::sequence(12)},
      1600000000000};
  const time_point t = utc(2024y / January / 1);
  expect_error<flakeid::invalid_layout_error>(
      [&] { (void)worker_first.min_id_at(t); },
      "flakeid: min_id_at needs the timestamp to be the most significant field");
  expect_error<flakeid::invalid_layout_error>(
      [&] { (void)worker_first.max_id_at(t); },
      "flakeid: max_id_at needs the timestamp to be the most significant field");
  EXPECT_THROW((void)worker_first.id_range(t, t + 1s), std::invalid_argument);
  // The sequence above the timestamp counts too; a reserved field above it does not.
  constexpr flakeid::layout sequence_first{{fields::sequence(12), fields::timestamp(51)}, 0};
  static_assert(!sequence_first.time_ordered());
  EXPECT_THROW((void)sequence_first.min_id_at(t), std::invalid_argument);
  static_assert(layouts::cosid_js.time_ordered());
}

TEST(codec_test, time_left_counts_down_to_zero) {
  constexpr auto& t = layouts::twitter;
  static_assert(t.time_left(t.epoch()) == milliseconds{1LL << 41});
  static_assert(t.time_left(t.expires_at()) == 1ms);
  static_assert(t.time_left(t.expires_at() + 1ms) == 0ms);
  static_assert(t.time_left(t.expires_at() + days{1000}) == 0ms);
  // From 2024-01-01 Twitter's layout has until 2080-07-10T17:30:30.208Z, inclusive.
  const time_point now = utc(2024y / January / 1);
  EXPECT_EQ(t.time_left(now), milliseconds{3487858230208LL - 1704067200000LL + 1});
  EXPECT_GT(t.time_left(now), years{56});
  EXPECT_LT(t.time_left(now), years{57});
  // Baidu's default layout runs out on 2024-11-20.
  EXPECT_EQ(layouts::baidu.time_left(now), milliseconds{1732109055999LL - 1704067200000LL + 1});
  EXPECT_EQ(layouts::baidu.time_left(utc(2025y / January / 1)), 0ms);
}

// ---- gene and shard ---------------------------------------------------------------------------

TEST(codec_test, gene_and_shard_agree_with_the_source_for_every_valid_shard_count) {
  constexpr auto& g = layouts::seed_gene;
  std::mt19937_64 rng(99);
  for (int i = 0; i < 5000; ++i) {
    const std::uint64_t source = rng();  // e.g. a user id
    id_parts p = random_parts(g, rng);
    p.gene = source & 31;
    const std::uint64_t id = g.compose(p);
    ASSERT_EQ(g.gene_of(id), source % 32);
    for (const std::uint64_t n : {1U, 2U, 4U, 8U, 16U, 32U}) {
      ASSERT_EQ(g.shard_of(id, n), source % n) << n;
      ASSERT_EQ(id % n, source % n) << n;
    }
  }
}

TEST(codec_test, shard_of_rejects_counts_the_gene_cannot_honour) {
  constexpr auto& g = layouts::seed_gene;
  const std::uint64_t id = g.compose({time_point{}, 1, 0, 0, 0, 13});
  for (const std::uint64_t n : {0U, 3U, 12U, 64U}) {
    expect_error<std::invalid_argument>(
        [&] { (void)g.shard_of(id, n); },
        "flakeid: shard count " + std::to_string(n) +
            " cannot be honoured by a 5-bit gene: it must be a power of two in [1, 32]");
  }
  // A layout without a gene honours only one shard.
  constexpr auto& t = layouts::twitter;
  EXPECT_EQ(t.gene_of(t.max_id()), 0U);
  EXPECT_EQ(t.shard_of(t.max_id(), 1), 0U);
  expect_error<std::invalid_argument>([&] { (void)t.shard_of(12345, 2); },
                                      "flakeid: shard count 2 cannot be honoured by a 0-bit gene: "
                                      "it must be a power of two in [1, 1]");
  EXPECT_THROW((void)t.shard_of(12345, 0), std::invalid_argument);
}

// ---- noexcept ---------------------------------------------------------------------------------

TEST(codec_test, noexcept_exactly_where_nothing_can_fail) {
  constexpr auto& l = layouts::seed_gene;
  // Arguments are named so that only the call itself is in question (time_point's default
  // constructor is not noexcept in every standard library).
  constexpr time_point tp{};
  constexpr id_parts parts{};
  static_assert(noexcept(l.decompose_unchecked(0)));
  static_assert(noexcept(l.extract(0, field_kind::gene)));
  static_assert(noexcept(l.gene_of(0)));
  static_assert(noexcept(l.is_valid(0)));
  static_assert(noexcept(l.time_left(tp)));
  static_assert(noexcept(l.time_at(0)));
  static_assert(noexcept(l.expires_at()));
  static_assert(!noexcept(l.decompose(0)));
  static_assert(!noexcept(l.compose(parts)));
  static_assert(!noexcept(l.shard_of(0, 1)));
  static_assert(!noexcept(l.ticks_at(tp)));
  static_assert(!noexcept(l.min_id_at(tp)));
  static_assert(!noexcept(l.id_range(tp, tp)));
  SUCCEED();
}

}  // namespace
