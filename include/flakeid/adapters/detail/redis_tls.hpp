// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file adapters/detail/redis_tls.hpp
/// Internal: a TLS connection to Redis over OpenSSL, for hiredis versions without TLS (0.14).
/// Part of the CMake target `flakeid::redis_tls`, which links OpenSSL and defines
/// `FLAKEID_REDIS_TLS` so that `redis_connection` uses it for `rediss://`. Not part of the
/// public API.
///
/// The TCP connection and the handshake are bounded by the connect timeout, each command by the
/// command timeout (the socket is non-blocking; waits are `poll`). The server certificate is
/// verified against `tls_ca_file` (or the system store) and must name `tls_server_name` (or the
/// host: a DNS name, or an IP address in its subjectAltName); SNI is sent for a DNS name. Requests
/// are built by hiredis' `redisFormatCommandArgv` and replies read by hiredis' reader.

#include <arpa/inet.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "../../version.hpp"
#include "../redis_options.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {
namespace detail {

/// Keeps a write to a socket the server closed from killing the process with SIGPIPE
/// (OpenSSL writes with `write`, not `send(MSG_NOSIGNAL)`): blocks SIGPIPE in this thread for
/// its lifetime and discards one raised meanwhile. The write itself then fails with EPIPE.
class sigpipe_guard {
 public:
  sigpipe_guard() noexcept {
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    sigset_t pending;
    sigemptyset(&pending);
    (void)sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    (void)pthread_sigmask(SIG_BLOCK, &pipe, &old_);
  }
  sigpipe_guard(const sigpipe_guard&) = delete;
  sigpipe_guard& operator=(const sigpipe_guard&) = delete;
  ~sigpipe_guard() {
    if (!was_pending_) {
      sigset_t pending;
      sigemptyset(&pending);
      (void)sigpending(&pending);
      if (sigismember(&pending, SIGPIPE) == 1) {
        sigset_t pipe;
        sigemptyset(&pipe);
        sigaddset(&pipe, SIGPIPE);
        const timespec zero{0, 0};
        while (::sigtimedwait(&pipe, nullptr, &zero) == -1 && errno == EINTR) {
        }
      }
    }
    (void)pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  sigset_t old_{};
  bool was_pending_ = false;
};

/// One TLS connection to a Redis server. Throws `std::runtime_error` with the reason (no server
/// name, no secret); the caller adds where it was going.
class redis_tls_stream {
 public:
  using steady = std::chrono::steady_clock;

