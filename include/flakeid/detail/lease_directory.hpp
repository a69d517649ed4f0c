// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file detail/lease_directory.hpp
/// Internal: `file_lease_store`, the lease store of a directory of lock files, one per id,
/// held with `flock` (the rules, and whom they protect against: `store/file.hpp`'s file
/// comment and docs/leases.md).

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "../errors.hpp"
#include "../lease.hpp"
#include "../version.hpp"
#include "posix_file.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {
namespace detail {

/// The kernel's `CLOCK_REALTIME` in Unix ms: by the system call on Linux (an interposed
/// `clock_gettime` does not move it), else by `clock_gettime`.
inline lease_time kernel_lease_time() noexcept {
  timespec ts{};
#if defined(__linux__) && defined(SYS_clock_gettime)
  ::syscall(SYS_clock_gettime, CLOCK_REALTIME, &ts);
#else
  ::clock_gettime(CLOCK_REALTIME, &ts);
#endif
  return lease_time_of(static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000);
}

/// Lock files in one directory: `<dir>/flakeid-<namespace>-<id>.lease`.
class file_lease_store final : public lease_store {
 public:
  file_lease_store(std::string dir, const lease_options& o)
      : dir_(std::move(dir)), ns_(o.name_space) {}

  ~file_lease_store() override = default;
  file_lease_store(const file_lease_store&) = delete;
  file_lease_store& operator=(const file_lease_store&) = delete;

  [[nodiscard]] std::string where() const override { return "file lease " + dir_; }

  std::optional<lease_claim> do_claim(const claim_request& r) override {
    open_dir();
    unique_fd instances;  // held for the whole claim of an instance
    if (!r.instance.empty()) {
      instances = lock_instances();
      if (std::optional<lease_claim> own = claim_own(r)) return own;
    }
    const std::uint64_t count = r.count;
    // First pass: a free id whose previous deadline is settled; second pass: the free id with
    // the earliest deadline not too far ahead (the claimer waits for it).
    for (int pass = 0; pass < 2; ++pass) {
      lease_time best = lease_time::max();
      std::uint64_t best_id = count;
      for (std::uint64_t id = 0; id < count; ++id) {
        opened f = open_lock(id);
        if (!f.fd) continue;
        const std::optional<lease_time> rec = read(f.fd.get());
        if (rec && *rec > r.kept_after && kept_for_another(instance_of(f.fd.get()), rec, r))
          continue;
        const bool settled = !rec || *rec <= r.settled;
        if (settled) return take(id, std::move(f), rec, r);
        if (pass == 1 && *rec <= r.skip_above && *rec < best) {
          best = *rec;
          best_id = id;
        }
      }
      if (pass == 1 && best_id < count) {
        opened f = open_lock(best_id);
        if (f.fd) {
          const std::optional<lease_time> rec = read(f.fd.get());
          return take(best_id, std::move(f), rec, r);
        }
      }
    }
    return std::nullopt;
  }

  renewal do_renew(std::uint64_t id, const std::string&, lease_time deadline) override {
    const auto it = held_.find(id);
    if (it == held_.end()) return renewal::taken;
    // The file at the path must still be the one locked: a deleted (and maybe recreated) file
    // means another process can lock "the same" id.
    // So must the directory at its path: one deleted or moved away is not where claimers look.
    struct stat held {};
    struct stat now {};
    struct stat dir_held {};
    struct stat dir_now {};
    if (::fstat(it->second.fd.get(), &held) != 0 || ::fstat(dir_fd_.get(), &dir_held) != 0)
      fail("cannot stat " + path_of(id));
    if (::fstatat(dir_fd_.get(), name_of(id).c_str(), &now, AT_SYMLINK_NOFOLLOW) != 0 ||
        ::lstat(dir_path_.c_str(), &dir_now) != 0 || !same_file(now, held) ||
        !same_file(dir_now, dir_held))
      return renewal::taken;
    write(it->second.fd.get(), later(read(it->second.fd.get()), deadline), id, it->second.instance);
    return renewal::held;
  }

  void do_release(std::uint64_t id, const std::string&, lease_time last) override {
    const auto it = held_.find(id);
    if (it == held_.end()) return;
    unique_fd fd = std::move(it->second.fd);
    const std::string instance = std::move(it->second.instance);
    held_.erase(it);
    write(fd.get(), last, id, instance);  // closing `fd` drops the lock
  }

  /// The host's clock, which every process that shares the directory shares: a lease on
  /// another clock (one it was given) is compared with it.
  /// The host's clock, every holder's store clock: the kernel's `CLOCK_REALTIME`, read by the
  /// system call on Linux, so that a process whose own clock an `LD_PRELOAD` moves (libfaketime)
  /// is seen off it, as a server store sees a clock off its own (the fault soak found such a
  /// process minting ahead of the others and, once the lock files were deleted, beside them).
  std::optional<lease_time> do_clock() override { return kernel_lease_time(); }

