#pragma once
// The fault soak (docs/soak.md): what the harness (soak_main.cpp, nemesis.cpp, stores.cpp) and
// the minters (minter.cpp) share: the run's settings, the minters' clock with an offset the
// nemesis moves, and the line log every process writes.

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ctime>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <flakeid/clock.hpp>

namespace flakeid_soak {

/// What a minter needs to know, given on its command line by the harness.
struct minter_config {
  std::string store;       ///< file, redis, postgres, mysql, zookeeper
  std::string where;       ///< the file store's directory, or the server's address
  std::string log;         ///< this process's log
  std::string clock_file;  ///< 8 bytes: the clock offset in ms, written by the nemesis
  int max_ids = 3;         ///< the lease's max_ids (below the number of minters)
  int ttl_ms = 1'500;      ///< the lease's ttl
  int guard_ms = 500;      ///< the lease's safe_guard
  int burst = 40;          ///< IDs per burst
  int interval_ms = 20;    ///< pause between bursts
  int segment_every = 5;   ///< a segment number every this many bursts
};

/// Unix milliseconds of the real wall clock (the timeline of every log): read with the system
/// call itself, which libfaketime (`--faketime`) does not see, so a minter whose clock it moves
/// still logs the real time.
inline std::int64_t wall_ms() {
  timespec ts{};
  ::syscall(SYS_clock_gettime, CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

/// The offset (ms) a minter's clock adds, in a file of 8 bytes mapped by the minter and written
/// by the nemesis (`set_clock_offset`).
inline const volatile std::int64_t* map_clock_offset(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open the clock file " + path);
  void* p = ::mmap(nullptr, sizeof(std::int64_t), PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) throw std::runtime_error("cannot map the clock file " + path);
  return static_cast<const volatile std::int64_t*>(p);
}

/// The offset (ms) in the clock file at `path` (0 when it cannot be read).
inline std::int64_t clock_offset(const std::string& path) {
  std::int64_t offset = 0;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  if (::pread(fd, &offset, sizeof offset, 0) != sizeof offset) offset = 0;
  ::close(fd);
  return offset;
}

/// Writes the offset (ms) of the clock file at `path` (created when missing).
inline void set_clock_offset(const std::string& path, std::int64_t offset_ms) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot open the clock file " + path);
  const bool ok = ::pwrite(fd, &offset_ms, sizeof offset_ms, 0) == sizeof offset_ms;
  ::close(fd);
  if (!ok) throw std::runtime_error("cannot write the clock file " + path);
}

/// The minter's clock: the system clock plus the offset the nemesis sets (a clock step of
/// seconds to hours, forward or back, without touching the host's clock).
struct offset_clock : flakeid::wall_clock {
  const volatile std::int64_t* offset = nullptr;
  [[nodiscard]] time_point now() const {
    const std::int64_t o = offset != nullptr ? *offset : 0;
    return std::chrono::system_clock::now() + std::chrono::milliseconds{o};
  }
};

/// A line log shared by the minter's loop and its lease's renewal thread: whole lines, each
/// written with one `write` (so a SIGKILL loses at most the lines not yet written, never half
/// of one).
class line_log {
 public:
  explicit line_log(const std::string& path) { open(path); }
  ~line_log() {
    if (fd_ >= 0) ::close(fd_);
  }
  line_log(const line_log&) = delete;
  line_log& operator=(const line_log&) = delete;

  /// Starts over in `path` (a forked child writes a log of its own).
  void open(const std::string& path) {
    const std::lock_guard lk(m_);
    if (fd_ >= 0) ::close(fd_);
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) throw std::runtime_error("cannot open the log " + path);
  }
  /// Writes `text` (whole lines, each ending in '\n').
  void write(const std::string& text) {
    const std::lock_guard lk(m_);
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
      if (n <= 0) return;  // a full disk for the logs: lines are lost, the run goes on
      done += static_cast<std::size_t>(n);
    }
  }

 private:
  std::mutex m_;
  int fd_ = -1;
};

/// `text` with spaces and line breaks made '_' (a message as one field of a log line).
inline std::string one_field(std::string text) {
  for (char& c : text)
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') c = '_';
  if (text.size() > 200) text.resize(200);
  return text.empty() ? "-" : text;
}

int run_minter(const minter_config& c);

}  // namespace flakeid_soak
