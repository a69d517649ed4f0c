// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file host_worker_id.hpp
/// Worker-id sources that ask the host (POSIX only):
///
///   statefulset_ordinal     the ordinal of a Kubernetes StatefulSet pod: `orders-12` gives 12.
///   private_ipv4_node       the low 16 bits of the host's private IPv4 address (Sonyflake's).
///   host_pid_guess          a hash of the host name, and the process id. A guess: two
///                           containers with the same host name and pid collide. Prefer a lease
///                           (flakeid/lease.hpp) or an assigned id.
///
/// Each models `flakeid::worker_id_source` (worker_id.hpp) like `fixed_node`. They live apart
/// from worker_id.hpp because they need the network headers (`getifaddrs`), which a translation
/// unit that only mints does not.

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#if defined(__linux__)
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "detail/posix_file.hpp"
#include "detail/text_util.hpp"
#include "layout.hpp"
#include "version.hpp"
#include "worker_id.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {

namespace detail {

/// Whether `ip` lies in 10/8, 172.16/12 or 192.168/16 (RFC 1918).
[[nodiscard]] inline bool is_private_ipv4(const std::uint8_t (&ip)[4]) noexcept {
  return ip[0] == 10 || (ip[0] == 172 && ip[1] >= 16 && ip[1] < 32) ||
         (ip[0] == 192 && ip[1] == 168);
}

/// Whether network interface `name` of this process's network namespace is a bridge (Linux:
/// its driver, as `ethtool -i` tells it, is "bridge"; false elsewhere).
[[nodiscard]] inline bool is_bridge_interface(const char* name) {
#if defined(__linux__)
  const unique_fd s{::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)};
  if (s.get() < 0 || std::strlen(name) >= IFNAMSIZ) return false;
  ethtool_drvinfo info{};
  info.cmd = ETHTOOL_GDRVINFO;
  ifreq req{};
  std::memcpy(req.ifr_name, name, std::strlen(name));
  req.ifr_data = reinterpret_cast<char*>(&info);  // NOLINT: the ioctl's argument
  if (::ioctl(s.get(), SIOCETHTOOL, &req) != 0) return false;
  return std::strncmp(info.driver, "bridge", sizeof info.driver) == 0;
#else
  (void)name;
  return false;
#endif
}

/// The host's own private IPv4 address in `list` (from `getifaddrs`), dotted: the first on an
/// interface that is up and is neither a loopback nor a bridge (`is_bridge`). A bridge's address
/// is the gateway of the containers or virtual machines behind it, and every host with the same
/// software has the same one (Docker's docker0 172.17.0.1, libvirt's virbr0 192.168.122.1): two
/// hosts with public addresses on their own interfaces both took docker0's, worker 1. Empty when
/// there is none; `passed_over` then lists the bridges' private addresses (`172.17.0.1 on
/// docker0`), for the message.
inline std::string own_private_ipv4(const ifaddrs* list, bool (*is_bridge)(const char*),
                                    std::string& passed_over) {
  for (const ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET ||
        (i->ifa_flags & IFF_UP) == 0 || (i->ifa_flags & IFF_LOOPBACK) != 0)
      continue;
    sockaddr_in in{};
    std::memcpy(&in, i->ifa_addr, sizeof in);
    const std::uint32_t a = ntohl(in.sin_addr.s_addr);
    const std::uint8_t ip[4] = {static_cast<std::uint8_t>(a >> 24),
                                static_cast<std::uint8_t>(a >> 16),
                                static_cast<std::uint8_t>(a >> 8), static_cast<std::uint8_t>(a)};
    if (!is_private_ipv4(ip)) continue;
    std::string text = std::to_string(ip[0]) + "." + std::to_string(ip[1]) + "." +
                       std::to_string(ip[2]) + "." + std::to_string(ip[3]);
    if (i->ifa_name != nullptr && is_bridge(i->ifa_name)) {
      passed_over += (passed_over.empty() ? "" : ", ") + text + " on " + i->ifa_name;
      continue;
    }
    return text;
  }
  return {};
}

}  // namespace detail

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
/// address comes from `address` (dotted quad), or else from the first interface that is up, is
/// not a loopback and not a bridge, and has a private IPv4 address (`getifaddrs`, the kernel's
/// order). A bridge's address is passed over: it is the gateway of the containers or virtual
/// machines behind it, the same on every host that runs the same software (Docker's docker0,
/// 172.17.0.1); a host whose own address is on a bridge passes it as `address`. Every process
/// of a host gets the same id: for more than one per host, use a lease. Throws
/// `worker_id_error` when there is no such address (naming the bridges' it passed over) or
/// `address` is not one, and `field_range_error` when the 16 bits do not fit the layout's
/// worker field (use a layout with 16 worker bits, such as `sonyflake`).
struct private_ipv4_node {
  std::string address;  // empty: the machine's first private IPv4 address

  [[nodiscard]] worker_assignment assign(const layout& l) const {
    std::uint8_t ip[4] = {};
    std::string text = address;
    if (text.empty()) {
      std::string bridges;
      ifaddrs* list = nullptr;
      if (::getifaddrs(&list) == 0) {
        text = detail::own_private_ipv4(list, detail::is_bridge_interface, bridges);
        ::freeifaddrs(list);
      }
      if (text.empty() && !bridges.empty())
        detail::reject_worker(
            "no network interface that is up, other than a bridge, has a private IPv4 address "
            "(10/8, 172.16/12, 192.168/16); a bridge's (" +
            bridges +
            ") is the gateway of the containers or virtual machines behind it, which other hosts "
            "have too: pass this host's own address (private_ipv4_node{\"10.0.4.2\"})");
      if (text.empty())
        detail::reject_worker(
            "no network interface that is up has a private IPv4 address "
            "(10/8, 172.16/12, 192.168/16)");
    }
    if (!parse(text, ip) || !detail::is_private_ipv4(ip))
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

}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
