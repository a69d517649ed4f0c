// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file worker_id.hpp
/// Where a generator's datacenter and worker ids come from.
///
///   fixed_node              values you pass (strong types `datacenter_id`, `worker_id`).
///   env_worker_id           an environment variable (FLAKEID_WORKER_ID by default).
///   statefulset_ordinal     the ordinal of a Kubernetes StatefulSet pod: `orders-12` gives 12.
///   private_ipv4_node       the low 16 bits of the host's private IPv4 address (Sonyflake's).
///   host_pid_guess          a hash of the host name, and the process id. A guess: two
///                           containers with the same host name and pid collide. Prefer a lease
///                           (flakeid/lease.hpp) or an assigned id.
///
/// A source models `flakeid::worker_id_source`: `s.assign(layout)` returns a
/// `worker_assignment`. A generator checks the ids against its layout when it is built and
/// throws `field_range_error` when one does not fit. Leases from a coordination service plug in
/// the same way and add a fence that stops the generator when the lease is lost.

#if !defined(_WIN32)
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <unistd.h>
#define FLAKEID_HAS_HOST_WORKER_IDS 1
#endif

#include <atomic>
#include <cerrno>
#include <climits>
#include <concepts>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "detail/fork_guard.hpp"
#include "detail/text_util.hpp"
#include "layout.hpp"
#include "version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

/// A worker id (strong type, so it cannot be swapped with a datacenter id).
struct worker_id {
  std::uint64_t value = 0;
  constexpr explicit worker_id(std::uint64_t v) noexcept : value(v) {}
  friend constexpr bool operator==(worker_id, worker_id) = default;
};

/// A datacenter id (strong type). Layouts without a datacenter field accept only 0.
struct datacenter_id {
  std::uint64_t value = 0;
  constexpr explicit datacenter_id(std::uint64_t v) noexcept : value(v) {}
  friend constexpr bool operator==(datacenter_id, datacenter_id) = default;
};

/// The (datacenter, worker) pair that makes a generator's IDs its own.
struct node_id {
  std::uint64_t datacenter = 0;
  std::uint64_t worker = 0;
  friend constexpr bool operator==(const node_id&, const node_id&) = default;
};

/// Shared between a lease and the generator it fences: a time fence.
///
/// Every ID the generator mints carries a timestamp (the start of its tick, in Unix ms of the
/// generator's own clock) strictly below `deadline_unix_ms`. The generator checks this on the
/// very clock reading that goes into the ID, after reading it, so a thread paused anywhere
/// between the check and the return cannot carry an ID past the deadline. The lease raises the
/// deadline only after its store has recorded the new value, and drops it to `INT64_MIN` when
/// it releases or loses the id, or in a forked child. No thread has to run for the fence to
/// hold: time passing is enough to stop a holder whose renewals stopped.
struct lease_fence {
  /// Exclusive upper bound on the timestamp of every ID (Unix ms). `INT64_MAX`: no limit;
  /// `INT64_MIN`: refuse every ID.
  std::atomic<std::int64_t> deadline_unix_ms{INT64_MAX};
  /// The start of the newest tick the generator minted in (Unix ms), published at each new
  /// tick; the lease records it for the next holder at release.
  std::atomic<std::int64_t> last_unix_ms{INT64_MIN};
  /// How far (ms) the generator's ticks may run ahead of its clock (borrowing, plus one tick),
  /// set by the generator: at release the lease records at least `now + lead_ms`.
  std::atomic<std::int64_t> lead_ms{0};
  /// The process the fence was made in: a generator built on it in a forked child refuses
  /// (`forked_process_error`), as the lease that owns the fence does.
  detail::fork_stamp born;

  /// Whether an ID with timestamp `unix_ms` may be minted now.
  [[nodiscard]] bool allows(std::int64_t unix_ms) const noexcept {
    return unix_ms < deadline_unix_ms.load(std::memory_order_relaxed);
  }
};

/// What a worker-id source hands a generator.
struct worker_assignment {
  node_id node{};
  /// The generator mints only in ticks that start after this Unix time (the last timestamp of
  /// a previous holder of the id, or of this process before a restart). INT64_MIN: no limit.
  std::int64_t not_after_unix_ms = INT64_MIN;
  /// The lease fence, or null for an id that needs no lease.
  std::shared_ptr<lease_fence> fence{};
  /// Where the id came from, for logs: "fixed", "env FLAKEID_WORKER_ID", ...
  std::string source;
};

