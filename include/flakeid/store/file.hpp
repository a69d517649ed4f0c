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
/// **Leases**: one lock file per id, `flakeid-<namespace>-<id>.lease`, held with `flock`, so the
/// kernel releases it when its process dies. The host-wide directory for leases,
/// `default_lease_directory()` (`/dev/shm/flakeid`), is the same for every process and
/// user of the host: a tmpfs that `PrivateTmp=`, `TMPDIR` and `XDG_RUNTIME_DIR` do not change,
/// and that a reboot, when no holder can be alive, empties. A lease creates its directory with
/// mode 1777 (like /tmp: everyone may add files, nobody may remove another user's). A lock file
/// is writable by its maker only (0644 in a directory everyone may write, 0640 in a
/// group-writable one, 0600 in a private one), and a process takes only the lock files its own
/// user made: another user's file (which its maker may delete or rewrite) is never taken, and
/// blocks its id. Nothing is opened through a symbolic link (`O_NOFOLLOW`, files opened
/// relative to the directory), a file that is not a plain file with one link is refused, and a
/// world-writable directory without the sticky bit is refused. (The threat model: docs/leases.md.)
///
/// Each lock file holds the holder's recorded deadline (every ID it minted lies below it),
/// written and `fsync`ed before the generator may use it. The claimer takes a free file whose
/// deadline plus `safe_guard` has passed, else the free file with the earliest deadline (and
/// waits for it). A lock file deleted while held (by a cleaner, another user, with the whole
/// directory) is noticed on both sides: the holder checks at every renewal that its file, and
/// the directory, are still the ones at their paths, and stops at its deadline; the claimer
/// that makes a lock file in a directory others may write waits `ttl + safe_guard` (so the first
/// claim of each id after a reboot waits that long once). In a private directory a marker per
/// namespace, counting the lock files ever made, tells a made file from a recreated one. A
/// claimer that finds a lock file with no deadline in it (its maker could not write one: a full
/// disk, killed in between) waits as its maker would have. Files are never deleted (deleting a
/// lock file races with a process that has just opened it).
///
/// **Segments**: one file per counter, `<key>.segment` (the directory is the counters'
/// namespace), advanced under `flock` and made durable with `fsync` before the range is handed
/// out, so a restart (even after SIGKILL) never reuses a number. Use a durable directory for
/// counters: not `/dev/shm`, which a reboot empties. In a directory everyone may write, a
/// counter file must be the caller's plain file that only it may write (no link is followed):
/// another user's could be set back. A distributor refuses, without counting, a counter file
/// below the end of its last range (an older copy put back, an edit, a deletion) until
/// `resume_above(n)`; a process started after such a loss cannot tell.
///
/// Requirements: a local file system with working `flock` (not NFS). Thread-safety: a store and
/// its distributors may be used from any thread; a lease as `lease`.

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "../detail/fork_guard.hpp"
#include "../detail/lease_directory.hpp"
#include "../detail/posix_file.hpp"
#include "../detail/server_store.hpp"
#include "../errors.hpp"
#include "../lease.hpp"
#include "../segment.hpp"
#include "../version.hpp"

#define FLAKEID_HAS_FILE_SEGMENT_STORE 1

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

/// The host-wide directory for leases, `/dev/shm/flakeid`: the same for every process and user
/// of the host whatever their environment (see the file comment).
///
///     auto lease = flakeid::file_store{flakeid::default_lease_directory()}.lease();
[[nodiscard]] inline std::string default_lease_directory() { return "/dev/shm/flakeid"; }

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
inline void sweep_expired_segments(const std::string& dir) noexcept {
  unique_fd opened{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (opened.get() < 0) return;
  DIR* const listing = ::fdopendir(opened.get());
  if (listing == nullptr) return;
  (void)opened.release();  // the listing owns it now
  const int dir_fd = ::dirfd(listing);
  const auto now = std::chrono::system_clock::now();
  while (const dirent* entry = ::readdir(listing)) {
    // Counter files only: a key's leading dot is written `%2E`, so none starts with one.
    const std::string_view name(entry->d_name);
    if (!name.ends_with(".segment") || name.front() == '.') continue;
    unique_fd f{::openat(dir_fd, entry->d_name, O_RDWR | O_NOFOLLOW | O_CLOEXEC)};
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
        ::fstatat(dir_fd, entry->d_name, &named, AT_SYMLINK_NOFOLLOW) != 0 ||
        named.st_ino != held.st_ino || named.st_dev != held.st_dev)
      continue;
    const auto written = std::chrono::system_clock::time_point{
        std::chrono::duration_cast<std::chrono::system_clock::duration>(
            std::chrono::seconds{held.st_mtim.tv_sec} +
            std::chrono::nanoseconds{held.st_mtim.tv_nsec})};
    if (written + std::chrono::milliseconds{idle_ms} < now)
      (void)::unlinkat(dir_fd, entry->d_name, 0);
  }
  ::closedir(listing);
}

