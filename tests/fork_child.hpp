// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
// The one helper for tests that fork: runs a function in a forked child, which reports back
// through a pipe and leaves with _exit (no static destructors, no gtest teardown).
//
//     const forked_child_result r = run_in_forked_child([&] { return std::string("ok"); });
//     EXPECT_EQ(r.text, "ok");
//     EXPECT_TRUE(r.exited_with(0));
//
// Tests that fork have `forked_child` in their name: the sanitizer presets skip them.

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

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
  forked_child_result r;
  int fds[2];
  if (::pipe(fds) != 0) {
    r.text = std::string("pipe: ") + std::strerror(errno);
    r.hung = true;
    return r;
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    int code = 0;
    std::string out;
    try {
      out = body();
    } catch (const std::exception& e) {
      out = std::string("exception: ") + e.what();
      code = 99;
    } catch (...) {
      out = "exception of an unknown type";
      code = 99;
    }
    for (std::size_t done = 0; done < out.size();) {
      const ssize_t n = ::write(fds[1], out.data() + done, out.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    ::_exit(code);
  }
  ::close(fds[1]);
  const auto until = std::chrono::steady_clock::now() + guard;
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    pollfd p{fds[0], POLLIN, 0};
    const int ready = left.count() <= 0 ? 0 : ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      r.hung = true;
      break;
    }
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    r.text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  if (r.hung) {
    r.waits = where_threads_wait(pid);
    ::kill(pid, SIGKILL);
  }
  while (::waitpid(pid, &r.status, 0) < 0 && errno == EINTR) {
  }
  return r;
}

/// Runs `body(report)` in a forked child, as a process that crashes holding what it made: the
/// body calls `report(text)` while it still holds it (its leases, files and generators alive);
/// the text reaches the parent, and the child stops there until the parent kills it with
/// SIGKILL. A child whose body throws or returns reports nothing. Returns the report.
template <class F>
std::string report_then_sigkill(F&& body) {
  int fds[2];
  if (::pipe(fds) != 0) {
    ADD_FAILURE() << "pipe: " << std::strerror(errno);
    return {};
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    const auto report = [&](const std::string& out) {
      for (std::size_t done = 0; done < out.size();) {
        const ssize_t n = ::write(fds[1], out.data() + done, out.size() - done);
        if (n <= 0) break;
        done += static_cast<std::size_t>(n);
      }
      ::close(fds[1]);
      for (;;) ::pause();  // until the parent's SIGKILL
    };
    try {
      body(report);
    } catch (...) {
    }
    ::_exit(99);
  }
  ::close(fds[1]);
  EXPECT_GE(pid, 0) << "fork: " << std::strerror(errno);
  std::string said;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    said.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  if (pid > 0) {
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  return said;
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
