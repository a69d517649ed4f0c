// PostgreSQL as it is deployed: a password (scram-sha-256 in pg_hba.conf) and ssl=on with
// sslmode=verify-full against a CA made at test time, against real clusters (see
// postgres_server.hpp). Every message the adapters produce here is checked for the passwords.
#include <flakeid/adapters/postgres.hpp>

#include "lease_scenarios.hpp"
#include "postgres_server.hpp"
#include "secret_messages.hpp"
#include "server_support.hpp"

namespace {

using namespace flakeid_test;

const std::string password = "S3cr3tPw";
const std::string wrong_password = "Wr0ngPw";

/// Checks, after each test, that no message holds a password.
class postgres_auth_test : public secrets_stay_hidden {
 protected:
  postgres_auth_test()
      : secrets_stay_hidden({password, wrong_password, std::string("S3cr%ZZtPw")}) {}
};

/// A lease and a segment counter reached with `conninfo` work.
void expect_works(const std::string& conninfo, const std::string& stem) {
  (void)expect_store_works<flakeid::postgres_store>(conninfo, recorded_patient(unique_ns(stem)), 8);
}

std::string lease_error(const std::string& conninfo) {
  return flakeid_test::lease_error<flakeid::postgres_store>(conninfo,
                                                            recorded_patient(unique_ns("refused")));
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  for (auto p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
    s.replace(p, from.size(), to);
  return s;
}

TEST_F(postgres_auth_test, password_right_works_wrong_or_none_is_a_clear_error) {
  postgres_cluster pg{postgres_config{.password = password}};
  FLAKEID_REQUIRE_SERVER(pg.available(), pg.missing());
  pg.start();
  expect_works(pg.conninfo(), "pw");
  expect_works(pg.uri(), "pw_uri");
  const std::string where =
      "postgresql 127.0.0.1:" + std::to_string(pg.port()) + " user flakeid db postgres";
  const std::string head = "flakeid: cannot connect to " + where + " within 30000 ms: ";
  const std::string refused = "password authentication failed for user \"flakeid\"";
  for (const std::string& wrong : {replace(pg.conninfo(), password, wrong_password),
                                   replace(pg.uri(), password, wrong_password)}) {
    const std::string m = lease_error(wrong);
    EXPECT_EQ(m.substr(0, head.size()), head) << m;
    EXPECT_NE(m.find(refused), std::string::npos) << m;
  }
  const std::string none = lease_error(replace(pg.conninfo(), " password=" + password, ""));
  EXPECT_EQ(none.substr(0, head.size()), head) << none;
  expect_segment_refused<flakeid::postgres_store>(replace(pg.uri(), password, wrong_password),
                                                  where);
}

TEST_F(postgres_auth_test, malformed_connection_strings_are_redacted) {
  EXPECT_EQ(lease_error("postgresql://u:S3cr%ZZtPw@127.0.0.1:5432/app"),
            "flakeid: invalid PostgreSQL connection string: invalid percent-encoded token: "
            "\"***\"");
  EXPECT_EQ(lease_error("postgresql://u:" + password + "@127.0.0.1:5432/app?sslmode=sometimes"),
            "flakeid: cannot connect to postgresql 127.0.0.1:5432 user u db app within 30000 ms: "
            "invalid sslmode value: \"sometimes\"");
  EXPECT_EQ(lease_error("host=127.0.0.1 password='" + password),
            "flakeid: invalid PostgreSQL connection string: unterminated quoted string in "
            "connection info string");
  EXPECT_EQ(lease_error("host=127.0.0.1 password=" + password + " colour=blue"),
            "flakeid: invalid PostgreSQL connection string: invalid connection option "
            "\"colour\"");
  EXPECT_EQ(
      error_of([&] { flakeid::postgres_store s{"postgresql://u:S3cr%ZZtPw@db.internal/app"}; }),
      "flakeid: invalid PostgreSQL connection string: invalid percent-encoded token: "
      "\"***\"");
  EXPECT_EQ(flakeid::detail::redact("a S3cr%ZZtPw b", flakeid::detail::postgres_secrets(
                                                          "postgresql://u:S3cr%ZZtPw@h/d")),
            "a *** b");
}

TEST_F(postgres_auth_test, unreachable_server_names_user_and_db_not_password) {
  const int port = free_port();
  const std::string m =
      lease_error("postgresql://app:" + password + "@127.0.0.1:" + std::to_string(port) +
                  "/orders?connect_timeout=2");
  const std::string head =
      "flakeid: cannot connect to postgresql 127.0.0.1:" + std::to_string(port) +
      " user app db orders within 30000 ms: ";
  EXPECT_EQ(m.substr(0, head.size()), head) << m;
}

TEST_F(postgres_auth_test, ssl_verify_full_against_the_test_ca) {
  postgres_cluster pg{postgres_config{.password = password, .ssl = true}};
  FLAKEID_REQUIRE_SERVER(pg.available(), pg.missing());
  pg.start();
  expect_works(pg.conninfo(), "ssl");
  expect_works(pg.uri(), "ssl_uri");
  // The certificate names localhost and 127.0.0.1, not other.example.
  const std::string other =
      replace(pg.conninfo(), "host=127.0.0.1", "host=other.example hostaddr=127.0.0.1");
  const std::string m = lease_error(other);
  EXPECT_NE(m.find("does not match host name \"other.example\""), std::string::npos) << m;
  // Without the CA, verify-full has nothing to check the certificate against.
  EXPECT_NE(lease_error(replace(pg.conninfo(), "sslrootcert=" + pg.certs().ca(),
                                "sslrootcert=" + pg.certs().crt("other")))
                .find("certificate verify failed"),
            std::string::npos);
}

/// The forms of a password that libpq reads but a scan of the text can misjudge: an '@' left
/// unencoded in a URI, a space or a quote in a key=value string. No message shows any piece.
class postgres_password_forms_test : public secrets_stay_hidden {
 protected:
  postgres_password_forms_test() : secrets_stay_hidden({"Zq9", "Xk7"}) {}
};

TEST_F(postgres_password_forms_test, no_piece_of_the_password_reaches_a_message) {
  const std::string p = std::to_string(free_port());
  // libpq ends the user info at the first '@': the rest of the password would be the host.
  EXPECT_EQ(lease_error("postgresql://u:Zq9@Xk7@127.0.0.1:" + p + "/app"),
            "flakeid: invalid PostgreSQL connection string: a host name holds '@' (an '@' in "
            "the password is written %40)");
  // ... and at the first '/': the password's pieces would be a host, a port and a database.
  for (const std::string& c : {"postgresql://u:Zq9/Xk7@127.0.0.1:" + p + "/app",
                               "postgresql://Zq9/Xk7@127.0.0.1:" + p + "/app",
                               "postgres://u@127.0.0.1:" + p + "/app?sslrootcert=/Zq9@Xk7"})
    EXPECT_EQ(lease_error(c),
              "flakeid: invalid PostgreSQL connection string: an '@' follows a '/' (a '/' in "
              "the password is written %2F, an '@' in the path or a parameter %40)")
        << c;
  const std::string head =
      "flakeid: cannot connect to postgresql 127.0.0.1:" + p + " user u db app within 30000 ms: ";
  const std::string kv = "host=127.0.0.1 port=" + p + " user=u dbname=app password=";
  for (const std::string& c :
       {kv + "'Zq9 Xk7'", kv + "'Zq9\\' Xk7'", kv + "Zq9\\'Xk7", kv + "'Zq9\\\\ Xk7'",
        "postgresql://u:Zq9%40Xk7@127.0.0.1:" + p + "/app",
        "postgresql://u:Zq9%2FXk7@127.0.0.1:" + p + "/app",
        "postgresql://u:Zq9?Xk7@127.0.0.1:" + p + "/app",
        "postgresql://u:Zq9%20Xk7@127.0.0.1:" + p + "/app",
        "postgresql://u@127.0.0.1:" + p + "/app?password=Zq9%27%20Xk7"}) {
    const std::string m = lease_error(c);
    EXPECT_EQ(m.substr(0, head.size()), head) << c << ": " << m;
    const auto o = recorded_patient(unique_ns("forms"));
    auto lease = flakeid::postgres_store{c, store_options_of(o)}.lease(o);
    EXPECT_EQ(lease.where(), "postgresql 127.0.0.1:" + p + " user u db app");
    seen().add(lease.where());
  }
  // Not a connection string: libpq quotes the piece after the space.
  EXPECT_EQ(lease_error("host=127.0.0.1 port=" + p + " password=Zq9 Xk7"),
            "flakeid: invalid PostgreSQL connection string: missing \"=\" after \"***\" in "
            "connection info string");
}

}  // namespace
