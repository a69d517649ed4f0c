// A worker that takes its worker id from a lease: from Redis when FLAKEID_REDIS_URL (a
// redis://, rediss:// or unix:// URI) or FLAKEID_REDIS_ADDRESS ("host:port") is set, else from a
// lock file on this host. Run several at once: each gets its own id, and an id comes back only
// after its holder released it or its lease expired.
//
//   FLAKEID_REDIS_URL=rediss://app:s3cret@cache.internal:6380/2 ./example_lease_worker
//   FLAKEID_REDIS_ADDRESS=127.0.0.1:6379 ./example_lease_worker
//   ./example_lease_worker
#include <cstdlib>
#include <flakeid/flakeid.hpp>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#ifdef FLAKEID_EXAMPLE_HAVE_REDIS
#include <flakeid/adapters/redis.hpp>
#endif

int main() {
  const flakeid::store_options where{.name_space = "example"};
  flakeid::lease_options options;
  options.ttl = std::chrono::seconds{6};  // renewed every 2 s in the background
  options.on_event = [](flakeid::lease_event e, const std::string& detail) {
    std::cerr << "lease " << to_string(e) << ": " << detail << '\n';
  };

  // A lease does not move: each store's `lease()` initializes the one on the heap in place.
  std::unique_ptr<flakeid::lease> lease;
  const char* url = std::getenv("FLAKEID_REDIS_URL");
  const char* address = std::getenv("FLAKEID_REDIS_ADDRESS");
  if (url != nullptr && *url != '\0') address = url;
  if (address != nullptr && *address != '\0') {
#ifdef FLAKEID_EXAMPLE_HAVE_REDIS
    try {  // messages name user, host, port and db, never the password
      const flakeid::redis_store store{flakeid::redis_options::parse(address), where};
      lease.reset(new flakeid::lease(store.lease(options)));
    } catch (const std::invalid_argument& e) {
      std::cerr << e.what() << '\n';
      return 2;
    }
#else
    std::cerr << "this build has no Redis adapter (hiredis was not found)\n";
    return 1;
#endif
  } else {
    const flakeid::file_store store{flakeid::default_lease_directory(), where};  // /dev/shm/flakeid
    lease.reset(new flakeid::lease(store.lease(options)));
  }

  try {
    // The lease outlives the generator: declared first, destroyed last (then released).
    flakeid::classic_snowflake<> gen{*lease};
    std::cout << "worker " << gen.node().worker << " (datacenter " << gen.node().datacenter
              << ") from " << gen.node_source() << '\n';
    for (int i = 0; i < 3; ++i) {
      const std::uint64_t id = gen.next_id();
      const auto p = gen.decompose(id);
      std::cout << id << "  worker " << p.worker << "  sequence " << p.sequence << '\n';
    }
  } catch (const flakeid::lease_lost_error& e) {  // the lease could not be renewed in time
    std::cerr << e.what() << '\n';
    return 1;
  } catch (const flakeid::worker_id_error& e) {  // no free id, store unreachable
    std::cerr << e.what() << '\n';
    return 1;
  }
}
