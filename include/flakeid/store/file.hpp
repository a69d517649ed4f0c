// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file store/file.hpp
/// `file_store`: worker-id leases and segment counters in one host-local directory, for the
/// processes of one host, without a server (POSIX). Like every store it offers the two
/// protocols, `.lease(options)` and `.distributor(key)`:
///
///     flakeid::file_store store{"/var/lib/myapp/ids"};
///     auto lease = store.lease();                           // flakeid-default-<id>.lease
///     flakeid::classic_snowflake<> gen{lease};
///     flakeid::segment_chain_generator ids{store.distributor("orders")};  // orders.segment
///
/// **Leases** (`file_lease` is the same with the host-wide default directory): one lock file per
/// id, `flakeid-<namespace>-<id>.lease`, held with `flock`, so the kernel releases it when its
/// process dies. The default directory, `/dev/shm/flakeid`, is the same for every process and
/// user of the host: a tmpfs that `PrivateTmp=`, `TMPDIR` and `XDG_RUNTIME_DIR` do not change,
/// and that a reboot, when no holder can be alive, empties. A lease creates its directory with
/// mode 1777 (like /tmp: everyone may add files, nobody may remove another user's), and the
/// lock files as open as their directory: mode 0666 there, so that every user of the host can
/// lock every id (0660 in a group-writable directory, 0600 in a private one); a file another
/// user made unwritable is skipped, not an error. Nothing is opened through a symbolic link
/// (`O_NOFOLLOW`, files opened relative to the directory), a file that is not a plain file with
/// one link is refused, and a world-writable directory without the sticky bit is refused.
///
/// Each lock file holds the holder's recorded deadline (every ID it minted lies below it),
/// written and `fsync`ed before the generator may use it. The claimer takes a free file whose
/// deadline plus `safe_guard` has passed, else the free file with the earliest deadline (and
/// waits for it). A marker file per namespace counts the lock files ever made, so a lock file
/// deleted while held (a cleaner) is noticed: the claimer that recreates it waits `ttl +
/// safe_guard`, and the holder, which checks at every renewal that its file is still the one at
/// the path, stops at its deadline. Files are never deleted (deleting a lock file races with a
/// process that has just opened it).
///
/// **Segments**: one file per counter, `<key>.segment` (the directory is the counters'
/// namespace), advanced under `flock` and made durable with `fsync` before the range is handed
/// out, so a restart (even after SIGKILL) never reuses a number. Use a durable directory for
/// counters: not `/dev/shm`, which a reboot empties.
///
/// Requirements: a local file system with working `flock` (not NFS). Thread-safety: a store and
/// its distributors may be used from any thread; a lease as `lease`.

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "../detail/posix_file.hpp"
#include "../detail/server_store.hpp"
#include "../errors.hpp"
#include "../lease.hpp"
#include "../segment.hpp"
#include "../version.hpp"

#define FLAKEID_HAS_FILE_SEGMENT_STORE 1

namespace flakeid::inline FLAKEID_ABI_NAMESPACE {

namespace detail {

/// Lock files in one directory: `<dir>/flakeid-<namespace>-<id>.lease`.
class file_lease_store final : public lease_store {
 public:
  file_lease_store(std::filesystem::path dir, const lease_options& o)
      : dir_(std::move(dir)), ns_(o.name_space) {}

  ~file_lease_store() override = default;
  file_lease_store(const file_lease_store&) = delete;
  file_lease_store& operator=(const file_lease_store&) = delete;

  [[nodiscard]] std::string where() const override { return "file lease " + dir_.string(); }

