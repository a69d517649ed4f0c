// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file detail/posix_file.hpp
/// Internal: the one owner of a POSIX file descriptor, and the file operations the file
/// stores need, each retried when a signal interrupts it (`EINTR`).

#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <string_view>
#include "../version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {
namespace detail {

/// An owned file descriptor.
class unique_fd {
 public:
  unique_fd() noexcept = default;
  explicit unique_fd(int fd) noexcept : fd_(fd) {}
  unique_fd(unique_fd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  unique_fd& operator=(unique_fd&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = o.fd_;
      o.fd_ = -1;
    }
    return *this;
  }
  unique_fd(const unique_fd&) = delete;
  unique_fd& operator=(const unique_fd&) = delete;
  ~unique_fd() { reset(); }
  [[nodiscard]] int get() const noexcept { return fd_; }
  [[nodiscard]] explicit operator bool() const noexcept { return fd_ >= 0; }
  void reset() noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  /// Gives up the descriptor without closing it.
  int release() noexcept {
    const int f = fd_;
    fd_ = -1;
    return f;
  }

 private:
  int fd_ = -1;
};

/// `flock(fd, op)`, again after a signal; false (with `errno` set) on failure, also on
/// `EWOULDBLOCK` for `LOCK_NB`.
inline bool lock_file(int fd, int op) noexcept {
  while (::flock(fd, op) != 0) {
    if (errno != EINTR) return false;
  }
  return true;
}

/// Reads up to `size` bytes at offset 0; the count, or -1 (with `errno` set).
inline ssize_t read_head(int fd, char* buf, std::size_t size) noexcept {
  ssize_t n = 0;
  do {
    n = ::pread(fd, buf, size, 0);
  } while (n < 0 && errno == EINTR);
  return n;
}

/// Writes all of `text` at offset 0 and `fsync`s the file; false (with `errno` set) on
/// failure. A short write goes on where it stopped.
inline bool write_head_synced(int fd, std::string_view text) noexcept {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t w =
        ::pwrite(fd, text.data() + done, text.size() - done, static_cast<off_t>(done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = EIO;
      return false;
    }
    done += static_cast<std::size_t>(w);
  }
  while (::fsync(fd) != 0) {
    if (errno != EINTR) return false;
  }
  return true;
}

/// `fsync`s the directory open as `fd` (after a file was made in it); false on failure.
inline bool sync_fd(int fd) noexcept {
  while (::fsync(fd) != 0) {
    if (errno != EINTR) return false;
  }
  return true;
}

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
