// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file segment_stores.hpp
/// Stores for segment generators that need no client library, and their distributors
/// (models of `flakeid::keyed_segment_distributor`).
///
///   memory_segment_store / memory_distributor  counters in this process's memory: for one
///                                              process, tests and benchmarks. Lost at exit.
///   file_segment_store / file_distributor      one file per counter in a host-local directory,
///                                              advanced under `flock` and made durable with
///                                              `fsync` before the range is handed out, so a
///                                              restart (even after SIGKILL) never reuses a
///                                              number. For the processes of one host (POSIX).
///
/// Redis (`INCRBY`) and PostgreSQL (an upsert `... RETURNING`) distributors are adapters with
/// their own headers and targets: `adapters/redis_segment.hpp` (`flakeid::redis`) and
/// `adapters/postgres_segment.hpp` (`flakeid::postgres`); see docs/segments.md.
///
///     flakeid::file_segment_store store{"/var/lib/myapp/ids"};
///     flakeid::segment_chain_generator gen{store.distributor("orders")};

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#define FLAKEID_HAS_FILE_SEGMENT_STORE 1
#include "detail/posix_file.hpp"
#endif

#include "errors.hpp"
#include "segment.hpp"

namespace flakeid {

namespace detail {

inline void check_segment_key(std::string_view key) {
  if (key.empty()) throw std::invalid_argument("flakeid: a segment counter key must not be empty");
}

/// A namespace of a server store (Redis key prefix, PostgreSQL table name): 1 to 40 letters,
/// digits, '_' or '-'.
inline void check_segment_namespace(std::string_view ns) {
  bool ok = !ns.empty() && ns.size() <= 40;
  for (const char c : ns)
    ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '_' || c == '-');
  if (!ok)
    throw std::invalid_argument("flakeid: segment store namespace '" + std::string(ns) +
                                "' is invalid: use 1 to 40 letters, digits, '_' or '-'");
}

/// A server store's timeout option: at least 1 ms.
inline void check_store_timeout(const char* what, std::chrono::milliseconds t) {
  if (t.count() < 1)
    throw std::invalid_argument("flakeid: segment store " + std::string(what) + " of " +
                                std::to_string(t.count()) + " ms is too short: use at least 1 ms");
}

[[noreturn]] inline void throw_store_overflow(const std::string& store, const std::string& key,
                                              std::uint64_t cur, std::uint64_t step) {
  throw segment_store_error(store, key,
                            "the counter is at " + std::to_string(cur) + "; adding step " +
                                std::to_string(step) + " would pass 2^64 - 1");
}

}  // namespace detail

// ---- memory --------------------------------------------------------------------------------

namespace detail {
/// The counters of a memory store, shared by the store and its distributors.
struct memory_store_state {
  std::mutex mutex;
  std::map<std::string, std::atomic<std::uint64_t>, std::less<>> counters;  // nodes never move
  std::atomic<std::uint64_t> calls{0};

  std::atomic<std::uint64_t>* counter(const std::string& key) {
    check_segment_key(key);
    std::lock_guard lk(mutex);
    return &counters.try_emplace(key, 0).first->second;
  }
};
}  // namespace detail

/// A counter of a `memory_segment_store`. Cheap to copy; copies advance the same counter.
/// `next_max_id` is lock-free and thread-safe. Throws `segment_store_error` when the counter
/// would pass 2^64 - 1.
class memory_distributor {
 public:
  /// Adds `step` to the counter and returns its new value.
  std::uint64_t next_max_id(std::uint64_t step) {
    std::uint64_t cur = counter_->load(std::memory_order_relaxed);
    do {
      if (cur > std::numeric_limits<std::uint64_t>::max() - step)
        detail::throw_store_overflow("memory", key_, cur, step);
    } while (!counter_->compare_exchange_weak(cur, cur + step, std::memory_order_acq_rel,
                                              std::memory_order_relaxed));
    state_->calls.fetch_add(1, std::memory_order_relaxed);
    return cur + step;
  }
  /// `"memory"`.
  [[nodiscard]] std::string_view store_name() const noexcept { return "memory"; }
  /// The counter's key.
  [[nodiscard]] std::string_view key() const noexcept { return key_; }
  /// A distributor for counter `key` of the same store. Throws `std::invalid_argument` for an
  /// empty key.
  [[nodiscard]] memory_distributor with_key(const std::string& key) const { return {state_, key}; }

 private:
  friend class memory_segment_store;
  memory_distributor(std::shared_ptr<detail::memory_store_state> s, const std::string& key)
      : state_(std::move(s)), key_(key), counter_(state_->counter(key)) {}
  std::shared_ptr<detail::memory_store_state> state_;
  std::string key_;
  std::atomic<std::uint64_t>* counter_;
};

