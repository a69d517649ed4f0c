// flakeid layouts: the preset layouts.
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
const std::string_view layouts_help =
    "usage: flakeid layouts [--format text|json|tsv]\n"
    "\n"
    "Lists the preset layouts: name, spec (fields high to low; epoch in Unix ms; tick) and the\n"
    "last instant each can encode.\n";
int run_layouts(context& c, std::span<const std::string> argv) {
  static constexpr option_spec allowed[] = {{"--format", true}};
  const arguments a = read_arguments(c, argv, allowed);
  if (a.help) return print_help(c, layouts_help);
  if (!a.operands.empty())
    fail("flakeid layouts: unexpected argument " + quote(a.operands.front()));
  record_writer w(read_format(a));
  for (const std::string_view name : flakeid::preset_names()) {
    const flakeid::layout& l = flakeid::layout_by_name(name);
    const std::string spec = flakeid::to_spec(l);
    const std::string expires = utc_text(l.expires_at());
    if (w.kind() == format::text) {
      w.line(pad_right(std::string(name), 14) + " " + pad_right(spec, 62) + " expires " + expires);
    } else {
      w.begin();
      w.str("name", name);
      w.str("spec", spec);
      w.str("expires", expires);
      w.end();
    }
  }
  w.flush(c);
  return exit_ok;
}

}  // namespace flakeid_cli
