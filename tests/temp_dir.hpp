#pragma once
// temp_dir: a fresh directory, removed at scope exit, named after the test that made it, the
// process and a counter (so that tests of one process, or of processes side by side, never
// share one).

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <system_error>

namespace flakeid_test {

struct temp_dir {
  std::filesystem::path path;
  /// Under the system's temporary directory.
  explicit temp_dir(const std::string& name = "dir")
      : temp_dir(std::filesystem::temp_directory_path(), name) {}
  /// Under `under` (/dev/shm for a tmpfs).
  temp_dir(const std::filesystem::path& under, const std::string& name) {
    static std::atomic<int> counter{0};
    path = under /
           ("flakeid_" + name + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

}  // namespace flakeid_test
