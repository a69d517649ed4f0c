// Every options struct a user fills in can be written with designated initializers that name
// only the fields they change, under -Wall -Wextra -Werror (GCC's missing-field-initializers
// fires on a member without a default initializer): this file does not compile otherwise.
#include <gtest/gtest.h>

#include <chrono>

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
