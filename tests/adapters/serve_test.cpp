// flakeid-serve from outside its process: started as a child on a free port, called with real
// HTTP clients (curl, and Python's urllib as a Python service would call it), over a real
// redis-server started for each test.
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <flakeid/registry.hpp>

#include "../eventually.hpp"
#include "../temp_dir.hpp"
#include "redis_backend.hpp"

#ifndef FLAKEID_SERVE_PROGRAM
#error "FLAKEID_SERVE_PROGRAM: the path of flakeid-serve"
#endif

namespace {

using namespace flakeid_test;
using namespace std::chrono_literals;
using flakeid::detail::json_value;

/// What a client got: the status (0: no answer) and the body.
struct answer {
  int status = 0;
  std::string body;
};

/// The output of shell command `cmd`.
std::string run(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  ::pclose(p);
  return out;
}

/// GET `url` with curl (`extra`: more curl arguments, already quoted).
answer curl(const std::string& url, const std::string& extra = "") {
  const std::string out =
      run("curl -s -S --max-time 20 " + extra + " -w '\\n%{http_code}' '" + url + "' 2>/dev/null");
  answer a;
  const auto nl = out.rfind('\n');
  if (nl == std::string::npos) return a;
  a.status = std::atoi(out.c_str() + nl + 1);
  a.body = out.substr(0, nl);
  return a;
}

/// GET `url` with Python's urllib: "status\nbody".
answer python_get(const std::string& url) {
  const std::string out =
      run("python3 -c 'import sys, urllib.request, urllib.error\n"
          "try:\n"
          "    r = urllib.request.urlopen(sys.argv[1], timeout=20); s, b = r.status, r.read()\n"
          "except urllib.error.HTTPError as e:\n"
          "    s, b = e.code, e.read()\n"
          "sys.stdout.write(str(s) + \"\\n\" + b.decode())' '" +
          url + "'");
  answer a;
  const auto nl = out.find('\n');
  if (nl == std::string::npos) return a;
  a.status = std::atoi(out.substr(0, nl).c_str());
  a.body = out.substr(nl + 1);
  return a;
}

/// Polls `pred` every 50 ms for up to 60 s (a bound on a broken run, not a timing assumption).
template <class Pred>
bool eventually(Pred pred) {
  return flakeid_test::eventually(pred, 60s, 50ms);
}

/// A client that writes raw bytes to flakeid-serve and reads its answers one by one (each
/// read and write bounded by 20 s, which only ends a broken run).
class raw_client {
 public:
  explicit raw_client(int port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const timeval bound{20, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof bound);
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &bound, sizeof bound);
    connected_ = ::connect(fd_, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0;
  }
  raw_client(const raw_client&) = delete;
  raw_client& operator=(const raw_client&) = delete;
  ~raw_client() { ::close(fd_); }

  [[nodiscard]] bool connected() const { return connected_; }
  void send(const std::string& bytes) const {
    (void)!::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  }
  /// The next whole answer (head and body, by its Content-Length); what came before the
  /// connection closed when it is not whole.
  std::string answer() {
    for (;;) {
      const auto end = got_.find("\r\n\r\n");
      if (end != std::string::npos) {
        const auto at = got_.find("Content-Length: ");
        const std::size_t size = end + 4 + std::stoul(got_.substr(at + 16));
        if (got_.size() >= size) {
          std::string one = got_.substr(0, size);
          got_.erase(0, size);
          return one;
        }
      }
      if (!more()) return std::exchange(got_, {});
    }
  }
  /// Whether the service closed the connection (nothing more comes).
  bool closed() { return got_.empty() && !more(); }

 private:
  bool more() {
    char buf[4096];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) return false;
    got_.append(buf, static_cast<std::size_t>(n));
    return true;
  }
  int fd_;
  bool connected_ = false;
  std::string got_;
};

/// An answer's text: status line, the headers flakeid-serve sends, body.
std::string http_answer(const std::string& status, const std::string& body,
                        const std::string& extra = "", const char* type = "text/plain") {
  return "HTTP/1.1 " + status + "\r\nContent-Type: " + type +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" + extra + "\r\n" + body;
}

