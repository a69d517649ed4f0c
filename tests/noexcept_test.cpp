// Which operations are noexcept, pinned at compile time. A change here is a change of the
// public contract: the codec's unchecked reads and the policies' hooks never throw; everything
// that validates input or reads the clock against the layout's range may.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <flakeid/flakeid.hpp>
#include <span>
#include <utility>

using namespace std::chrono;

namespace {

constexpr const flakeid::layout& L = flakeid::layouts::twitter;
constexpr flakeid::layout::time_point t{};
constexpr std::uint64_t id = 0;
using flakeid::field_kind;

// ---- layout: structure and unchecked codec never throw ----
static_assert(noexcept(L.fields()));
static_assert(noexcept(L.has(field_kind::gene)));
static_assert(noexcept(L.bits(field_kind::worker)));
static_assert(noexcept(L.shift(field_kind::worker)));
static_assert(noexcept(L.max_value(field_kind::worker)));
static_assert(noexcept(L.mask(field_kind::worker)));
static_assert(noexcept(L.reserved_mask()));
static_assert(noexcept(L.max_id()));
static_assert(noexcept(L.ids_per_tick()));
static_assert(noexcept(L.time_ordered()));
static_assert(noexcept(L.epoch()));
static_assert(noexcept(L.tick()));
static_assert(noexcept(L.max_ticks()));
static_assert(noexcept(L.expires_at()));
static_assert(noexcept(L.time_left(t)));
static_assert(noexcept(L.time_at(id)));
static_assert(noexcept(L.extract(id, field_kind::sequence)));
static_assert(noexcept(L.is_valid(id)));
static_assert(noexcept(L.decompose_unchecked(id)));
static_assert(noexcept(L.gene_of(id)));
static_assert(noexcept(flakeid::id_bounds{}.contains(id)));
static_assert(noexcept(flakeid::to_string(field_kind::gene)));
static_assert(noexcept(flakeid::fields::timestamp(41)));

// ---- layout: whatever validates may throw ----
static_assert(!noexcept(flakeid::layout{{flakeid::fields::timestamp(41)}, 0}));
static_assert(!noexcept(L.ticks_at(t)));
static_assert(!noexcept(L.decompose(id)));
static_assert(!noexcept(L.place(field_kind::worker, id)));
static_assert(!noexcept(L.compose(flakeid::id_parts{})));
static_assert(!noexcept(L.min_id_at(t)));
static_assert(!noexcept(L.max_id_at(t)));
static_assert(!noexcept(L.id_range(t, t)));
static_assert(!noexcept(L.shard_of(id, 2)));

// ---- policies: the hooks the hot path calls never throw ----
template <class P>
constexpr bool next_is_noexcept = noexcept(std::declval<P&>().next(0, 0));
static_assert(next_is_noexcept<flakeid::zero_start>);
static_assert(next_is_noexcept<flakeid::cosid_threshold<>>);
static_assert(next_is_noexcept<flakeid::vibrating_start<>>);
static_assert(next_is_noexcept<flakeid::random_start<>>);
static_assert(next_is_noexcept<flakeid::never_reset>);

// ---- clocks: reading never throws ----
static_assert(noexcept(flakeid::wall_clock::now()));
static_assert(noexcept(std::declval<const flakeid::tick_clock&>().now()));
static_assert(noexcept(std::declval<const flakeid::tick_clock&>().drift()));
static_assert(noexcept(std::declval<const flakeid::manual_clock&>().now()));
static_assert(
    noexcept(std::declval<flakeid::manual_clock&>().step_back(std::declval<milliseconds>())));
static_assert(noexcept(std::declval<const flakeid::clock_backwards_error&>().step()));

// ---- generators: minting may throw (the layout's range ends, the clock goes back, a lease is
// lost) whatever the policies; the accessors never do ----
template <class G>
constexpr bool accessors_noexcept =
    noexcept(G::layout()) && noexcept(std::declval<const G&>().node()) && noexcept(
        std::declval<const G&>()
            .node_source()) && noexcept(std::declval<const G&>()
                                            .clock()) && noexcept(std::declval<const G&>()
                                                                      .last_tick_time());

using classic = flakeid::classic_snowflake<>;
using classic_st = flakeid::classic_snowflake_st<>;
using gene = flakeid::gene_snowflake<>;
using cosid = flakeid::cosid_snowflake<>;
using tick = flakeid::tick_snowflake<>;
static_assert(!noexcept(std::declval<classic&>().next_id()));
static_assert(!noexcept(std::declval<classic_st&>().next_id()));
static_assert(!noexcept(std::declval<gene&>().next_id(1)));
static_assert(!noexcept(std::declval<cosid&>().next_id()));
static_assert(!noexcept(std::declval<tick&>().next_id()));
static_assert(!noexcept(std::declval<classic&>().next_ids(std::span<std::uint64_t>{})));
static_assert(!noexcept(classic::decompose(id)));
static_assert(accessors_noexcept<classic>);
static_assert(accessors_noexcept<classic_st>);
static_assert(accessors_noexcept<gene>);
static_assert(accessors_noexcept<cosid>);
static_assert(accessors_noexcept<tick>);

// Generators are neither copyable nor movable (their state may be atomic and is shared by
// threads), so a copy cannot split one sequence into two.
static_assert(!std::is_copy_constructible_v<classic>);
static_assert(!std::is_copy_assignable_v<classic>);
static_assert(!std::is_move_constructible_v<classic_st>);

TEST(noexcept_test, is_checked_at_compile_time) { SUCCEED(); }

}  // namespace
