// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file detail/callback.hpp
/// `detail::callback<R(Args...)>`: a copyable holder of any callable, the type of the hooks in
/// `lease_options` (its clock, its sleep, its event handler). It does what those hooks need of
/// `std::function` (assign a lambda, test it, call it, copy the options) without `<functional>`,
/// which costs every translation unit that includes a lease more than the rest of the lease
/// layer's standard headers together.

#include <cstddef>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "../version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {
namespace detail {

template <class Signature>
class callback;

template <class R, class... Args>
class callback<R(Args...)> {
  /// What the held callable's type knows: how to call, copy and delete it. One constant table
  /// per type, in place of a virtual base and a `std::unique_ptr` (each of which is another
  /// template to instantiate in every unit that includes a lease).
  struct ops {
    R (*call)(void* f, Args... args);
    void* (*copy)(const void* f);
    void (*destroy)(void* f) noexcept;
  };
  template <class F>
  static R call_as(void* f, Args... args) {
    if constexpr (std::is_void_v<R>) {
      (*static_cast<F*>(f))(std::forward<Args>(args)...);
    } else {
      return (*static_cast<F*>(f))(std::forward<Args>(args)...);
    }
  }
  // The callback owns `f_` (made by `new` here and in its constructor, deleted by `reset()`):
  // a smart pointer would bring back the instantiations this table replaces.
  template <class F>
  static void* copy_as(const void* f) {
    return new F(*static_cast<const F*>(f));  // NOLINT(cppcoreguidelines-owning-memory)
  }
  template <class F>
  static void delete_as(void* f) noexcept {
    delete static_cast<F*>(f);  // NOLINT(cppcoreguidelines-owning-memory)
  }
  template <class F>
  static constexpr ops ops_of{&call_as<F>, &copy_as<F>, &delete_as<F>};

 public:
  callback() noexcept = default;
  callback(std::nullptr_t) noexcept {}  // NOLINT(google-explicit-constructor): as std::function
  /// Holds a copy of `f`, called as `std::function` calls it (a mutable lambda may change its
  /// state). A null function pointer makes an empty callback.
  template <class F>
  requires(!std::is_same_v<std::remove_cvref_t<F>, callback> &&
           std::is_copy_constructible_v<std::decay_t<F>> &&
           std::is_invocable_r_v<R, std::decay_t<F>&, Args...>)
      callback(F&& f) {  // NOLINT(google-explicit-constructor): assigned from lambdas
    using held = std::decay_t<F>;
    if constexpr (std::is_pointer_v<held>) {
      if (f == nullptr) return;
    }
    f_ = new held(std::forward<F>(f));  // NOLINT(cppcoreguidelines-owning-memory): see ops_of
    ops_ = &ops_of<held>;
  }
  callback(const callback& o) : f_(o.f_ != nullptr ? o.ops_->copy(o.f_) : nullptr), ops_(o.ops_) {}
  callback(callback&& o) noexcept : f_(std::exchange(o.f_, nullptr)), ops_(o.ops_) {}
  callback& operator=(const callback& o) {
    if (this != &o) *this = callback(o);
    return *this;
  }
  callback& operator=(callback&& o) noexcept {
    if (this != &o) {
      reset();
      f_ = std::exchange(o.f_, nullptr);
      ops_ = o.ops_;
    }
    return *this;
  }
  ~callback() { reset(); }

  /// Whether it holds a callable.
  explicit operator bool() const noexcept { return f_ != nullptr; }
  /// Calls the callable; an empty callback throws `std::logic_error`.
  R operator()(Args... args) const {
    if (f_ == nullptr) throw std::logic_error("flakeid: an empty callback was called");
    return ops_->call(f_, std::forward<Args>(args)...);
  }

 private:
  void reset() noexcept {
    if (f_ != nullptr) ops_->destroy(f_);
    f_ = nullptr;
  }

  void* f_ = nullptr;
  const ops* ops_ = nullptr;
};

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
