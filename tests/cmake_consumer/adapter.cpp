// A program that uses one of flakeid's adapters through its installed package component: the
// adapter's headers compile, and the program links against the client library (a lease is
// built when a store address is passed; the test passes none).
#include <cstdio>

#if defined(FLAKEID_CONSUMER_REDIS) || defined(FLAKEID_CONSUMER_REDIS_TLS)
#include <flakeid/adapters/redis.hpp>
using store = flakeid::redis_store;
#elif defined(FLAKEID_CONSUMER_POSTGRES)
#include <flakeid/adapters/postgres.hpp>
using store = flakeid::postgres_store;
#endif

int main(int argc, char** argv) {
  if (argc > 1) {
    auto l = store{argv[1]}.lease();
    std::printf("%s\n", l.where().c_str());
  }
  return 0;
}
