// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file registry.hpp
/// Generators by name, built from configuration (a JSON file, the `FLAKEID_GENERATORS`
/// environment variable, or code), as CosId's `IdGeneratorProvider` offers them:
///
///     {"generators": {
///       "orders":   {"kind": "snowflake", "layout": "twitter",
///                    "lease": {"store": "redis://10.0.0.5:6379", "namespace": "shop"}},
///       "invoices": {"kind": "chain", "store": "file:///var/lib/ids", "key": "invoice",
///                    "step": 1000, "text": {"form": "decimal", "width": 7, "prefix": "INV-"}}}}
///
///     auto kinds = flakeid::registry_kinds::standard().store<flakeid::redis_store>("redis");
///     flakeid::registry ids = flakeid::registry::from_file("ids.json", kinds);
///     auto& orders = ids.get<flakeid::classic_snowflake<>>("orders");  // the generator itself
///     std::uint64_t id = orders.next_id();                              // no dispatch
///     std::string inv = ids.source("invoices").next_text();             // "INV-0001001"
///
/// Each entry is checked field by field (an unknown field, a value out of range, a layout or
/// store the registry does not know: a `registry_error` naming the entry and the field). Leases
/// are taken while the registry is built and released when it goes. `registry_kinds` says which
/// layouts and stores a configuration may name: `standard()` has the memory and file stores and
/// the preset layouts; a server store joins with one call (`store<flakeid::redis_store>("redis")`,
/// its header included and its CMake target linked), a layout of your own with `layout<L>(name)`.
/// The whole configuration format is in docs/registry.md.
/// Thread-safety: lookups may run from any thread at any time, also while `emplace` adds an
/// entry; the generators are thread-safe.

#include <algorithm>
#include <cerrno>
#include <concepts>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/posix_file.hpp"
#include "layouts.hpp"
#include "lease.hpp"
#include "registry/config.hpp"
#include "registry/source.hpp"
#include "segment.hpp"
#include "snowflake.hpp"
#include "store/file.hpp"
#include "store/memory.hpp"
#include "store/memory_lease.hpp"
#include "version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

/// What a snowflake entry asks of a layout's maker (`registry_kinds::layout`).
struct registry_snowflake_request {
  std::string name;
  std::string_view kind;  ///< "snowflake", "cosid" or "tick"
  std::optional<text_converter> converter;
  std::unique_ptr<detail::lease_box> lease;  ///< null: the fixed `node`
  node_id node{};
};

/// What a segment entry asks of a store's maker (`registry_kinds::store`).
struct registry_segment_request {
  std::string name;
  bool chain = true;  ///< a `segment_chain_generator`, else a `segment_generator`
  std::optional<text_converter> converter;
  std::string key;
  segment_chain_options options;  ///< `options.segment` alone for a plain generator
};

/// The layouts and stores a configuration may name, each with the code that builds its
/// generators (instantiated only for what is added here). Copies share the memory store.
class registry_kinds {
 public:
  using lease_maker = std::function<std::unique_ptr<detail::lease_box>(
      const std::string& uri, const store_options&, const lease_options&)>;
  using segment_maker = std::function<std::unique_ptr<id_source>(
      const std::string& uri, const store_options&, registry_segment_request&)>;
  using snowflake_maker = std::function<std::unique_ptr<id_source>(registry_snowflake_request&)>;
  /// A layout a configuration may name: its value (for the friendly text form) and its maker.
  struct layout_entry {
    snowflake_maker make;
    flakeid::layout value;
  };

  /// Nothing: add layouts and stores.
  registry_kinds() = default;

  /// The `memory:` store (one per namespace and `standard()` call, shared by its copies: for
  /// tests and single-process programs), the file store
  /// (`file:///absolute/directory`; a relative directory is refused) and the preset layouts by their
  /// names in `flakeid::layouts`: twitter, discord, sonyflake, instagram, cosid, cosid_js,
  /// seed_classic.
  /// (A template only so that a unit that includes this header and never calls it does not
  /// compile every preset's generators: call it as `standard()`.)
  template <class = void>
  [[nodiscard]] static registry_kinds standard() {
    registry_kinds k;
    k.memory_store_for_leases();
    k.store<file_store>("file", [](std::string_view uri) { return file_path_of(uri); });
    k.layout<layouts::twitter>("twitter")
        .layout<layouts::discord>("discord")
        .layout<layouts::sonyflake>("sonyflake")
        .layout<layouts::instagram>("instagram")
        .layout<layouts::cosid>("cosid")
        .layout<layouts::cosid_js>("cosid_js")
        .layout<layouts::seed_classic>("seed_classic");
    return k;
  }