/// A source of worker ids: `s.assign(layout)` returns the `worker_assignment` for a generator
/// of that layout, or throws `worker_id_error` (or `field_range_error` for an id too large).
template <class S>
concept worker_id_source = requires(S& s, const layout& l) {
  { s.assign(l) } -> std::convertible_to<worker_assignment>;
};

namespace detail {
[[noreturn]] inline void reject_worker(const std::string& msg) {
  throw worker_id_error("flakeid: " + msg);
}

/// The datacenter and worker bits of `l` together: the width of a node number.
inline unsigned node_bits(const layout& l) {
  return l.bits(field_kind::datacenter) + l.bits(field_kind::worker);
}

/// The largest node number of `l`: 2^node_bits(l) - 1.
inline std::uint64_t last_node(const layout& l) {
  const unsigned bits = node_bits(l);
  return bits >= 64 ? UINT64_MAX : (std::uint64_t{1} << bits) - 1;
}

/// Node number `n` of `l`: its low worker bits are the worker id, the rest the datacenter id.
/// (How stores that hand out one number per process spread it over the two fields.)
inline node_id node_of(const layout& l, std::uint64_t n) {
  const unsigned wbits = l.bits(field_kind::worker);
  return {.datacenter = wbits >= 64 ? 0 : (n >> wbits),
          .worker = wbits == 0 ? 0 : (n & l.max_value(field_kind::worker))};
}

/// Checks `n` against the layout's field of kind `k` (field_range_error when it does not fit).
inline void check_node_field(const layout& l, field_kind k, std::uint64_t v) {
  (void)l.place(k, v);
}
}  // namespace detail

/// Fixed ids, given by the application.
struct fixed_node {
  node_id node{};
  constexpr fixed_node(datacenter_id d, worker_id w) noexcept : node{d.value, w.value} {}
  constexpr explicit fixed_node(worker_id w) noexcept : node{0, w.value} {}
  [[nodiscard]] worker_assignment assign(const layout&) const {
    return {node, INT64_MIN, nullptr, "fixed"};
  }
};

/// The worker id (and optionally the datacenter id) from environment variables.
/// Throws `worker_id_error` when a variable is missing or not a decimal number.
struct env_worker_id {
  std::string worker_variable = "FLAKEID_WORKER_ID";
  std::string datacenter_variable;  // empty: datacenter 0

  env_worker_id() = default;
  explicit env_worker_id(std::string worker_var, std::string datacenter_var = {})
      : worker_variable(std::move(worker_var)), datacenter_variable(std::move(datacenter_var)) {}

  [[nodiscard]] worker_assignment assign(const layout&) const {
    worker_assignment a;
    a.node.worker = read(worker_variable);
    if (!datacenter_variable.empty()) a.node.datacenter = read(datacenter_variable);
    a.source = "env " + worker_variable;
    return a;
  }

 private:
  static std::uint64_t read(const std::string& name) {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) detail::reject_worker("environment variable " + name + " is not set");
    std::uint64_t n = 0;
    if (!detail::parse_decimal(v, n))
      detail::reject_worker("environment variable " + name + " is '" + v +
                            "', not a decimal number");
    return n;
  }
};

#if defined(FLAKEID_HAS_HOST_WORKER_IDS)

/// The ordinal of a Kubernetes StatefulSet pod, from its host name `<set>-<ordinal>`
/// (`orders-12` gives worker 12). The host name comes from the constructor, or else from
/// `gethostname`. Throws `worker_id_error` for a name without a numeric ordinal, and
/// `field_range_error` (when the generator is built) for an ordinal too large for the field.
struct statefulset_ordinal {
  std::string hostname;  // empty: the machine's host name

  [[nodiscard]] worker_assignment assign(const layout& l) const {
    std::string name = hostname;
    if (name.empty()) {
      char buf[256] = {};
      if (::gethostname(buf, sizeof buf - 1) != 0) detail::reject_worker("gethostname failed");
      name = buf;
    }
    const auto dash = name.rfind('-');
    if (dash == std::string::npos || dash + 1 == name.size())
      detail::reject_worker("host name '" + name +
                            "' has no StatefulSet ordinal (expected <name>-<number>)");
    std::uint64_t n = 0;
    if (!detail::parse_decimal(std::string_view(name).substr(dash + 1), n))
      detail::reject_worker("host name '" + name + "' ends in '" + name.substr(dash + 1) +
                            "', not a StatefulSet ordinal");
    detail::check_node_field(l, field_kind::worker, n);
    worker_assignment a;
    a.node.worker = n;
    a.source = "statefulset ordinal of " + name;
    return a;
  }
};

