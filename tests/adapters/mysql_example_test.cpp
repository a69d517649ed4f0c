// Runs examples/adapters/mysql_fleet.cpp against a MariaDB server started here (see
// mariadb_server.hpp), with Leaf's table and its "order" row set up as a Leaf fleet has them.
#include <gtest/gtest.h>
#include <flakeid/adapters/mysql.hpp>

#include <cstdlib>

#include "mariadb_server.hpp"
#include "server_support.hpp"

namespace {

using namespace flakeid_test;

TEST(mysql_example_test, leases_a_worker_and_takes_leaf_and_own_segments) {
  mariadb_server server{true};  // segments refuse innodb_flush_log_at_trx_commit=0
  FLAKEID_REQUIRE_SERVER(server.available(), server.missing());
  server.start();
  flakeid::detail::mysql_connection raw{flakeid::mysql_address::parse(server.uri()),
                                        std::chrono::seconds{30}, std::chrono::seconds{30}};
  (void)raw.exec(
      "CREATE TABLE leaf_alloc (biz_tag VARCHAR(128) NOT NULL DEFAULT '', max_id BIGINT NOT NULL "
      "DEFAULT 1, step INT NOT NULL, description VARCHAR(256) DEFAULT NULL, update_time "
      "TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, PRIMARY KEY "
      "(biz_tag)) ENGINE=InnoDB; INSERT INTO leaf_alloc (biz_tag, max_id, step) VALUES "
      "('order', 5001, 2000)");
  ASSERT_EQ(::setenv("FLAKEID_MYSQL_URL", server.uri().c_str(), 1), 0);
  const program_output example = run_for_output({FLAKEID_MYSQL_EXAMPLE});
  ASSERT_EQ(example.status, 0) << example.text;
  const std::string& out = example.text;
  EXPECT_NE(out.find("store mysql 127.0.0.1:" + std::to_string(server.port()) +
                     " user flakeid db flakeid\nworker 0 from lease mysql 127.0.0.1:"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\norder 5001\ninvoice 1\n"), std::string::npos) << out;
}

}  // namespace
