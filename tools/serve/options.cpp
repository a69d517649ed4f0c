// flakeid-serve's command line.
#include "options.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string_view>
#include <system_error>

namespace flakeid_serve {

const char* const help_text =
    "usage: flakeid-serve [--config FILE] [--listen HOST:PORT] [--threads N]\n"
    "                     [--token-file FILE] [--tls-cert FILE --tls-key FILE]\n"
    "                     [--max-count N]\n"
    "       (also run as: flakeid serve ...)\n"
    "\n"
    "An HTTP/1.1 ID service over a registry configuration (docs/registry.md, docs/serve.md).\n"
    "\n"
    "  --config      the registry's JSON file (default: the JSON text in FLAKEID_GENERATORS)\n"
    "  --listen      where to listen (default 127.0.0.1:8080: loopback only)\n"
    "  --threads     event loops, one thread each, 1 to 256 (default: the machine's cores);\n"
    "                each serves many connections\n"
    "  --token-file  a file holding the bearer token every /api and /metrics request must send\n"
    "                (Authorization: Bearer TOKEN); also FLAKEID_SERVE_TOKEN. /healthz and\n"
    "                /readyz stay open to probes.\n"
    "  --tls-cert, --tls-key\n"
    "                serve HTTPS with this certificate and key (PEM)\n"
    "  --max-count   the largest batch (?count=N), 1 to 1000000 (default 10000)\n"
    "\n"
    "API: GET /api/snowflake/get/NAME, /api/segment/get/NAME (Leaf's: the ID as text),\n"
    "     ?count=N (a JSON array of strings), /api/text/NAME, /api/decode/NAME/ID,\n"
    "     /healthz, /readyz, /metrics (Prometheus). SIGTERM or SIGINT: finish the requests\n"
    "     under way, release the leases, exit 0.\n";

namespace {

std::uint64_t number(std::string_view option, std::string_view value, std::uint64_t lo,
                     std::uint64_t hi) {
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (value.empty() || ec != std::errc{} || end != value.data() + value.size() || n < lo || n > hi)
    throw usage_error("flakeid-serve: " + std::string(option) + " '" + std::string(value) +
                      "' is not a whole number in [" + std::to_string(lo) + ", " +
                      std::to_string(hi) + "]");
  return n;
}

std::string read_token(const std::string& file) {
  const auto refuse = [&file](const std::string& why) {
    throw usage_error("flakeid-serve: --token-file '" + file + "' " + why);
  };
  struct stat st {};
  if (::stat(file.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) refuse("is a directory");
  std::ifstream in(file, std::ios::binary);
  if (!in) refuse(std::string("cannot be read (") + std::strerror(errno) + ")");
  std::string token;
  if (!std::getline(in, token) && in.bad()) refuse("cannot be read");
  while (!token.empty() && (token.back() == '\r' || token.back() == ' ')) token.pop_back();
  if (token.empty()) refuse("is empty");
  return token;
}

}  // namespace

options parse_options(std::span<const std::string> args) {
  options o;
  if (const char* t = std::getenv("FLAKEID_SERVE_TOKEN"); t != nullptr && *t != '\0') o.token = t;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      o.help = true;
      continue;
    }
    if (a == "--version") {
      o.version = true;
      continue;
    }
    static constexpr std::string_view with_value[] = {"--config",     "--listen",   "--threads",
                                                      "--token-file", "--tls-cert", "--tls-key",
                                                      "--max-count"};
    bool known = false;
    for (const std::string_view w : with_value) known = known || a == w;
    if (!known)
      throw usage_error("flakeid-serve: unknown option '" + a + "'; see 'flakeid-serve --help'");
    if (i + 1 == args.size()) throw usage_error("flakeid-serve: " + a + " needs a value");
    const std::string& v = args[++i];
    if (a == "--config") {
      o.config = v;
    } else if (a == "--listen") {
      const auto colon = v.rfind(':');
      if (colon == std::string::npos || colon == 0)
        throw usage_error("flakeid-serve: --listen '" + v + "' is not HOST:PORT");
      o.host = v.substr(0, colon);
      if (o.host.size() > 2 && o.host.front() == '[' && o.host.back() == ']')
        o.host = o.host.substr(1, o.host.size() - 2);
      o.port = static_cast<int>(
          number("--listen port", std::string_view(v).substr(colon + 1), 0, 65535));
    } else if (a == "--threads") {
      o.threads = static_cast<std::size_t>(number(a, v, 1, 256));
    } else if (a == "--token-file") {
      o.token = read_token(v);
    } else if (a == "--tls-cert") {
      o.tls_cert = v;
    } else if (a == "--tls-key") {
      o.tls_key = v;
    } else {
      o.max_count = number(a, v, 1, 1'000'000);
    }
  }
  if (o.tls_cert.empty() != o.tls_key.empty())
    throw usage_error("flakeid-serve: --tls-cert and --tls-key go together");
  return o;
}

}  // namespace flakeid_serve
