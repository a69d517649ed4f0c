// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
// The one helper for tests that fork: a child runs a function, reports back through a pipe
// and leaves with _exit (no static destructors, no gtest teardown).
//
//     const forked_child_result r = run_in_forked_child([&] { return std::string("ok"); });
//     EXPECT_EQ(r.text, "ok");
//     EXPECT_TRUE(r.exited_with(0));
//
// A child that runs beside the test (holds a lease while the parent looks, waits to be told to
// go on, is killed mid-run) is a `child_process`, which kills and reaps it when the test ends
// first; children that must start or stop together wait at a `gate`.
//
// Tests that fork have `forked_child` in their name: the sanitizer presets skip them.

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

/// Writes all of `bytes` to `fd`; false when the reader has gone.
inline bool write_all(int fd, std::string_view bytes) {
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

/// Reads `fd` until EOF, or until `limit` bytes (0: no limit) have come.
inline std::string read_until_eof(int fd, std::size_t limit = 0) {
  std::string out;
  char buf[4096];
  for (;;) {
    const std::size_t want = limit == 0 ? sizeof buf : std::min(sizeof buf, limit - out.size());
    if (want == 0) break;
    const ssize_t n = ::read(fd, buf, want);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

/// The child's end of a `child_process`'s pipe to its parent.
class child_pipe {
 public:
  explicit child_pipe(int fd) : fd_(fd) {}
  /// Writes `bytes` to the parent; false when it has gone.
  bool say(std::string_view bytes) const { return write_all(fd_, bytes); }
  /// Writes the bytes of `value` (a trivially copyable value, or an array of them).
  template <class T>
  bool say_value(const T& value) const {
    static_assert(std::is_trivially_copyable_v<T>);
    return say({reinterpret_cast<const char*>(&value), sizeof value});
  }
  /// Closes this end: the parent's `read_all` returns (the child may go on).
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

/// A child process forked to run beside the test. `body(child_pipe)` runs in the child, which
/// leaves with `_exit` of what the body returns (0 for a body that returns nothing, 99 after an
/// exception); the parent reads what it said with `read_all` and `read_exactly`. A child that
/// still runs when the object goes (a failed assertion ended the test) is killed with SIGKILL
/// and reaped, so that it never outlives its test nor holds what it made.
class child_process {
 public:
  template <class F>
  explicit child_process(F&& body) {
    int fds[2];
    if (::pipe(fds) != 0) {
      ADD_FAILURE() << "pipe: " << std::strerror(errno);
      return;
    }
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(fds[0]);
      int code = 99;
      try {
        if constexpr (std::is_void_v<decltype(body(child_pipe{fds[1]}))>) {
          body(child_pipe{fds[1]});
          code = 0;
        } else {
          code = body(child_pipe{fds[1]});
        }
      } catch (...) {
      }
      ::_exit(code);
    }
    ::close(fds[1]);
    in_ = fds[0];
    if (pid_ < 0) ADD_FAILURE() << "fork: " << std::strerror(errno);
  }
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;
  ~child_process() {
    kill();
    if (in_ >= 0) ::close(in_);
  }

  [[nodiscard]] pid_t pid() const noexcept { return pid_; }
  /// Everything the child says, until it closes its end (or ends).
  std::string read_all() { return read_until_eof(in_); }
  /// The next `n` bytes the child says; fewer when it closes its end (or ends) first.
  std::string read_exactly(std::size_t n) { return read_until_eof(in_, n); }
  /// What the child says until it closes its end (or ends), waiting `guard` at most in all;
  /// `.second` is false when the guard ran out first (a guard against a hang, not a timing
  /// assumption).
  std::pair<std::string, bool> read_all_within(std::chrono::milliseconds guard) {
    std::string text;
    if (in_ < 0) return {text, true};
    const auto until = std::chrono::steady_clock::now() + guard;
    char buf[4096];
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          until - std::chrono::steady_clock::now());
      pollfd p{in_, POLLIN, 0};
      const int ready = left.count() <= 0 ? 0 : ::poll(&p, 1, static_cast<int>(left.count()));
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0) return {text, false};
      const ssize_t n = ::read(in_, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return {text, true};
      text.append(buf, static_cast<std::size_t>(n));
    }
  }
  /// Sends `sig` to the child.
  void signal(int sig) const {
    if (pid_ > 0) ::kill(pid_, sig);
  }
  /// Waits for the child to end; its wait status (-1 when there is no child).
  int wait() {
    int status = -1;
    if (pid_ > 0) {
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
    }
    pid_ = -1;
    return status;
  }
  /// The child's wait status when it has ended, without waiting.
  std::optional<int> poll_exit() {
    int status = 0;
    if (pid_ <= 0 || ::waitpid(pid_, &status, WNOHANG) != pid_) return std::nullopt;
    pid_ = -1;
    return status;
  }
  /// Kills the child with SIGKILL and reaps it.
  void kill() {
    signal(SIGKILL);
    (void)wait();
  }

 private:
  pid_t pid_ = -1;
  int in_ = -1;
};

/// A gate that children wait at until the parent opens it: a pipe whose write end every child
/// closes as it waits, so that the parent's close reaches every waiter at once, as EOF. Made by
/// the parent before it forks the children.
class gate {
 public:
  gate() {
    if (::pipe(fds_) != 0) ADD_FAILURE() << "pipe: " << std::strerror(errno);
  }
  gate(const gate&) = delete;
  gate& operator=(const gate&) = delete;
  ~gate() {
    for (int fd : fds_)
      if (fd >= 0) ::close(fd);
  }
  /// In a child: waits until the parent opens the gate (or ends).
  void wait() {
    close_write_end();
    char c = 0;
    while (::read(fds_[0], &c, 1) < 0 && errno == EINTR) {
    }
  }
  /// In a child: whether the parent has opened the gate (or ended), without waiting.
  [[nodiscard]] bool is_open() {
    close_write_end();
    pollfd p{fds_[0], POLLIN, 0};
    return ::poll(&p, 1, 0) == 1;
  }
  /// In the parent: every child waiting at the gate goes on, and any that comes to it later.
  void open() { close_write_end(); }

 private:
  // This process's copy of the write end: the gate opens once every copy is closed.
  void close_write_end() {
    if (fds_[1] >= 0) ::close(fds_[1]);
    fds_[1] = -1;
  }

  int fds_[2] = {-1, -1};
};

struct forked_child_result {
  std::string text;   // what the child's function returned
  int status = 0;     // as waitpid reports it
  bool hung = false;  // killed after the guard time: it never finished
  std::string waits;  // for a hung child: where each of its threads waited (from /proc)

  [[nodiscard]] bool exited_with(int code) const {
    return !hung && WIFEXITED(status) && WEXITSTATUS(status) == code;
  }
};

/// Where the threads of process `pid` wait, one line each: the thread id, its name, the kernel
/// function it sleeps in (`futex_wait_queue`: a lock or condition variable of the process;
/// `flock_lock_inode_wait` or the like: a file lock) and its system call (number and
/// arguments). Linux only; empty where /proc cannot tell.
inline std::string where_threads_wait(pid_t pid) {
  std::string out;
  std::error_code ec;
  const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& task : std::filesystem::directory_iterator(tasks, ec)) {
    const auto read = [&](const char* name) {
      std::ifstream in(task.path() / name);
      std::string line;
      std::getline(in, line);
      return line;
    };
    out += task.path().filename().string() + " " + read("comm") + ": waits in " + read("wchan") +
           ", syscall " + read("syscall") + "\n";
  }
  return out;
}

