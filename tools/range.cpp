// flakeid range: the IDs minted between two times, as bounds and a SQL predicate.
#include "core.hpp"

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
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace flakeid_cli {
const std::string_view range_help =
    "usage: flakeid range FROM TO [--layout L] [--column NAME] [--format text|json|tsv]\n"
    "\n"
    "Prints the half-open bounds [lo, hi) holding every ID minted from FROM up to (not\n"
    "including) TO under the layout (default twitter), then the SQL predicate\n"
    "'id >= lo AND id < hi' (--column names the column: an SQL identifier, a.b, or a\n"
    "double-quoted name; default id).\n"
    "\n"
    "FROM and TO are UTC times: 2024-01-01, 2024-01-01T00:00:00Z, 2024-01-01T00:00:00.5Z (1 to\n"
    "9 fraction digits), 2024-01-01T08:00:00+08:00; times from now: now, now-1h, now+15m,\n"
    "-15m, -1h30m (units ms, s, m, h, d, w); or Unix milliseconds (1704067200000). A number\n"
    "that looks like Unix seconds gets a note. FLAKEID_NOW (a UTC time or Unix milliseconds)\n"
    "sets 'now', for tests and scripts.\n";
int run_range(context& c, std::span<const std::string> argv) {
  static constexpr option_spec allowed[] = {
      {"--layout", true}, {"--column", true}, {"--format", true}};
  const arguments a = read_arguments(c, argv, allowed);
  if (a.help) return print_help(c, range_help);
  if (a.operands.size() != 2)
    fail("flakeid range: give two times, FROM and TO (got " + std::to_string(a.operands.size()) +
         "); see 'flakeid range --help'");
  const flakeid::layout l = read_layout(a, "twitter");
  const format f = read_format(a);
  const std::string column(read_column(a));
  const read_time_result from = read_time(c, "FROM", a.operands[0]);
  const read_time_result to = read_time(c, "TO", a.operands[1]);
  const flakeid::id_bounds b = checked_range(c, l, from, to);
  const std::string lo = std::to_string(b.lo);
  const std::string hi = std::to_string(b.hi);
  // An upper bound past 2^63 - 1 (a layout's last tick) does not fit a BIGINT: the predicate
  // then names the largest ID itself.
  const bool past_bigint = b.hi > static_cast<std::uint64_t>(INT64_MAX);
  const std::string predicate = column + " >= " + lo + " AND " + column +
                                (past_bigint ? " <= " + std::to_string(b.hi - 1) : " < " + hi);
  record_writer w(f);
  if (f == format::text) {
    w.line("[" + lo + ", " + hi + ")");
    w.line(predicate);
  } else {
    w.begin();
    w.str("from", utc_text(from.time));
    w.str("to", utc_text(to.time));
    w.str("lo", lo);
    w.str("hi", hi);
    w.str("predicate", predicate);
    w.end();
  }
  w.flush(c);
  return exit_ok;
}

}  // namespace flakeid_cli
