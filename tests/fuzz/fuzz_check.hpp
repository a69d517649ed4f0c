#pragma once
// Shared by the fuzz targets: input reading and a check that stops the run with a message.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace flakeid_fuzz {

/// Reads little pieces of the fuzzer's input in order; past the end it reads zeros.
class input {
 public:
  input(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  [[nodiscard]] std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  [[nodiscard]] std::uint64_t u64() {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= std::uint64_t{byte()} << (8 * i);
    return v;
  }
  [[nodiscard]] std::int64_t i64() {
    const std::uint64_t u = u64();
    std::int64_t v = 0;
    std::memcpy(&v, &u, sizeof v);
    return v;
  }
  [[nodiscard]] bool empty() const { return pos_ >= size_; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

[[noreturn]] inline void fail(const char* what, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
  std::abort();
}

}  // namespace flakeid_fuzz

#define FLAKEID_FUZZ_CHECK(cond) \
  ((cond) ? static_cast<void>(0) : ::flakeid_fuzz::fail(#cond, __FILE__, __LINE__))
