// MySQL/MariaDB as it is deployed: a password, and TLS verified against a CA made at test time
// (`tls_ca`), against real MariaDB servers (see mariadb_server.hpp). Every message the adapter
// produces here is checked for the passwords.
#include <flakeid/adapters/mysql.hpp>

#include "lease_scenarios.hpp"
#include "mariadb_server.hpp"
#include "secret_messages.hpp"
#include "server_support.hpp"

namespace {

using namespace flakeid_test;

const std::string password = "S3cr3tPw";
const std::string wrong_password = "Wr0ngPw";

flakeid::store_options patient(const std::string& ns) {
  return {.name_space = ns, .connect_timeout = 30s, .io_timeout = 30s};
}

/// Checks, after each test, that no message holds a password.
class mysql_auth_test : public secrets_stay_hidden {
 protected:
  mysql_auth_test() : secrets_stay_hidden({password, wrong_password}) {}
};

/// A lease and a segment counter reached at `uri` work; returns the lease's `where()`.
std::string expect_works(const std::string& uri, const std::string& stem) {
  return expect_store_works<flakeid::mysql_store>(uri, recorded_patient(unique_ns(stem)), 8);
}

std::string lease_error(const std::string& uri) {
  return flakeid_test::lease_error<flakeid::mysql_store>(uri,
                                                         recorded_patient(unique_ns("refused")));
}

/// How the store names the server `db`, logged in as `login` ("user flakeid", "tls user ...").
std::string where_of(const mariadb_server& db, const std::string& login) {
  return "mysql 127.0.0.1:" + std::to_string(db.port()) + " " + login + " db flakeid";
}

std::string uri_of(const mariadb_server& db, const std::string& user, const std::string& pw,
                   const std::string& query = "") {
  return "mysql://" + user + (pw.empty() ? "" : ":" + pw) +
         "@127.0.0.1:" + std::to_string(db.port()) + "/flakeid" + query;
}

TEST_F(mysql_auth_test, password_right_works_wrong_or_none_is_a_clear_error) {
  mariadb_server db{mariadb_config{.durable = true, .password = password}};
  FLAKEID_REQUIRE_SERVER(db.available(), db.missing());
  db.start();
  const std::string where = where_of(db, "user flakeid");
  EXPECT_EQ(expect_works(db.uri(), "pw"), where);
  const std::string head = "flakeid: cannot connect to " + where + " within 30000 ms: ";
  const std::string wrong = lease_error(uri_of(db, "flakeid", wrong_password));
  EXPECT_EQ(wrong.substr(0, head.size()), head) << wrong;
  EXPECT_NE(wrong.find("Access denied for user 'flakeid'@'127.0.0.1' (using password: YES)"),
            std::string::npos)
      << wrong;
  const std::string none = lease_error(uri_of(db, "flakeid", ""));
  EXPECT_EQ(none.substr(0, head.size()), head) << none;
  EXPECT_NE(none.find("(using password: NO)"), std::string::npos) << none;

  expect_segment_refused<flakeid::mysql_store>(uri_of(db, "flakeid", wrong_password), where);
}

TEST_F(mysql_auth_test, tls_verified_against_the_test_ca) {
  mariadb_server db{mariadb_config{.durable = true, .password = password, .tls = true}};
  FLAKEID_REQUIRE_SERVER(db.available(), db.missing());
  db.start();
  const std::string where = where_of(db, "tls user flakeid_tls");
  // 'flakeid_tls' may log in only over TLS: that it works shows the connection is encrypted.
  const std::string verified = uri_of(db, "flakeid_tls", password, "?tls_ca=" + db.certs().ca());
  EXPECT_EQ(expect_works(verified, "tls_ca"), where);
  EXPECT_EQ(expect_works(uri_of(db, "flakeid_tls", password, "?tls=1"), "tls"), where);

  // Without TLS the server refuses that user.
  const std::string plain = lease_error(uri_of(db, "flakeid_tls", password));
  EXPECT_NE(plain.find("Access denied for user 'flakeid_tls'@'127.0.0.1'"), std::string::npos)
      << plain;
  // A CA that did not sign the server's certificate: the client refuses the server.
  const std::string head = "flakeid: cannot connect to " + where + " within 30000 ms: ";
  const std::string untrusted =
      lease_error(uri_of(db, "flakeid_tls", password, "?tls_ca=" + db.certs().crt("other")));
  EXPECT_EQ(untrusted.substr(0, head.size()), head) << untrusted;
  EXPECT_NE(untrusted.find("TLS/SSL error: self-signed certificate"), std::string::npos)
      << untrusted;
}

TEST_F(mysql_auth_test, tls_ca_checks_the_host_name_too) {
  // The server presents a certificate from the trusted CA, but for other.example only.
  mariadb_server db{
      mariadb_config{.durable = true, .password = password, .tls = true, .tls_cert = "other"}};
  FLAKEID_REQUIRE_SERVER(db.available(), db.missing());
  db.start();
  const std::string where = where_of(db, "tls user flakeid_tls");
  const std::string head = "flakeid: cannot connect to " + where + " within 30000 ms: ";
  const std::string m =
      lease_error(uri_of(db, "flakeid_tls", password, "?tls_ca=" + db.certs().ca()));
  EXPECT_EQ(m.substr(0, head.size()), head) << m;
  EXPECT_NE(m.find("TLS/SSL error: Validation of SSL server certificate failed"), std::string::npos)
      << m;
  // tls=1 encrypts without checking the certificate: the same server is accepted.
  EXPECT_EQ(expect_works(uri_of(db, "flakeid_tls", password, "?tls=1"), "tls_unchecked"), where);
}

TEST_F(mysql_auth_test, tls_refuses_a_server_that_offers_none) {
  // Connector/C alone would fall back to plaintext here (it enforces TLS only with another TLS
  // option set); the store checks the cipher after connecting.
  mariadb_server db{mariadb_config{.durable = true, .password = password}};
  FLAKEID_REQUIRE_SERVER(db.available(), db.missing());
  db.start();
  const std::string where = where_of(db, "tls user flakeid");
  const std::string why = "the server offers no TLS, which tls=1 requires";
  EXPECT_EQ(lease_error(uri_of(db, "flakeid", password, "?tls=1")),
            "flakeid: cannot connect to " + where + " within 30000 ms: " + why);
  const flakeid::mysql_store store{uri_of(db, "flakeid", password, "?tls=1"), patient("tls")};
  EXPECT_EQ(error_of([&] { (void)store.distributor("orders").next_max_id(1); }),
            "flakeid: segment store " + where +
                " namespace tls, key 'orders': next_max_id(1) failed: cannot connect to " + where +
                " within 30000 ms: " + why);
}

}  // namespace