  /// Store type `Store` for URIs of `scheme`: its leases (`Store::lease`) and its segment
  /// distributors (`Store::distributor`). `address(uri)` is what `Store`'s constructor takes
  /// before its `store_options` (by default the whole URI, as the server stores take it).
  template <class Store>
  registry_kinds& store(std::string scheme,
                        std::function<std::string(std::string_view)> address = {}) {
    if (!address) address = [](std::string_view uri) { return std::string(uri); };
    stores_[std::move(scheme)] = {
        [address](const std::string& uri, const store_options& so, const lease_options& lo) {
          const Store s(address(uri), so);
          return std::make_unique<detail::lease_box>([&] { return s.lease(lo); });
        },
        [address](const std::string& uri, const store_options& so, registry_segment_request& r) {
          const Store s(address(uri), so);
          return make_segment_source(s.distributor(r.key), r);
        }};
    return *this;
  }

  /// Layout `L` as `name`: the kinds snowflake (`classic_snowflake<L>`), cosid
  /// (`cosid_snowflake<L>`) and tick (`tick_snowflake<L>`). A gene layout takes a key per ID:
  /// build its generator in code (`registry::emplace`).
  template <flakeid::layout L>
  registry_kinds& layout(std::string name) {
    static_assert(!L.has(field_kind::gene),
                  "flakeid: a gene layout's IDs need a key each: add its generator to the "
                  "registry with registry::emplace");
    layouts_.insert_or_assign(
        std::move(name),
        layout_entry{[](registry_snowflake_request& r) -> std::unique_ptr<id_source> {
                       if (r.kind == "cosid") return make_snowflake_source<cosid_snowflake<L>>(r);
                       if (r.kind == "tick") return make_snowflake_source<tick_snowflake<L>>(r);
                       return make_snowflake_source<classic_snowflake<L>>(r);
                     },
                     L});
    return *this;
  }

  [[nodiscard]] const layout_entry* find_layout(std::string_view name) const {
    const auto it = layouts_.find(name);
    return it == layouts_.end() ? nullptr : &it->second;
  }
  [[nodiscard]] const std::pair<lease_maker, segment_maker>* find_store(
      std::string_view scheme) const {
    const auto it = stores_.find(scheme);
    return it == stores_.end() ? nullptr : &it->second;
  }
  /// The names known, comma-separated (for messages).
  [[nodiscard]] std::string layout_names() const { return names_of(layouts_); }
  [[nodiscard]] std::string store_schemes() const { return names_of(stores_); }

 private:
  template <class G>
  static std::unique_ptr<id_source> make_snowflake_source(registry_snowflake_request& r) {
    const node_id node = r.node;
    return std::make_unique<source_of<G>>(std::move(r.name), r.kind, std::move(r.converter),
                                          std::move(r.lease), [node](flakeid::lease* l) {
                                            if (l != nullptr) return G(*l);
                                            return G(datacenter_id{node.datacenter},
                                                     worker_id{node.worker});
                                          });
  }

  template <class D>
  static std::unique_ptr<id_source> make_segment_source(D d, registry_segment_request& r) {
    if (r.chain)
      return std::make_unique<source_of<segment_chain_generator<D>>>(
          std::move(r.name), "chain", std::move(r.converter), nullptr,
          [&](flakeid::lease*) { return segment_chain_generator<D>(std::move(d), r.options); });
    return std::make_unique<source_of<segment_generator<D>>>(
        std::move(r.name), "segment", std::move(r.converter), nullptr,
        [&](flakeid::lease*) { return segment_generator<D>(std::move(d), r.options.segment); });
  }

