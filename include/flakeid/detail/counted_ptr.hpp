// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file detail/counted_ptr.hpp
/// A shared pointer to one object made with it, counted in the object's own block: what the
/// generator's path shares (a lease's fence, a manual clock's time) without `<memory>`, whose
/// `std::shared_ptr` costs a translation unit more than the rest of the generator's headers.

#include <atomic>
#include <cstddef>
#include <utility>

#include "../version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {
namespace detail {

/// Copies share the object; the last copy to go deletes it. Safe to copy and destroy from any
/// number of threads at once (as `std::shared_ptr`); the object itself is the user's to guard.
template <class T>
class counted_ptr {
 public:
  constexpr counted_ptr() noexcept = default;
  constexpr counted_ptr(std::nullptr_t) noexcept {}  // NOLINT(google-explicit-constructor)

  /// A new `T{args...}`, held by one pointer.
  template <class... Args>
  [[nodiscard]] static counted_ptr make(Args&&... args) {
    return counted_ptr{new block{T{std::forward<Args>(args)...}}};
  }

  counted_ptr(const counted_ptr& o) noexcept : b_(o.b_) {
    if (b_ != nullptr) b_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  counted_ptr(counted_ptr&& o) noexcept : b_(std::exchange(o.b_, nullptr)) {}
  counted_ptr& operator=(const counted_ptr& o) noexcept {
    if (this != &o) {
      counted_ptr copy(o);
      swap(copy);
    }
    return *this;
  }
  counted_ptr& operator=(counted_ptr&& o) noexcept {
    counted_ptr(std::move(o)).swap(*this);
    return *this;
  }
  ~counted_ptr() {
    if (b_ != nullptr && b_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete b_;
  }
  void swap(counted_ptr& o) noexcept { std::swap(b_, o.b_); }

  [[nodiscard]] T* get() const noexcept { return b_ != nullptr ? &b_->value : nullptr; }
  [[nodiscard]] T& operator*() const noexcept { return b_->value; }
  [[nodiscard]] T* operator->() const noexcept { return &b_->value; }
  explicit operator bool() const noexcept { return b_ != nullptr; }
  /// How many pointers share the object (0 for none); a snapshot, as `shared_ptr::use_count`.
  [[nodiscard]] long use_count() const noexcept {
    return b_ != nullptr ? b_->refs.load(std::memory_order_relaxed) : 0;
  }

  friend bool operator==(const counted_ptr& a, const counted_ptr& b) noexcept {
    return a.b_ == b.b_;
  }
  friend bool operator==(const counted_ptr& a, std::nullptr_t) noexcept { return a.b_ == nullptr; }

 private:
  struct block {
    T value;
    std::atomic<long> refs{1};
  };
  explicit counted_ptr(block* b) noexcept : b_(b) {}
  block* b_ = nullptr;
};

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