  /// Connects to `o.address.host:port` and completes the TLS handshake before `connect_timeout`.
  redis_tls_stream(const redis_options& o, std::chrono::milliseconds connect_timeout) {
    const sigpipe_guard no_sigpipe;
    const auto deadline = steady::now() + connect_timeout;
    ctx_.reset(SSL_CTX_new(TLS_client_method()));
    if (!ctx_) fail_ssl("cannot create a TLS context");
    SSL_CTX_set_min_proto_version(ctx_.get(), TLS1_2_VERSION);
    SSL_CTX_set_verify(ctx_.get(), SSL_VERIFY_PEER, nullptr);
    if (!o.address.tls_ca_file.empty()) {
      if (SSL_CTX_load_verify_locations(ctx_.get(), o.address.tls_ca_file.c_str(), nullptr) != 1)
        fail_ssl("cannot load the CA file '" + o.address.tls_ca_file + "'");
    } else if (SSL_CTX_set_default_verify_paths(ctx_.get()) != 1) {
      fail_ssl("cannot load the system's CA certificates");
    }
    if (!o.tls_cert_file.empty() || !o.tls_key_file.empty()) {
      if (o.tls_cert_file.empty() || o.tls_key_file.empty())
        throw std::runtime_error("a client certificate needs both tls_cert and tls_key");
      if (SSL_CTX_use_certificate_chain_file(ctx_.get(), o.tls_cert_file.c_str()) != 1)
        fail_ssl("cannot load the client certificate '" + o.tls_cert_file + "'");
      if (SSL_CTX_use_PrivateKey_file(ctx_.get(), o.tls_key_file.c_str(), SSL_FILETYPE_PEM) != 1)
        fail_ssl("cannot load the client key '" + o.tls_key_file + "'");
      if (SSL_CTX_check_private_key(ctx_.get()) != 1)
        fail_ssl("the client key does not match the client certificate");
    }
    open_socket(o, deadline);
    ssl_.reset(SSL_new(ctx_.get()));
    if (!ssl_ || SSL_set_fd(ssl_.get(), fd_) != 1) fail_ssl("cannot set up TLS");
    const std::string& name = o.tls_server_name.empty() ? o.address.host : o.tls_server_name;
    if (is_ip(name)) {
      X509_VERIFY_PARAM* p = SSL_get0_param(ssl_.get());
      if (X509_VERIFY_PARAM_set1_ip_asc(p, name.c_str()) != 1) fail_ssl("bad IP address " + name);
    } else {
      SSL_set_hostflags(ssl_.get(), X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
      if (SSL_set1_host(ssl_.get(), name.c_str()) != 1 ||
          SSL_set_tlsext_host_name(ssl_.get(), name.c_str()) != 1)
        fail_ssl("cannot set the TLS server name " + name);
    }
    for (;;) {
      ERR_clear_error();
      const int r = SSL_connect(ssl_.get());
      if (r == 1) break;
      const int e = SSL_get_error(ssl_.get(), r);
      if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
        if (!wait(e == SSL_ERROR_WANT_WRITE, deadline))
          throw std::runtime_error("TLS handshake timed out");
        continue;
      }
      const long v = SSL_get_verify_result(ssl_.get());
      if (v != X509_V_OK)
        throw std::runtime_error(std::string("TLS handshake failed: server certificate refused: ") +
                                 X509_verify_cert_error_string(v));
      fail_ssl("TLS handshake failed", e);
    }
    reader_.reset(redisReaderCreate());
    if (!reader_) throw std::runtime_error("out of memory");
  }

  redis_tls_stream(const redis_tls_stream&) = delete;
  redis_tls_stream& operator=(const redis_tls_stream&) = delete;
  ~redis_tls_stream() {
    const sigpipe_guard no_sigpipe;
    if (ssl_) (void)SSL_shutdown(ssl_.get());  // best effort, non-blocking
  }

  /// Sends one command and returns its reply (never null) before `timeout`.
  redisReply* command(int argc, const char** argv, const std::size_t* lens,
                      std::chrono::milliseconds timeout) {
    const sigpipe_guard no_sigpipe;
    const auto deadline = steady::now() + timeout;
    char* raw = nullptr;
    const int len = redisFormatCommandArgv(&raw, argc, argv, lens);
    if (len < 0 || raw == nullptr) throw std::runtime_error("out of memory");
    const std::unique_ptr<char, void (*)(char*)> request(raw, redisFreeCommand);
    for (int sent = 0; sent < len;) {
      ERR_clear_error();
      const int n = SSL_write(ssl_.get(), raw + sent, len - sent);
      if (n > 0) {
        sent += n;
        continue;
      }
      step(n, deadline, timeout);
    }
    for (;;) {
      void* reply = nullptr;
      if (redisReaderGetReply(reader_.get(), &reply) != REDIS_OK)
        throw std::runtime_error(std::string("protocol error: ") + reader_->errstr);
      if (reply != nullptr) return static_cast<redisReply*>(reply);
      char buf[16384];
      ERR_clear_error();
      const int n = SSL_read(ssl_.get(), buf, static_cast<int>(sizeof buf));
      if (n > 0) {
        if (redisReaderFeed(reader_.get(), buf, static_cast<std::size_t>(n)) != REDIS_OK)
          throw std::runtime_error(std::string("protocol error: ") + reader_->errstr);
        continue;
      }
      step(n, deadline, timeout);
    }
  }

 private:
  struct socket_fd {
    int fd = -1;
    socket_fd() = default;
    socket_fd(const socket_fd&) = delete;
    socket_fd& operator=(const socket_fd&) = delete;
    ~socket_fd() {
      if (fd >= 0) ::close(fd);
    }
  };
  struct ctx_free {
    void operator()(SSL_CTX* c) const noexcept { SSL_CTX_free(c); }
  };
  struct ssl_free {
    void operator()(SSL* s) const noexcept { SSL_free(s); }
  };
  struct reader_free {
    void operator()(redisReader* r) const noexcept { redisReaderFree(r); }
  };