  // One memory store per namespace, shared by the copies of these kinds.
  template <class = void>
  void memory_store_for_leases() {
    struct shared {
      std::mutex mutex;
      std::map<std::string, memory_store, std::less<>> stores;
      memory_store of(const store_options& so) {
        const std::lock_guard lk(mutex);
        auto it = stores.find(so.name_space);
        if (it == stores.end()) it = stores.emplace(so.name_space, memory_store(so)).first;
        return it->second;
      }
    };
    auto s = std::make_shared<shared>();
    stores_["memory"] = {
        [s](const std::string&, const store_options& so, const lease_options& lo) {
          const memory_store m = s->of(so);
          return std::make_unique<detail::lease_box>([&] { return m.lease(lo); });
        },
        [s](const std::string&, const store_options& so, registry_segment_request& r) {
          return make_segment_source(s->of(so).distributor(r.key), r);
        }};
  }

  /// The directory of a `file:` URI: `file:///var/lib/ids` and `file:/var/lib/ids` ->
  /// `/var/lib/ids`. A relative directory (`file:ids`, `file://var/lib/ids`) is refused: it
  /// would be another directory in each working directory (a service started by systemd runs
  /// in `/`), each with its own counters and worker ids, so two processes would repeat each
  /// other's numbers.
  static std::string file_path_of(std::string_view uri) {
    std::string_view rest = uri.substr(uri.find(':') + 1);
    if (rest.starts_with("//")) rest.remove_prefix(2);  // file:///var/lib -> /var/lib
    if (!rest.starts_with('/'))
      throw invalid_option_error(
          "flakeid: file store '" + std::string(uri) + "' names the relative directory '" +
          std::string(rest) +
          "', another directory in each working directory, where counters and worker ids "
          "start again: give an absolute one (file:///var/lib/ids)");
    return std::string(rest);
  }

  template <class Map>
  static std::string names_of(const Map& m) {
    std::string s;
    for (const auto& [name, maker] : m) s += (s.empty() ? "" : ", ") + name;
    return s;
  }

  std::map<std::string, layout_entry, std::less<>> layouts_;
  std::map<std::string, std::pair<lease_maker, segment_maker>, std::less<>> stores_;
};

/// Named generators. Built from a JSON configuration or filled in code; movable, not
/// copyable. Destroying it destroys every generator and then releases its lease.
class registry {
 public:
  /// An empty registry, to fill with `emplace`.
  registry() : s_(std::make_unique<state>()) {}

  /// The generators of the JSON text `config` (`{"generators": {"<name>": {…}, …}}`), their
  /// leases taken. Throws `registry_error` naming the entry and the field (text that is not
  /// JSON: the byte where it stops being JSON); an entry whose store or lease fails nests the
  /// store's error in it.
  /// With `only`: that entry alone (a `registry_error` when the configuration has no such
  /// entry), for a program that mints with one and should not take the others' leases.
  template <std::derived_from<registry_kinds> Kinds = registry_kinds>
  [[nodiscard]] static registry from_text(std::string_view config,
                                          const Kinds& kinds = Kinds::standard(),
                                          std::string_view only = {}) {
    return {parse(config, "the configuration"), kinds, only};
  }

  /// The generators of a JSON value of a library you already use: any type whose `dump()`
  /// writes it as JSON text (nlohmann::json, for one). As `from_text(config.dump(), …)`.
  template <class Json, std::derived_from<registry_kinds> Kinds = registry_kinds>
  requires requires(const Json& j) {
    { j.dump() } -> std::convertible_to<std::string>;
  }
  explicit registry(const Json& config, const Kinds& kinds = Kinds::standard(),
                    std::string_view only = {})
      : registry(parse(std::string(config.dump()), "the configuration"), kinds, only) {}

  /// The generators of the JSON file `file` (with `only`: that one).
  template <std::derived_from<registry_kinds> Kinds = registry_kinds>
  [[nodiscard]] static registry from_file(const std::string& file,
                                          const Kinds& kinds = Kinds::standard(),
                                          std::string_view only = {}) {
    std::string text;
    if (!detail::read_whole_file(file, text)) {
      const int e = errno;
      throw registry_error("", "", "cannot read " + file + " (" + std::strerror(e) + ")");
    }
    return {parse(text, file), kinds, only};
  }

