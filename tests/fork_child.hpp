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

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

struct forked_child_result {
  std::string text;   // what the child's function returned
  int status = 0;     // as waitpid reports it
  bool hung = false;  // killed after the guard time: it never finished

  [[nodiscard]] bool exited_with(int code) const {
    return !hung && WIFEXITED(status) && WEXITSTATUS(status) == code;
  }
};

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
  if (r.hung) ::kill(pid, SIGKILL);
  while (::waitpid(pid, &r.status, 0) < 0 && errno == EINTR) {
  }
  return r;
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
