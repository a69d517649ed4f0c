// flakeid-serve: an HTTP/1.1 ID service over a registry configuration (docs/serve.md). Reads its
// options (options.cpp), builds the registry (its leases taken), serves the API (service.cpp)
// until SIGTERM or SIGINT, then finishes the requests under way and releases the leases.
#include <httplib.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
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
  using namespace std::chrono_literals;
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
  signal(SIGPIPE, SIG_IGN);

  std::optional<flakeid::registry> ids;
  try {
    ids.emplace(
        o.config.empty()
            ? flakeid::registry::from_env(flakeid_tools::program_registry_kinds())
            : flakeid::registry::from_file(o.config, flakeid_tools::program_registry_kinds()));
  } catch (const flakeid::registry_error& e) {
    return registry_failure(e);
  }

  std::unique_ptr<httplib::Server> svr;
  if (!o.tls_cert.empty()) {
    svr = std::make_unique<httplib::SSLServer>(o.tls_cert.c_str(), o.tls_key.c_str());
    if (!svr->is_valid()) {
      std::cerr << "flakeid-serve: cannot load the TLS certificate '" << o.tls_cert << "' and key '"
                << o.tls_key << "'\n";
      return 2;
    }
  } else {
    svr = std::make_unique<httplib::Server>();
  }
  const std::size_t threads = o.threads;
  svr->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  svr->set_tcp_nodelay(true);
  svr->set_keep_alive_max_count(1'000'000);
  flakeid_serve::service api(*ids, o.token, o.max_count);
  api.install(*svr);

  const int port = o.port == 0 ? svr->bind_to_any_port(o.host) : o.port;
  if (port < 0 || (o.port != 0 && !svr->bind_to_port(o.host, o.port))) {
    std::cerr << "flakeid-serve: cannot listen on " << o.host << ":" << o.port << "\n";
    return 1;
  }
  std::cerr << "flakeid-serve: listening on " << (o.tls_cert.empty() ? "http" : "https") << "://"
            << o.host << ":" << port << " (" << ids->names().size() << " generators)" << std::endl;

  // httplib's stop() does nothing before the accept loop runs, so a signal taken between the
  // bind and the loop waits for the loop (or for its end) rather than being lost.
  std::atomic<bool> listened{false};
  std::thread stopper([&svr, &stops, &listened] {
    int sig = 0;
    sigwait(&stops, &sig);
    while (!svr->is_running() && !listened.load()) std::this_thread::sleep_for(1ms);
    svr->stop();
  });
  svr->listen_after_bind();  // returns once stopped, after the requests under way
  listened = true;
  pthread_kill(stopper.native_handle(), SIGTERM);  // (a no-op when a signal stopped it)
  stopper.join();
  ids.reset();  // the generators, then their leases, released
  std::cerr << "flakeid-serve: stopped; leases released" << std::endl;
  return 0;
}
