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
#include <memory>
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
  struct holder_base {
    virtual ~holder_base() = default;
    virtual R call(Args... args) const = 0;
    [[nodiscard]] virtual std::unique_ptr<holder_base> clone() const = 0;
  };
  template <class F>
  struct holder final : holder_base {
    explicit holder(F g) : f(std::move(g)) {}
    R call(Args... args) const override {
      if constexpr (std::is_void_v<R>) {
        f(std::forward<Args>(args)...);
      } else {
        return f(std::forward<Args>(args)...);
      }
    }
    [[nodiscard]] std::unique_ptr<holder_base> clone() const override {
      return std::make_unique<holder>(f);
    }
    mutable F f;  // called as `std::function` calls it: a mutable lambda may change its state
  };

 public:
  callback() noexcept = default;
  callback(std::nullptr_t) noexcept {}  // NOLINT(google-explicit-constructor): as std::function
  /// Holds a copy of `f`. A null function pointer makes an empty callback.
  template <class F>
  requires(!std::is_same_v<std::remove_cvref_t<F>, callback> &&
           std::is_copy_constructible_v<std::decay_t<F>> &&
           std::is_invocable_r_v<R, std::decay_t<F>&, Args...>)
      callback(F&& f) {  // NOLINT(google-explicit-constructor): assigned from lambdas
    if constexpr (std::is_pointer_v<std::decay_t<F>>) {
      if (f == nullptr) return;
    }
    p_ = std::make_unique<holder<std::decay_t<F>>>(std::forward<F>(f));
  }
  callback(const callback& o) : p_(o.p_ ? o.p_->clone() : nullptr) {}
  callback(callback&&) noexcept = default;
  callback& operator=(const callback& o) {
    if (this != &o) p_ = o.p_ ? o.p_->clone() : nullptr;
    return *this;
  }
  callback& operator=(callback&&) noexcept = default;
  ~callback() = default;

  /// Whether it holds a callable.
  explicit operator bool() const noexcept { return p_ != nullptr; }
  /// Calls the callable; an empty callback throws `std::logic_error`.
  R operator()(Args... args) const {
    if (!p_) throw std::logic_error("flakeid: an empty callback was called");
    return p_->call(std::forward<Args>(args)...);
  }

 private:
  std::unique_ptr<holder_base> p_;
};

}  // namespace detail
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
