// flakeid encode and flakeid decode: IDs to and from their text forms.
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
const std::string_view encode_help =
    "usage: flakeid encode --to radix62|radix36|base32|friendly [--pad] [--layout L]\n"
    "                      [--from FORM] [--format text|json|tsv] [ID...|-]\n"
    "\n"
    "Writes each ID in the text form, one per line. The IDs are decimal unless --from names\n"
    "another form; without IDs (or for '-') they are read from standard input.\n"
    "  radix62   0-9A-Za-z, as CosId writes it (--pad: always 11 characters)\n"
    "  radix36   0-9A-Z (--pad: always 13 characters)\n"
    "  base32    Crockford's base32, always 13 characters; text order is ID order\n"
    "  friendly  yyyyMMddHHmmssSSS-<fields> in UTC, under the layout (default twitter)\n";
const std::string_view decode_help =
    "usage: flakeid decode [--from radix62|radix36|base32|friendly] [--layout L]\n"
    "                      [--format text|json|tsv] [TEXT...|-]\n"
    "\n"
    "Writes each ID given in a text form as a decimal number, one per line. Without --from\n"
    "(or its synonym --to) the form is detected as 'flakeid parse' does: the one form the text\n"
    "fits. The friendly form is read under the layout (default twitter) in UTC. Without\n"
    "TEXT (or for '-') the text is read from standard input.\n";
int run_encode(context& c, std::span<const std::string> argv) {
  static constexpr option_spec allowed[] = {
      {"--to", true}, {"--layout", true}, {"--pad", false}, {"--from", true}, {"--format", true}};
  const arguments a = read_arguments(c, argv, allowed);
  if (a.help) return print_help(c, encode_help);
  const auto to = a.get("--to");
  if (!to) fail("flakeid encode: give the form with --to radix62|radix36|base32|friendly");
  const text_form form = read_form("encode", "--to", *to, false);
  const text_form from =
      a.get("--from") ? read_form("encode", "--from", *a.get("--from"), true) : text_form::decimal;
  const flakeid::layout l = read_layout(a, "twitter");
  const format f = read_format(a);
  const auto pad = a.flag("--pad") ? flakeid::radix_padding::full : flakeid::radix_padding::none;
  const std::vector<std::string> ids = gather_ids(c, a);
  record_writer w(f);
  return for_each_item(c, ids, [&](const std::string& text) {
    const std::uint64_t id = read_id("encode", text, from, l);
    const std::string out = write_id(id, form, l, pad);
    if (f == format::text) {
      w.line(out);
    } else {
      w.begin();
      w.str("id", std::to_string(id));
      w.str("form", form_name(form));
      w.str("text", out);
      w.end();
    }
    w.flush(c);
  });
}

int run_decode(context& c, std::span<const std::string> argv) {
  static constexpr option_spec allowed[] = {
      {"--from", true}, {"--to", true, "--from"}, {"--layout", true}, {"--format", true}};
  const arguments a = read_arguments(c, argv, allowed);
  if (a.help) return print_help(c, decode_help);
  const auto name = a.get("--from");
  const std::optional<text_form> forced =
      name ? std::optional<text_form>(read_form("decode", a.typed("--from"), *name, true))
           : std::nullopt;
  const flakeid::layout l = read_layout(a, "twitter");
  const format f = read_format(a);
  const std::vector<std::string> texts = gather_ids(c, a);
  record_writer w(f);
  return for_each_item(c, texts, [&](const std::string& text) {
    const detected_id d = forced ? detected_id{*forced, read_id("decode", text, *forced, l)}
                                 : read_any_form("decode", text, l);
    const text_form form = d.form;
    const std::uint64_t id = d.id;
    if (f == format::text) {
      w.line(std::to_string(id));
    } else {
      w.begin();
      w.str("text", text);
      w.str("form", form_name(form));
      w.str("id", std::to_string(id));
      w.end();
    }
    w.flush(c);
  });
}

}  // namespace flakeid_cli