  std::optional<lease_claim> claim(const claim_request& r) override {
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

  renewal renew(std::uint64_t id, const std::string&, lease_time deadline) override {
    const auto it = held_.find(id);
    if (it == held_.end()) return renewal::taken;
    // The file at the path must still be the one locked: a deleted (and maybe recreated) file
    // means another process can lock "the same" id.
    struct stat held {};
    struct stat now {};
    if (::fstat(it->second.fd.get(), &held) != 0) fail("cannot stat " + path_of(id));
    if (::fstatat(dir_fd_.get(), name_of(id).c_str(), &now, AT_SYMLINK_NOFOLLOW) != 0 ||
        now.st_ino != held.st_ino || now.st_dev != held.st_dev)
      return renewal::taken;
    write(it->second.fd.get(), later(read(it->second.fd.get()), deadline), id, it->second.instance);
    return renewal::held;
  }

  void release(std::uint64_t id, const std::string&, lease_time last) override {
    const auto it = held_.find(id);
    if (it == held_.end()) return;
    unique_fd fd = std::move(it->second.fd);
    const std::string instance = std::move(it->second.instance);
    held_.erase(it);
    write(fd.get(), last, id, instance);  // closing `fd` drops the lock
  }

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
  [[nodiscard]] std::string path_of(std::uint64_t id) const {
    return (dir_ / name_of(id)).string();
  }

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
        fail("cannot create the lease directory " + dir_.string());
      }
      fd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (fd < 0) fail("cannot open the lease directory " + dir_.string());
    unique_fd d(fd);
    struct stat st {};
    if (::fstat(d.get(), &st) != 0) fail("cannot stat " + dir_.string());
    if ((st.st_mode & S_IWOTH) != 0 && (st.st_mode & S_ISVTX) == 0)
      throw lease_store_error("flakeid: lease directory " + dir_.string() +
                              " is writable by everyone without the sticky bit: anyone could "
                              "replace a lock file; use chmod 1777 or a private directory");
    // Lock files are as open as their directory: every user may lock them in a directory that
    // everyone may write (the host-wide default), the group in a group-writable one, only the
    // owner elsewhere (a private directory, the clock guard's).
    file_mode_ = lock_file_mode(st);
    dir_fd_ = std::move(d);
  }