  void abandon_after_fork() noexcept override {
    // Closing the child's copies does not unlock: the parent's descriptors still hold the locks.
    held_.clear();
  }

 private:
  struct opened {
    unique_fd fd;
    bool created = false;
  };
  struct held_file {
    unique_fd fd;
    std::string instance;
  };

  [[nodiscard]] std::string name_of(std::uint64_t id) const { return lock_file_name(ns_, id); }
  [[nodiscard]] std::string path_of(std::uint64_t id) const { return join_path(dir_, name_of(id)); }

  [[noreturn]] static void fail(const std::string& what) {
    throw lease_store_error("flakeid: " + what + ": " + std::strerror(errno));
  }

  /// Opens (creating it when missing, mode 1777) and checks the directory.
  void open_dir() {
    if (dir_fd_) return;
    int fd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
      if (::mkdir(dir_.c_str(), 01777) == 0) {
        (void)::chmod(dir_.c_str(), 01777);  // past the umask
      } else if (errno != EEXIST) {
        fail("cannot create the lease directory " + dir_);
      }
      fd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (fd < 0) fail("cannot open the lease directory " + dir_);
    unique_fd d(fd);
    struct stat st {};
    if (::fstat(d.get(), &st) != 0) fail("cannot stat " + dir_);
    if ((st.st_mode & S_IWOTH) != 0 && (st.st_mode & S_ISVTX) == 0)
      throw lease_store_error("flakeid: lease directory " + dir_ +
                              " is writable by everyone without the sticky bit: anyone could "
                              "replace a lock file; use chmod 1777 or a private directory");
    // Lock files are as open as their directory: every user may lock them in a directory that
    // everyone may write (the host-wide default), the group in a group-writable one, only the
    // owner elsewhere (a private directory, the clock guard's).
    file_mode_ = lock_file_mode(st);
    shared_ = (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
    others_rename_ = others_may_rename(st);
    // The path renewals check, whatever the working directory is then.
    dir_path_ = absolute_path(dir_);
    dir_fd_ = std::move(d);
  }

  /// Takes the lock of the namespace's instance records, `flakeid-<ns>.instances`, so that two
  /// claims of one instance cannot both miss its record and record it on two ids.
  unique_fd lock_instances() {
    const std::string name = "flakeid-" + ns_ + ".instances";
    // Opened without O_CREAT when it exists: in a sticky directory, O_CREAT on another user's
    // file fails where fs.protected_regular is set.
    // Only locked, never written: read access (another user's file) is enough.
    constexpr int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC;
    int fd = ::openat(dir_fd_.get(), name.c_str(), flags);
    if (fd < 0 && errno == ENOENT) {
      fd = ::openat(dir_fd_.get(), name.c_str(), flags | O_CREAT | O_EXCL, 0600);
      if (fd >= 0)
        (void)::fchmod(fd, file_mode_);  // past the umask
      else if (errno == EEXIST)
        fd = ::openat(dir_fd_.get(), name.c_str(), flags);
    }
    if (fd < 0) fail("cannot open " + join_path(dir_, name));
    unique_fd f(fd);
    if (!lock_file(fd, LOCK_EX)) fail("cannot lock " + join_path(dir_, name));
    return f;
  }

  /// The id whose file records `r.instance`: taken when free, reported when held.
  std::optional<lease_claim> claim_own(const claim_request& r) {
    const std::uint64_t made = files_made();
    for (std::uint64_t id = 0; id < r.count && id < made; ++id) {
      {
        unique_fd peek = open_existing(id);
        if (!peek || instance_of(peek.get()) != r.instance) continue;
      }
      opened f = open_lock(id, false);
      if (!f.fd) {
        // Locked by another lease: the instance's holder, unless the file changed meanwhile.
        unique_fd peek = open_existing(id);
        if (!peek || instance_of(peek.get()) != r.instance) continue;
        lease_claim c;
        c.id = id;
        c.last = read(peek.get());
        c.held_by_instance = true;
        return c;
      }
      if (instance_of(f.fd.get()) != r.instance) continue;  // taken and let go meanwhile
      const std::optional<lease_time> rec = read(f.fd.get());
      lease_claim c = take(id, std::move(f), rec, r);
      c.own_instance = true;
      return c;
    }
    return std::nullopt;
  }

  /// How many lock files the namespace's marker says were ever made (0: none).
  std::uint64_t files_made() const {
    const std::string name = "flakeid-" + ns_ + ".namespace";
    const unique_fd m(::openat(dir_fd_.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (!m) return 0;
    const std::int64_t made = read_number(m.get());
    return made > 0 ? static_cast<std::uint64_t>(made) : 0;
  }

  /// Id `id`'s file opened for reading when it exists and is this user's.
  unique_fd open_existing(std::uint64_t id) const {
    unique_fd f(::openat(dir_fd_.get(), name_of(id).c_str(),
                         O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    struct stat st {};
    if (f && (::fstat(f.get(), &st) != 0 || st.st_uid != ::geteuid())) return {};
    return f;
  }

  /// Opens and locks id `id`'s file (creating it when missing and `create`); an empty result
  /// when another process holds it, another user made it, or it is missing.
  opened open_lock(std::uint64_t id, bool create = true) {
    const std::string name = name_of(id);
    opened f;
    int fd = ::openat(dir_fd_.get(), name.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && !create) return {};
    if (fd < 0 && errno == ENOENT) {
      fd = ::openat(dir_fd_.get(), name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    0666);
      if (fd >= 0) {
        f.created = true;
        (void)::fchmod(fd, file_mode_);  // past the umask
      } else if (errno == EEXIST) {
        fd = ::openat(dir_fd_.get(), name.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
      }
    }
    if (fd < 0) {
      if (errno == EACCES || errno == EPERM) return {};  // another user's, not writable
      fail("cannot open " + path_of(id));
    }
    f.fd = unique_fd(fd);
    struct stat st {};
    if (::fstat(fd, &st) != 0) fail("cannot stat " + path_of(id));
    if (!S_ISREG(st.st_mode) || st.st_nlink != 1)
      throw lease_store_error("flakeid: " + path_of(id) +
                              " is not a plain file with one link: refusing to use it");
    // Another user's file is never taken (its maker may delete or rewrite it) but blocks its id.
    if (st.st_uid != ::geteuid()) return {};
    if ((st.st_mode & 07777 & ~file_mode_) != 0) (void)::fchmod(fd, file_mode_);  // an older mode
    if (!lock_file(fd, LOCK_EX | LOCK_NB)) {
      if (errno == EWOULDBLOCK) return {};
      fail("cannot lock " + path_of(id));
    }
    return f;
  }

  /// Takes the locked file `f` for id `id`: records the claimer's deadline. A file this claim
  /// made in a directory others may write may replace one deleted under its holder (by another
  /// user, a cleaner, with the whole directory and its marker); in a private one, the marker
  /// tells. Then the claimer waits `ttl + safe_guard` from now. So does a claimer that finds a
  /// file with no deadline in it: its maker could not write one (a full disk, killed in
  /// between), and may have made it in place of a deleted one just the same. In a directory
  /// where another user may rename this user's files, every claim waits: see
  /// `others_may_rename`.
  lease_claim take(std::uint64_t id, opened f, std::optional<lease_time> rec,
                   const claim_request& r) {
    lease_claim c;
    c.id = id;
    c.last = rec;
    if ((note_made(id) && (f.created || !rec)) || others_rename_) c.lost_memory_at = r.now;
    write(f.fd.get(), later(rec, r.deadline), id, r.instance);
    if (f.created && !sync_fd(dir_fd_.get())) fail("cannot sync " + dir_);
    held_[id] = held_file{std::move(f.fd), r.instance};
    return c;
  }

  /// Keeps the namespace's marker, `flakeid-<ns>.namespace`: how many lock files were ever
  /// made (read by the instance search and by older versions). Returns whether a lock file of
  /// `id`, made now, may replace a lost one: always in a directory others may write, where
  /// anyone may have deleted the marker too; in a private one, when the marker counts it.
  bool note_made(std::uint64_t id) {
    const std::string name = "flakeid-" + ns_ + ".namespace";
    int fd = ::openat(dir_fd_.get(), name.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    bool fresh = false;
    if (fd < 0 && errno == ENOENT) {
      fd = ::openat(dir_fd_.get(), name.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
      fresh = fd >= 0;
      if (fresh) (void)::fchmod(fd, file_mode_);
    }
    if (fd < 0) {
      if (errno == EACCES || errno == EPERM) return true;  // another user's: cannot tell
      fail("cannot open " + join_path(dir_, name));
    }
    unique_fd m(fd);
    if (!lock_file(fd, LOCK_EX)) fail("cannot lock " + join_path(dir_, name));
    const std::int64_t made = read_number(fd);
    const bool counted = made != INT64_MIN && id < static_cast<std::uint64_t>(made);
    if (!counted) {
      write_raw(fd, static_cast<std::int64_t>(id + 1), join_path(dir_, name));
      if (fresh && !sync_fd(dir_fd_.get())) fail("cannot sync " + dir_);
    }
    return shared_ || counted;
  }

  static lease_time later(std::optional<lease_time> a, lease_time b) {
    return a ? std::max(*a, b) : b;
  }

  /// The deadline a lock file records; empty: never used.
  static std::optional<lease_time> read(int fd) { return lease_time_or_none(read_number(fd)); }

  /// The number at the start of a file; INT64_MIN when there is none.
 public:
  static std::int64_t read_number(int fd) {
    char buf[64] = {};
    const ssize_t n = read_head(fd, buf, sizeof buf - 1);
    // A decimal number, right-aligned in 20 columns (an older second column is ignored);
    // anything else reads as "never used".
    const char* p = buf;
    const char* end = buf + (n > 0 ? n : 0);
    while (p < end && *p == ' ') ++p;
    long long v = 0;
    const auto res = std::from_chars(p, end, v);
    return res.ec == std::errc{} ? static_cast<std::int64_t>(v) : INT64_MIN;
  }

  /// Writes `value` (and, in a third column, `instance` when there is one) and syncs it to the
  /// disk before returning.
  static void write_raw(int fd, std::int64_t value, const std::string& path,
                        std::string_view instance = {}) {
    char buf[64];
    const int n = std::snprintf(buf, sizeof buf, "%20lld %20d", static_cast<long long>(value), 0);
    std::string line(buf, static_cast<std::size_t>(n));
    if (!instance.empty()) line.append(" ").append(instance);
    line += '\n';
    if (!write_head_synced(fd, line)) fail("cannot write and sync " + path);
  }

  /// The instance a lock file records (its first line's third column); empty: none.
  static std::string instance_of(int fd) {
    char buf[256] = {};
    const ssize_t n = read_head(fd, buf, sizeof buf - 1);
    const std::string_view head(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
    std::string_view line = head.substr(0, head.find('\n'));
    for (int column = 0; column < 2; ++column) {  // skip the deadline and the second column
      const std::size_t start = line.find_first_not_of(' ');
      if (start == std::string_view::npos) return {};
      const std::size_t end = line.find(' ', start);
      if (end == std::string_view::npos) return {};
      line.remove_prefix(end);
    }
    const std::size_t start = line.find_first_not_of(' ');
    if (start == std::string_view::npos) return {};
    line.remove_prefix(start);
    line = line.substr(0, line.find(' '));
    return valid_instance(line) ? std::string(line) : std::string();
  }

  /// The name of id `id`'s lock file in namespace `ns`.
  static std::string lock_file_name(const std::string& ns, std::uint64_t id) {
    return "flakeid-" + ns + "-" + std::to_string(id) + ".lease";
  }

  /// The mode of the lock files in a directory of status `dir`: writable by their maker only,
  /// readable (so lockable) by whoever may add files to the directory.
  static ::mode_t lock_file_mode(const struct stat& dir) noexcept {
    if ((dir.st_mode & S_IWOTH) != 0) return 0644;
    return (dir.st_mode & S_IWGRP) != 0 ? 0640 : 0600;
  }

  /// Whether a user other than this one and root may rename this user's files in a directory of
  /// status `dir`: its owner always may (the sticky bit does not stop a directory's owner), and
  /// without the sticky bit, whoever may write it. Such a user can move a held lock file away
  /// and put another file of this user's in its place (the marker, another id's lock file, this
  /// id's from long ago) whose record reads as settled, while the holder mints on until its
  /// next renewal sees the swap. Nothing in the file proves otherwise: a claim there counts the
  /// records as lost and waits `ttl + safe_guard`, by which time that holder has stopped.
  static bool others_may_rename(const struct stat& dir) noexcept {
    if (dir.st_uid != ::geteuid() && dir.st_uid != 0) return true;
    return (dir.st_mode & S_ISVTX) == 0 && (dir.st_mode & (S_IWGRP | S_IWOTH)) != 0;
  }

  /// Whether `a` and `b` are the status of one file.
  static bool same_file(const struct stat& a, const struct stat& b) noexcept {
    return a.st_ino == b.st_ino && a.st_dev == b.st_dev;
  }

 private:
  void write(int fd, lease_time value, std::uint64_t id, std::string_view instance) const {
    write_raw(fd, unix_ms_of(value), path_of(id), instance);
  }

  std::string dir_;
  std::string ns_;
  ::mode_t file_mode_ = 0600;
  bool shared_ = false;         // others may add and delete files in the directory
  bool others_rename_ = false;  // others may rename this user's files there: see `take`
  std::string dir_path_;
  unique_fd dir_fd_;
  std::map<std::uint64_t, held_file> held_;
};

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
