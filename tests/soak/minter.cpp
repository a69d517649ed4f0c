// A minter of the fault soak: one process that mints snowflake IDs under a lease and segment
// numbers from the store's shared key "soak", in bursts, and logs every one of them with its
// lease's events, its confirmed deadline and its clock (the line format is in docs/soak.md).
// SIGTERM ends it (the lease released); SIGUSR1 makes it fork, and the child goes on minting
// with what it inherited for two seconds, into a log of its own.

#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <flakeid/flakeid.hpp>
#include <memory>
#include <string>
#include <thread>

#include "soak.hpp"
#include "soak_stores.hpp"

namespace flakeid_soak {
namespace {

volatile sig_atomic_t stop_requested = 0;
volatile sig_atomic_t fork_requested = 0;

extern "C" void on_term(int) { stop_requested = 1; }
extern "C" void on_usr1(int) { fork_requested = 1; }

using generator = flakeid::classic_snowflake<flakeid::layouts::twitter, offset_clock>;

/// The minter's loop over one store (`Store` is one of the store classes).
template <class Store>
class minter {
 public:
  minter(const minter_config& c, Store store)
      : c_(c), store_(std::move(store)), log_(c.log), clock_{{}, map_clock_offset(c.clock_file)} {}

  int run() {
    log_.write("P " + std::to_string(wall_ms()) + " " + std::to_string(::getpid()) + " " +
               c_.store + "\n");
    auto child_until = std::chrono::steady_clock::time_point::max();
    while (stop_requested == 0 && std::chrono::steady_clock::now() < child_until) {
      if (fork_requested != 0) {
        fork_requested = 0;
        if (fork_now()) child_until = std::chrono::steady_clock::now() + std::chrono::seconds{2};
      }
      if (!gen_ && !take_lease()) {
        std::this_thread::sleep_for(std::chrono::milliseconds{100});
        continue;
      }
      burst();
      std::this_thread::sleep_for(std::chrono::milliseconds{c_.interval_ms});
    }
    if (child_) ::_exit(0);  // a forked child leaves the parent's lease alone
    drop_lease();
    return 0;
  }

 private:
  /// A new lease and a generator on it; false (the error logged) when none could be had.
  bool take_lease() {
    flakeid::lease_options o;
    o.name_space = "soak";
    o.ttl = std::chrono::milliseconds{c_.ttl_ms};
    o.safe_guard = std::chrono::milliseconds{c_.guard_ms};
    o.max_ids = static_cast<std::uint64_t>(c_.max_ids);
    o.wait_for_id = std::chrono::milliseconds{500};
    o.connect_timeout = std::chrono::milliseconds{500};
    o.use_clock(clock_);
    const int tenure = ++tenure_;
    lost_ = false;
    o.on_event = [this, tenure](flakeid::lease_event e, const std::string& detail) {
      if (e == flakeid::lease_event::lost) lost_ = true;
      log_.write("E " + std::to_string(wall_ms()) + " " + std::to_string(tenure) + " " +
                 std::string(to_string(e)) + " " + one_field(detail) + "\n");
    };
    try {
      lease_.reset(new flakeid::lease(store_.lease(std::move(o))));
      gen_ = std::make_unique<generator>(*lease_, clock_);
    } catch (const std::exception& e) {
      gen_.reset();
      lease_.reset();
      error("lease", e.what());
      return false;
    }
    const auto d = lease_->deadline();
    log_.write("T " + std::to_string(wall_ms()) + " " + std::to_string(tenure) + " " +
               std::to_string(gen_->node().datacenter) + " " + std::to_string(gen_->node().worker) +
               " " + (d ? std::to_string(d->time_since_epoch().count()) : "-") + "\n");
    down_since_.reset();
    return true;
  }

  void drop_lease() {
    gen_.reset();
    lease_.reset();  // released
  }