  /// Takes the lock of the namespace's instance records, `flakeid-<ns>.instances`, so that two
  /// claims of one instance cannot both miss its record and record it on two ids.
  unique_fd lock_instances() {
    const std::string name = "flakeid-" + ns_ + ".instances";
    // Opened without O_CREAT when it exists: in a sticky directory, O_CREAT on another user's
    // file fails where fs.protected_regular is set.
    int fd = ::openat(dir_fd_.get(), name.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
      fd = ::openat(dir_fd_.get(), name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    0600);
      if (fd >= 0)
        (void)::fchmod(fd, file_mode_);  // past the umask
      else if (errno == EEXIST)
        fd = ::openat(dir_fd_.get(), name.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    }
    if (fd < 0) fail("cannot open " + (dir_ / name).string());
    unique_fd f(fd);
    if (!lock_file(fd, LOCK_EX)) fail("cannot lock " + (dir_ / name).string());
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

  /// Id `id`'s file opened for reading when it exists (and is not another user's, unreadable).
  unique_fd open_existing(std::uint64_t id) const {
    return unique_fd(::openat(dir_fd_.get(), name_of(id).c_str(),
                              O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  }

  /// Opens and locks id `id`'s file (creating it when missing and `create`); an empty result
  /// when another process holds it, another user made it unwritable, or it is missing.
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
    if (!lock_file(fd, LOCK_EX | LOCK_NB)) {
      if (errno == EWOULDBLOCK) return {};
      fail("cannot lock " + path_of(id));
    }
    return f;
  }

  /// Takes the locked file `f` for id `id`: records the claimer's deadline, and tells whether
  /// the file replaces one that was lost.
  lease_claim take(std::uint64_t id, opened f, std::optional<lease_time> rec,
                   const claim_request& r) {
    lease_claim c;
    c.id = id;
    c.last = rec;
    if (note_created(id, f.created)) c.lost_memory_at = r.now;
    write(f.fd.get(), later(rec, r.deadline), id, r.instance);
    if (f.created && !sync_fd(dir_fd_.get())) fail("cannot sync " + dir_.string());
    held_[id] = held_file{std::move(f.fd), r.instance};
    return c;
  }

  /// Keeps the namespace's marker, `flakeid-<ns>.namespace`, which holds how many lock files
  /// were ever made. Returns whether the lock file of `id`, just made, had existed before.
  bool note_created(std::uint64_t id, bool created) {
    const std::string name = "flakeid-" + ns_ + ".namespace";
    int fd = ::openat(dir_fd_.get(), name.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    bool fresh = false;
    if (fd < 0 && errno == ENOENT) {
      fd = ::openat(dir_fd_.get(), name.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
      fresh = fd >= 0;
      if (fresh) (void)::fchmod(fd, file_mode_);
    }
    if (fd < 0) {
      if (errno == EACCES || errno == EPERM) return created;  // cannot tell: assume lost
      fail("cannot open " + (dir_ / name).string());
    }
    unique_fd m(fd);
    if (!lock_file(fd, LOCK_EX)) fail("cannot lock " + (dir_ / name).string());
    const std::int64_t made = read_number(fd);
    const bool existed = created && made != INT64_MIN && id < static_cast<std::uint64_t>(made);
    if (made == INT64_MIN || static_cast<std::uint64_t>(made) <= id) {
      write_raw(fd, static_cast<std::int64_t>(id + 1), (dir_ / name).string());
      if (fresh && !sync_fd(dir_fd_.get())) fail("cannot sync " + dir_.string());
    }
    return existed;
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

  /// The mode of the lock files in a directory of status `dir`: as open as the directory.
  static ::mode_t lock_file_mode(const struct stat& dir) noexcept {
    if ((dir.st_mode & S_IWOTH) != 0) return 0666;
    return (dir.st_mode & S_IWGRP) != 0 ? 0660 : 0600;
  }

 private:
  void write(int fd, lease_time value, std::uint64_t id, std::string_view instance) const {
    write_raw(fd, unix_ms_of(value), path_of(id), instance);
  }

  std::filesystem::path dir_;
  std::string ns_;
  ::mode_t file_mode_ = 0600;
  unique_fd dir_fd_;
  std::map<std::uint64_t, held_file> held_;
};

}  // namespace detail

/// The default directory of `file_lease`: `/dev/shm/flakeid`, the same for every process and
/// user of the host whatever their environment (see the file comment).
[[nodiscard]] inline std::filesystem::path default_lease_directory() {
  return {"/dev/shm/flakeid"};
}

/// A worker-id lease held with `flock` on a lock file per id in `directory` (see the file
/// comment). Processes that share ids must use the same directory and namespace.
/// Throws `lease_store_error` (from `acquire`/`assign`) when the directory or a file cannot be
/// opened, or fails the checks above.
class file_lease : public lease {
 public:
  explicit file_lease(const lease_options& options = {},
                      std::filesystem::path directory = default_lease_directory())
      : lease(std::make_unique<detail::file_lease_store>(std::move(directory), options), options) {}
};

namespace detail {

/// The file name of counter `key`: letters, digits and `._@-` kept, every other byte (and a
/// leading dot) as `%XX`, then `.segment`. `orders@20250318` -> `orders@20250318.segment`.
inline std::string segment_file_name(std::string_view key) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (std::size_t i = 0; i < key.size(); ++i) {
    const auto c = static_cast<unsigned char>(key[i]);
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '_' || c == '@' || c == '-' || (c == '.' && i > 0);
    if (plain) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out + ".segment";
}

/// Width of the counter text: 20 decimal digits and a newline, rewritten in place. A counter
/// that may expire has a second line of the same width: the ms it may stay idle.
inline constexpr std::size_t segment_file_width = 21;

/// Parses one decimal number; false when `text` is not one.
inline bool parse_segment_number(std::string_view text, std::uint64_t& value) {
  std::uint64_t v = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10) return false;
    v = v * 10 + d;
  }
  value = v;
  return true;
}

/// Parses a counter file's content (the counter, and the idle ms when the file has a second
/// line; else 0); false when it is not one.
inline bool parse_segment_file(std::string_view text, std::uint64_t& value,
                               std::uint64_t* idle_ms = nullptr) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  std::uint64_t idle = 0;
  if (const auto nl = text.find('\n'); nl != std::string_view::npos) {
    if (!parse_segment_number(text.substr(nl + 1), idle) || nl + 1 == text.size()) return false;
    text = text.substr(0, nl);
  }
  if (idle_ms != nullptr) *idle_ms = idle;
  if (text.empty()) {
    value = 0;
    return true;
  }
  return parse_segment_number(text, value);
}

/// Removes the counter files in `dir` that may expire and have been idle (not written) for
/// longer than they may be, on this host's clock. A file another process has locked is left
/// for a later sweep; a file is removed only while locked, and only when it is still the one
/// at its path.
inline void sweep_expired_segments(const std::filesystem::path& dir) noexcept {
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  const auto now = std::chrono::system_clock::now();
  for (; !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    const std::filesystem::path& path = it->path();
    if (path.extension() != ".segment") continue;
    unique_fd f{::open(path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC)};
    if (f.get() < 0 || ::flock(f.get(), LOCK_EX | LOCK_NB) != 0) continue;
    char buf[64];
    const ssize_t n = read_head(f.get(), buf, sizeof buf);
    std::uint64_t value = 0;
    std::uint64_t idle_ms = 0;
    struct stat held {};
    struct stat named {};
    if (n <= 0 ||
        !parse_segment_file(std::string_view(buf, static_cast<std::size_t>(n)), value, &idle_ms) ||
        idle_ms == 0 || ::fstat(f.get(), &held) != 0 || held.st_nlink == 0 ||
        ::lstat(path.c_str(), &named) != 0 || named.st_ino != held.st_ino ||
        named.st_dev != held.st_dev)
      continue;
    const auto written = std::chrono::system_clock::time_point{
        std::chrono::duration_cast<std::chrono::system_clock::duration>(
            std::chrono::seconds{held.st_mtim.tv_sec} +
            std::chrono::nanoseconds{held.st_mtim.tv_nsec})};
    if (written + std::chrono::milliseconds{idle_ms} < now) (void)::unlink(path.c_str());
  }
}

}  // namespace detail

/// A counter of a `file_segment_store`: the file `<directory>/<key>.segment`, holding the
/// counter as 20 decimal digits. Cheap to copy; copies (in any process) advance the same file.
///
/// `next_max_id(step)` opens the file, takes an exclusive `flock`, reads the counter, writes
/// the counter plus `step` in place, `fsync`s it (and the directory, when it created the file)
/// and only then returns, so the range is on disk before a single ID of it is handed out. Cost:
/// one fsync per segment. Throws `segment_store_error` (naming the file and the `errno` text)
/// when a step fails, the file holds something else than a counter, or the counter would pass
/// 2^64 - 1. Thread-safe (each call has its own open file, so `flock` also excludes threads).
class file_distributor {
 public:
  /// Counter `key` in `directory` (which must exist). Throws `invalid_option_error` for an
  /// empty key.
  file_distributor(std::filesystem::path directory, std::string key)
      : dir_(std::move(directory)),
        key_(std::move(key)),
        name_("file:" + dir_.string()),
        path_(dir_ / detail::segment_file_name(key_)) {
    detail::check_segment_key(key_);
  }

  /// Adds `step` to the counter file and returns its new value, durably.
  std::uint64_t next_max_id(std::uint64_t step) {
    detail::unique_fd f;
    for (;;) {
      f = detail::unique_fd{::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)};
      if (f.get() < 0) fail("cannot open");
      if (!detail::lock_file(f.get(), LOCK_EX)) fail("cannot lock");
      // A counter that expired was removed between the open and the lock: open it anew.
      struct stat st {};
      if (::fstat(f.get(), &st) != 0) fail("cannot stat");
      if (st.st_nlink > 0) break;
    }
    char buf[64];
    const ssize_t n = detail::read_head(f.get(), buf, sizeof buf);
    if (n < 0) fail("cannot read");
    std::uint64_t cur = 0;
    if (!detail::parse_segment_file(std::string_view(buf, static_cast<std::size_t>(n)), cur))
      throw segment_store_error(name_, key_,
                                path_.string() + " does not hold a counter (20 decimal digits)");
    if (cur > std::numeric_limits<std::uint64_t>::max() - step)
      detail::throw_store_overflow(name_, key_, cur, step);
    const std::uint64_t next = cur + step;
    char out[2 * detail::segment_file_width + 1];
    (void)std::snprintf(out, sizeof out, "%020llu\n%020llu\n",
                        static_cast<unsigned long long>(next),
                        static_cast<unsigned long long>(idle_ms_));
    // The idle time is written only for a counter that may expire; a second line written
    // before stays (and keeps the counter's expiry).
    const std::size_t width = detail::segment_file_width * (idle_ms_ > 0 ? 2 : 1);
    if (!detail::write_head_synced(f.get(), std::string_view(out, width)))
      fail("cannot write and fsync");
    if (n == 0) sync_directory();  // a new file: make its name durable too
    return next;
  }

  /// From now on every `next_max_id` also marks the counter as one that may be removed once
  /// it has not been written for `idle`. This call first removes the counters of the directory
  /// that were so marked and have been idle longer than that (a file another process has
  /// locked is left for later). Not to be called while another thread uses this distributor.
  /// Throws `invalid_option_error` below 1 ms.
  void expire_after(std::chrono::milliseconds idle) {
    detail::check_timeout("segment counter", "expire_after", idle, std::chrono::milliseconds{1});
    idle_ms_ = static_cast<std::uint64_t>(idle.count());
    detail::sweep_expired_segments(dir_);
  }

  /// `"file:<directory>"`.
  [[nodiscard]] std::string_view store_name() const noexcept { return name_; }
  /// The counter's key.
  [[nodiscard]] std::string_view key() const noexcept { return key_; }
  /// The counter file.
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  /// A distributor for counter `key` in the same directory.
  [[nodiscard]] file_distributor with_key(const std::string& key) const { return {dir_, key}; }

 private:
  [[noreturn]] void fail(const char* what) const {
    const int e = errno;
    throw segment_store_error(name_, key_,
                              std::string(what) + " " + path_.string() + ": " + std::strerror(e));
  }

  void sync_directory() const {
    detail::unique_fd d{::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
    if (d.get() < 0) fail("cannot open the directory of");
    if (!detail::sync_fd(d.get())) fail("cannot fsync the directory of");
  }

  std::filesystem::path dir_;
  std::string key_;
  std::string name_;
  std::filesystem::path path_;
  std::uint64_t idle_ms_ = 0;  // 0: the counter never expires
};

/// Worker-id leases and segment counters in one host-local directory (see the file comment).
/// Cheap to copy; holds no file open itself. Does not touch the disk until it is used.
class file_store {
 public:
  /// Leases and counters in `directory`. Throws `invalid_option_error` for a bad namespace or
  /// timeout.
  explicit file_store(std::filesystem::path directory, store_options options = {})
      : dir_(std::move(directory)), options_(std::move(options)) {
    detail::check_store_options(options_, "file store");
  }

  /// A lease on a worker id of this store's namespace: lock files
  /// `<directory>/flakeid-<namespace>-<id>.lease`, the directory made (mode 1777) when missing.
  /// Processes that share ids must use the same directory and namespace. Throws as `lease`'s
  /// constructor; `acquire`/`assign` throw `lease_store_error` when the directory or a file
  /// cannot be opened or fails the checks of the file comment.
  [[nodiscard]] flakeid::lease lease(lease_options options = {}) const {
    options = detail::lease_options_for_store(std::move(options), options_);
    return {std::make_unique<detail::file_lease_store>(dir_, options), options};
  }

  /// A distributor for counter `key`: the file `<directory>/<key>.segment`. Makes the directory
  /// (with its parents) when missing. Throws `invalid_option_error` for an empty key,
  /// `segment_store_error` when the directory cannot be made.
  [[nodiscard]] file_distributor distributor(const std::string& key) const {
    detail::check_segment_key(key);
    make_directory();
    return {dir_, key};
  }

  /// The counter's value on disk (0 when its file does not exist). Throws
  /// `segment_store_error` when the file cannot be read or holds no counter.
  [[nodiscard]] std::uint64_t current(const std::string& key) const {
    const file_distributor d{dir_, key};
    detail::unique_fd f{::open(d.path().c_str(), O_RDONLY | O_CLOEXEC)};
    if (f.get() < 0) {
      if (errno == ENOENT) return 0;
      throw segment_store_error(std::string(d.store_name()), key,
                                "cannot open " + d.path().string());
    }
    char buf[64];
    const ssize_t n = detail::read_head(f.get(), buf, sizeof buf);
    std::uint64_t v = 0;
    if (n < 0 || !detail::parse_segment_file(std::string_view(buf, static_cast<std::size_t>(n)), v))
      throw segment_store_error(std::string(d.store_name()), key,
                                d.path().string() + " does not hold a counter");
    return v;
  }

  /// The directory.
  [[nodiscard]] const std::filesystem::path& directory() const noexcept { return dir_; }
  /// The options.
  [[nodiscard]] const store_options& options() const noexcept { return options_; }

 protected:
  /// Makes the directory with its parents; `segment_store_error` when it cannot.
  void make_directory() const {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec)
      throw segment_store_error("file:" + dir_.string(), "",
                                "cannot create the directory: " + ec.message());
  }

 private:
  std::filesystem::path dir_;
  store_options options_;
};

/// The name before `file_store`, kept for one release: segment counters in `directory`, which
/// the constructor makes (throwing `segment_store_error` when it cannot).
class file_segment_store : public file_store {
 public:
  explicit file_segment_store(std::filesystem::path directory) : file_store(std::move(directory)) {
    make_directory();
  }
};

}  // namespace flakeid::inline FLAKEID_ABI_NAMESPACE
