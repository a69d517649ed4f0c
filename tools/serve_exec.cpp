// flakeid serve: runs flakeid-serve (tools/serve/, the HTTP ID service), git-style: the program
// next to this one, else the first on PATH, with the same arguments.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#if !defined(_WIN32)
#include <unistd.h>
#endif

#include "core.hpp"

namespace flakeid_cli {

const std::string_view serve_help =
    "usage: flakeid serve [--config FILE] [--listen HOST:PORT] [--threads N]\n"
    "                     [--token-file FILE] [--tls-cert FILE --tls-key FILE] [--max-count N]\n"
    "\n"
    "Runs flakeid-serve, the HTTP ID service over a registry configuration (Leaf's API,\n"
    "batches, health and Prometheus metrics): the program next to flakeid, else the one on\n"
    "PATH, with these arguments. 'flakeid serve --help' prints its options; docs/serve.md\n"
    "has the rest. It is built on Linux where OpenSSL is found.\n";

int run_serve(context& c, std::span<const std::string> argv) {
  if (c.io.sandbox) fail("flakeid serve: this run may not start a service");
#if defined(_WIN32)
  (void)argv;
  throw std::runtime_error("flakeid serve: the service runs on POSIX systems only");
#else
  std::vector<std::string> args{"flakeid-serve"};
  args.insert(args.end(), argv.begin(), argv.end());
  std::vector<char*> raw;
  for (std::string& a : args) raw.push_back(a.data());
  raw.push_back(nullptr);
  c.io.out.flush();
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path beside = self.parent_path() / "flakeid-serve";
    if (::access(beside.c_str(), X_OK) == 0) ::execv(beside.c_str(), raw.data());
  }
  ::execvp("flakeid-serve", raw.data());
  const int e = errno;
  throw std::runtime_error(
      "flakeid serve: flakeid-serve was found neither next to flakeid nor on PATH (" +
      std::string(std::strerror(e)) +
      "); it is built on Linux where OpenSSL is found (docs/serve.md)");
#endif
}

}  // namespace flakeid_cli
