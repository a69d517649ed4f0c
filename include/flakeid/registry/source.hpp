// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file registry/source.hpp
/// A generator behind a name: `id_source`, the type-erased handle a registry hands out (one
/// virtual call per call, for code that picks a generator at run time: a service, a script
/// binding), and `source_of<G>`, the entry that owns a real generator `G` (and the lease its
/// worker id comes from) and hands it out by reference, so code that names `G` mints with no
/// dispatch at all (`registry::get<G>`).

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../errors.hpp"
#include "../lease.hpp"
#include "../text_converter.hpp"
#include "../version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

/// Whether a source can mint now, and if not, why (one line, no secret).
struct source_health {
  bool ready = true;
  std::string reason{};
};

/// One named generator, type-erased. Thread-safe as its generator is (all of flakeid's
/// generators are, but for the `_st` ones, which a registry does not build).
class id_source {
 public:
  id_source(const id_source&) = delete;
  id_source& operator=(const id_source&) = delete;
  virtual ~id_source() = default;

  /// The entry's name.
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  /// `"snowflake"`, `"cosid"`, `"tick"`, `"segment"` or `"chain"`.
  [[nodiscard]] virtual std::string_view kind() const noexcept = 0;
  /// Whether the IDs are a snowflake's (a timestamp, a worker id and a sequence) rather than
  /// a counter's.
  [[nodiscard]] bool is_snowflake() const noexcept {
    const std::string_view k = kind();
    return k != "segment" && k != "chain";
  }

  /// The next ID; throws what the generator throws (`lease_lost_error`, `segment_store_error`,
  /// `clock_backwards_error`, ...).
  [[nodiscard]] virtual std::uint64_t next_id() = 0;
  /// Fills `out` with increasing IDs.
  virtual void next_ids(std::span<std::uint64_t> out) = 0;

  /// `id` as the entry's text (its converter: decimal unless the entry names one).
  [[nodiscard]] std::string to_text(std::uint64_t id) const { return converter_.to_text(id); }
  /// The ID in `text`; throws `invalid_id_error` naming the text.
  [[nodiscard]] std::uint64_t from_text(std::string_view text) const {
    return converter_.from_text(text);
  }
  /// The next ID as the entry's text.
  [[nodiscard]] std::string next_text() { return to_text(next_id()); }
  /// The entry's converter.
  [[nodiscard]] const text_converter& converter() const noexcept { return converter_; }

  /// `id` as a JSON object: `{"id":"…"}`, and for a snowflake its fields (`"unix_ms"`,
  /// `"datacenter"`, `"worker"`, `"sequence"`, those of the layout). Throws `invalid_id_error`
  /// for an ID its layout cannot hold.
  [[nodiscard]] virtual std::string describe(std::uint64_t id) const = 0;
  /// Whether the source can mint now: a lease lost or past its deadline, or a segment store
  /// failing with nothing left to hand out, is not ready.
  [[nodiscard]] virtual source_health health() const = 0;
  /// Named numbers for a monitor: `worker_id`, `lease_valid`, `segment_store_calls`, ...
  [[nodiscard]] virtual std::vector<std::pair<std::string, double>> gauges() const = 0;

 protected:
  /// Without a converter: decimal text, unpadded.
  id_source(std::string name, std::optional<text_converter> converter)
      : name_(std::move(name)),
        converter_(converter ? std::move(*converter)
                             : text_converter({.form = text_form::decimal, .pad = false})) {}

 private:
  std::string name_;
  text_converter converter_;
};

namespace detail {

/// A lease made in place (a lease cannot move): `make()` returns it.
struct lease_box {
  template <class Make>
  explicit lease_box(Make&& make) : lease(std::forward<Make>(make)()) {}
  flakeid::lease lease;
};

/// Whether `G` mints only with a key (a gene layout's generator).
template <class G>
inline constexpr bool needs_key = [] {
  if constexpr (requires { G::has_gene; }) return G::has_gene;
  return false;
}();

[[noreturn]] inline void throw_needs_key(const std::string& name) {
  throw invalid_option_error("flakeid: registry entry '" + name +
                             "' mints with a key (its IDs carry a gene): call next_id(key) on "
                             "registry::get of its generator");
}

/// `id` as `describe` writes it: `{"id":"…"}`, with `p`'s fields for a snowflake's ID.
inline std::string describe_id(std::uint64_t id, const id_parts* p) {
  std::string s = R"({"id":")" + std::to_string(id) + "\"";
  if (p != nullptr) {
    s += ",\"unix_ms\":" + std::to_string(p->timestamp.time_since_epoch().count());
    const auto field = [&](field_kind k, const char* label, std::uint64_t v) {
      if (p->has(k)) s += std::string(",\"") + label + "\":" + std::to_string(v);
    };
    field(field_kind::datacenter, "datacenter", p->datacenter);
    field(field_kind::worker, "worker", p->worker);
    field(field_kind::sequence, "sequence", p->sequence);
  }
  return s + "}";
}

