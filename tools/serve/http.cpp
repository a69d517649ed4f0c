// flakeid-serve's HTTP/1.1 server (http.hpp): sockets, epoll loops, TLS.
#include "http.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "http_message.hpp"
#include "http_setup.hpp"

namespace flakeid_serve::http {

namespace {

using steady = std::chrono::steady_clock;

/// How long a closing connection reads what the client still sends (`loop::linger`).
constexpr std::chrono::seconds linger_time{2};

/// One client connection.
struct connection {
  int fd = -1;
  SSL* ssl = nullptr;
  std::size_t slot = 0;           // its place in its loop's list
  std::string in;                 // bytes read
  std::size_t in_used = 0;        // of which answered
  std::string out;                // bytes to write
  std::size_t out_done = 0;       // of which written
  int tls_retry = 0;              // the length of an SSL_write to repeat
  bool tls_read_blocked = false;  // SSL_read waits for the socket to take bytes
  bool peer_done = false;         // the client sent its last byte
  bool closing = false;           // close once `out` is written
  bool lingering = false;         // answered and shut for writing: reading what still comes
  std::uint32_t events = 0;       // what epoll watches for
  steady::time_point last;

  [[nodiscard]] std::size_t pending() const { return out.size() - out_done; }
  [[nodiscard]] std::size_t unread() const { return in.size() - in_used; }
};

}  // namespace

struct server::impl {
  struct loop;

  handlers h;
  settings s;
  int listen_fd = -1;
  int port = 0;
  SSL_CTX* tls = nullptr;
  std::atomic<bool> stopping{false};
  std::vector<std::unique_ptr<loop>> loops;

  ~impl();
};

/// One epoll loop and the connections it serves. The first loop also accepts, and hands each
/// new connection to the loop that serves the fewest (itself included), so that the loops
/// share the connections evenly whatever order they come in.
struct server::impl::loop {
  impl& srv;
  const bool listens;  // the first loop: it accepts
  int ep = -1;
  int wake = -1;   // an eventfd: stop()
  int inbox = -1;  // an eventfd: connections handed to this loop
  std::mutex inbox_m;
  std::vector<int> inbox_fds;        // guarded by inbox_m
  std::atomic<std::size_t> live{0};  // connections served or handed to this loop
  std::vector<std::unique_ptr<connection>> conns;
  bool accepting = false;
  bool draining = false;
  steady::time_point drain_end;

  loop(impl& s, bool first)
      : srv(s),
        listens(first),
        ep(::epoll_create1(EPOLL_CLOEXEC)),
        wake(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)),
        inbox(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
    if (ep < 0 || wake < 0 || inbox < 0)
      throw server_error(std::string("cannot start: ") + std::strerror(errno));
    watch(wake, EPOLLIN, &wake);
    watch(inbox, EPOLLIN, &inbox);
    resume_accepting();
  }
  loop(const loop&) = delete;
  loop& operator=(const loop&) = delete;
  ~loop() {
    for (auto& c : conns) drop_fd(*c);
    for (const int fd : inbox_fds) ::close(fd);
    ::close(inbox);
    ::close(wake);
    ::close(ep);
  }

  void watch(int fd, std::uint32_t events, void* data) const {
    epoll_event ev{};
    ev.events = events;
    ev.data.ptr = data;
    ::epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
  }

  void run() {
    std::array<epoll_event, 64> ready{};
    auto next_sweep = steady::now() + std::chrono::seconds(1);
    while (!draining || !conns.empty()) {
      const int wait_ms = draining ? 100 : 1000;
      const int n = ::epoll_wait(ep, ready.data(), static_cast<int>(ready.size()), wait_ms);
      const auto now = steady::now();
      for (int i = 0; i < n; ++i) {
        void* p = ready[static_cast<std::size_t>(i)].data.ptr;
        if (p == nullptr) {
          accept_some(now);
        } else if (p == &inbox) {
          take_inbox(now);
        } else if (p == &wake) {
          begin_drain(now);
        } else {
          on_ready(*static_cast<connection*>(p), ready[static_cast<std::size_t>(i)].events, now);
        }
      }
      if (!draining && srv.stopping.load(std::memory_order_acquire)) begin_drain(now);
      if (now >= next_sweep || draining) {
        sweep(now);
        next_sweep = now + std::chrono::seconds(1);
      }
    }
  }

