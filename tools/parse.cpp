// flakeid parse: the fields and the time of IDs.
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

#include <flakeid/layout.hpp>

namespace flakeid_cli {
const std::string_view parse_help =
    "usage: flakeid parse [ID...|-] [--layout L] [--format text|json|tsv] [--bits]\n"
    "                     [--from decimal|radix62|radix36|base32|friendly]\n"
    "\n"
    "Prints the fields and the UTC time of each ID under the layout (default twitter), one line\n"
    "per ID: 'id=... time=... ticks=...', the layout's fields from high to low, then the layout\n"
    "the ID was read under ('layout=twitter' when --layout is not given); with\n"
    "--format json one JSON object per line (the ID as a string, safe for JavaScript), with\n"
    "--format tsv a header line, then tab-separated values. --bits draws the 64 bits of each ID\n"
    "grouped by field, with each field's name, width and value.\n"
    "\n"
    "Without IDs (or for '-') the IDs are read from standard input, separated by white space.\n"
    "IDs that cannot be read are reported on stderr, the others printed; the exit status is 2.\n"
    "\n"
    "All digits is decimal; other text is read in the one form among friendly, radix62,\n"
    "radix36 and base32 that accepts it (a word of letters only is no ID). Text that several\n"
    "forms accept needs --from (--input is a synonym); text that none accepts is reported with\n"
    "the forms tried.\n";
namespace {

/// The bit-level view of `id`: the 64 bits high to low in groups, one group per field, then a
/// row per field with its bits, width, name and value.
std::string bits_view(const flakeid::layout& l, std::string_view name, std::uint64_t id) {
  struct group {
    std::string name;
    unsigned width;
    unsigned low;
    std::uint64_t value;
  };
  std::vector<group> groups;
  unsigned used = 0;
  for (const flakeid::field& f : l.fields()) used += f.bits;
  unsigned top = 64;
  if (used < 64) {  // 63-bit layouts leave the sign bit unused
    top = used;
    groups.push_back({"sign", 64 - used, used, id >> used});
  }
  for (const flakeid::field& f : l.fields()) {
    top -= f.bits;
    const std::uint64_t mask = f.bits >= 64 ? UINT64_MAX : (std::uint64_t{1} << f.bits) - 1;
    groups.push_back({std::string(flakeid::to_string(f.kind)), f.bits, top, (id >> top) & mask});
  }
  std::string out = "id=" + std::to_string(id) + " layout=" + std::string(name) + "\n";
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (i != 0) out += ' ';
    for (unsigned b = groups[i].width; b-- > 0;)
      out += ((groups[i].value >> b) & 1U) != 0 ? '1' : '0';
  }
  out += "\nbits   width  field       value\n";
  for (const group& g : groups) {
    const unsigned high = g.low + g.width - 1;
    std::string label = std::to_string(high);
    if (g.width > 1) label += "-" + std::to_string(g.low);
    std::string value = std::to_string(g.value);
    if (g.name == "timestamp") value += " (" + utc_text(l.decompose(id).timestamp) + ")";
    out += pad_right(label, 7) + pad_left(std::to_string(g.width), 5) + "  " +
           pad_right(g.name, 12) + value + "\n";
  }
  return out;
}

}  // namespace

int run_parse(context& c, std::span<const std::string> argv) {
  static constexpr option_spec allowed[] = {{"--layout", true},
                                            {"--format", true},
                                            {"--from", true},
                                            {"--input", true, "--from"},
                                            {"--bits", false}};
  const arguments a = read_arguments(c, argv, allowed);
  if (a.help) return print_help(c, parse_help);
  const flakeid::layout l = read_layout(a, "twitter");
  const std::string name = layout_name(a, "twitter");
  const format f = read_format(a);
  const bool bits = a.flag("--bits");
  if (bits && f != format::text)
    fail("--bits draws the bits as text; drop --format " + std::string(*a.get("--format")));
  const auto input = a.get("--from");
  const std::optional<text_form> forced =
      input ? std::optional<text_form>(read_form("parse", a.typed("--from"), *input, true))
            : std::nullopt;
  const std::vector<std::string> ids = gather_ids(c, a);
  record_writer w(f);
  bool first = true;
  const int status = for_each_item(c, ids, [&](const std::string& text) {
    const std::uint64_t id =
        forced ? read_id("parse", text, *forced, l) : read_any_form("parse", text, l).id;
    const flakeid::id_parts p = l.decompose(id);
    if (bits) {
      if (!first) w.line("");
      first = false;
      std::string view = bits_view(l, name, id);
      view.pop_back();
      w.line(view);
    } else if (f == format::text) {
      std::string line = "id=" + std::to_string(id) + " time=" + utc_text(p.timestamp) +
                         " ticks=" + std::to_string(p.ticks);
      for (const flakeid::field& fd : l.fields()) {
        if (fd.kind == flakeid::field_kind::timestamp || fd.kind == flakeid::field_kind::reserved)
          continue;
        line += " ";
        line += flakeid::to_string(fd.kind);
        line += "=" + std::to_string(l.extract(id, fd.kind));
      }
      w.line(line + " layout=" + name);
    } else {
      w.begin();
      w.str("id", std::to_string(id));
      w.str("time", utc_text(p.timestamp));
      w.num("unix_ms", p.timestamp.time_since_epoch().count());
      w.unum("ticks", p.ticks);
      for (const flakeid::field& fd : l.fields()) {
        if (fd.kind == flakeid::field_kind::timestamp || fd.kind == flakeid::field_kind::reserved)
          continue;
        w.unum(flakeid::to_string(fd.kind), l.extract(id, fd.kind));
      }
      w.str("layout", name);
      w.end();
    }
    w.flush(c);
  });
  return status;
}

}  // namespace flakeid_cli
