#pragma once
/// \file file_lease.hpp
/// `file_lease`: worker ids for several processes on one host, without a server. One lock file
/// per id in a directory, held with `flock`, so the kernel releases it when its process dies.
///
/// Each file holds one line, `<last unix ms> <reusable after unix ms>`: the last timestamp its
/// holder minted, and the time before which the id is not handed out again. The holder rewrites
/// it at every renewal (`now + ttl + safe_guard`) and at release (`now + safe_guard`), so a
/// process killed with SIGKILL leaves its id unused for its lease time plus the safe guard,
/// like the server stores. Files are never deleted (deleting a lock file races with a process
/// that has just opened it).
///
///     flakeid::file_lease lease;                          // $XDG_RUNTIME_DIR or /tmp
///     flakeid::classic_snowflake<> gen{lease};            // worker id: the first free one
///
/// Thread-safety: as `lease`.

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>

#include "lease.hpp"

namespace flakeid {

namespace detail {

/// One lock file per id: `<dir>/flakeid-<namespace>-<id>.lease`.
class file_lease_store final : public lease_store {
 public:
  file_lease_store(std::filesystem::path dir, const lease_options& o, bool honour_reuse_time)
      : dir_(std::move(dir)),
        ns_(o.name_space),
        ttl_ms_(o.ttl.count()),
        guard_ms_(o.safe_guard.count()),
        honour_reuse_(honour_reuse_time) {}

  /// A store for one named file (the clock guard): id 0 is `file`.
  file_lease_store(std::filesystem::path file, const lease_options& o)
      : dir_(file.parent_path()),
        ns_(o.name_space),
        ttl_ms_(o.ttl.count()),
        guard_ms_(o.safe_guard.count()),
        honour_reuse_(false),
        single_(std::move(file)) {}

  ~file_lease_store() override {
    for (auto& [id, fd] : fds_) ::close(fd);
  }

  [[nodiscard]] std::string where() const override {
    return single_.empty() ? "file lease " + dir_.string() : "clock guard file " + single_.string();
  }

  std::optional<lease_claim> claim(std::uint64_t count, const std::string&) override {
    if (!single_.empty()) count = 1;
    for (std::uint64_t id = 0; id < count; ++id) {
      const std::string path = path_of(id);
      const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
      if (fd < 0) fail("cannot open " + path);
      if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int e = errno;
        ::close(fd);
        if (e == EWOULDBLOCK) continue;
        errno = e;
        fail("cannot lock " + path);
      }
      record r = read(fd);
      if (honour_reuse_ && system_unix_ms() < r.reusable_after) {
        ::close(fd);  // closing drops the lock
        continue;
      }
      fds_[id] = fd;
      write(fd, {r.last, system_unix_ms() + ttl_ms_ + guard_ms_}, path);
      return lease_claim{id, r.last};
    }
    if (!single_.empty())
      throw worker_id_error("flakeid: clock guard file " + single_.string() +
                            " is locked by another process using the same worker id");
    return std::nullopt;
  }

  renewal renew(std::uint64_t id, const std::string&, std::int64_t last) override {
    const int fd = fds_.at(id);
    record r = read(fd);
    write(fd, {std::max(r.last, last), system_unix_ms() + ttl_ms_ + guard_ms_}, path_of(id));
    return renewal::held;
  }

  void release(std::uint64_t id, const std::string&, std::int64_t last) override {
    const auto it = fds_.find(id);
    if (it == fds_.end()) return;
    const int fd = it->second;
    fds_.erase(it);
    record r = read(fd);
    try {
      write(fd, {last == INT64_MIN ? r.last : last, system_unix_ms() + guard_ms_}, path_of(id));
    } catch (...) {
      ::close(fd);
      throw;
    }
    ::close(fd);
  }

 private:
  struct record {
    std::int64_t last = INT64_MIN;
    std::int64_t reusable_after = INT64_MIN;
  };

  [[nodiscard]] std::string path_of(std::uint64_t id) const {
    if (!single_.empty()) return single_.string();
    return (dir_ / ("flakeid-" + ns_ + "-" + std::to_string(id) + ".lease")).string();
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw lease_store_error("flakeid: " + what + ": " + std::strerror(errno));
  }

  static record read(int fd) {
    char buf[64] = {};
    const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    record r;
    // Two decimal numbers, each right-aligned in 20 columns; anything else reads as an empty
    // record.
    if (n > 0) {
      const char* p = buf;
      const char* end = buf + n;
      long long v[2] = {0, 0};
      bool ok = true;
      for (long long& x : v) {
        while (p < end && *p == ' ') ++p;
        const auto res = std::from_chars(p, end, x);
        ok = ok && res.ec == std::errc{};
        p = res.ptr;
      }
      if (ok) {
        r.last = v[0];
        r.reusable_after = v[1];
      }
    }
    return r;
  }

  void write(int fd, record r, const std::string& path) const {
    char buf[64];
    const int n = std::snprintf(buf, sizeof buf, "%20lld %20lld\n", static_cast<long long>(r.last),
                                static_cast<long long>(r.reusable_after));
    if (::pwrite(fd, buf, static_cast<std::size_t>(n), 0) != n) fail("cannot write " + path);
  }

  std::filesystem::path dir_;
  std::string ns_;
  std::int64_t ttl_ms_;
  std::int64_t guard_ms_;
  bool honour_reuse_;
  std::filesystem::path single_;
  std::map<std::uint64_t, int> fds_;
};

}  // namespace detail

/// The default directory of `file_lease`: `$XDG_RUNTIME_DIR`, else `/tmp`.
[[nodiscard]] inline std::filesystem::path default_lease_directory() {
  const char* x = std::getenv("XDG_RUNTIME_DIR");
  return (x != nullptr && *x != '\0') ? std::filesystem::path(x) : std::filesystem::path("/tmp");
}

/// A worker-id lease held with `flock` on a lock file per id in `directory` (see the file
/// comment). Processes that share ids must use the same directory and namespace.
/// Throws `lease_store_error` (from `acquire`/`assign`) when a file cannot be opened or locked.
class file_lease : public lease {
 public:
  explicit file_lease(const lease_options& options = {},
                      std::filesystem::path directory = default_lease_directory())
      : lease(std::make_unique<detail::file_lease_store>(std::move(directory), options, true),
              options) {}
};

}  // namespace flakeid