/// A `std::atomic<std::uint64_t>` that a copy reads (a distributor's copy starts from the
/// original's value).
struct copyable_atomic_u64 : std::atomic<std::uint64_t> {
  copyable_atomic_u64() noexcept : std::atomic<std::uint64_t>(0) {}
  copyable_atomic_u64(const copyable_atomic_u64& o) noexcept
      : std::atomic<std::uint64_t>(o.load()) {}
  copyable_atomic_u64& operator=(const copyable_atomic_u64& o) noexcept {
    if (this != &o) store(o.load());
    return *this;
  }
};

}  // namespace detail

/// A counter of a `file_store`: the file `<directory>/<key>.segment`, holding the
/// counter as 20 decimal digits. Cheap to copy; copies (in any process) advance the same file.
///
/// `next_max_id(step)` opens the file, takes an exclusive `flock`, reads the counter, writes
/// the counter plus `step` in place, `fsync`s it (and the directory, when it created the file)
/// and only then returns, so the range is on disk before a single ID of it is handed out. Cost:
/// one fsync per segment. Throws `segment_store_error` (naming the file and the `errno` text)
/// when a step fails, the file holds something else than a counter, or the counter would pass
/// 2^64 - 1, or when the counter went back below the end of this distributor's last range
/// (see `resume_above`; a counter that may expire, idle that long since this distributor's
/// last range or found empty, is taken as made anew); in a directory everyone may write, also
/// for a file that is not the caller's plain file writable by it alone, and for a symbolic
/// link. Thread-safe (each call has its own open file, so `flock` also excludes threads).
class file_distributor {
 public:
  /// Counter `key` in `directory` (which must exist). Throws `invalid_option_error` for an
  /// empty key.
  file_distributor(std::string directory, std::string key)
      : dir_(std::move(directory)),
        key_(std::move(key)),
        name_("file:" + dir_),
        path_(detail::join_path(dir_, detail::segment_file_name(key_))) {
    detail::check_segment_key(key_);
  }

  /// Adds `step` to the counter file and returns its new value, durably.
  std::uint64_t next_max_id(std::uint64_t step) {
    detail::unique_fd f;
    detail::fork_closed_flock held;  // a child forked during the call closes its copy of f
    open_locked(f, held);
    char buf[64];
    const ssize_t n = detail::read_head(f.get(), buf, sizeof buf);
    if (n < 0) fail("cannot read");
    std::uint64_t cur = 0;
    if (!detail::parse_segment_file(std::string_view(buf, static_cast<std::size_t>(n)), cur))
      throw segment_store_error(name_, key_,
                                path_ + " does not hold a counter (20 decimal digits)");
    // A counter below the end of this distributor's last range went back (the file restored
    // from an older copy, edited, or deleted); one that may expire may have been removed and
    // made anew (empty, or this distributor's last range is as old as its idle time). The
    // refusal stays until `resume_above`: other processes that count the lost numbers again
    // bring the counter back above this distributor's range, whose next numbers they, or those
    // before the loss, may have handed out already.
    if (const std::uint64_t r = reached_.load();
        (cur < r || went_back_.load() != 0) && !(idle_ms_ > 0 && (n == 0 || idle()))) {
      std::uint64_t seen = 0;
      (void)went_back_.compare_exchange_strong(seen, cur + 1);
      throw segment_store_error(
          name_, key_,
          detail::gone_back_text(std::to_string(r), std::to_string(seen != 0 ? seen - 1 : cur),
                                 path_ + " was restored from an older copy, edited or deleted"));
    }
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
    record(next, n == 0);
    return next;
  }

