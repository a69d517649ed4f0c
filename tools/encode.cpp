// flakeid encode and flakeid decode: IDs to and from their text forms.
#include "core.hpp"

#include <flakeid/text_converter.hpp>

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
    "usage: flakeid encode --to radix62|radix36|base32|friendly|decimal [--pad] [--layout L]\n"
    "                      [--prefix P] [--suffix S] [--width N] [--from FORM]\n"
    "                      [--format text|json|tsv] [ID...|-]\n"
    "\n"
    "Writes each ID in the text form, one per line. The IDs are decimal unless --from names\n"
    "another form; without IDs (or for '-') they are read from standard input.\n"
    "  radix62   0-9A-Za-z, as CosId writes it (--pad: always 11 characters)\n"
    "  radix36   0-9A-Z (--pad: always 13 characters)\n"
    "  base32    Crockford's base32, always 13 characters; text order is ID order\n"
    "  friendly  yyyyMMddHHmmssSSS-<fields> in UTC, under the layout (default twitter)\n"
    "  decimal   0-9 (--pad: at least --width digits)\n"
    "--prefix, --suffix and --width write radix62, radix36 and decimal as CosId's ID\n"
    "converters do (ORD-0000123: --to decimal --pad --width 7 --prefix ORD-); --width is the\n"
    "number's width (default 11, 13 for radix36), and a radix form narrower than its full\n"
    "width holds IDs up to radix^width - 1.\n";
const std::string_view decode_help =
    "usage: flakeid decode [--from radix62|radix36|base32|friendly|decimal] [--layout L]\n"
    "                      [--prefix P] [--suffix S] [--width N]\n"
    "                      [--format text|json|tsv] [TEXT...|-]\n"
    "\n"
    "Writes each ID given in a text form as a decimal number, one per line. Without --from\n"
    "(or its synonym --to) the form is detected as 'flakeid parse' does: the one form the text\n"
    "fits. The friendly form is read under the layout (default twitter) in UTC. Without\n"
    "TEXT (or for '-') the text is read from standard input. --prefix, --suffix and --width\n"
    "read text that 'flakeid encode' wrote with them (--from radix62, radix36 or decimal).\n";

namespace {

/// The converter that --prefix, --suffix and --width ask for (with --pad), or --pad of the
/// decimal form, for text form `form`; nothing when none of them is given.
std::optional<flakeid::text_converter> converter_of(std::string_view command, const arguments& a,
                                                    text_form form) {
  if (!a.get("--prefix") && !a.get("--suffix") && !a.get("--width") &&
      !(form == text_form::decimal && a.flag("--pad")))
    return std::nullopt;
  flakeid::text_converter_options o;
  switch (form) {
    case text_form::radix62: o.form = flakeid::text_form::radix62; break;
    case text_form::radix36: o.form = flakeid::text_form::radix36; break;
    case text_form::decimal: o.form = flakeid::text_form::decimal; break;
    default:
      fail("flakeid " + std::string(command) +
           ": --prefix, --suffix and --width apply to radix62, radix36 and decimal, not " +
           std::string(form_name(form)));
  }
  o.pad = a.flag("--pad");
  o.prefix = std::string(a.get("--prefix").value_or(""));
  o.suffix = std::string(a.get("--suffix").value_or(""));
  if (const auto w = a.get("--width")) o.width = read_count(command, "--width", *w, 1, 20);
  try {
    return flakeid::text_converter{o};
  } catch (const flakeid::invalid_option_error& e) {
    fail("flakeid " + std::string(command) + ": " +
         std::string(std::string_view(e.what()).substr(9)));  // after "flakeid: "
  }
}

}  // namespace

int run_encode(context& c, std::span<const std::string> argv) {
  static constexpr option_spec allowed[] = {
      {"--to", true},     {"--layout", true}, {"--pad", false},   {"--from", true},
      {"--format", true}, {"--prefix", true}, {"--suffix", true}, {"--width", true}};
  const arguments a = read_arguments(c, argv, allowed);
  if (a.help) return print_help(c, encode_help);
  const auto to = a.get("--to");
  if (!to) fail("flakeid encode: give the form with --to radix62|radix36|base32|friendly|decimal");
  const text_form form = read_form("encode", "--to", *to, true);
  const std::optional<flakeid::text_converter> conv = converter_of("encode", a, form);
  const text_form from =
      a.get("--from") ? read_form("encode", "--from", *a.get("--from"), true) : text_form::decimal;
  const flakeid::layout l = read_layout(a, "twitter");
  const format f = read_format(a);
  const auto pad = a.flag("--pad") ? flakeid::radix_padding::full : flakeid::radix_padding::none;
  const std::vector<std::string> ids = gather_ids(c, a);
  record_writer w(f);
  return for_each_item(c, ids, [&](const std::string& text) {
    const std::uint64_t id = read_id("encode", text, from, l);
    const std::string out = conv ? conv->to_text(id) : write_id(id, form, l, pad);
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
      {"--from", true},   {"--to", true, "--from"}, {"--layout", true}, {"--format", true},
      {"--prefix", true}, {"--suffix", true},       {"--width", true}};
  const arguments a = read_arguments(c, argv, allowed);
  if (a.help) return print_help(c, decode_help);
  const auto name = a.get("--from");
  const std::optional<text_form> forced =
      name ? std::optional<text_form>(read_form("decode", a.typed("--from"), *name, true))
           : std::nullopt;
  if (!forced && (a.get("--prefix") || a.get("--suffix") || a.get("--width")))
    fail("flakeid decode: --prefix, --suffix and --width need --from radix62, radix36 or decimal");
  const std::optional<flakeid::text_converter> conv =
      forced ? converter_of("decode", a, *forced) : std::nullopt;
  const flakeid::layout l = read_layout(a, "twitter");
  const format f = read_format(a);
  const std::vector<std::string> texts = gather_ids(c, a);
  record_writer w(f);
  return for_each_item(c, texts, [&](const std::string& text) {
    const detected_id d = conv     ? detected_id{*forced, conv->from_text(text)}
                          : forced ? detected_id{*forced, read_id("decode", text, *forced, l)}
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
