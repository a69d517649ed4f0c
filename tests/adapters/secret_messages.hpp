#pragma once
// The messages the adapters produce in a test (exceptions, where(), lease events), kept so a
// test can check that none of them shows a password.

#include <gtest/gtest.h>
#include <flakeid/lease.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "lease_support.hpp"

namespace flakeid_test {

/// Every exception message, `where()` and lease event text seen by the tests of this file.
class seen_messages {
 public:
  void add(const std::string& m) {
    const std::lock_guard lk(m_);
    all_.push_back(m);
    cv_.notify_all();
  }
  /// Waits (up to a minute, not a timing assert) until a message holds `part`.
  bool wait_for(const std::string& part) {
    std::unique_lock lk(m_);
    return cv_.wait_for(lk, std::chrono::seconds{60}, [&] {
      return std::any_of(all_.begin(), all_.end(),
                         [&](const std::string& m) { return m.find(part) != std::string::npos; });
    });
  }
  [[nodiscard]] std::vector<std::string> all() {
    const std::lock_guard lk(m_);
    return all_;
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<std::string> all_;
};

inline seen_messages& seen() {
  static seen_messages s;
  return s;
}

/// `o`, with every lease event it reports recorded in `seen()`.
inline flakeid::lease_options recording(flakeid::lease_options o) {
  o.on_event = [](flakeid::lease_event, const std::string& text) { seen().add(text); };
  return o;
}

/// `o` with connect and request bounds of 30 s: they bound waits for a server that is there, so
/// a busy machine changes nothing.
inline flakeid::lease_options patient_options(flakeid::lease_options o) {
  o.connect_timeout = std::chrono::milliseconds{30'000};
  o.io_timeout = std::chrono::milliseconds{30'000};
  return o;
}

/// `o` with a ttl of 5 s, for tests about something else than expiry: a renewal that a busy
/// machine delays by seconds still comes before the lease runs out. (A new namespace makes the
/// first claim wait `ttl + safe_guard`.)
inline flakeid::lease_options unhurried(flakeid::lease_options o) {
  o.ttl = std::chrono::milliseconds{5'000};
  return o;
}

/// A test whose `TearDown` fails it for every message in `seen()` that holds one of
/// `secrets` (the passwords a test file uses).
class secrets_stay_hidden : public ::testing::Test {
 protected:
  explicit secrets_stay_hidden(std::vector<std::string> secrets) : secrets_(std::move(secrets)) {}
  void TearDown() override {
    for (const auto& m : seen().all())
      for (const std::string& secret : secrets_)
        EXPECT_EQ(m.find(secret), std::string::npos) << "a message shows a password: " << m;
  }

 private:
  std::vector<std::string> secrets_;
};

/// The message of the exception `f` throws (recorded); fails the test when it throws none.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const std::exception& e) {
    seen().add(e.what());
    return e.what();
  }
  ADD_FAILURE() << "no exception";
  return {};
}

/// The message a lease with options `o` of a `Store{address, store_options_of(o)}` fails with,
/// in the store's constructor, the lease's or `acquire(8)` (recorded); fails the test when there
/// is none.
template <class Store, class Address>
std::string lease_error(const Address& address, const flakeid::lease_options& o) {
  try {
    auto lease = Store{address, store_options_of(o)}.lease(o);
    return error_of([&] { (void)lease.acquire(8); });
  } catch (const std::exception& e) {
    seen().add(e.what());
    return e.what();
  }
}

/// Quick lease options in namespace `ns`, unhurried and patient, whose messages are recorded.
inline flakeid::lease_options recorded_patient(const std::string& ns) {
  return recording(unhurried(patient_options(quick_options(ns))));
}

/// A lease (options `o`, `acquire(ids)`) and a segment counter (its first `ranges` ranges of 5)
/// of a `Store` at `address` work; their names are recorded. Returns the lease's `where()`.
template <class Store, class Address>
std::string expect_store_works(const Address& address, const flakeid::lease_options& o,
                               std::uint64_t ids, std::uint64_t ranges = 1) {
  auto lease = Store{address, store_options_of(o)}.lease(o);
  EXPECT_EQ(lease.acquire(ids), 0U);
  seen().add(lease.where());
  const Store store{address,
                    {.name_space = o.name_space,
                     .connect_timeout = std::chrono::seconds{30},
                     .io_timeout = std::chrono::seconds{30}}};
  auto d = store.distributor("orders");
  seen().add(std::string(d.store_name()));
  for (std::uint64_t k = 1; k <= ranges; ++k) EXPECT_EQ(d.next_max_id(5), 5 * k);
  return lease.where();
}

/// A segment counter of a `Store` at `address` (namespace "refused") that may not log in fails
/// naming `where`, the server and user it could not connect to (checked; the message recorded).
template <class Store, class Address>
void expect_segment_refused(const Address& address, const std::string& where) {
  const Store store{address,
                    {.name_space = "refused",
                     .connect_timeout = std::chrono::seconds{30},
                     .io_timeout = std::chrono::seconds{30}}};
  const std::string m = error_of([&] { (void)store.distributor("orders").next_max_id(1); });
  const std::string head = "flakeid: segment store " + where +
                           " namespace refused, key 'orders': next_max_id(1) failed: cannot "
                           "connect to " +
                           where;
  EXPECT_EQ(m.substr(0, head.size()), head) << m;
}

}  // namespace flakeid_test