  /// Accepts what waits (up to 64 at a time) and hands each connection to the loop that serves
  /// the fewest.
  void accept_some(steady::time_point now) {
    for (int i = 0; i < 64 && !draining; ++i) {
      const int fd = ::accept4(srv.listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EMFILE || errno == ENFILE) pause_accepting();
        if (errno != EINTR && errno != ECONNABORTED) return;
        continue;
      }
      loop* to = this;
      for (const auto& l : srv.loops)
        if (l->live.load(std::memory_order_relaxed) < to->live.load(std::memory_order_relaxed))
          to = l.get();
      to->live.fetch_add(1, std::memory_order_relaxed);
      if (to == this) {
        adopt(fd, now);
        continue;
      }
      {
        const std::lock_guard lock(to->inbox_m);
        to->inbox_fds.push_back(fd);
      }
      const std::uint64_t one = 1;
      (void)!::write(to->inbox, &one, sizeof one);
    }
  }

  /// Serves the connections handed to this loop (closes them when draining).
  void take_inbox(steady::time_point now) {
    std::uint64_t n = 0;
    (void)!::read(inbox, &n, sizeof n);
    std::vector<int> fds;
    {
      const std::lock_guard lock(inbox_m);
      fds.swap(inbox_fds);
    }
    for (const int fd : fds) {
      if (draining) {
        ::close(fd);
        live.fetch_sub(1, std::memory_order_relaxed);
      } else {
        adopt(fd, now);
      }
    }
  }

  /// Serves the accepted connection `fd` (counted in `live` already).
  void adopt(int fd, steady::time_point now) {
    const int one = 1;
    (void)::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    auto c = std::make_unique<connection>();
    c->fd = fd;
    c->last = now;
    if (srv.tls != nullptr) {
      c->ssl = SSL_new(srv.tls);
      if (c->ssl == nullptr || SSL_set_fd(c->ssl, fd) != 1) {
        if (c->ssl != nullptr) SSL_free(c->ssl);
        ::close(fd);
        live.fetch_sub(1, std::memory_order_relaxed);
        return;
      }
      SSL_set_accept_state(c->ssl);
    }
    c->slot = conns.size();
    c->events = EPOLLIN | EPOLLRDHUP;
    watch(fd, c->events, c.get());
    conns.push_back(std::move(c));
  }

  /// Out of file descriptors: stop taking connections until one closes.
  void pause_accepting() {
    if (!accepting) return;
    ::epoll_ctl(ep, EPOLL_CTL_DEL, srv.listen_fd, nullptr);
    accepting = false;
  }
  void resume_accepting() {
    if (!listens || accepting || draining) return;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = nullptr;
    if (::epoll_ctl(ep, EPOLL_CTL_ADD, srv.listen_fd, &ev) == 0) accepting = true;
  }

  void begin_drain(steady::time_point now) {
    if (draining) return;
    draining = true;
    drain_end = now + srv.s.drain;
    ::epoll_ctl(ep, EPOLL_CTL_DEL, wake, nullptr);  // it stays readable
    if (accepting) ::epoll_ctl(ep, EPOLL_CTL_DEL, srv.listen_fd, nullptr);
    accepting = false;
  }

  /// Closes idle connections; when draining, every connection with nothing under way (bytes
  /// that came but were not read yet are a request under way), and all of them once the drain
  /// time is over.
  void sweep(steady::time_point now) {
    resume_accepting();  // after running out of descriptors, when another loop closed some
    for (std::size_t i = conns.size(); i-- > 0;) {
      connection& c = *conns[i];
      if (c.lingering) {
        if (now >= c.last + linger_time || (draining && now >= drain_end)) close(c);
      } else if (draining && now < drain_end && c.pending() == 0 && c.unread() == 0) {
        on_ready(c, EPOLLIN, now);  // reads what came, answers it, or closes the connection
      } else if ((draining && now >= drain_end) || now - c.last >= srv.s.idle) {
        close(c);
      }
    }
  }

  void on_ready(connection& c, std::uint32_t events, steady::time_point now) {
    if (c.lingering) return discard(c);
    c.last = now;
    bool ok = (events & EPOLLERR) == 0;
    if (ok && c.pending() > 0) ok = flush(c);
    if (ok && ((events & (EPOLLIN | EPOLLHUP | EPOLLRDHUP)) != 0 || c.tls_read_blocked))
      ok = read_some(c);
    if (ok) answer(c);
    if (ok) ok = flush(c);
    const bool finished =
        c.pending() == 0 && (c.closing || c.peer_done || (draining && c.unread() == 0));
    if (ok && finished && c.closing && !c.peer_done) return linger(c);
    if (!ok || finished) return close(c);
    // A client that sent its last byte is not read again (its socket stays readable).
    std::uint32_t want = c.peer_done ? 0U : std::uint32_t{EPOLLRDHUP};
    if (!c.closing && !c.peer_done && c.pending() < detail::max_pending) want |= EPOLLIN;
    if (c.pending() > 0 || c.tls_read_blocked) want |= EPOLLOUT;
    watch_for(c, want);
  }

  void watch_for(connection& c, std::uint32_t want) const {
    if (want == c.events) return;
    c.events = want;
    epoll_event ev{};
    ev.events = want;
    ev.data.ptr = &c;
    ::epoll_ctl(ep, EPOLL_CTL_MOD, c.fd, &ev);
  }

  /// The last answer is written and the server closes: it shuts the socket for writing and
  /// reads (and drops) what the client still sends, until it closes its side or
  /// `linger_time` passes. Closing at once with unread bytes would send a reset, which can destroy the
  /// answer before the client has read it (a request refused with its body on the way).
  void linger(connection& c) const {
    if (c.ssl != nullptr) (void)SSL_shutdown(c.ssl);  // close_notify, without waiting for one
    ::shutdown(c.fd, SHUT_WR);
    c.lingering = true;
    c.in.clear();
    c.in_used = 0;
    watch_for(c, EPOLLIN | EPOLLRDHUP);
  }

  void discard(connection& c) {
    char buf[16384];
    for (;;) {
      const ssize_t r = ::recv(c.fd, buf, sizeof buf, 0);
      if (r > 0) continue;
      if (r < 0 && errno == EINTR) continue;
      if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      return close(c);  // the client closed its side (or the connection broke)
    }
  }

  /// Reads what the socket has; false when the connection broke.
  bool read_some(connection& c) {
    c.tls_read_blocked = false;
    char buf[16384];
    while (c.unread() < detail::max_head + detail::max_body) {
      if (c.ssl != nullptr) {
        ERR_clear_error();
        const int r = SSL_read(c.ssl, buf, sizeof buf);
        if (r > 0) {
          c.in.append(buf, static_cast<std::size_t>(r));
          continue;
        }
        const int e = SSL_get_error(c.ssl, r);
        if (e == SSL_ERROR_WANT_READ) return true;
        if (e == SSL_ERROR_WANT_WRITE) return c.tls_read_blocked = true;
        if (e == SSL_ERROR_ZERO_RETURN) return c.peer_done = true;
        return false;
      }
      const ssize_t r = ::recv(c.fd, buf, sizeof buf, 0);
      if (r > 0) {
        c.in.append(buf, static_cast<std::size_t>(r));
        if (static_cast<std::size_t>(r) < sizeof buf) return true;
      } else if (r == 0) {
        return c.peer_done = true;
      } else if (errno != EINTR) {
        return errno == EAGAIN || errno == EWOULDBLOCK;
      }
    }
    return true;
  }

  /// Writes what the socket takes; false when the connection broke.
  static bool flush(connection& c) {
    while (c.pending() > 0) {
      const char* p = c.out.data() + c.out_done;
      if (c.ssl != nullptr) {
        const int len = c.tls_retry != 0
                            ? c.tls_retry
                            : static_cast<int>(std::min<std::size_t>(c.pending(), 16384));
        ERR_clear_error();
        const int r = SSL_write(c.ssl, p, len);
        if (r > 0) {
          c.tls_retry = 0;
          c.out_done += static_cast<std::size_t>(r);
          continue;
        }
        const int e = SSL_get_error(c.ssl, r);
        if (e != SSL_ERROR_WANT_WRITE && e != SSL_ERROR_WANT_READ) return false;
        c.tls_retry = len;  // OpenSSL asks for the same call again
        return true;
      }
      const ssize_t r = ::send(c.fd, p, c.pending(), MSG_NOSIGNAL);
      if (r >= 0) {
        c.out_done += static_cast<std::size_t>(r);
      } else if (errno != EINTR) {
        return errno == EAGAIN || errno == EWOULDBLOCK;
      }
    }
    c.out.clear();
    c.out_done = 0;
    return true;
  }

  /// Answers every whole request read (pipelined ones in order), while the answers waiting to
  /// be written stay under max_pending.
  void answer(connection& c) const {
    while (!c.closing && c.unread() > 0 && c.pending() < detail::max_pending) {
      const std::string_view in(c.in.data() + c.in_used, c.unread());
      detail::head req;
      if (detail::parse_head(in, req) == detail::parse_result::incomplete) break;
      response res;
      if (req.refused != 0) {
        srv.h.refuse(req.refused, req.why, res);
      } else {
        if (in.size() < req.size + req.body) break;  // its body is still coming
        try {
          srv.h.serve(req.req, res);
        } catch (const std::exception& e) {
          res = response{};
          srv.h.refuse(500, std::string("internal error: ") + e.what(), res);
          req.keep_alive = false;
        }
      }
      const bool keep = req.keep_alive && req.refused == 0 && !draining;
      detail::write_response(c.out, res, keep, req.http10);
      c.in_used += req.size + req.body;
      if (!keep) c.closing = true;
    }
    if (c.in_used == c.in.size()) {
      c.in.clear();
      c.in_used = 0;
    } else if (c.in_used > 65536) {
      c.in.erase(0, c.in_used);
      c.in_used = 0;
    }
  }

  static void drop_fd(connection& c) {
    if (c.ssl != nullptr) SSL_free(c.ssl);
    ::close(c.fd);
  }

  void close(connection& c) {
    ::epoll_ctl(ep, EPOLL_CTL_DEL, c.fd, nullptr);
    drop_fd(c);
    const std::size_t at = c.slot;
    if (at + 1 != conns.size()) {
      conns[at] = std::move(conns.back());
      conns[at]->slot = at;
    }
    conns.pop_back();
    live.fetch_sub(1, std::memory_order_relaxed);
    resume_accepting();
  }
};