  /// One burst of IDs, a segment number now and then, and the deadline confirmed after it.
  void burst() {
    std::string out = "B " + std::to_string(wall_ms()) + " " +
                      std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                         clock_.now().time_since_epoch())
                                         .count()) +
                      "\n";
    // The deadline before and after the burst: it only rises while the lease holds, and is
    // gone once the lease is lost, so the later of the two bounds every ID of the burst.
    const std::string before = deadline_text();
    bool minted = false;
    // Consecutive IDs of one tick and worker (the sequence, in the lowest bits, counting up
    // from where it was) go on one line: `R <first> <count>`.
    std::uint64_t first = 0;
    int count = 0;
    const auto flush = [&] {
      if (count > 0) out += "R " + std::to_string(first) + " " + std::to_string(count) + "\n";
      count = 0;
    };
    try {
      for (int i = 0; i < c_.burst; ++i) {
        const std::uint64_t id = gen_->next_id();
        if (count > 0 && id == first + static_cast<std::uint64_t>(count) && (id & 4095) != 0) {
          ++count;
        } else {
          flush();
          first = id;
          count = 1;
        }
        minted = true;
      }
    } catch (const std::exception& e) {
      flush();
      out += "X " + std::to_string(wall_ms()) + " mint " + one_field(e.what()) + "\n";
    }
    flush();
    out += "D " + std::to_string(tenure_) + " " + before + " " + deadline_text() + "\n";
    if (++bursts_ % c_.segment_every == 0) out += segment_number();
    log_.write(out);
    if (minted) {
      down_since_.reset();
    } else if (!child_) {
      const auto now = std::chrono::steady_clock::now();
      if (!down_since_) down_since_ = now;
      // Lost for good, or refused for longer than a lease could come back: a new lease.
      if (lost_ || now - *down_since_ > std::chrono::milliseconds{4 * (c_.ttl_ms + c_.guard_ms)})
        drop_lease();
    }
  }

  std::string deadline_text() const {
    const auto d = lease_->deadline();
    return d ? std::to_string(d->time_since_epoch().count()) : "-";
  }

  std::string segment_number() {
    try {
      if (!seg_)
        seg_ = std::make_unique<segment_type>(store_.distributor("soak"),
                                              flakeid::segment_options{.step = 50});
      return "S " + std::to_string(seg_->next_id()) + "\n";
    } catch (const std::exception& e) {
      return "X " + std::to_string(wall_ms()) + " segment " + one_field(e.what()) + "\n";
    }
  }

  /// Forks; in the child, true (its log is `<log>.child-<pid>`).
  bool fork_now() {
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
      error("fork", "fork failed");
      return false;
    }
    if (pid > 0) {
      log_.write("F " + std::to_string(wall_ms()) + " " + std::to_string(pid) + "\n");
      return false;
    }
    child_ = true;
    log_.open(c_.log + ".child-" + std::to_string(::getpid()));
    log_.write("C " + std::to_string(wall_ms()) + " " + std::to_string(parent) + "\n");
    return true;
  }

  void error(const std::string& kind, const std::string& what) {
    log_.write("X " + std::to_string(wall_ms()) + " " + kind + " " + one_field(what) + "\n");
  }

  using segment_type = decltype(flakeid::segment_generator{
      std::declval<const Store&>().distributor("soak"), flakeid::segment_options{}});

  minter_config c_;
  Store store_;
  line_log log_;
  offset_clock clock_;
  std::unique_ptr<flakeid::lease> lease_;
  std::unique_ptr<generator> gen_;
  std::unique_ptr<segment_type> seg_;
  std::atomic<bool> lost_{false};
  std::optional<std::chrono::steady_clock::time_point> down_since_;
  int tenure_ = 0;
  long bursts_ = 0;
  bool child_ = false;
};

template <class Store>
int run_with(const minter_config& c, Store store) {
  minter<Store> m(c, std::move(store));
  return m.run();
}

}  // namespace

int run_minter(const minter_config& c) {
  // A minter dies with the harness that started it (a harness killed leaves no minter behind).
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() == 1) return 1;
  ::signal(SIGTERM, on_term);
  ::signal(SIGINT, on_term);
  ::signal(SIGUSR1, on_usr1);
  ::signal(SIGCHLD, SIG_IGN);  // forked children are reaped by the kernel
  const flakeid::store_options where{.name_space = "soak",
                                     .connect_timeout = std::chrono::milliseconds{500}};
  return with_store(c.store, c.where, where, [&](auto store) { return run_with(c, store); });
}

}  // namespace flakeid_soak
