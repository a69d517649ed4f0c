// Runs examples/adapters/sql_partitions.cpp against a PostgreSQL cluster started here (see
// postgres_server.hpp): the example sets up its tables from the generated DDL, inserts through
// them and fails unless every row sits in the partition its router names.
#include <gtest/gtest.h>

#include <cstdlib>

#include "postgres_server.hpp"
#include "server_support.hpp"

namespace {

using namespace flakeid_test;

TEST(postgres_sql_example_test, sets_up_partitions_from_the_ddl_and_inserts_through_them) {
  postgres_cluster server;
  FLAKEID_REQUIRE_SERVER(server.available(), server.missing());
  server.start();
  ASSERT_EQ(::setenv("FLAKEID_POSTGRES_CONNINFO", server.conninfo().c_str(), 1), 0);
  const program_output example = run_for_output({FLAKEID_SQL_EXAMPLE});
  ASSERT_EQ(example.status, 0) << example.text;
  const std::string& out = example.text;
  EXPECT_NE(out.find("partition orders_202601  router orders_202601  created 2026-01-31 "
                     "23:59:59.000 UTC"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("partition orders_202602  router orders_202602"), std::string::npos) << out;
  EXPECT_NE(out.find("partition orders_202611  router orders_202611"), std::string::npos) << out;
}

}  // namespace