  static bool is_ip(const std::string& name) {
    unsigned char buf[sizeof(in6_addr)];
    return ::inet_pton(AF_INET, name.c_str(), buf) == 1 ||
           ::inet_pton(AF_INET6, name.c_str(), buf) == 1;
  }

  /// The OpenSSL error queue as text (certificate and library reasons).
  [[noreturn]] static void fail_ssl(const std::string& what, int ssl_error = 0) {
    std::string why;
    for (unsigned long e = ERR_get_error(); e != 0; e = ERR_get_error()) {
      char buf[256];
      ERR_error_string_n(e, buf, sizeof buf);
      why += why.empty() ? ": " : "; ";
      why += buf;
    }
    if (why.empty() && ssl_error == SSL_ERROR_SYSCALL)
      why = errno != 0 ? std::string(": ") + std::strerror(errno) : ": connection closed";
    if (why.empty() && ssl_error == SSL_ERROR_ZERO_RETURN) why = ": connection closed";
    ERR_clear_error();
    throw std::runtime_error(what + why);
  }

  /// After an SSL_read/SSL_write that returned `n <= 0`: waits for the socket, or throws.
  void step(int n, steady::time_point deadline, std::chrono::milliseconds timeout) {
    const int e = SSL_get_error(ssl_.get(), n);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
      if (!wait(e == SSL_ERROR_WANT_WRITE, deadline))
        throw std::runtime_error("no answer within " + std::to_string(timeout.count()) + " ms");
      return;
    }
    if (e == SSL_ERROR_ZERO_RETURN) throw std::runtime_error("connection closed by the server");
    fail_ssl("TLS connection failed", e);
  }

  /// Waits until the socket is readable (or writable); false at the deadline.
  [[nodiscard]] bool wait(bool write, steady::time_point deadline) const {
    for (;;) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - steady::now()).count();
      if (left <= 0) return false;
      pollfd p{fd_, static_cast<short>(write ? POLLOUT : POLLIN), 0};
      const int n = ::poll(&p, 1, static_cast<int>(left));
      if (n > 0) return true;
      if (n < 0 && errno != EINTR) return true;  // the next call reports the error
    }
  }

  /// A non-blocking TCP connection to the first address of `o.address.host` that answers.
  void open_socket(const redis_options& o, steady::time_point deadline) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* list = nullptr;
    const std::string port = std::to_string(o.address.port);
    if (const int rc = ::getaddrinfo(o.address.host.c_str(), port.c_str(), &hints, &list); rc != 0)
      throw std::runtime_error(std::string("cannot resolve the host: ") + ::gai_strerror(rc));
    const std::unique_ptr<addrinfo, void (*)(addrinfo*)> owner(list, ::freeaddrinfo);
    std::string why = "no address";
    for (const addrinfo* a = list; a != nullptr; a = a->ai_next) {
      const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
      if (fd < 0) continue;
      (void)::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
      fd_ = fd;
      int err = 0;
      if (::connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
        err = errno;
        if (err == EINPROGRESS) {
          if (!wait(true, deadline)) {
            ::close(fd);
            fd_ = -1;
            throw std::runtime_error("timed out");
          }
          socklen_t len = sizeof err;
          (void)::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
        }
      }
      if (err == 0) return;
      why = std::strerror(err);
      ::close(fd);
      fd_ = -1;
    }
    throw std::runtime_error(why);
  }

  socket_fd sock_;  // closed last, after the SSL object
  int& fd_ = sock_.fd;
  std::unique_ptr<SSL_CTX, ctx_free> ctx_;
  std::unique_ptr<SSL, ssl_free> ssl_;
  std::unique_ptr<redisReader, reader_free> reader_;
};

/// Deletes a `redis_tls_stream` (the connection holds it through this, so its layout does not
/// depend on whether TLS is compiled in).
inline void redis_tls_delete(redis_tls_stream* s) noexcept { delete s; }

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
