// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file detail/posix_file.hpp
/// Internal: the one owner of a POSIX file descriptor, the file operations the file stores
/// need, each retried when a signal interrupts it (`EINTR`), and the few path operations they
/// do on `std::string` paths (`<filesystem>` would cost every unit of the umbrella header more
/// than the file store and the clock guard together).

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <string>
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

/// The whole content of the file `path` into `out`; false (with `errno` set) when it cannot
/// be opened or read.
inline bool read_whole_file(const std::string& path, std::string& out) {
  const unique_fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (!f) return false;
  out.clear();
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(f.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return true;
    out.append(buf, static_cast<std::size_t>(n));
  }
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

/// `dir/name`; `name` alone when `dir` is empty, one separator when `dir` ends with one.
inline std::string join_path(std::string_view dir, std::string_view name) {
  std::string out(dir);
  if (!out.empty() && out.back() != '/') out += '/';
  out += name;
  return out;
}

/// `path` without the separators it ends with (the root `/` stays).
inline std::string_view without_trailing_slashes(std::string_view path) noexcept {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  return path;
}

/// The directory part of `file`: `a/b` -> `a`, `/b` -> `/`, `b` -> `.`.
inline std::string parent_directory(std::string_view file) {
  file = without_trailing_slashes(file);
  const std::size_t slash = file.rfind('/');
  if (slash == std::string_view::npos) return ".";
  const std::string_view dir = without_trailing_slashes(file.substr(0, slash));
  return dir.empty() ? std::string("/") : std::string(dir);
}

/// The last part of `file`: `a/b` -> `b`.
inline std::string_view file_name_of(std::string_view file) noexcept {
  file = without_trailing_slashes(file);
  const std::size_t slash = file.rfind('/');
  return slash == std::string_view::npos ? file : file.substr(slash + 1);
}

/// `path` from the root: the working directory is put before a relative one (no link is
/// resolved); `path` itself when the working directory cannot be read.
inline std::string absolute_path(const std::string& path) {
  if (!path.empty() && path.front() == '/') return path;
  std::string cwd(256, '\0');
  while (::getcwd(cwd.data(), cwd.size()) == nullptr) {
    if (errno != ERANGE) return path;
    cwd.resize(cwd.size() * 2);
  }
  cwd.resize(cwd.find('\0'));
  return join_path(cwd, path);
}

/// Makes directory `dir` and its missing parents (mode 0777 less the umask); 0, or the `errno`
/// of the step that failed (`ENOTDIR` when a part exists and is no directory).
inline int make_directories(const std::string& dir) {
  if (dir.empty()) return ENOENT;
  for (std::size_t end = 0; end != std::string::npos;) {
    end = dir.find('/', end + 1);
    const std::string part = dir.substr(0, end);
    if (part.empty() || part.back() == '/') continue;  // the root, or a doubled separator
    if (::mkdir(part.c_str(), 0777) == 0) continue;
    const int e = errno;
    struct stat st {};
    if (e != EEXIST) return e;
    if (::stat(part.c_str(), &st) != 0) return errno;
    if (!S_ISDIR(st.st_mode)) return ENOTDIR;
  }
  return 0;
}

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
