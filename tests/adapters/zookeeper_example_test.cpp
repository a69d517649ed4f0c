// Runs examples/adapters/zookeeper_fleet.cpp against a ZooKeeper server started here (see
// zookeeper_server.hpp), beside a node that a Leaf server made.
#include <gtest/gtest.h>
#include <flakeid/adapters/zookeeper.hpp>

#include <cstdlib>

#include "server_support.hpp"
#include "zookeeper_server.hpp"

namespace {

using namespace flakeid_test;

TEST(zookeeper_example_test, takes_the_next_leaf_sequence_and_a_segment) {
  zookeeper_server server;
  FLAKEID_REQUIRE_SERVER(server.available(), server.missing());
  server.start();
  flakeid::detail::zookeeper_session leaf{flakeid::zookeeper_address{server.hosts()},
                                          std::chrono::seconds{30}};
  (void)leaf.create("/snowflake", "", 0);
  (void)leaf.create("/snowflake/leaf", "", 0);
  (void)leaf.create("/snowflake/leaf/forever", "", 0);
  (void)leaf.create("/snowflake/leaf/forever/10.0.0.2:8080-0000000000",
                    R"({"ip":"10.0.0.2","port":"8080","timestamp":1})", 0);
  ASSERT_EQ(::setenv("FLAKEID_ZOOKEEPER_HOSTS", server.hosts().c_str(), 1), 0);
  const program_output example = run_for_output({FLAKEID_ZOOKEEPER_EXAMPLE, "10.0.0.7", "8080"});
  ASSERT_EQ(example.status, 0) << example.text;
  const std::string& out = example.text;
  EXPECT_NE(out.find("worker 1 (datacenter 0) from zookeeper " + server.hosts() +
                     " /snowflake/leaf/forever/10.0.0.7:8080-"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\norder 1\n"), std::string::npos) << out;
}

}  // namespace
