// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file detail/fork_guard.hpp
/// Internal: the one fork rule of every object with state. A `pthread_atfork` child handler,
/// installed once, bumps a process-wide fork generation; each object records the generation at
/// birth (`fork_stamp`) and checks it at the top of every call, before taking any lock. An
/// object of the parent refuses in a forked child (`forked_process_error`), and its destructor
/// there leaks what the parent shares (locks, sockets, threads) instead of closing it.

#if !defined(_WIN32)
#include <pthread.h>
#include <sys/file.h>
#include <unistd.h>
#endif

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include "../errors.hpp"
#include "../version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {
namespace detail {

/// The number of `fork()`s between the process's start and now, as seen by this process: 0 in
/// the first process, one more in each child. Constant-initialised, so a load needs no guard.
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables)
inline constinit std::atomic<std::uint64_t> fork_generation{0};

/// Descriptors that hold a `flock` while a store call runs, plus one (0: a free slot). A forked
/// child closes them at once: its copies would keep the parent's lock held after the parent
/// lets it go, and every process of the host on that file would wait for the child.
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables)
inline constinit std::array<std::atomic<int>, 256> fork_closed_fds{};

/// The child handler: a new generation, and the watched descriptors closed (no unlock: the
/// lock is the parent's). Async-signal-safe: atomics and close().
inline void bump_fork_generation() noexcept {
  fork_generation.fetch_add(1, std::memory_order_relaxed);
#if !defined(_WIN32)
  for (std::atomic<int>& slot : fork_closed_fds) {
    const int v = slot.exchange(0, std::memory_order_relaxed);
    if (v != 0) ::close(v - 1);
  }
#endif
}

/// Installs the child handler (once per process; a child inherits it).
inline std::uint64_t install_fork_handler() noexcept {
#if !defined(_WIN32)
  static const bool installed = ::pthread_atfork(nullptr, nullptr, &bump_fork_generation) == 0;
  (void)installed;
#endif
  return fork_generation.load(std::memory_order_relaxed);
}

/// Throws `forked_process_error` for `what` ("this segment generator").
/// (Written with snprintf: every generator compiles it, and std::string arithmetic is slow to.)
[[noreturn]] inline void throw_forked(std::string_view what) {
  char msg[1024];
  (void)std::snprintf(msg, sizeof msg,
                      "flakeid: %.*s was made before fork() and belongs to the parent process: "
                      "rebuild it in the child",
                      static_cast<int>(what.size()), what.data());
  throw forked_process_error(msg);
}

/// The fork generation an object was born in. A copy keeps its original's birth.
class fork_stamp {
 public:
  fork_stamp() noexcept : born_(install_fork_handler()) {}
  /// Whether this process is a fork of the one the object was born in: one relaxed load.
  [[nodiscard]] bool forked() const noexcept {
    return fork_generation.load(std::memory_order_relaxed) != born_;
  }
  /// Throws `forked_process_error` naming `what` in a forked child.
  void check(std::string_view what) const {
    if (forked()) [[unlikely]]
      throw_forked(what);
  }

 private:
  std::uint64_t born_;
};

#if !defined(_WIN32)
/// A descriptor that holds a `flock` for one store call: a child forked meanwhile closes its
/// copy at fork time. The destructor unlocks first and then stops watching, so no child ever
/// keeps a locked copy; the owner closes the descriptor afterwards. With more than 256 such
/// descriptors open at once, the rest are not watched.
class fork_closed_flock {
 public:
  fork_closed_flock() noexcept = default;
  fork_closed_flock(const fork_closed_flock&) = delete;
  fork_closed_flock& operator=(const fork_closed_flock&) = delete;
  ~fork_closed_flock() { stop(); }

  /// Watches `fd` (instead of the one watched before).
  void watch(int fd) noexcept {
    stop();
    (void)install_fork_handler();
    for (std::atomic<int>& slot : fork_closed_fds) {
      int free = 0;
      if (slot.compare_exchange_strong(free, fd + 1, std::memory_order_relaxed)) {
        slot_ = &slot;
        fd_ = fd;
        return;
      }
    }
  }

  /// Unlocks the watched descriptor and stops watching it (before it is closed).
  void stop() noexcept {
    if (slot_ == nullptr) return;
    (void)::flock(fd_, LOCK_UN);
    slot_->store(0, std::memory_order_relaxed);
    slot_ = nullptr;
  }

 private:
  std::atomic<int>* slot_ = nullptr;
  int fd_ = -1;
};
#endif

/// In a forked child: gives up `x` (a thread the child does not have, a condition variable a
/// parent's thread waits on) without running its destructor, which would join, detach or wait
/// for the parent's threads; a default `T` takes its place.
template <class T>
void forget_after_fork(T& x) noexcept {
  std::construct_at(&x);
}

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