  /// The generators of the JSON text in the environment variable `variable`.
  template <std::derived_from<registry_kinds> Kinds = registry_kinds>
  static registry from_env(const Kinds& kinds = Kinds::standard(),
                           const char* variable = "FLAKEID_GENERATORS") {
    const char* text = std::getenv(variable);
    if (text == nullptr || *text == '\0')
      throw registry_error("", "", std::string(variable) + " is not set");
    return {parse(text, variable), kinds, {}};
  }

  /// The entry `name`; throws `registry_error` for a name it does not have.
  [[nodiscard]] id_source& source(std::string_view name) const {
    if (id_source* s = find(name)) return *s;
    throw registry_error(std::string(name), "",
                         "no such generator (have: " + joined(names()) + ")");
  }
  /// The entry `name`, or null.
  [[nodiscard]] id_source* find(std::string_view name) const noexcept {
    const std::shared_lock lk(s_->mutex);
    const auto it = s_->entries.find(name);
    return it == s_->entries.end() ? nullptr : it->second.get();
  }
  /// The generator of entry `name`, of type `G`: a reference to the generator itself (no
  /// dispatch on its calls). Throws `registry_error` for an unknown name or another type.
  template <class G>
  [[nodiscard]] G& get(std::string_view name) const {
    id_source& s = source(name);
    if (auto* typed = dynamic_cast<source_of<G>*>(&s)) return typed->generator();
    throw registry_error(
        std::string(name), "",
        "is a " + std::string(s.kind()) + " generator of another type than the one asked for");
  }
  /// The names, sorted.
  [[nodiscard]] std::vector<std::string> names() const {
    const std::shared_lock lk(s_->mutex);
    std::vector<std::string> v;
    for (const auto& [name, source] : s_->entries) v.push_back(name);
    return v;
  }

  /// Adds entry `name` holding `G(args...)`; returns the generator. Throws `registry_error`
  /// for a name taken or not allowed (1 to 64 of letters, digits, '_', '.', '-').
  template <class G, class... Args>
  G& emplace(std::string name, Args&&... args) {
    constexpr std::string_view kind = []() -> std::string_view {
      if constexpr (requires { G::layout_value; }) return "snowflake";
      if constexpr (requires(const G& g) { g.stats().ahead; }) return "chain";
      return "segment";
    }();
    auto s = std::make_unique<source_of<G>>(
        std::move(name), kind, std::nullopt, nullptr,
        [&](flakeid::lease*) { return G(std::forward<Args>(args)...); });
    G& g = s->generator();
    add(std::move(s));
    return g;
  }

 private:
  struct state {
    mutable std::shared_mutex mutex;
    std::map<std::string, std::unique_ptr<id_source>, std::less<>> entries;
  };

  void add(std::unique_ptr<id_source> s) {
    if (!detail::valid_entry_name(s->name()))
      throw registry_error(s->name(), "", "not a name (1 to 64 letters, digits, '_', '.' or '-')");
    const std::unique_lock lk(s_->mutex);
    const std::string name = s->name();
    if (!s_->entries.emplace(name, std::move(s)).second)
      throw registry_error(name, "", "the name is taken");
  }

  registry(const detail::json_value& config, const registry_kinds& kinds, std::string_view only)
      : registry() {
    if (!config.is_object() || config.find("generators") == nullptr)
      throw registry_error("", "generators",
                           "the configuration must be a JSON object with a \"generators\" object");
    for (const std::string& key : config.keys())
      if (key != "generators")
        throw registry_error("", key, "unknown top-level field (allowed: generators)");
    const detail::json_value& gens = *config.find("generators");
    if (!gens.is_object())
      throw registry_error(
          "", "generators",
          "must be a JSON object of named entries, not " + std::string(gens.type_name()));
    const std::vector<std::string>& names = gens.keys();
    for (std::size_t i = 0; i < names.size(); ++i)
      if (only.empty() || names[i] == only) add(build(names[i], gens.values()[i], kinds));
    if (!only.empty() && gens.find(only) == nullptr) {
      std::vector<std::string> have = names;
      std::sort(have.begin(), have.end());
      throw registry_error(std::string(only), "", "no such generator (have: " + joined(have) + ")");
    }
  }

