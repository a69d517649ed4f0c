// A MySQL/MariaDB store connection in a forked child: it refuses, and leaves the parent's alone.
#include <flakeid/adapters/mysql.hpp>

#include <chrono>
#include <string>

#include "fork_scenarios.hpp"
#include "test_servers.hpp"

namespace {

using namespace flakeid_test;

struct mysql_backend {
  using distributor_type = flakeid::mysql_distributor;
  mariadb_server server{true};  // durable: counters refuse a server that may lose commits
  [[nodiscard]] flakeid::mysql_store store(const std::string& ns,
                                           std::chrono::milliseconds timeout) const {
    return flakeid::mysql_store{
        server.uri(), {.name_space = ns, .connect_timeout = timeout, .io_timeout = timeout}};
  }
};

TEST(mysql_fork_test, forked_child_distributor_refuses_and_the_parents_connection_works) {
  mysql_backend b;
  FLAKEID_REQUIRE_SERVER(b.server.available(), b.server.missing());
  b.server.start();
  const fork_outcome o = use_a_distributor_in_a_forked_child(b, "fork");
  EXPECT_TRUE(o.child_exited) << o.child_said;
  EXPECT_TRUE(is_fork_refusal(o.child_said, "this connection to")) << o.child_said;
  // The parent's connection is untouched: the next range follows at once, on the same socket.
  EXPECT_EQ(o.parent_error, "");
  EXPECT_EQ(o.next, o.first + 100);
}

}  // namespace