/// One flakeid-serve process on a free loopback port, with configuration `config`.
class serve_process {
 public:
  serve_process(const std::filesystem::path& dir, const std::string& name,
                const std::string& config, std::vector<std::string> args = {})
      : log_(dir / (name + ".log")) {
    const auto file = dir / (name + ".json");
    std::ofstream(file) << config;
    args.insert(args.begin(), {FLAKEID_SERVE_PROGRAM, "--config", file.string(), "--listen",
                               "127.0.0.1:0", "--threads", "4"});
    pid_ = ::fork();
    if (pid_ == 0) {
      std::FILE* f = std::freopen(log_.c_str(), "w", stderr);
      (void)f;
      std::vector<char*> raw;
      for (std::string& a : args) raw.push_back(a.data());
      raw.push_back(nullptr);
      ::execv(raw[0], raw.data());
      ::_exit(127);
    }
    const bool up = eventually([&] { return port() != 0 || exited(); });
    EXPECT_TRUE(up && port() != 0) << "flakeid-serve did not start:\n" << log();
  }
  serve_process(const serve_process&) = delete;
  serve_process& operator=(const serve_process&) = delete;
  ~serve_process() {
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGCONT);
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }

  /// The port from its "listening on" line; 0 before it.
  [[nodiscard]] int port() const {
    const std::string l = log();
    const auto at = l.find("://127.0.0.1:");
    return at == std::string::npos ? 0 : std::atoi(l.c_str() + at + 13);
  }
  [[nodiscard]] std::string url(const std::string& path, bool tls = false) const {
    return std::string(tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(port()) + path;
  }
  [[nodiscard]] std::string log() const {
    std::ifstream in(log_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  void signal(int sig) const { ::kill(pid_, sig); }
  /// Sends SIGTERM and returns the exit status (-1: killed or not exited within the bound).
  int stop() {
    ::kill(pid_, SIGTERM);
    int status = 0;
    const bool done = eventually([&] { return ::waitpid(pid_, &status, WNOHANG) == pid_; });
    reaped_ = done;
    return done && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  bool exited() {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) reaped_ = true;
    return reaped_;
  }
  std::filesystem::path log_;
  pid_t pid_ = -1;
  bool reaped_ = false;
};

/// The IDs of a JSON array of strings.
std::vector<std::uint64_t> ids_of(const std::string& body) {
  std::vector<std::uint64_t> v;
  const json_value array = json_value::parse(body);
  for (const json_value& s : array.values()) v.push_back(std::stoull(s.text()));
  return v;
}

/// The value of metric line `metric{name="<name>"}` in `text`, or -1.
double metric(const std::string& text, const std::string& line_start) {
  const auto at = text.find("\n" + line_start + " ");
  return at == std::string::npos ? -1 : std::stod(text.substr(at + line_start.size() + 2));
}

std::string leased(const std::string& redis, const std::string& ns, int ttl_ms,
                   int extra_max_ids = 0, int wait_ms = 0, int safe_guard_ms = 2000) {
  // Each Redis request may take 10 s: the default bound (ttl / 5, 300 ms at the 1.5 s ttl of
  // most tests here) is missed on a loaded machine, and the service then fails to start (3 s
  // was missed once too, with the whole suite on 8 jobs beside other work on 2 cores). No test
  // here waits for a request to time out: a stopped server refuses at once.
  std::string lease = R"({"store": "redis://)" + redis + R"(", "namespace": ")" + ns +
                      R"(", "ttl_ms": )" + std::to_string(ttl_ms) + R"(, "safe_guard_ms": )" +
                      std::to_string(safe_guard_ms) + R"(, "io_timeout_ms": 10000)";
  if (extra_max_ids > 0) lease += R"(, "max_ids": )" + std::to_string(extra_max_ids);
  if (wait_ms > 0) lease += R"(, "wait_for_id_ms": )" + std::to_string(wait_ms);
  return R"({"generators": {"orders": {"kind": "snowflake", "lease": )" + lease + "}}}}";
}

using serve_test = redis_test;

TEST_F(serve_test, serves_leafs_paths_batches_text_and_decoding) {
  const temp_dir dir("serve");
  std::filesystem::create_directories(dir.path / "ids");
  const std::string config = R"({"generators": {
      "orders": {"kind": "snowflake", "worker": 7},
      "inv": {"kind": "chain", "store": "file://)" +
                             (dir.path / "ids").string() +
                             R"(", "key": "invoice",
              "text": {"form": "decimal", "pad": true, "width": 7, "prefix": "INV-"}},
      "r62": {"kind": "chain", "store": "file://)" +
                             (dir.path / "ids").string() +
                             R"(", "key": "r62", "text": {"form": "radix62"}}}})";
  serve_process s(dir.path, "a", config);
  EXPECT_EQ(curl(s.url("/api/segment/get/inv")).body, "1");
  const answer batch = curl(s.url("/api/segment/get/inv?count=3"));
  EXPECT_EQ(batch.status, 200);
  EXPECT_EQ(batch.body, R"(["2","3","4"])");
  EXPECT_EQ(curl(s.url("/api/text/inv")).body, "INV-0000005");
  EXPECT_EQ(curl(s.url("/api/text/inv?count=2")).body, R"(["INV-0000006","INV-0000007"])");
  EXPECT_EQ(curl(s.url("/api/decode/inv/INV-0000002")).body, R"({"id":"2"})");
  // An ID in decimal decodes too; where the entry's text reads the digits as another ID, the
  // caller says which it means.
  EXPECT_EQ(curl(s.url("/api/decode/inv/2")).body, R"({"id":"2"})");
  EXPECT_EQ(curl(s.url("/api/decode/r62/175928847299117063")).body,
            R"({"id":"175928847299117063"})");
  const answer both = curl(s.url("/api/decode/r62/12345"));
  EXPECT_EQ(both.status, 400);
  EXPECT_EQ(both.body,
            "flakeid-serve: ID '12345' reads as decimal 12345 and as the entry's text 15264777: "
            "add ?from=decimal or ?from=text\n");
  EXPECT_EQ(curl(s.url("/api/decode/r62/12345?from=text")).body, R"({"id":"15264777"})");
  EXPECT_EQ(curl(s.url("/api/decode/r62/12345?from=decimal")).body, R"({"id":"12345"})");
  EXPECT_EQ(curl(s.url("/api/decode/r62/12345?from=octal")).body,
            "flakeid-serve: from 'octal' is not decimal or text\n");
  EXPECT_EQ(curl(s.url("/api/decode/inv/INV-0000002?from=decimal")).body,
            "flakeid-serve: ID 'INV-0000002' is not a decimal number in [0, 2^64-1]\n");

  // A Python service's call: the snowflake's ID as plain text, worker 7 in it.
  const answer py = python_get(s.url("/api/snowflake/get/orders"));
  EXPECT_EQ(py.status, 200);
  const std::uint64_t id = std::stoull(py.body);
  EXPECT_EQ(flakeid::layouts::twitter.decompose(id).worker, 7U);
  const answer decoded = curl(s.url("/api/decode/orders/" + py.body));
  const json_value fields = json_value::parse(decoded.body);
  EXPECT_EQ(fields.find("worker")->whole<std::uint64_t>(), 7U);
  EXPECT_EQ(fields.find("id")->text(), py.body);

  // Bad requests: one line naming what is wrong.
  const answer bad_count = curl(s.url("/api/segment/get/inv?count=0"));
  EXPECT_EQ(bad_count.status, 400);
  EXPECT_EQ(bad_count.body, "flakeid-serve: count '0' is not a whole number in [1, 10000]\n");
  EXPECT_EQ(curl(s.url("/api/segment/get/inv?count=10001")).body,
            "flakeid-serve: count '10001' is not a whole number in [1, 10000]\n");
  const answer wrong_kind = curl(s.url("/api/segment/get/orders"));
  EXPECT_EQ(wrong_kind.status, 404);
  EXPECT_EQ(wrong_kind.body,
            "flakeid-serve: 'orders' is a snowflake generator: ask /api/snowflake/get/orders\n");
  const answer none = python_get(s.url("/api/snowflake/get/nope"));
  EXPECT_EQ(none.status, 404);
  EXPECT_EQ(none.body, "flakeid-serve: no generator named 'nope' (see /healthz)\n");
  EXPECT_EQ(curl(s.url("/nope")).body, "flakeid-serve: no such path: /nope\n");
  const answer bad_id = curl(s.url("/api/decode/orders/12x"));
  EXPECT_EQ(bad_id.status, 400);
  EXPECT_EQ(bad_id.body,
            "flakeid-serve: ID '12x' is neither a decimal number in [0, 2^64-1] nor the entry's "
            "text: text \"12x\" has 'x' in its number at index 2; allowed: 0-9\n");
  const answer post = curl(s.url("/api/segment/get/inv"), "-X POST");
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.body, "flakeid-serve: only GET is served\n");

  EXPECT_EQ(curl(s.url("/healthz")).body, "ok\n");
  const std::string m = curl(s.url("/metrics")).body;
  EXPECT_EQ(metric(m, R"(flakeid_ids_served_total{name="inv"})"), 7);
  EXPECT_EQ(metric(m, R"(flakeid_ids_served_total{name="orders"})"), 1);
  EXPECT_EQ(metric(m, R"(flakeid_requests_total{code="400"})"),
            6);  // two counts, 12x, three decodes
  EXPECT_EQ(metric(m, R"(flakeid_source_ready{name="inv"})"), 1);
  EXPECT_EQ(s.stop(), 0);
  EXPECT_NE(s.log().find("flakeid-serve: stopped; leases released"), std::string::npos);
}