  static detail::json_value parse(std::string_view text, const std::string& where) {
    try {
      return detail::json_value::parse(text);
    } catch (const detail::json_parse_error& e) {
      // Where and why, not the text: a configuration may hold a password.
      throw registry_error(
          "", "",
          where + " is not JSON (at byte " + std::to_string(e.byte()) + ": " + e.reason() + ")");
    }
  }

  static std::unique_ptr<id_source> build(const std::string& name, const detail::json_value& j,
                                          const registry_kinds& kinds) {
    if (!detail::valid_entry_name(name))
      throw registry_error(name, "", "not a name (1 to 64 letters, digits, '_', '.' or '-')");
    const detail::entry_reader r(j, name);
    const std::string kind = r.required_text("kind");
    std::optional<text_converter_options> converter;
    if (r.has("text")) converter = detail::read_converter(r.at("text"), name);
    try {
      if (kind == "snowflake" || kind == "cosid" || kind == "tick")
        return build_snowflake(r, kind, std::move(converter), kinds);
      if (kind == "segment" || kind == "chain")
        return build_segment(r, kind == "chain", std::move(converter), kinds);
    } catch (const registry_error&) {
      throw;
    } catch (const std::exception& e) {
      std::throw_with_nested(registry_error(name, "", detail::inner_message(e)));
    }
    r.fail("kind", "'" + kind + "' is not a kind (snowflake, cosid, tick, segment, chain)");
  }

  static std::unique_ptr<id_source> build_snowflake(const detail::entry_reader& r,
                                                    const std::string& kind,
                                                    std::optional<text_converter_options> text,
                                                    const registry_kinds& kinds) {
    r.only({"kind", "text", "layout", "worker", "datacenter", "lease"});
    const std::string layout =
        r.text("layout").value_or(kind == "cosid" ? std::string("cosid") : "twitter");
    const registry_kinds::layout_entry* known = kinds.find_layout(layout);
    if (known == nullptr)
      r.fail("layout", "'" + layout + "' is not a layout of this registry (" +
                           kinds.layout_names() + "; add others with registry_kinds::layout)");
    std::optional<text_converter> converter;
    if (text) {
      text->layout = known->value;
      converter = detail::make_converter(std::move(*text), r.entry());
    }
    registry_snowflake_request req{
        r.entry(), kind_literal(kind), std::move(converter), nullptr, {}};
    if (r.has("lease") == r.has("worker"))
      r.fail("worker",
             "give either \"worker\" (a fixed id) or \"lease\" (an id leased from a "
             "store), not both nor neither");
    if (r.has("lease")) {
      if (r.has("datacenter"))
        r.fail("datacenter",
               "comes from the lease; give it only with "
               "\"worker\"");
      req.lease = take_lease(detail::entry_reader(r.at("lease"), r.entry(), "lease."), kinds);
    } else {
      req.node.worker = *r.number("worker", 0, 1U << 22);
      req.node.datacenter = r.number("datacenter", 0, 1U << 22).value_or(0);
    }
    try {
      return known->make(req);
    } catch (const field_range_error& e) {
      r.fail(req.lease ? "lease" : "worker", detail::inner_message(e));
    }
  }