/// A lease's part of a source's health: not ready once lost or past its confirmed deadline.
inline source_health lease_health(const flakeid::lease& l) {
  if (l.lost())
    return {false, "the lease on worker id " + std::to_string(l.id()) + " at " + l.where() +
                       " was lost: the id may be another process's now"};
  if (!l.valid())
    return {false, "the lease on worker id " + std::to_string(l.id()) + " at " + l.where() +
                       " is past its confirmed deadline (renewals fail)"};
  return {};
}

using gauge_list = std::vector<std::pair<std::string, double>>;

/// A lease's gauges: `worker_id`, `lease_valid`, `lease_lost`.
inline void lease_gauges(const flakeid::lease& l, gauge_list& g) {
  g.emplace_back("worker_id", static_cast<double>(l.id()));
  g.emplace_back("lease_valid", l.valid() ? 1.0 : 0.0);
  g.emplace_back("lease_lost", l.lost() ? 1.0 : 0.0);
}

/// A segment generator's health: a chain with nothing prefetched whose latest store call
/// failed cannot mint until a store call succeeds (its worker keeps trying); a plain generator
/// calls its store when asked for a number, so its latest call tells.
inline source_health segment_health(bool chain, std::size_t ahead, bool failing,
                                    const std::string& last_error) {
  if (!failing || (chain && ahead > 0)) return {};
  return {false, chain ? "the segment store fails and nothing is prefetched: " + last_error
                       : "the latest segment store call failed: " + last_error};
}

/// A segment chain's gauges from its `stats()`.
template <class Stats>
void chain_gauges(const Stats& st, gauge_list& g) {
  g.emplace_back("segment_store_calls", static_cast<double>(st.store_calls));
  g.emplace_back("segment_store_failures", static_cast<double>(st.store_failures));
  g.emplace_back("segment_hungry", static_cast<double>(st.hungry));
  g.emplace_back("segment_ahead", static_cast<double>(st.ahead));
}

}  // namespace detail

/// A registry entry that owns generator `G` (built by `make(lease*)`, the lease first when the
/// entry has one: it outlives the generator) and serves it as an `id_source`. `generator()` is
/// the real generator, for code that names `G`.
template <class G>
class source_of final : public id_source {
 public:
  template <class Make>
  source_of(std::string name, std::string_view kind, std::optional<text_converter> converter,
            std::unique_ptr<detail::lease_box> lease, Make&& make)
      : id_source(std::move(name), std::move(converter)),
        kind_(kind),
        lease_(std::move(lease)),
        gen_(std::forward<Make>(make)(lease_ ? &lease_->lease : nullptr)) {}

  /// The generator itself: no dispatch on its calls.
  [[nodiscard]] G& generator() noexcept { return gen_; }
  /// The lease the worker id comes from; null for a fixed id or a segment generator.
  [[nodiscard]] const flakeid::lease* lease() const noexcept {
    return lease_ ? &lease_->lease : nullptr;
  }

  [[nodiscard]] std::string_view kind() const noexcept override { return kind_; }
  [[nodiscard]] std::uint64_t next_id() override {
    if constexpr (detail::needs_key<G>) {
      detail::throw_needs_key(name());
    } else {
      return gen_.next_id();
    }
  }
  void next_ids(std::span<std::uint64_t> out) override {
    if constexpr (detail::needs_key<G>) {
      detail::throw_needs_key(name());
    } else {
      gen_.next_ids(out);
    }
  }

  [[nodiscard]] std::string describe(std::uint64_t id) const override {
    if constexpr (requires { G::layout_value; }) {
      const id_parts p = G::layout_value.decompose(id);
      return detail::describe_id(id, &p);
    } else {
      return detail::describe_id(id, nullptr);
    }
  }

  [[nodiscard]] source_health health() const override {
    if (lease_) {
      source_health h = detail::lease_health(lease_->lease);
      if (!h.ready) return h;
    }
    if constexpr (requires { gen_.stats().ahead; }) {
      const auto st = gen_.stats();
      return detail::segment_health(true, st.ahead, st.store_failing, st.last_error);
    } else if constexpr (requires { gen_.store_failing(); }) {
      const bool failing = gen_.store_failing();
      return detail::segment_health(false, 0, failing, failing ? gen_.last_error() : "");
    }
    return {};
  }

  [[nodiscard]] std::vector<std::pair<std::string, double>> gauges() const override {
    detail::gauge_list g;
    if (lease_) detail::lease_gauges(lease_->lease, g);
    if constexpr (requires { gen_.stats().ahead; }) {
      detail::chain_gauges(gen_.stats(), g);
    } else if constexpr (requires { gen_.store_calls(); }) {
      g.emplace_back("segment_store_calls", static_cast<double>(gen_.store_calls()));
    }
    return g;
  }

 private:
  std::string_view kind_;  // a literal of the registry's
  std::unique_ptr<detail::lease_box> lease_;
  G gen_;
};

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