TEST_F(serve_test, asks_for_its_token_and_serves_tls) {
  const temp_dir dir("serve_tls");
  std::ofstream(dir.path / "token") << "s3cret-token\n";
  const std::string key = (dir.path / "key.pem").string();
  const std::string cert = (dir.path / "cert.pem").string();
  ASSERT_EQ(std::system(("openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 "
                         "-addext subjectAltName=IP:127.0.0.1 -keyout " +
                         key + " -out " + cert + " >/dev/null 2>&1")
                            .c_str()),
            0);
  const std::string config = R"({"generators": {"orders": {"kind": "snowflake", "worker": 3}}})";
  serve_process s(
      dir.path, "tls", config,
      {"--token-file", (dir.path / "token").string(), "--tls-cert", cert, "--tls-key", key});
  const std::string ca = "--cacert " + cert;
  const answer no_token = curl(s.url("/api/snowflake/get/orders", true), ca);
  EXPECT_EQ(no_token.status, 401);
  EXPECT_EQ(no_token.body,
            "flakeid-serve: a bearer token is required (Authorization: Bearer TOKEN)\n");
  const answer wrong = curl(s.url("/api/snowflake/get/orders", true),
                            ca + " -H 'Authorization: Bearer s3cret-tokeN'");
  EXPECT_EQ(wrong.status, 401);
  EXPECT_EQ(wrong.body, no_token.body);
  const answer ok = curl(s.url("/api/snowflake/get/orders", true),
                         ca + " -H 'Authorization: Bearer s3cret-token'");
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(flakeid::layouts::twitter.decompose(std::stoull(ok.body)).worker, 3U);
  EXPECT_EQ(curl(s.url("/metrics", true), ca).status, 401);
  EXPECT_EQ(curl(s.url("/healthz", true), ca).status, 200) << "probes need no token";
  EXPECT_EQ(curl(s.url("/healthz")).status, 0) << "plain HTTP to a TLS port gets no answer";
  EXPECT_EQ(s.log().find("s3cret"), std::string::npos);
}