  /// For an operator, after a refusal for a counter that went back: raises the counter file to
  /// at least `highest_used` (the highest number handed out, as found in the data), durably,
  /// and counts on it from there. Returns the counter. Throws as `next_max_id`.
  std::uint64_t resume_above(std::uint64_t highest_used) {
    detail::unique_fd f;
    detail::fork_closed_flock held;
    open_locked(f, held);
    char buf[64];
    const ssize_t n = detail::read_head(f.get(), buf, sizeof buf);
    if (n < 0) fail("cannot read");
    std::uint64_t cur = 0;
    std::uint64_t idle = 0;
    if (!detail::parse_segment_file(std::string_view(buf, static_cast<std::size_t>(n)), cur, &idle))
      throw segment_store_error(name_, key_,
                                path_ + " does not hold a counter (20 decimal digits)");
    const std::uint64_t v = std::max(cur, highest_used);
    char out[2 * detail::segment_file_width + 1];
    (void)std::snprintf(out, sizeof out, "%020llu\n%020llu\n", static_cast<unsigned long long>(v),
                        static_cast<unsigned long long>(idle));
    if (!detail::write_head_synced(
            f.get(), std::string_view(out, detail::segment_file_width * (idle > 0 ? 2 : 1))))
      fail("cannot write and fsync");
    if (n == 0) sync_directory();
    went_back_.store(0);
    record(v, true);
    return v;
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
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  /// A distributor for counter `key` in the same directory.
  [[nodiscard]] file_distributor with_key(const std::string& key) const { return {dir_, key}; }

 private:
  /// The counter file, opened (made when missing) and locked (`held` watches it). In a
  /// directory everyone may write (one a lease made, mode 1777), another user could have put a
  /// file or a link of theirs at the counter's name and rewrite it at will: there it must be
  /// this user's plain file with one link that only it may write, and no link is followed.
  /// `held` must be declared after `f`, so that it unlocks and stops watching before `f`
  /// closes (a descriptor closed first may be another call's by then).
  void open_locked(detail::unique_fd& f, detail::fork_closed_flock& held) {
    for (;;) {
      held.stop();
      // In a directory everyone may write (one a lease made, mode 1777), another user could
      // have put a file or a link of theirs at the counter's name, and rewrite it at will.
      const bool open_to_all = open_to_everyone();
      if (open_to_all) {
        // Opened without O_CREAT when it exists (a link is then ELOOP), else made anew.
        f = detail::unique_fd{::open(path_.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC)};
        if (f.get() < 0 && errno == ENOENT) {
          f = detail::unique_fd{
              ::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)};
          if (f.get() < 0 && errno == EEXIST) continue;  // made meanwhile: open that one
        }
        if (f.get() < 0 && errno == ELOOP)
          throw segment_store_error(name_, key_,
                                    path_ +
                                        " is a symbolic link in a directory everyone may "
                                        "write: refusing to follow it");
      } else {
        f = detail::unique_fd{::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)};
      }
      if (f.get() < 0) fail("cannot open");
      held.watch(f.get());
      if (!detail::lock_file(f.get(), LOCK_EX)) fail("cannot lock");
      // A counter that expired was removed between the open and the lock: open it anew.
      struct stat st {};
      if (::fstat(f.get(), &st) != 0) fail("cannot stat");
      if (open_to_all && (!S_ISREG(st.st_mode) || st.st_nlink > 1 || st.st_uid != ::geteuid() ||
                          (st.st_mode & (S_IWGRP | S_IWOTH)) != 0))
        throw segment_store_error(
            name_, key_,
            path_ + " is not a plain file of this user's that only this user may write (uid " +
                std::to_string(st.st_uid) + ", mode " + octal_mode(st.st_mode) + ", links " +
                std::to_string(st.st_nlink) +
                ") in a directory everyone may write: another user could rewrite the counter "
                "and have its numbers handed out again; keep counters in a directory only "
                "their users may write");
      if (st.st_nlink > 0) return;
    }
  }

  /// Records `v`, the end of a range this distributor took: as the new end when `anew` (a file
  /// made anew, or `resume_above`), else when above the one recorded (threads take turns on
  /// the file, not on this record).
  void record(std::uint64_t v, bool anew) noexcept {
    std::uint64_t r = reached_.load();
    while ((anew || v > r) && !reached_.compare_exchange_weak(r, v)) {
    }
    last_range_.store(steady_ns());
  }

  /// Whether this distributor's last range is at least `idle_ms_` old (its counter may have
  /// expired since).
  [[nodiscard]] bool idle() const noexcept {
    return steady_ns() - last_range_.load() >= idle_ms_ * 1'000'000;
  }

  static std::uint64_t steady_ns() noexcept {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::steady_clock::now().time_since_epoch())
                                          .count());
  }

  [[noreturn]] void fail(const char* what) const {
    const int e = errno;
    throw segment_store_error(name_, key_,
                              std::string(what) + " " + path_ + ": " + std::strerror(e));
  }

  /// Whether every user may write the counter's directory (a file there may be another's);
  /// false when it cannot be read (the open then says why).
  [[nodiscard]] bool open_to_everyone() const noexcept {
    struct stat d {};
    return ::stat(dir_.c_str(), &d) == 0 && (d.st_mode & S_IWOTH) != 0;
  }

  static std::string octal_mode(::mode_t mode) {
    char buf[8];
    (void)std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
    return buf;
  }

  void sync_directory() const {
    detail::unique_fd d{::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
    if (d.get() < 0) fail("cannot open the directory of");
    if (!detail::sync_fd(d.get())) fail("cannot fsync the directory of");
  }

  std::string dir_;
  std::string key_;
  std::string name_;
  std::string path_;
  std::uint64_t idle_ms_ = 0;  // 0: the counter never expires
  // The end of this distributor's last range (0: none); a copy starts from the original's.
  detail::copyable_atomic_u64 reached_{};
  detail::copyable_atomic_u64 last_range_{};  // when it was taken (steady clock, ns)
  // The counter seen when it went back, plus one (0: it did not): refused until `resume_above`.
  detail::copyable_atomic_u64 went_back_{};
};