/// Runs `body()` (returning std::string) in a forked child and returns its text and status.
/// The child exits with 0, or with 99 after an exception (the text then says which). A child
/// that does not finish within `guard` (a guard against a hang, not a timing assumption) is
/// killed and reported as `hung`.
template <class F>
forked_child_result run_in_forked_child(F&& body,
                                        std::chrono::milliseconds guard = std::chrono::seconds{
                                            30}) {
  child_process child([&](child_pipe out) {
    try {
      (void)out.say(body());
      return 0;
    } catch (const std::exception& e) {
      (void)out.say(std::string("exception: ") + e.what());
    } catch (...) {
      (void)out.say("exception of an unknown type");
    }
    return 99;
  });
  forked_child_result r;
  bool finished = false;
  std::tie(r.text, finished) = child.read_all_within(guard);
  r.hung = !finished;
  if (r.hung) {
    r.waits = where_threads_wait(child.pid());
    child.signal(SIGKILL);
  }
  r.status = child.wait();
  return r;
}

/// Runs `body(report)` in a forked child, as a process that crashes holding what it made: the
/// body calls `report(text)` while it still holds it (its leases, files and generators alive);
/// the text reaches the parent, and the child stops there until the parent kills it with
/// SIGKILL. A child whose body throws or returns reports nothing. Returns the report.
template <class F>
std::string report_then_sigkill(F&& body) {
  child_process child([&](child_pipe out) {
    const auto report = [&](const std::string& text) {
      (void)out.say(text);
      out.close();
      for (;;) ::pause();  // until the parent's SIGKILL
    };
    body(report);
    return 99;
  });
  return child.read_all();  // then `child` goes: killed and reaped
}

/// Forks `n` children that run at once: child `p` runs `body(p)` and leaves with _exit, with 0,
/// or with 99 after an exception (said on stderr). Returns their pids, for
/// `expect_children_exit_cleanly`.
template <class F>
std::vector<pid_t> fork_children(int n, F body) {
  std::vector<pid_t> kids;
  for (int p = 0; p < n; ++p) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      int code = 0;
      try {
        body(p);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "child %d: %s\n", static_cast<int>(::getpid()), e.what());
        code = 99;
      }
      ::_exit(code);
    }
    EXPECT_GT(pid, 0) << "fork: " << std::strerror(errno);
    kids.push_back(pid);
  }
  return kids;
}

/// Waits for each child of `kids`: every one exited with 0.
inline void expect_children_exit_cleanly(const std::vector<pid_t>& kids) {
  for (const pid_t pid : kids) {
    int status = 0;
    EXPECT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "child " << pid << " status " << status;
  }
}

/// IDs as bytes, for a child's report.
inline std::string bytes_of(const std::vector<std::uint64_t>& ids) {
  return {reinterpret_cast<const char*>(ids.data()), ids.size() * sizeof(std::uint64_t)};
}

/// The IDs in a child's report of `bytes_of`.
inline std::vector<std::uint64_t> ids_of(const std::string& bytes) {
  std::vector<std::uint64_t> ids(bytes.size() / sizeof(std::uint64_t));
  std::memcpy(ids.data(), bytes.data(), ids.size() * sizeof(std::uint64_t));
  return ids;
}