server::impl::~impl() {
  loops.clear();
  if (listen_fd >= 0) ::close(listen_fd);
  if (tls != nullptr) SSL_CTX_free(tls);
}

server::server(const settings& s, handlers h) : impl_(std::make_unique<impl>()) {
  impl_->h = std::move(h);
  impl_->s = s;
  impl_->tls = detail::tls_context(s.tls_cert, s.tls_key);
  impl_->listen_fd = detail::listen_on(s.host, s.port, impl_->port);
  for (unsigned i = 0; i < std::max(1U, s.loops); ++i)
    impl_->loops.push_back(std::make_unique<impl::loop>(*impl_, i == 0));
}

server::~server() = default;

int server::port() const noexcept { return impl_->port; }

void server::run() {
  std::vector<std::thread> others;
  for (std::size_t i = 1; i < impl_->loops.size(); ++i)
    others.emplace_back([this, i] { impl_->loops[i]->run(); });
  impl_->loops[0]->run();
  for (std::thread& t : others) t.join();
}

void server::stop() noexcept {
  impl_->stopping.store(true, std::memory_order_release);
  const std::uint64_t one = 1;
  for (const auto& l : impl_->loops) (void)!::write(l->wake, &one, sizeof one);
}

}  // namespace flakeid_serve::http
