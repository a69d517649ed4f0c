// flakeid-serve: an HTTP/1.1 ID service over a registry configuration (docs/serve.md). Reads its
// options (options.cpp), builds the registry (its leases taken), serves the API (service.cpp)
// until SIGTERM or SIGINT, then finishes the requests under way and releases the leases.
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "../registry_stores.hpp"
#include "options.hpp"
#include "service.hpp"

namespace {

/// Exit 2 for a configuration that cannot be used, 1 for a store that failed.
int registry_failure(const flakeid::registry_error& e) {
  std::string_view m = e.what();
  if (m.starts_with("flakeid: ")) m.remove_prefix(9);
  std::cerr << "flakeid-serve: " << m << "\n";
  try {
    std::rethrow_if_nested(e);
  } catch (const std::invalid_argument&) {
    return 2;
  } catch (const std::exception&) {
    return 1;
  }
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  flakeid_serve::options o;
  try {
    o = flakeid_serve::parse_options(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const flakeid_serve::usage_error& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  if (o.help) {
    std::cout << flakeid_serve::help_text;
    return 0;
  }
  if (o.version) {
    std::cout << "flakeid-serve " << FLAKEID_SERVE_VERSION << "\n";
    return 0;
  }

  // SIGTERM and SIGINT are taken by one thread (sigwait), blocked everywhere else; SIGPIPE (a
  // client gone) is ignored.
  sigset_t stops;
  sigemptyset(&stops);
  sigaddset(&stops, SIGTERM);
  sigaddset(&stops, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stops, nullptr);
  (void)signal(SIGPIPE, SIG_IGN);

  std::optional<flakeid::registry> ids;
  try {
    ids.emplace(
        o.config.empty()
            ? flakeid::registry::from_env(flakeid_tools::program_registry_kinds())
            : flakeid::registry::from_file(o.config, flakeid_tools::program_registry_kinds()));
  } catch (const flakeid::registry_error& e) {
    return registry_failure(e);
  }

  flakeid_serve::service api(*ids, o.token, o.max_count);
  flakeid_serve::http::settings where;
  where.host = o.host;
  where.port = o.port;
  where.loops = o.threads != 0 ? static_cast<unsigned>(o.threads)
                               : std::max(1U, std::thread::hardware_concurrency());
  where.tls_cert = o.tls_cert;
  where.tls_key = o.tls_key;
  std::optional<flakeid_serve::http::server> svr;
  try {
    svr.emplace(where, api.handlers());
  } catch (const flakeid_serve::http::server_error& e) {
    std::cerr << "flakeid-serve: " << e.what() << "\n";
    return std::string_view(e.what()).starts_with("cannot load") ? 2 : 1;
  }
  std::cerr << "flakeid-serve: listening on " << (o.tls_cert.empty() ? "http" : "https") << "://"
            << o.host << ":" << svr->port() << " (" << ids->names().size() << " generators)"
            << std::endl;

  // The stopping thread waits for SIGTERM or SIGINT; stop() before run() makes run() return at
  // once, so a signal taken early is not lost.
  std::thread stopper([&svr, &stops] {
    int sig = 0;
    sigwait(&stops, &sig);
    svr->stop();
  });
  svr->run();      // returns once the stopping thread has stopped it, after the requests under way
  stopper.join();  // (it has taken its signal)
  ids.reset();     // the generators, then their leases, released
  std::cerr << "flakeid-serve: stopped; leases released" << std::endl;
  return 0;
}
