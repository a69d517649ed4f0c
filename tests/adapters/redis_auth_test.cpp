// Redis as it is deployed: requirepass, an ACL user, db numbers, a Unix socket and TLS (with a
// CA and certificates made at test time), against real redis-servers (see redis_server.hpp).
// Every message the adapters produce here is checked for the passwords.
#include <flakeid/adapters/redis.hpp>
#include <string>
#include <utility>

#include "expect_error.hpp"
#include "lease_scenarios.hpp"
#include "redis_server.hpp"
#include "secret_messages.hpp"
#include "server_support.hpp"

namespace {

using namespace flakeid_test;

const std::string password = "S3cr3t-pw";     // requirepass
const std::string acl_password = "Al1ce-pw";  // user alice
const std::string wrong_password = "Wr0ng-pw";

flakeid::lease_options recorded(const std::string& ns) {
  return recording(unhurried(quick_options(ns)));
}

std::string at(int port) { return "127.0.0.1:" + std::to_string(port); }

/// Checks, after each test, that no message holds a password.
class redis_auth_test : public secrets_stay_hidden {
 protected:
  redis_auth_test() : secrets_stay_hidden({password, acl_password, wrong_password}) {}
};

/// A lease and a segment counter on `server` work.
void expect_works(const flakeid::redis_options& server, const std::string& stem) {
  (void)expect_store_works<flakeid::redis_store>(server, recorded(unique_ns(stem)), 32, 2);
}

/// What `acquire` throws on `server`.
std::string lease_error(const flakeid::redis_options& server) {
  const auto o = recorded(unique_ns("refused"));
  auto lease = flakeid::redis_store{server, store_options_of(o)}.lease(o);
  return error_of([&] { (void)lease.acquire(32); });
}

TEST_F(redis_auth_test, requirepass_right_password_works_wrong_or_none_is_a_clear_error) {
  redis_server s{redis_config{.requirepass = password}};
  FLAKEID_REQUIRE_SERVER(s.available(), s.missing());
  s.start();
  expect_works(flakeid::redis_options::parse("redis://:" + password + "@" + s.address()), "pw");
  auto o = s.options();
  o.address.password = password;
  expect_works(o, "pw_options");

  EXPECT_EQ(
      lease_error(flakeid::redis_options::parse("redis://:" + wrong_password + "@" + s.address())),
      "flakeid: cannot log in to redis " + s.address() +
          " (default user): WRONGPASS invalid username-password pair or user is "
          "disabled.");
  EXPECT_EQ(lease_error(s.options()),
            "flakeid: redis " + s.address() + ": NOAUTH Authentication required.");
  flakeid::redis_store store{"redis://:" + wrong_password + "@" + s.address(),
                             {.name_space = "refused"}};
  EXPECT_EQ(error_of([&] { (void)store.distributor("orders").next_max_id(1); }),
            "flakeid: segment store redis " + s.address() +
                " namespace refused, key 'orders': next_max_id(1) failed: cannot log in to "
                "redis " +
                s.address() +
                " (default user): WRONGPASS invalid username-password pair or user is "
                "disabled.");
}

TEST_F(redis_auth_test, acl_user_logs_in_a_wrong_user_or_password_is_named) {
  redis_server s{redis_config{.acl_user = "alice", .acl_password = acl_password}};
  FLAKEID_REQUIRE_SERVER(s.available(), s.missing());
  s.start();
  expect_works(flakeid::redis_options::parse("redis://alice:" + acl_password + "@" + s.address()),
               "acl");
  EXPECT_EQ(lease_error(flakeid::redis_options::parse("redis://mallory:" + acl_password + "@" +
                                                      s.address())),
            "flakeid: cannot log in to redis " + s.address() +
                " user mallory: WRONGPASS invalid username-password pair or user is disabled.");
  EXPECT_EQ(lease_error(flakeid::redis_options::parse("redis://alice:" + wrong_password + "@" +
                                                      s.address())),
            "flakeid: cannot log in to redis " + s.address() +
                " user alice: WRONGPASS invalid username-password pair or user is disabled.");
  // The default user is off: a client that does not log in is refused.
  EXPECT_EQ(lease_error(s.options()),
            "flakeid: redis " + s.address() + ": NOAUTH Authentication required.");
}

TEST_F(redis_auth_test, db_numbers_isolate_namespaces) {
  redis_server s{redis_config{.requirepass = password}};
  FLAKEID_REQUIRE_SERVER(s.available(), s.missing());
  s.start();
  const std::string base = "redis://:" + password + "@" + s.address();
  const std::string ns = unique_ns("db");
  flakeid::redis_store one{base + "/1",
                           {.name_space = ns, .connect_timeout = 30s, .io_timeout = 30s}};
  flakeid::redis_store two{base + "/2?timeout=30s",
                           {.name_space = ns, .connect_timeout = 30s, .io_timeout = 30s}};
  EXPECT_EQ(one.where(), "redis " + s.address() + " db 1");
  EXPECT_EQ(one.distributor("orders").next_max_id(5), 5U);
  EXPECT_EQ(two.distributor("orders").next_max_id(7), 7U);
  EXPECT_EQ(one.current("orders"), 5U);
  EXPECT_EQ(two.current("orders"), 7U);
  flakeid::redis_store zero{base, {.name_space = ns, .connect_timeout = 30s, .io_timeout = 30s}};
  EXPECT_EQ(zero.current("orders"), 0U);

  const auto o = recorded(ns);
  auto a = flakeid::redis_store{base + "/1", store_options_of(o)}.lease(o);
  auto b = flakeid::redis_store{base + "/2", store_options_of(o)}.lease(o);
  EXPECT_EQ(a.acquire(4), 0U);
  EXPECT_EQ(b.acquire(4), 0U);  // another db: the same id is free there
  EXPECT_EQ(a.where(), "redis " + s.address() + " db 1");

  EXPECT_EQ(lease_error(flakeid::redis_options::parse(base + "/99999")),
            "flakeid: cannot select db 99999 on redis " + s.address() +
                " db 99999: ERR DB index is out of range");
}

TEST_F(redis_auth_test, unix_socket_with_password_and_db) {
  redis_server s{redis_config{.requirepass = password, .unix_socket = true}};
  FLAKEID_REQUIRE_SERVER(s.available(), s.missing());
  s.start();
  const auto o =
      flakeid::redis_options::parse("unix://:" + password + "@" + s.socket_path() + "?db=3");
  EXPECT_EQ(o.address.unix_socket, s.socket_path());
  EXPECT_EQ(o.where(), "redis unix:" + s.socket_path() + " db 3");
  expect_works(o, "unix");
  flakeid::redis_options direct;
  direct.address.unix_socket = s.socket_path();
  direct.address.password = password;
  expect_works(direct, "unix_options");
}

TEST_F(redis_auth_test, a_changed_password_shows_in_lease_events_without_it) {
  redis_server s{redis_config{.requirepass = password}};
  FLAKEID_REQUIRE_SERVER(s.available(), s.missing());
  s.start();
  auto o = s.options();
  o.address.password = password;
  {
    const auto lo = recorded(unique_ns("events"));
    auto lease = flakeid::redis_store{o, store_options_of(lo)}.lease(lo);
    EXPECT_EQ(lease.acquire(4), 0U);
    flakeid::detail::redis_connection admin{o, 30000ms, 30000ms};
    (void)admin.command({"CONFIG", "SET", "requirepass", wrong_password});
    (void)admin.command({"CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"});
    // The renewal reconnects and is refused: renew_failed names server and reply.
    EXPECT_TRUE(
        seen().wait_for("cannot log in to redis " + s.address() + " (default user): WRONGPASS"));
  }  // the release is refused too (release_failed)
}

TEST_F(redis_auth_test, unreachable_server_with_credentials_names_user_not_password) {
  const int port = free_port();
  auto o = flakeid::redis_options::parse("redis://alice:" + acl_password + "@" + at(port) + "/4");
  o.address.connect_timeout = 500ms;
  const std::string m = lease_error(o);
  const std::string expected =
      "flakeid: cannot connect to redis " + at(port) + " user alice db 4 within 500 ms: ";
  EXPECT_EQ(m.substr(0, expected.size()), expected) << m;
}

TEST_F(redis_auth_test, malformed_addresses_are_clear_errors_without_the_password) {
  const auto parse_error = [](const std::string& text) {
    return error_of([&] { (void)flakeid::redis_options::parse(text); });
  };
  const std::pair<std::string, std::string> cases[] = {
      // The issue's case: a URI without its scheme is not taken as a host name.
      {":" + password + "@127.0.0.1:16379",
       "flakeid: invalid Redis address ':***@127.0.0.1:16379': not host:port; a URI starts "
       "with redis://, rediss:// or unix://"},
      {"redis://:" + password + "@::1:6379",
       "flakeid: invalid Redis address 'redis://:***@::1:6379': an IPv6 address must be "
       "written in brackets, as [::1]:6379"},
      {"::1",
       "flakeid: invalid Redis address '::1': an IPv6 address must be written in brackets, "
       "as [::1]:6379"},
      {"redis://u:S3cr%ZZ3t-pw@cache:6379",
       "flakeid: invalid Redis address 'redis://u:***@cache:6379': bad percent-escape in "
       "the password"},
      {"redis://:" + password + "@cache:63x79",
       "flakeid: invalid Redis address 'redis://:***@cache:63x79': port '63x79' is not a "
       "number 1..65535"},
      {"redis://:" + password + "@cache/x",
       "flakeid: invalid Redis address 'redis://:***@cache/x': db 'x' is not a number "
       "0..1000000"},
      // A db in the path and another in the query: refused, naming both (the query's won).
      {"redis://:" + password + "@cache/0?db=3",
       "flakeid: invalid Redis address 'redis://:***@cache/0?db=3': db 0 in the path and db=3 "
       "in the query differ: give the db once"},
      {"rediss://u:" + password + "@cache:6380/2?timeout=2s&db=0",
       "flakeid: invalid Redis address 'rediss://u:***@cache:6380/2?timeout=2s&db=0': db 2 in "
       "the path and db=0 in the query differ: give the db once"},
      {"redis://:" + password + "@cache?tls_ca=/ca.pem",
       "flakeid: invalid Redis address 'redis://:***@cache?tls_ca=/ca.pem': tls_* "
       "parameters need a rediss:// URI"},
      {"redis://:" + password + "@cache?timeout=soon",
       "flakeid: invalid Redis address 'redis://:***@cache?timeout=soon': timeout 'soon' "
       "is not a duration (250ms, 2s, or milliseconds)"},
      {"redis://cache?retries=3",
       "flakeid: invalid Redis address 'redis://cache?retries=***': unknown query parameter "
       "'retries' (allowed: timeout, connect_timeout, command_timeout, db, tls_ca, tls_cert, "
       "tls_key, tls_server_name)"},
      // A password is no parameter, but may be written as one; its value is never quoted.
      {"redis://cache?password=" + password,
       "flakeid: invalid Redis address 'redis://cache?password=***': unknown query parameter "
       "'password' (allowed: timeout, connect_timeout, command_timeout, db, tls_ca, tls_cert, "
       "tls_key, tls_server_name)"},
      // The user info ends at the last '@': a '?' in the password is the password's.
      {"redis://app:Pa?" + password + "@cache:63x79",
       "flakeid: invalid Redis address 'redis://app:***@cache:63x79': port '63x79' is not a "
       "number 1..65535"},
      {"http://:" + password + "@cache",
       "flakeid: invalid Redis address 'http://:***@cache': scheme 'http' is not redis, "
       "rediss or unix"},
      // User info without ':' is the password to redis-cli -u and Lettuce: never quoted (it
      // was read as the user name, which where() and every error showed).
      {"redis://" + password + "@cache:6379/2",
       "flakeid: invalid Redis address 'redis://***@cache:6379/2': the user info has no ':' "
       "(redis-cli -u and Lettuce read it as a password): write user:password@, :password@ "
       "for the default user, or user:@ for a user without a password"},
      {"unix://" + password + "@/run/redis.sock?db=2",
       "flakeid: invalid Redis address 'unix://***@/run/redis.sock?db=2': the user info has "
       "no ':' (redis-cli -u and Lettuce read it as a password): write user:password@, "
       ":password@ for the default user, or user:@ for a user without a password"},
  };
  for (const auto& [text, expected] : cases) EXPECT_EQ(parse_error(text), expected);
  EXPECT_EQ(flakeid::redis_options::parse("redis://cache/3?db=3").db, 3) << "the same db twice";
  EXPECT_EQ(flakeid::redis_options::parse("redis://cache/?db=3").db, 3);
  EXPECT_EQ(error_of([&] { (void)flakeid::redis_store{"redis://:" + password + "@::1:6379"}; }),
            "flakeid: invalid Redis address 'redis://:***@::1:6379': an IPv6 address must be "
            "written in brackets, as [::1]:6379");
  ::unsetenv("FLAKEID_TEST_REDIS_URL");
  EXPECT_EQ(error_of([] { (void)flakeid::redis_options::from_env("FLAKEID_TEST_REDIS_URL"); }),
            "flakeid: environment variable FLAKEID_TEST_REDIS_URL is not set (want "
            "redis://[[user]:password@]host[:port][/db])");
}

TEST_F(redis_auth_test, an_address_in_designated_initializers_names_its_server_and_works) {
  redis_server s{redis_config{.requirepass = password}};
  FLAKEID_REQUIRE_SERVER(s.available(), s.missing());
  s.start();
  const flakeid::redis_options o{
      .address = {.host = "127.0.0.1", .port = s.port(), .password = password}, .db = 2};
  EXPECT_EQ(o.where(), "redis 127.0.0.1:" + std::to_string(s.port()) + " db 2");
  expect_works(o, "designated");
}

TEST(redis_options, parses_every_part_of_a_uri) {
  ::setenv("FLAKEID_TEST_REDIS_URL",
           "rediss://app%40shop:p%3Ass@[::1]:6380/2?connect_timeout=250ms&command_timeout=2s"
           "&tls_ca=/etc/ca.pem&tls_cert=/c.pem&tls_key=/k.pem&tls_server_name=cache.internal",
           1);
  const auto o = flakeid::redis_options::from_env("FLAKEID_TEST_REDIS_URL");
  EXPECT_EQ(o.address.host, "::1");
  EXPECT_EQ(o.address.port, 6380);
  EXPECT_EQ(o.address.user, "app@shop");
  EXPECT_EQ(o.address.password, "p:ss");
  EXPECT_EQ(o.db, 2);
  EXPECT_TRUE(o.address.tls);
  EXPECT_EQ(o.address.connect_timeout, 250ms);
  EXPECT_EQ(o.address.command_timeout, 2000ms);
  EXPECT_EQ(o.address.tls_ca_file, "/etc/ca.pem");
  EXPECT_EQ(o.tls_cert_file, "/c.pem");
  EXPECT_EQ(o.tls_key_file, "/k.pem");
  EXPECT_EQ(o.tls_server_name, "cache.internal");
  EXPECT_EQ(o.where(), "redis [::1]:6380 tls user app@shop db 2");
  const auto p = flakeid::redis_options::parse("redis://cache.internal?timeout=1500");
  EXPECT_EQ(p.address.host, "cache.internal");
  EXPECT_EQ(p.address.port, 6379);
  EXPECT_EQ(p.address.connect_timeout, 1500ms);
  EXPECT_EQ(p.address.command_timeout, 1500ms);
  EXPECT_FALSE(p.address.tls);
  EXPECT_EQ(flakeid::server_address::redact("redis://u:pw@h:1/2"), "redis://u:***@h:1/2");
  EXPECT_EQ(flakeid::server_address::redact("redis://h:1/2"), "redis://h:1/2");
  EXPECT_EQ(flakeid::server_address::redact("redis://u:a?b/c@h:1/2?db=3&timeout=2s&pwd=x&y"),
            "redis://u:***@h:1/2?db=3&timeout=2s&pwd=***&***");
  const auto w = flakeid::redis_options::parse("redis://app:Pa?ss/w0rd@cache.internal:6380/3");
  EXPECT_EQ(w.address.password, "Pa?ss/w0rd");
  EXPECT_EQ(w.where(), "redis cache.internal:6380 user app db 3");
}

TEST(redis_options, a_default_made_one_is_on_the_default_port_and_hides_its_password) {
  flakeid::redis_options o;
  EXPECT_EQ(o.address.port, 0);
  EXPECT_EQ(o.where(), "redis 127.0.0.1:6379");
  o.address.user = "app";
  o.address.password = "S3cr3t";
  o.db = 4;
  EXPECT_EQ(o.where(), "redis 127.0.0.1:6379 user app db 4");
  EXPECT_EQ(o.address.hide_password("WRONGPASS S3cr3t, S3cr3tS3cr3t"), "WRONGPASS ***, ******");
  const flakeid::redis_store store{o};
  EXPECT_EQ(store.distributor("k").store_name(),
            "redis 127.0.0.1:6379 user app db 4 namespace default");
  o.address.port = 70000;
  expect_error<flakeid::invalid_option_error>(
      [&] { (void)flakeid::redis_store{o}; },
      "flakeid: redis 127.0.0.1:70000 user app db 4: port must be 1..65535");
}

#if defined(FLAKEID_REDIS_TLS)

TEST_F(redis_auth_test, tls_verifies_the_server_against_the_ca) {
  redis_server s{redis_config{.tls = true}};
  FLAKEID_REQUIRE_SERVER(s.available(), s.missing());
  s.start();
  expect_works(s.options(), "tls");
  auto localhost = s.options();
  localhost.address.host = "localhost";  // a DNS name: checked against DNS:localhost, sent as SNI
  expect_works(localhost, "tls_dns");
  auto system_store = s.options();
  system_store.address.tls_ca_file.clear();  // the test CA is not in the system's store
  system_store.address.connect_timeout = 30000ms;
  // "unable to get local issuer certificate", or "self-signed certificate in certificate
  // chain" when the server sends its CA along: OpenSSL's reason depends on the chain sent.
  const std::string m = lease_error(system_store);
  const std::string expected = "flakeid: cannot connect to redis " + s.address() +
                               " tls within 30000 ms: TLS handshake failed: server certificate "
                               "refused: ";
  EXPECT_EQ(m.substr(0, expected.size()), expected) << m;
  EXPECT_GT(m.size(), expected.size()) << m;
}

TEST_F(redis_auth_test, tls_refuses_a_certificate_for_another_host) {
  redis_server s{redis_config{.tls = true, .other_host_cert = true}};
  FLAKEID_REQUIRE_SERVER(s.available(), s.missing());
  s.start();
  auto o = s.options();
  o.address.connect_timeout = 30000ms;
  EXPECT_EQ(lease_error(o), "flakeid: cannot connect to redis " + s.address() +
                                " tls within 30000 ms: TLS handshake failed: server certificate "
                                "refused: IP address mismatch");
  o.tls_server_name = "cache.internal";
  EXPECT_EQ(lease_error(o), "flakeid: cannot connect to redis " + s.address() +
                                " tls within 30000 ms: TLS handshake failed: server certificate "
                                "refused: hostname mismatch");
  o.tls_server_name = "other.example";  // the name the certificate carries
  expect_works(o, "tls_other");
}

TEST_F(redis_auth_test, tls_client_certificate_is_required_and_accepted) {
  redis_server s{redis_config{.tls = true, .tls_client_cert = true}};
  FLAKEID_REQUIRE_SERVER(s.available(), s.missing());
  s.start();
  const std::string m = lease_error(s.options());
  EXPECT_NE(m.find("redis " + s.address() + " tls"), std::string::npos) << m;
  auto o = s.options();
  o.tls_cert_file = s.certs().crt("client");
  o.tls_key_file = s.certs().key("client");
  expect_works(o, "mtls");
  o.tls_key_file.clear();
  EXPECT_EQ(lease_error(o), "flakeid: cannot connect to redis " + s.address() +
                                " tls within 10000 ms: a client certificate needs both tls_cert "
                                "and tls_key");
}

TEST_F(redis_auth_test, managed_redis_tls_acl_user_and_db_from_one_uri) {
  redis_server s{redis_config{.acl_user = "alice", .acl_password = acl_password, .tls = true}};
  FLAKEID_REQUIRE_SERVER(s.available(), s.missing());
  s.start();
  const std::string uri = "rediss://alice:" + acl_password +
                          "@localhost:" + std::to_string(s.port()) + "/2?tls_ca=" + s.certs().ca() +
                          "&timeout=30s";
  ::setenv("FLAKEID_TEST_REDIS_URL", uri.c_str(), 1);
  const auto o = flakeid::redis_options::from_env("FLAKEID_TEST_REDIS_URL");
  EXPECT_EQ(o.where(), "redis localhost:" + std::to_string(s.port()) + " tls user alice db 2");
  expect_works(o, "managed");
  EXPECT_EQ(lease_error(flakeid::redis_options::parse("rediss://alice:" + wrong_password +
                                                      "@localhost:" + std::to_string(s.port()) +
                                                      "/2?tls_ca=" + s.certs().ca())),
            "flakeid: cannot log in to redis localhost:" + std::to_string(s.port()) +
                " tls user alice db 2: WRONGPASS invalid username-password pair or user is "
                "disabled.");
}

#else

TEST(redis_auth_test, tls_was_built) {
  FLAKEID_REQUIRE_SERVER(false, "flakeid::redis_tls was not built (OpenSSL: libssl-dev)");
}

TEST(redis_options, tls_without_flakeid_redis_tls_is_a_clear_error) {
  EXPECT_THROW((void)flakeid::redis_store{"rediss://127.0.0.1:6380"}, std::invalid_argument);
}

#endif

}  // namespace