  static std::unique_ptr<detail::lease_box> take_lease(const detail::entry_reader& r,
                                                       const registry_kinds& kinds) {
    r.only({"store", "namespace", "ttl_ms", "safe_guard_ms", "margin_ms", "max_wait_ms",
            "wait_for_id_ms", "max_ids", "instance", "instance_idle_ms", "connect_timeout_ms",
            "io_timeout_ms"});
    const std::string uri = r.required_text("store");
    const auto* store = find_store(r, uri, kinds);
    lease_options o;
    o.name_space = namespace_of(r);
    o.ttl = r.millis("ttl_ms", 1).value_or(o.ttl);
    o.safe_guard = r.millis("safe_guard_ms").value_or(o.safe_guard);
    o.margin = r.millis("margin_ms").value_or(o.margin);
    o.max_wait = r.millis("max_wait_ms").value_or(o.max_wait);
    o.wait_for_id = r.millis("wait_for_id_ms").value_or(o.wait_for_id);
    o.max_ids = r.number("max_ids", 0, 1U << 22).value_or(0);
    o.instance = r.text("instance").value_or("");
    o.instance_idle = r.millis("instance_idle_ms").value_or(o.instance_idle);
    o.connect_timeout = r.millis("connect_timeout_ms", 1).value_or(o.connect_timeout);
    o.io_timeout = r.millis("io_timeout_ms").value_or(o.io_timeout);
    store_options so;
    so.name_space = o.name_space;
    so.connect_timeout = o.connect_timeout;
    so.io_timeout = o.io_timeout;
    return store->first(uri, so, o);
  }

  static std::unique_ptr<id_source> build_segment(const detail::entry_reader& r, bool chain,
                                                  std::optional<text_converter_options> text,
                                                  const registry_kinds& kinds) {
    if (chain) {
      r.only({"kind", "text", "store", "key", "namespace", "step", "start", "stride", "remainder",
              "ttl_ms", "min_ahead", "max_ahead", "ahead_factor", "leaf_dynamic_step",
              "thread_block"});
    } else {
      r.only({"kind", "text", "store", "key", "namespace", "step", "start", "stride", "remainder",
              "ttl_ms"});
    }
    const std::string uri = r.required_text("store");
    const auto* store = find_store(r, uri, kinds);
    std::optional<text_converter> converter;
    if (text) {
      if (text->form == text_form::friendly)
        r.fail("text.form",
               "the friendly form writes a snowflake's time and fields; a counter's numbers "
               "have none");
      converter = detail::make_converter(std::move(*text), r.entry());
    }
    registry_segment_request req{
        r.entry(), chain, std::move(converter), r.required_text("key"), {}};
    segment_options& s = req.options.segment;
    s.step = r.number("step", 1, max_segment_step).value_or(s.step);
    s.start = r.number("start", 1, max_segment_start).value_or(s.start);
    s.stride = r.number("stride", 1, max_segment_stride).value_or(s.stride);
    s.remainder = r.number("remainder").value_or(s.remainder);
    s.ttl = r.millis("ttl_ms", 1).value_or(s.ttl);
    segment_chain_options& c = req.options;
    c.min_ahead = r.number("min_ahead").value_or(c.min_ahead);
    c.max_ahead = r.number("max_ahead").value_or(c.max_ahead);
    c.ahead_factor = r.number("ahead_factor").value_or(c.ahead_factor);
    c.leaf_dynamic_step = r.flag("leaf_dynamic_step").value_or(c.leaf_dynamic_step);
    c.thread_block = r.number("thread_block").value_or(c.thread_block);
    store_options so;
    so.name_space = namespace_of(r);
    return store->second(uri, so, req);
  }

  static const std::pair<registry_kinds::lease_maker, registry_kinds::segment_maker>* find_store(
      const detail::entry_reader& r, const std::string& uri, const registry_kinds& kinds) {
    const std::string_view scheme = detail::uri_scheme(uri);
    const auto* store = kinds.find_store(scheme);
    if (store == nullptr)
      r.fail("store", "the scheme '" + std::string(scheme) + "' is not a store of this registry (" +
                          kinds.store_schemes() + "; add others with registry_kinds::store)");
    return store;
  }

  static std::string namespace_of(const detail::entry_reader& r) {
    std::string ns = r.text("namespace").value_or("default");
    if (!detail::valid_namespace(ns))
      r.fail("namespace", "'" + ns + "' is not a namespace (1 to 40 letters, digits, '_' or '-')");
    return ns;
  }

  static std::string_view kind_literal(const std::string& kind) {
    if (kind == "cosid") return "cosid";
    if (kind == "tick") return "tick";
    return "snowflake";
  }

  static std::string joined(const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& n : v) s += (s.empty() ? "" : ", ") + n;
    return s.empty() ? "none" : s;
  }

  std::unique_ptr<state> s_;
};

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