/// Worker-id leases and segment counters in one host-local directory (see the file comment).
/// Cheap to copy; holds no file open itself. Does not touch the disk until it is used.
class file_store {
 public:
  /// Leases and counters in `directory`. Throws `invalid_option_error` for a bad namespace or
  /// timeout.
  explicit file_store(std::string directory, store_options options = {})
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
    make_directory(key);
    return {dir_, key};
  }

  /// The counter's value on disk (0 when its file does not exist). Throws
  /// `segment_store_error` when the file cannot be read or holds no counter.
  [[nodiscard]] std::uint64_t current(const std::string& key) const {
    const file_distributor d{dir_, key};
    detail::unique_fd f{::open(d.path().c_str(), O_RDONLY | O_CLOEXEC)};
    if (f.get() < 0) {
      if (errno == ENOENT) return 0;
      throw segment_store_error(std::string(d.store_name()), key, "cannot open " + d.path());
    }
    char buf[64];
    const ssize_t n = detail::read_head(f.get(), buf, sizeof buf);
    std::uint64_t v = 0;
    if (n < 0 || !detail::parse_segment_file(std::string_view(buf, static_cast<std::size_t>(n)), v))
      throw segment_store_error(std::string(d.store_name()), key,
                                d.path() + " does not hold a counter");
    return v;
  }

  /// The directory.
  [[nodiscard]] const std::string& directory() const noexcept { return dir_; }
  /// The options.
  [[nodiscard]] const store_options& options() const noexcept { return options_; }

 private:
  /// Makes the directory with its parents; `segment_store_error` (for counter `key`) when it
  /// cannot.
  void make_directory(const std::string& key) const {
    if (const int e = detail::make_directories(dir_); e != 0)
      throw segment_store_error("file:" + dir_, key,
                                std::string("cannot create the directory: ") + std::strerror(e));
  }

  std::string dir_;
  store_options options_;
};

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