/// Sonyflake's machine id: the low 16 bits of the host's private IPv4 address (RFC 1918:
/// 10/8, 172.16/12, 192.168/16) as the worker id, so hosts of one /16 never share it. The
/// address comes from `address` (dotted quad), or else from the first interface that is up and
/// has a private IPv4 address (`getifaddrs`, the kernel's order). Every process of a host gets
/// the same id: for more than one per host, use a lease. Throws `worker_id_error` when there is
/// no such address or `address` is not one, and `field_range_error` when the 16 bits do not fit
/// the layout's worker field (use a layout with 16 worker bits, such as `sonyflake`).
struct private_ipv4_node {
  std::string address;  // empty: the machine's first private IPv4 address

  [[nodiscard]] worker_assignment assign(const layout& l) const {
    std::uint8_t ip[4] = {};
    std::string text = address;
    if (text.empty()) {
      text = first_private_ipv4();
      if (text.empty())
        detail::reject_worker(
            "no network interface that is up has a private IPv4 address "
            "(10/8, 172.16/12, 192.168/16)");
    }
    if (!parse(text, ip) || !is_private(ip))
      detail::reject_worker("'" + text +
                            "' is not a private IPv4 address (10/8, 172.16/12, 192.168/16)");
    const std::uint64_t n = (std::uint64_t{ip[2]} << 8) | ip[3];
    detail::check_node_field(l, field_kind::worker, n);
    worker_assignment a;
    a.node.worker = n;
    a.source = "low 16 bits of private IPv4 " + text;
    return a;
  }

 private:
  static bool is_private(const std::uint8_t (&ip)[4]) noexcept {
    return ip[0] == 10 || (ip[0] == 172 && ip[1] >= 16 && ip[1] < 32) ||
           (ip[0] == 192 && ip[1] == 168);
  }
  static bool parse(std::string_view t, std::uint8_t (&ip)[4]) noexcept {
    for (int i = 0; i < 4; ++i) {
      const std::size_t end = i < 3 ? t.find('.') : t.size();
      if (end == std::string_view::npos || end == 0 || end > 3) return false;
      std::uint64_t v = 0;
      if (!detail::parse_decimal(t.substr(0, end), v) || v > 255) return false;
      ip[i] = static_cast<std::uint8_t>(v);
      t = i < 3 ? t.substr(end + 1) : std::string_view{};
    }
    return true;
  }
  static std::string first_private_ipv4() {
    ifaddrs* list = nullptr;
    if (::getifaddrs(&list) != 0) return {};
    std::string found;
    for (const ifaddrs* i = list; i != nullptr && found.empty(); i = i->ifa_next) {
      if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET ||
          (i->ifa_flags & IFF_UP) == 0)
        continue;
      sockaddr_in in{};
      std::memcpy(&in, i->ifa_addr, sizeof in);
      const std::uint32_t a = ntohl(in.sin_addr.s_addr);
      const std::uint8_t ip[4] = {static_cast<std::uint8_t>(a >> 24),
                                  static_cast<std::uint8_t>(a >> 16),
                                  static_cast<std::uint8_t>(a >> 8), static_cast<std::uint8_t>(a)};
      if (is_private(ip))
        found = std::to_string(ip[0]) + "." + std::to_string(ip[1]) + "." + std::to_string(ip[2]) +
                "." + std::to_string(ip[3]);
    }
    ::freeifaddrs(list);
    return found;
  }
};

/// A guess from the host name's hash and the process id, folded into the worker (and
/// datacenter) bits (FNV-1a of `gethostname`, XOR the pid), where mybatis-plus guesses from the
/// MAC address and the pid, and Sonyflake takes the private IPv4 address (`private_ipv4_node`). Containers often
/// share both the address and the pid (1), so two of them can get the same id: use it only where
/// a collision is acceptable, and prefer a lease.
struct host_pid_guess {
  [[nodiscard]] worker_assignment assign(const layout& l) const {
    char buf[256] = {};
    (void)::gethostname(buf, sizeof buf - 1);
    std::uint64_t h = 1469598103934665603ULL;  // FNV-1a
    for (const char* p = buf; *p != 0; ++p)
      h = (h ^ static_cast<unsigned char>(*p)) * 1099511628211ULL;
    const auto pid = static_cast<std::uint64_t>(::getpid());
    worker_assignment a;
    a.node.datacenter = h & l.max_value(field_kind::datacenter);
    a.node.worker = (pid ^ (h >> 32)) & l.max_value(field_kind::worker);
    a.source = "guess from host name and pid (may collide)";
    return a;
  }
};

#endif  // FLAKEID_HAS_HOST_WORKER_IDS

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