/// Named counters in this process's memory. Copies share the counters. Thread-safe.
///
///     flakeid::memory_segment_store store;
///     auto d = store.distributor("orders");
///     d.next_max_id(100);  // 100: the caller owns 1..100
class memory_segment_store {
 public:
  memory_segment_store() : s_(std::make_shared<detail::memory_store_state>()) {}

  /// A distributor for counter `key` (created at 0 on first use). Throws
  /// `std::invalid_argument` for an empty key.
  [[nodiscard]] memory_distributor distributor(const std::string& key) const { return {s_, key}; }
  /// The counter's value: the largest ID reserved so far (0 when unused).
  [[nodiscard]] std::uint64_t current(std::string_view key) const {
    std::lock_guard lk(s_->mutex);
    auto it = s_->counters.find(key);
    return it == s_->counters.end() ? 0 : it->second.load(std::memory_order_acquire);
  }
  /// Successful `next_max_id` calls over all counters.
  [[nodiscard]] std::uint64_t calls() const noexcept {
    return s_->calls.load(std::memory_order_relaxed);
  }

 private:
  std::shared_ptr<detail::memory_store_state> s_;
};

#if defined(FLAKEID_HAS_FILE_SEGMENT_STORE)

// ---- file ----------------------------------------------------------------------------------

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

/// Width of the counter text: 20 decimal digits and a newline, rewritten in place.
inline constexpr std::size_t segment_file_width = 21;

/// Parses a counter file's content; false when it is not one.
inline bool parse_segment_file(std::string_view text, std::uint64_t& value) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  if (text.empty()) {
    value = 0;
    return true;
  }
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

/// An open file descriptor, closed (and so unlocked) on scope exit.

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
  /// Counter `key` in `directory` (which must exist). Throws `std::invalid_argument` for an
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
    detail::unique_fd f{::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)};
    if (f.get() < 0) fail("cannot open");
    while (::flock(f.get(), LOCK_EX) != 0) {
      if (errno != EINTR) fail("cannot lock");
    }
    char buf[64];
    ssize_t n = -1;
    do {
      n = ::pread(f.get(), buf, sizeof buf, 0);
    } while (n < 0 && errno == EINTR);
    if (n < 0) fail("cannot read");
    std::uint64_t cur = 0;
    if (!detail::parse_segment_file(std::string_view(buf, static_cast<std::size_t>(n)), cur))
      throw segment_store_error(name_, key_,
                                path_.string() + " does not hold a counter (20 decimal digits)");
    if (cur > std::numeric_limits<std::uint64_t>::max() - step)
      detail::throw_store_overflow(name_, key_, cur, step);
    const std::uint64_t next = cur + step;
    char out[detail::segment_file_width + 1];
    (void)std::snprintf(out, sizeof out, "%020llu\n", static_cast<unsigned long long>(next));
    std::size_t done = 0;
    while (done < detail::segment_file_width) {
      const ssize_t w = ::pwrite(f.get(), out + done, detail::segment_file_width - done,
                                 static_cast<off_t>(done));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) fail("cannot write");
      done += static_cast<std::size_t>(w);
    }
    if (::fsync(f.get()) != 0) fail("cannot fsync");
    if (n == 0) sync_directory();  // a new file: make its name durable too
    return next;
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
    if (::fsync(d.get()) != 0) fail("cannot fsync the directory of");
  }

  std::filesystem::path dir_;
  std::string key_;
  std::string name_;
  std::filesystem::path path_;
};

/// Named counters as files in one host-local directory, shared by every process that opens
/// it. A restart, even after a crash, goes on above every number handed out before.
///
/// Requirements: a local file system with working `flock` (not NFS). Thread-safe.
class file_segment_store {
 public:
  /// Counters in `directory`, created (with its parents) when missing. Throws
  /// `segment_store_error` when it cannot be created.
  explicit file_segment_store(std::filesystem::path directory) : dir_(std::move(directory)) {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec)
      throw segment_store_error("file:" + dir_.string(), "",
                                "cannot create the directory: " + ec.message());
  }
  /// A distributor for counter `key`. Throws `std::invalid_argument` for an empty key.
  [[nodiscard]] file_distributor distributor(const std::string& key) const { return {dir_, key}; }
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
    const ssize_t n = ::pread(f.get(), buf, sizeof buf, 0);
    std::uint64_t v = 0;
    if (n < 0 || !detail::parse_segment_file(std::string_view(buf, static_cast<std::size_t>(n)), v))
      throw segment_store_error(std::string(d.store_name()), key,
                                d.path().string() + " does not hold a counter");
    return v;
  }
  /// The directory.
  [[nodiscard]] const std::filesystem::path& directory() const noexcept { return dir_; }

 private:
  std::filesystem::path dir_;
};

#endif  // FLAKEID_HAS_FILE_SEGMENT_STORE

}  // namespace flakeid
