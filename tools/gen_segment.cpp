// flakeid gen --generator segment: dense numbers from a counter in a store.
#include "gen.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <flakeid/segment.hpp>
#include <flakeid/store/file.hpp>
#include <flakeid/store/memory.hpp>
#if defined(FLAKEID_HAS_REDIS)
#include <flakeid/adapters/redis.hpp>
#endif
#if defined(FLAKEID_HAS_POSTGRES)
#include <flakeid/adapters/postgres.hpp>
#endif

#if defined(FLAKEID_HAS_REDIS)
#define FLAKEID_CLI_REDIS_NOTE ", redis"
#else
#define FLAKEID_CLI_REDIS_NOTE ""
#endif
#if defined(FLAKEID_HAS_POSTGRES)
#define FLAKEID_CLI_POSTGRES_NOTE ", postgres"
#else
#define FLAKEID_CLI_POSTGRES_NOTE ""
#endif

namespace flakeid_cli {
namespace {

/// The file store's directory: FLAKEID_SEGMENT_DIR, else $XDG_STATE_HOME/flakeid/segments, else
/// ~/.local/state/flakeid/segments. Absolute only: a relative one is another directory in each
/// working directory, whose counter starts again. A relative FLAKEID_SEGMENT_DIR is bad input; a
/// relative XDG_STATE_HOME (or HOME) is ignored, as the XDG specification says.
std::filesystem::path segment_directory() {
  if (const char* d = std::getenv("FLAKEID_SEGMENT_DIR"); d != nullptr && *d != '\0') {
    if (*d != '/')
      fail("flakeid gen: FLAKEID_SEGMENT_DIR " + quote(d) +
           " is a relative path, another directory in each working directory, where a run "
           "elsewhere would hand out the same numbers again; give an absolute path");
    return d;
  }
  if (const char* s = std::getenv("XDG_STATE_HOME"); s != nullptr && *s == '/')
    return std::filesystem::path(s) / "flakeid" / "segments";
  if (const char* h = std::getenv("HOME"); h != nullptr && *h == '/')
    return std::filesystem::path(h) / ".local" / "state" / "flakeid" / "segments";
  fail("flakeid gen: no directory for the file store: set FLAKEID_SEGMENT_DIR");
}

[[maybe_unused]] std::string segment_namespace() {
  const char* ns = std::getenv("FLAKEID_SEGMENT_NAMESPACE");
  return ns != nullptr && *ns != '\0' ? ns : "default";
}

/// Where a server store is: `option`, else the environment variable `env`, else `fallback`.
[[maybe_unused]] std::string server_of(const arguments& a, std::string_view option, const char* env,
                                       std::string_view fallback) {
  if (const auto v = a.get(option)) return std::string(*v);
  if (const char* e = std::getenv(env); e != nullptr) return e;
  return std::string(fallback);
}

/// `text` with the password of a URI in it (user info after its first ':') shown as `***`.
std::string hide_password(std::string_view text) {
  const auto scheme = text.find("://");
  const auto at = text.rfind('@');
  if (scheme == std::string_view::npos || at == std::string_view::npos || at < scheme)
    return std::string(text);
  const auto colon = text.find(':', scheme + 3);
  if (colon == std::string_view::npos || colon > at) return std::string(text);
  return std::string(text.substr(0, colon + 1)) + "***" + std::string(text.substr(at));
}

/// Draws `count` numbers from a segment generator on `d` and prints them.
template <class Distributor>
void draw_segment(Distributor d, const flakeid::segment_options& o, const gen_request& r) {
  flakeid::segment_generator<Distributor> gen{std::move(d), o};
  const std::uint64_t count = r.count;
  std::vector<std::uint64_t> ids(static_cast<std::size_t>(std::min<std::uint64_t>(count, 4096)));
  for (std::uint64_t left = count; left != 0;) {
    const std::span<std::uint64_t> batch(
        ids.data(), static_cast<std::size_t>(std::min<std::uint64_t>(left, ids.size())));
    gen.next_ids(batch);
    write_batch(r, batch, flakeid::layouts::twitter);
    left -= batch.size();
  }
}

}  // namespace

int run_gen_segment(const context& c, const arguments& a, gen_request& r) {
  for (const std::string_view o : {"--layout", "--worker", "--datacenter", "--gene"})
    if (a.get(o))
      fail("flakeid gen: option " + quote(o) +
           " does not apply to --generator segment (its numbers have no fields)");
  if (const auto t = a.get("--to")) {
    r.to = read_form("gen", "--to", *t, true);
    r.to_given = true;
    if (r.to == text_form::friendly)
      fail(
          "flakeid gen: --to friendly needs a snowflake layout; segment numbers are written in "
          "decimal, radix62, radix36 or base32");
  }
  const auto store_arg = a.get("--store");
  if (!store_arg) fail("flakeid gen: --generator segment needs --store memory|file|redis|postgres");
  // A URI names the store and where it is: redis://, rediss://, unix://, postgresql://.
  std::string_view store = *store_arg;
  std::string store_uri;
  for (const std::string_view scheme : {"redis://", "rediss://", "unix://"})
    if (store.starts_with(scheme)) store = "redis";
  for (const std::string_view scheme : {"postgresql://", "postgres://"})
    if (store.starts_with(scheme)) store = "postgres";
  if (store != *store_arg) store_uri = std::string(*store_arg);
  const std::string key(a.get("--key").value_or("default"));
  if (key.empty()) fail("flakeid gen: --key must not be empty");
  const std::uint64_t step =
      a.get("--step") ? read_number("gen", "--step", *a.get("--step"), flakeid::max_segment_step)
                      : std::min(r.count, flakeid::max_segment_step);
  if (step == 0) fail("flakeid gen: --step 0 reserves nothing; give a step of at least 1");
  flakeid::segment_options opts{.step = step};
  if (const auto v = a.get("--start"))
    opts.start = read_number("gen", "--start", *v, flakeid::max_segment_start);
  if (const auto v = a.get("--stride"))
    opts.stride = read_number("gen", "--stride", *v, flakeid::max_segment_stride);
  if (const auto v = a.get("--remainder"))
    opts.remainder = read_number("gen", "--remainder", *v, flakeid::max_segment_stride - 1);
  // The generator checks start, stride and remainder (before any store call) and names the
  // value and its range: "flakeid gen: segment option stride = 0 is out of range [1, 65536]".
  if (a.get("--redis") && store != "redis")
    fail("flakeid gen: --redis applies only to --store redis");
  if (a.get("--postgres") && store != "postgres")
    fail("flakeid gen: --postgres applies only to --store postgres");
  if (!store_uri.empty() && (a.get("--redis") || a.get("--postgres")))
    fail("flakeid gen: --store " + quote(hide_password(store_uri)) +
         " already says where the server is; drop --redis/--postgres");
  if (c.io.sandbox && store != "memory")
    fail("flakeid gen: this run may not open stores; use --store memory");

  if (store == "memory") {
    const flakeid::memory_store s;
    draw_segment(s.distributor(key), opts, r);
  } else if (store == "file") {
#if defined(FLAKEID_HAS_FILE_SEGMENT_STORE)
    const flakeid::file_store s{segment_directory()};
    draw_segment(s.distributor(key), opts, r);
#else
    fail("flakeid gen: the file store needs a POSIX system");
#endif
  } else if (store == "redis") {
#if defined(FLAKEID_HAS_REDIS)
    const char* address = std::getenv("FLAKEID_REDIS_ADDRESS");
    const flakeid::redis_store s{!store_uri.empty()
                                     ? store_uri
                                     : server_of(a, "--redis", "FLAKEID_REDIS_URL",
                                                 address != nullptr ? address : "127.0.0.1:6379"),
                                 {.name_space = segment_namespace()}};
    draw_segment(s.distributor(key), opts, r);
#else
    fail(
        "flakeid gen: this flakeid was built without the Redis adapter (hiredis was not found); "
        "stores available: memory, file" FLAKEID_CLI_POSTGRES_NOTE);
#endif
  } else if (store == "postgres") {
#if defined(FLAKEID_HAS_POSTGRES)
    const flakeid::postgres_store s{
        !store_uri.empty() ? store_uri
                           : server_of(a, "--postgres", "FLAKEID_POSTGRES_CONNINFO", ""),
        {.name_space = segment_namespace()}};
    draw_segment(s.distributor(key), opts, r);
#else
    fail(
        "flakeid gen: this flakeid was built without the PostgreSQL adapter (libpq was not "
        "found); stores available: memory, file" FLAKEID_CLI_REDIS_NOTE);
#endif
  } else {
    fail("flakeid gen: store " + quote(hide_password(store)) +
         " is unknown; allowed: memory, file, redis, postgres, or a redis://, rediss://, "
         "unix:// or postgresql:// URI");
  }
  return exit_ok;
}

}  // namespace flakeid_cli
