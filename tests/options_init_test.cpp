// Every options struct a user fills in can be written with designated initializers that name
// only the fields they change, under -Wall -Wextra -Werror (GCC's missing-field-initializers
// fires on a member without a default initializer): this file does not compile otherwise.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include <flakeid/flakeid.hpp>

using namespace std::chrono_literals;

TEST(options_init_test, lease_and_store_options_take_one_designated_field) {
  const flakeid::lease_options lease{.name_space = "orders"};
  EXPECT_EQ(lease.name_space, "orders");
  EXPECT_EQ(lease.ttl, 10'000ms);
  EXPECT_EQ(lease.safe_guard, 2'000ms);
  EXPECT_TRUE(lease.instance.empty());
  EXPECT_FALSE(lease.on_event);

  const flakeid::store_options store{.name_space = "orders"};
  EXPECT_EQ(store.name_space, "orders");
  EXPECT_EQ(store.connect_timeout, 2'000ms);
  EXPECT_EQ(store.io_timeout, 0ms);
}

TEST(options_init_test, segment_options_take_one_designated_field) {
  const flakeid::segment_options seg{.step = 500};
  EXPECT_EQ(seg.step, 500U);
  EXPECT_EQ(seg.ttl, flakeid::segment_ttl_forever);
  const flakeid::segment_chain_options chain{.segment = {.step = 500}};
  EXPECT_EQ(chain.segment.step, 500U);
  EXPECT_EQ(chain.refill_period, 100ms);
}

TEST(options_init_test, what_a_store_and_a_worker_source_exchange_takes_designated_fields) {
  const flakeid::claim_request request{.count = 32};
  EXPECT_EQ(request.count, 32U);
  EXPECT_TRUE(request.holder.empty());
  const flakeid::lease_claim claim{.id = 3};
  EXPECT_EQ(claim.id, 3U);
  EXPECT_FALSE(claim.last.has_value());
  const flakeid::worker_assignment a{.source = "fixed"};
  EXPECT_EQ(a.node, (flakeid::node_id{0, 0}));
  EXPECT_EQ(a.not_after_unix_ms, INT64_MIN);
  EXPECT_EQ(a.fence, nullptr);
}

// The hooks of lease_options are `detail::callback`s: they take what `std::function` took
// (a lambda, a mutable one, a function pointer), copy with the options, test as empty when
// unset or set to a null pointer, and refuse a call when empty.
namespace {
flakeid::lease_time fixed_time() { return flakeid::lease_time{std::chrono::milliseconds{42}}; }
}  // namespace

TEST(options_init_test, lease_hooks_copy_call_and_test_as_std_function_does) {
  flakeid::lease_options o;
  int events = 0;
  o.on_event = [&events](flakeid::lease_event, const std::string&) { ++events; };
  o.now = &fixed_time;
  o.sleep = [slept = std::chrono::milliseconds{0}](std::chrono::milliseconds d) mutable {
    slept += d;
    if (slept > 10ms) throw std::runtime_error("slept " + std::to_string(slept.count()) + " ms");
  };
  flakeid::lease_options copy = o;
  copy.on_event(flakeid::lease_event::acquired, "a");
  o.on_event(flakeid::lease_event::lost, "b");
  EXPECT_EQ(events, 2);
  EXPECT_EQ(copy.now().time_since_epoch(), 42ms);
  // A mutable lambda keeps its state per copy: each copy sleeps its own 10 ms before refusing.
  copy.sleep(6ms);
  o.sleep(6ms);
  EXPECT_THROW(copy.sleep(6ms), std::runtime_error);
  EXPECT_THROW(o.sleep(6ms), std::runtime_error);

  flakeid::lease_time (*none)() = nullptr;
  o.now = none;
  EXPECT_FALSE(o.now);
  EXPECT_TRUE(copy.now);
  o.on_event = nullptr;
  EXPECT_FALSE(o.on_event);
  try {
    o.on_event(flakeid::lease_event::released, "c");
    ADD_FAILURE() << "an empty hook was called";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "flakeid: an empty callback was called");
  }
}

TEST(options_init_test, a_lease_hook_frees_what_it_holds_when_replaced_moved_or_destroyed) {
  const auto token = std::make_shared<int>(7);
  {
    flakeid::lease_options o;
    o.now = [token] { return flakeid::lease_time{std::chrono::milliseconds{*token}}; };
    EXPECT_EQ(token.use_count(), 2);
    flakeid::lease_options copy = o;  // the lambda copied
    EXPECT_EQ(token.use_count(), 3);
    flakeid::lease_options moved = std::move(copy);  // taken over, not copied
    EXPECT_EQ(token.use_count(), 3);
    EXPECT_EQ(moved.now().time_since_epoch(), 7ms);
    const auto& same = o.now;
    o.now = same;  // assigned to itself: kept
    EXPECT_EQ(token.use_count(), 3);
    EXPECT_EQ(o.now().time_since_epoch(), 7ms);
    moved.now = &fixed_time;  // replaced: its copy freed
    EXPECT_EQ(token.use_count(), 2);
    EXPECT_EQ(moved.now().time_since_epoch(), 42ms);
    o.now = std::move(moved.now);
    EXPECT_EQ(token.use_count(), 1);  // o's lambda freed, the function pointer moved in
    EXPECT_EQ(o.now().time_since_epoch(), 42ms);
  }
  EXPECT_EQ(token.use_count(), 1);
}
