// A program that uses one of flakeid's adapters through its installed package component: the
// adapter's headers compile, and the program links against the client library (a lease is
// built when a store address is passed; the test passes none).
#include <cstdio>

#if defined(FLAKEID_CONSUMER_REDIS) || defined(FLAKEID_CONSUMER_REDIS_TLS)
#include <flakeid/adapters/redis_lease.hpp>
#include <flakeid/adapters/redis_segment.hpp>
using lease = flakeid::redis_lease;
#elif defined(FLAKEID_CONSUMER_POSTGRES)
#include <flakeid/adapters/postgres_lease.hpp>
#include <flakeid/adapters/postgres_segment.hpp>
using lease = flakeid::postgres_lease;
#endif

int main(int argc, char** argv) {
  if (argc > 1) {
    lease l{argv[1], flakeid::lease_options{}};
    std::printf("%s\n", l.where().c_str());
  }
  return 0;
}