TEST_F(serve_test, two_services_over_one_redis_hand_out_disjoint_ids) {
  const temp_dir dir("serve_two");
  const std::string config = leased(b.server.address(), "two", 10'000);
  serve_process a(dir.path, "a", config);
  serve_process c(dir.path, "c", config);
  std::set<std::uint64_t> seen;
  std::set<std::uint64_t> workers;
  for (serve_process* s : {&a, &c}) {
    for (int i = 0; i < 5; ++i) {
      const answer r = curl(s->url("/api/snowflake/get/orders?count=1000"));
      ASSERT_EQ(r.status, 200) << r.body;
      for (const std::uint64_t id : ids_of(r.body)) {
        EXPECT_TRUE(seen.insert(id).second) << "ID " << id << " handed out twice";
        workers.insert(flakeid::layouts::twitter.decompose(id).worker);
      }
    }
  }
  EXPECT_EQ(seen.size(), 10'000U);
  EXPECT_EQ(workers.size(), 2U);
}

TEST_F(serve_test, a_stopped_redis_turns_healthz_unready_and_back) {
  const temp_dir dir("serve_health");
  // The lease's key outlives its deadline by safe_guard (20 s here): Redis is back well within
  // it, so the renewal finds the key still the service's and the lease goes on (had the key
  // expired, the id could be another's and the lease would stay lost).
  serve_process s(dir.path, "h", leased(b.server.address(), "health", 1500, 0, 0, 20'000));
  EXPECT_EQ(curl(s.url("/healthz")).body, "ok\n");
  b.server.stop();
  EXPECT_TRUE(eventually([&] { return curl(s.url("/healthz")).status == 503; }));
  const answer down = curl(s.url("/healthz"));
  EXPECT_TRUE(down.body.starts_with("orders: the lease on worker id ")) << down.body;
  EXPECT_EQ(curl(s.url("/api/snowflake/get/orders")).status, 503);
  b.server.start();
  EXPECT_TRUE(eventually([&] { return curl(s.url("/healthz")).status == 200; }))
      << curl(s.url("/healthz")).body;
  EXPECT_EQ(curl(s.url("/api/snowflake/get/orders")).status, 200);
}

TEST_F(serve_test, a_paused_service_refuses_once_its_worker_id_passed_on) {
  const temp_dir dir("serve_pause");
  // One worker id in the namespace: the second service waits until the first one's lease has
  // run out (ttl + safe_guard after its last renewal) and takes it.
  serve_process a(dir.path, "a", leased(b.server.address(), "pause", 1500, 1, 0, 500));
  const answer before = curl(a.url("/api/snowflake/get/orders"));
  ASSERT_EQ(before.status, 200);
  a.signal(SIGSTOP);
  serve_process c(dir.path, "c", leased(b.server.address(), "pause", 1500, 1, 60'000, 500));
  const answer taken = curl(c.url("/api/snowflake/get/orders"));
  ASSERT_EQ(taken.status, 200) << c.log();
  EXPECT_EQ(flakeid::layouts::twitter.decompose(std::stoull(taken.body)).worker,
            flakeid::layouts::twitter.decompose(std::stoull(before.body)).worker);
  a.signal(SIGCONT);
  // The first service refuses (its lease is past its deadline, then lost): no ID it cannot
  // stand behind.
  const answer after = curl(a.url("/api/snowflake/get/orders"));
  EXPECT_EQ(after.status, 503) << after.body;
  EXPECT_TRUE(after.body.starts_with("flakeid-serve: orders cannot mint now: ")) << after.body;
  EXPECT_EQ(curl(a.url("/healthz")).status, 503);
}

TEST_F(serve_test, sigterm_releases_the_lease) {
  const temp_dir dir("serve_release");
  // A release marks the id's key "released" for safe_guard (30 s here); without one it keeps
  // the holder's token until it expires.
  serve_process a(dir.path, "a", leased(b.server.address(), "release", 1500, 0, 0, 30'000));
  const answer r = curl(a.url("/api/snowflake/get/orders"));
  ASSERT_EQ(r.status, 200);
  const std::string key =
      "'flakeid:{release}:worker:" +
      std::to_string(flakeid::layouts::twitter.decompose(std::stoull(r.body)).worker) + "'";
  const std::string cli = "redis-cli -p " + std::to_string(b.server.port()) + " GET " + key;
  const std::string held = run(cli);
  EXPECT_FALSE(held.empty());
  EXPECT_NE(held, "released\n");
  EXPECT_EQ(a.stop(), 0);
  EXPECT_EQ(run(cli), "released\n");
}

TEST_F(serve_test, a_stopped_services_worker_id_is_taken_at_once) {
  const temp_dir dir("serve_handover");
  // One worker id and a lease of 10 s: only a release lets the second service have the id
  // within its 5 s wait (a record 10 s ahead is skipped, and with no other id the claim
  // fails); a released id waits safe_guard (500 ms). The first claim of a fresh single-id
  // namespace waits out a ttl, as an expired record would need.
  serve_process a(dir.path, "a", leased(b.server.address(), "handover", 10'000, 1, 0, 500));
  const answer first = curl(a.url("/api/snowflake/get/orders"));
  ASSERT_EQ(first.status, 200);
  EXPECT_EQ(a.stop(), 0);
  serve_process c(dir.path, "c", leased(b.server.address(), "handover", 10'000, 1, 5'000, 500));
  const answer second = curl(c.url("/api/snowflake/get/orders"));
  ASSERT_EQ(second.status, 200) << c.log();
  EXPECT_EQ(flakeid::layouts::twitter.decompose(std::stoull(second.body)).worker,
            flakeid::layouts::twitter.decompose(std::stoull(first.body)).worker);
  EXPECT_GT(std::stoull(second.body), std::stoull(first.body));
}

TEST(serve_http_test, speaks_http_1_1_to_a_raw_socket) {
  const temp_dir dir("serve_http");
  const std::string config =
      R"({"generators": {"inv": {"kind": "chain", "store": "memory:", "key": "invoice"}}})";
  serve_process s(dir.path, "a", config);
  const std::string close = "Connection: close\r\n";

  // Three requests in one write (pipelined): three answers, in order, on one connection.
  raw_client piped(s.port());
  ASSERT_TRUE(piped.connected());
  piped.send(
      "GET /api/segment/get/inv HTTP/1.1\r\nHost: a\r\n\r\n"
      "GET /api/segment/get/inv?count=2 HTTP/1.1\r\n\r\nGET /healthz HTTP/1.1\r\n\r\n");
  EXPECT_EQ(piped.answer(), http_answer("200 OK", "1"));
  EXPECT_EQ(piped.answer(), http_answer("200 OK", R"(["2","3"])", "", "application/json"));
  EXPECT_EQ(piped.answer(), http_answer("200 OK", "ok\n"));
  // A request that comes a byte at a time, a body that is read and dropped, a query escape.
  for (const char c : std::string("GET /api/segment/get/inv HTTP/1.1\r\n\r\n"))
    piped.send(std::string(1, c));
  EXPECT_EQ(piped.answer(), http_answer("200 OK", "4"));
  piped.send("GET /api/segment/get/inv HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello");
  EXPECT_EQ(piped.answer(), http_answer("200 OK", "5"));
  piped.send("GET /api/segment/get/inv?count=%32 HTTP/1.1\r\n\r\n");
  EXPECT_EQ(piped.answer(), http_answer("200 OK", R"(["6","7"])", "", "application/json"));
  // Kept open while idle past the server's sweep of idle connections (once a second; the
  // idle limit is 60 s): at least 1.5 s pass here, however slow the machine.
  std::this_thread::sleep_for(1500ms);
  piped.send("GET /api/segment/get/inv HTTP/1.1\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(piped.answer(), http_answer("200 OK", "8", close));
  EXPECT_TRUE(piped.closed());

  // HTTP/1.0: closed after the answer unless kept alive.
  raw_client old(s.port());
  old.send("GET /api/segment/get/inv HTTP/1.0\r\n\r\n");
  EXPECT_EQ(old.answer(), http_answer("200 OK", "9", close));
  EXPECT_TRUE(old.closed());
  raw_client kept(s.port());
  kept.send("GET /api/segment/get/inv HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
  EXPECT_EQ(kept.answer(), http_answer("200 OK", "10", "Connection: keep-alive\r\n"));
  kept.send("GET /api/segment/get/inv HTTP/1.0\r\n\r\n");
  EXPECT_EQ(kept.answer(), http_answer("200 OK", "11", close));
  // Lines that end with a bare LF, as a request typed into nc has them (RFC 9112, 2.2), alone
  // and mixed with CRLF.
  raw_client lf(s.port());
  lf.send("GET /api/segment/get/inv HTTP/1.1\nHost: a\n\n");
  EXPECT_EQ(lf.answer(), http_answer("200 OK", "12"));
  lf.send("GET /api/segment/get/inv HTTP/1.1\r\nHost: a\n\r\n");
  EXPECT_EQ(lf.answer(), http_answer("200 OK", "13"));

  // What the server refuses itself: a 400 naming why, and the connection closed.
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"BAD\r\n\r\n", "a request line is METHOD TARGET HTTP/1.1"},
      {"GET /healthz HTTP/2\r\n\r\n", "only HTTP/1.0 and HTTP/1.1 are served"},
      {"GET healthz HTTP/1.1\r\n\r\n", "a request target starts with '/'"},
      {"GET /api/segment/get/i%zznv HTTP/1.1\r\n\r\n", "the path has a bad % escape"},
      {"GET /healthz HTTP/1.1\r\nno colon\r\n\r\n", "a header line is NAME: VALUE"},
      {"GET /healthz HTTP/1.1\r\nHost: a\rb\r\n\r\n",
       "a CR in the request head is not followed by LF"},
      {"GET /healthz HTTP/1.1\r\r\n\r\n", "a CR in the request head is not followed by LF"},
      {"GET /healthz HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
       "a request body in chunks is not read"},
      {"GET /healthz HTTP/1.1\r\nContent-Length: 5x\r\n\r\n",
       "Content-Length is not one whole number"},
      {"GET /healthz HTTP/1.1\r\nContent-Length: 2000000\r\n\r\n",
       "a request body over 1048576 bytes is not read"},
      {"GET /" + std::string(9000, 'a') + " HTTP/1.1\r\n\r\n",
       "a request head over 8192 bytes is not read"},
  };
  for (const auto& [bytes, why] : refused) {
    raw_client c(s.port());
    c.send(bytes);
    EXPECT_EQ(c.answer(), http_answer("400 Bad Request", "flakeid-serve: " + why + "\n", close))
        << bytes.substr(0, 40);
    EXPECT_TRUE(c.closed()) << bytes.substr(0, 40);
  }
  // Refused while its body is still coming: the answer arrives whole (the server reads and
  // drops the rest before it closes, so no reset overtakes the answer).
  raw_client flood(s.port());
  flood.send("GET /healthz HTTP/1.1\r\nContent-Length: 2000000\r\n\r\n");
  for (int i = 0; i < 60; ++i) flood.send(std::string(10'000, 'x'));
  EXPECT_EQ(flood.answer(),
            http_answer("400 Bad Request",
                        "flakeid-serve: a request body over 1048576 bytes is not read\n", close));
  EXPECT_TRUE(flood.closed());
  raw_client post(s.port());
  post.send("POST /api/segment/get/inv HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi");
  EXPECT_EQ(post.answer(), http_answer("405 Method Not Allowed",
                                       "flakeid-serve: only GET is served\n", "Allow: GET\r\n"));
  EXPECT_EQ(metric(curl(s.url("/metrics")).body, R"(flakeid_requests_total{code="400"})"),
            static_cast<double>(refused.size() + 1));

  // A stop: an idle connection is closed at once; a request under way is answered (and says
  // the connection closes), then the service exits.
  raw_client idle(s.port());
  raw_client busy(s.port());
  for (raw_client* c : {&idle, &busy}) {  // both taken by the service (not in its backlog)
    c->send("GET /healthz HTTP/1.1\r\n\r\n");
    EXPECT_EQ(c->answer(), http_answer("200 OK", "ok\n"));
  }
  busy.send("GET /api/segment/get/inv HTTP/1.1\r\n");
  s.signal(SIGTERM);
  EXPECT_TRUE(idle.closed());
  busy.send("\r\n");
  EXPECT_EQ(busy.answer(), http_answer("200 OK", "14", close));
  EXPECT_TRUE(busy.closed());
  EXPECT_EQ(s.stop(), 0);
}

TEST(serve_http_test, names_a_port_it_cannot_listen_on_and_tls_files_it_cannot_load) {
  const temp_dir dir("serve_listen");
  const std::string config = R"({"generators": {"a": {"kind": "snowflake", "worker": 1}}})";
  serve_process first(dir.path, "first", config);
  const std::string env = "FLAKEID_GENERATORS='" + config + "' " + FLAKEID_SERVE_PROGRAM;
  const std::string port = std::to_string(first.port());
  EXPECT_EQ(run(env + " --listen 127.0.0.1:" + port + " 2>&1; echo $?"),
            "flakeid-serve: cannot listen on 127.0.0.1:" + port + " (Address already in use)\n1\n");
  const std::string missing = (dir.path / "none.pem").string();
  const std::string out = run(env + " --listen 127.0.0.1:0 --tls-cert " + missing + " --tls-key " +
                              missing + " 2>&1; echo $?");
  EXPECT_TRUE(out.starts_with("flakeid-serve: cannot load the TLS certificate '" + missing +
                              "' and key '" + missing + "' ("))
      << out;
  EXPECT_TRUE(out.ends_with(")\n2\n")) << out;
}

TEST_F(serve_test, names_a_bad_option_and_exits_2) {
  const std::string serve = FLAKEID_SERVE_PROGRAM;
  EXPECT_EQ(run(serve + " --threads 0 2>&1; echo $?"),
            "flakeid-serve: --threads '0' is not a whole number in [1, 256]\n2\n");
  EXPECT_EQ(run(serve + " --listen 127.0.0.1:http 2>&1; echo $?"),
            "flakeid-serve: --listen port 'http' is not a whole number in [0, 65535]\n2\n");
  EXPECT_EQ(run(serve + " --max-count 1000001 2>&1; echo $?"),
            "flakeid-serve: --max-count '1000001' is not a whole number in [1, 1000000]\n2\n");
  EXPECT_EQ(run(serve + " --bogus 2>&1; echo $?"),
            "flakeid-serve: unknown option '--bogus'; see 'flakeid-serve --help'\n2\n");
  EXPECT_EQ(run(serve + " --tls-cert c.pem 2>&1; echo $?"),
            "flakeid-serve: --tls-cert and --tls-key go together\n2\n");
  // A token file that is missing, empty (or holds only a line break), or a directory.
  const temp_dir dir("serve_token_file");
  const std::string missing = (dir.path / "none").string();
  EXPECT_EQ(run(serve + " --token-file " + missing + " 2>&1; echo $?"),
            "flakeid-serve: --token-file '" + missing +
                "' cannot be read (No such file or directory)\n2\n");
  const std::string empty = (dir.path / "empty").string();
  std::ofstream{empty}.flush();
  EXPECT_EQ(run(serve + " --token-file " + empty + " 2>&1; echo $?"),
            "flakeid-serve: --token-file '" + empty + "' is empty\n2\n");
  std::ofstream{empty} << "\r\n";
  EXPECT_EQ(run(serve + " --token-file " + empty + " 2>&1; echo $?"),
            "flakeid-serve: --token-file '" + empty + "' is empty\n2\n");
  EXPECT_EQ(run(serve + " --token-file " + dir.path.string() + " 2>&1; echo $?"),
            "flakeid-serve: --token-file '" + dir.path.string() + "' is a directory\n2\n");
}

}  // namespace
