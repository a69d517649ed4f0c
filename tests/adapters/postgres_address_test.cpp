// `postgres_address`: a PostgreSQL server written with the fields every server backend shares
// (`server_address`), turned into a libpq connection string; and a store made from one against a
// real cluster with a password and TLS verified against a CA made at test time.
#include <flakeid/adapters/postgres.hpp>

#include "lease_scenarios.hpp"
#include "postgres_server.hpp"
#include "secret_messages.hpp"
#include "server_support.hpp"

namespace {

using namespace flakeid_test;
using namespace std::chrono_literals;

const std::string password = "Pg'S3cr\\t";

TEST(postgres_address_test, every_field_is_quoted_for_libpq) {
  const flakeid::postgres_address a{
      .address = {.host = "db.internal", .port = 6432, .user = "app", .password = "p'w\\x y"},
      .database = "orders"};
  EXPECT_EQ(a.conninfo(),
            "host='db.internal' port='6432' user='app' password='p\\'w\\\\x y' dbname='orders'");
}

TEST(postgres_address_test, the_defaults_are_postgres_own) {
  EXPECT_EQ(flakeid::postgres_address{}.conninfo(), "host='127.0.0.1' port='5432'");
  EXPECT_EQ(flakeid::postgres_address{.address = {.host = "::1"}}.conninfo(),
            "host='::1' port='5432'");
}

TEST(postgres_address_test, tls_or_a_ca_file_verifies_the_server) {
  EXPECT_EQ(flakeid::postgres_address{.address = {.tls = true}}.conninfo(),
            "host='127.0.0.1' port='5432' sslmode='verify-full'");
  EXPECT_EQ(flakeid::postgres_address{.address = {.tls_ca_file = "/etc/ca.pem"}}.conninfo(),
            "host='127.0.0.1' port='5432' sslmode='verify-full' sslrootcert='/etc/ca.pem'");
}

TEST(postgres_address_test, a_unix_socket_is_its_directory_and_port) {
  const flakeid::postgres_address by_path{
      .address = {.unix_socket = "/run/postgresql/.s.PGSQL.5433"}};
  EXPECT_EQ(by_path.conninfo(), "host='/run/postgresql' port='5433'");
  const flakeid::postgres_address by_directory{
      .address = {.port = 5434, .unix_socket = "/run/postgresql"}};
  EXPECT_EQ(by_directory.conninfo(), "host='/run/postgresql' port='5434'");
}

TEST(postgres_address_test, the_address_timeouts_take_the_place_of_the_stores) {
  const flakeid::postgres_store mine{
      flakeid::postgres_address{.address = {.connect_timeout = 750ms, .command_timeout = 3s}},
      {.connect_timeout = 5s, .io_timeout = 9s}};
  EXPECT_EQ(mine.options().connect_timeout, 750ms);
  EXPECT_EQ(mine.options().io_timeout, 3s);
  const flakeid::postgres_store theirs{flakeid::postgres_address{},
                                       {.connect_timeout = 5s, .io_timeout = 9s}};
  EXPECT_EQ(theirs.options().connect_timeout, 5s);
  EXPECT_EQ(theirs.options().io_timeout, 9s);
}

/// Checks, after each test, that no message holds the password.
class postgres_address_server_test : public secrets_stay_hidden {
 protected:
  postgres_address_server_test() : secrets_stay_hidden({password}) {}
};

TEST_F(postgres_address_server_test, a_store_from_an_address_leases_and_counts_over_tls) {
  postgres_cluster pg{postgres_config{.password = password, .ssl = true}};
  FLAKEID_REQUIRE_SERVER(pg.available(), pg.missing());
  pg.start();
  const flakeid::postgres_address a{.address = {.port = pg.port(),
                                                .user = "flakeid",
                                                .password = password,
                                                .tls_ca_file = pg.certs().ca(),
                                                .connect_timeout = 30s,
                                                .command_timeout = 30s},
                                    .database = "postgres"};
  const std::string ns = unique_ns("address");
  const flakeid::postgres_store store{a, {.name_space = ns}};
  auto lease = store.lease(unhurried(patient_options(quick_options(ns))));
  EXPECT_EQ(lease.acquire(8), 0U);
  const std::string where =
      "postgresql 127.0.0.1:" + std::to_string(pg.port()) + " user flakeid db postgres";
  EXPECT_EQ(lease.where(), where);
  EXPECT_EQ(store.distributor("orders").next_max_id(5), 5U);
  EXPECT_EQ(store.distributor("orders").next_max_id(5), 10U);

  // The wrong password: a clear error that names the server and never the password.
  flakeid::postgres_address wrong = a;
  wrong.address.password = password + "x";
  const flakeid::postgres_store refused{wrong, {.name_space = ns}};
  try {
    (void)refused.distributor("orders").next_max_id(5);
    ADD_FAILURE() << "a wrong password was let in";
  } catch (const flakeid::segment_store_error& e) {
    seen().add(e.what());
    EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("password authentication failed"), std::string::npos)
        << e.what();
  }
}

}  // namespace
