// What the commands of the tool share: errors and exit codes, the run's context, the argument
// parser, output records, text forms of IDs, times, and the choice of a preset layout for the
// commands that need a generator. Each command lives in a file of its own (tools/<command>.cpp)
// and is listed in tools/cli.cpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <flakeid/errors.hpp>
#include <flakeid/layout.hpp>
#include <flakeid/layout_spec.hpp>
#include <flakeid/text.hpp>

#include "cli.hpp"

namespace flakeid_cli {

// ---- errors and exit codes ---------------------------------------------------------------------

constexpr int exit_ok = 0;
constexpr int exit_failure = 1;
constexpr int exit_usage = 2;

/// Bad command-line input: reported on one line, exit status 2.
class usage_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// The output could not be written (a full disk, a closed pipe): exit status 1.
class write_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string& msg);

/// `s` in single quotes for a message: printable ASCII as is, other bytes as \xNN, cut after 80.
std::string quote(std::string_view s);
/// "a", "a or b", "a, b or c".
std::string one_of(std::span<const std::string_view> items);
/// The candidate closest to `typed` when it is close enough to be a typo (or `typed` is a
/// prefix of it), else empty.
std::string_view closest(std::string_view typed, std::span<const std::string_view> candidates);

// ---- the run -----------------------------------------------------------------------------------

/// One run of the tool: its streams, the command being run and the global switches.
struct context {
  streams& io;
  std::string command;  // "parse", "sql"; empty before a command is known
  bool quiet = false;
  std::optional<std::int64_t> now_cache;  // "now", once read (see times.cpp)

  [[nodiscard]] std::string prefix() const {
    return command.empty() ? std::string("flakeid: ") : "flakeid " + command + ": ";
  }
  /// A note on stderr (where gen's worker id came from, a time hint); -q silences it.
  void note(const std::string& msg) const;
};

/// `msg` on stderr, on one line starting with "flakeid <command>:".
void report(const context& c, const std::string& msg);
/// The exit status for `e` (reported on stderr): 2 for bad input, 1 for anything else.
int report_exception(const context& c, const std::exception_ptr& e);
/// Writes `text` to standard output; a stream that failed is a write error.
void emit(const context& c, std::string_view text);
int print_help(const context& c, std::string_view text);

/// A command: `flakeid <name> ...` runs `run`; `help` is its --help text.

// ---- arguments ---------------------------------------------------------------------------------

struct option_spec {
  std::string_view name;  // "--layout", "-n"
  bool takes_value;
  std::string_view alias_of = {};  // "--input" is read as "--from"
};

/// One option as given: its name (an alias resolved), the name as typed and its value.
struct option_value {
  std::string_view name;
  std::string_view typed;
  std::string_view value;
};

/// The command line of one command: its options (each at most once) and its operands.
struct arguments {
  std::vector<option_value> options;
  std::vector<std::string_view> operands;
  bool help = false;

  [[nodiscard]] const option_value* find(std::string_view name) const {
    for (const auto& o : options)
      if (o.name == name) return &o;
    return nullptr;
  }
  [[nodiscard]] std::optional<std::string_view> get(std::string_view name) const {
    if (const option_value* o = find(name)) return o->value;
    return std::nullopt;
  }
  /// The option's name as the user typed it ("--input" for --from), for messages.
  [[nodiscard]] std::string_view typed(std::string_view name) const {
    const option_value* o = find(name);
    return o != nullptr ? o->typed : name;
  }
  [[nodiscard]] bool flag(std::string_view name) const { return find(name) != nullptr; }
};

/// Reads a command's options: `--name value`, `--name=value`, `-n3`, `-n 3`; `--` ends the
/// options; `-` and text starting with '-' and a digit (a time such as -15m) are operands.
arguments read_arguments(context& c, std::span<const std::string> argv,
                         std::span<const option_spec> allowed);
/// Reads `text` as an unsigned decimal number no larger than `max`.
std::uint64_t read_number(std::string_view command, std::string_view what, std::string_view text,
                          std::uint64_t max = UINT64_MAX);
/// `text` as an unsigned decimal number from `min` to `max`; the message names that range.
std::uint64_t read_count(std::string_view command, std::string_view what, std::string_view text,
                         std::uint64_t min, std::uint64_t max);
flakeid::layout read_layout(const arguments& a, std::string_view fallback);
/// The layout's name for messages and output: --layout as given, else `fallback`.
std::string layout_name(const arguments& a, std::string_view fallback);
std::string_view read_column(const arguments& a);
std::string pad_right(std::string s, std::size_t width);
std::string pad_left(std::string s, std::size_t width);

// ---- output records ----------------------------------------------------------------------------

enum class format { text, json, tsv };

format read_format(const arguments& a);
/// `s` as a JSON string, quotes included.
void append_json_string(std::string& out, std::string_view s);
/// `s` for a TSV cell: tab, newline, carriage return and backslash escaped.
void append_tsv_cell(std::string& out, std::string_view s);
/// `value` in decimal with `decimals` digits after the point ("12.5"), as printf's %.*f in the
/// C locale.
std::string fixed(double value, int decimals);

/// Writes records as text lines (each command's own), JSON lines or TSV with a header, into a
/// buffer that `flush` writes out.
class record_writer {
 public:
  explicit record_writer(format f) : format_(f) {}

  [[nodiscard]] format kind() const noexcept { return format_; }
  void begin();
  void str(std::string_view key, std::string_view value);
  void num(std::string_view key, std::int64_t value);
  void unum(std::string_view key, std::uint64_t value);
  /// `value` with `decimals` digits after the point; not a finite number: null (JSON), an empty
  /// cell (TSV).
  void real(std::string_view key, double value, int decimals);
  void end();
  /// A record in the text format: the command's own line.
  void line(std::string_view text);
  void flush(const context& c);

 private:
  void next_cell(std::string_view key);

  format format_;
  std::string buffer_;
  std::string header_;
  std::size_t row_start_ = 0;
  bool first_ = true;
  bool header_done_ = false;
};

// ---- text forms (forms.cpp) --------------------------------------------------------------------

enum class text_form { decimal, radix62, radix36, base32, friendly };

std::string_view form_name(text_form f);
text_form read_form(std::string_view command, std::string_view option, std::string_view name,
                    bool allow_decimal);
std::uint64_t read_id(std::string_view command, std::string_view text, text_form form,
                      const flakeid::layout& l);
std::string write_id(std::uint64_t id, text_form form, const flakeid::layout& l,
                     flakeid::radix_padding pad = flakeid::radix_padding::none);
/// An ID read from text whose form was not given: the form and the number.
struct detected_id {
  text_form form;
  std::uint64_t id;
};
/// Reads `text` in the one form it fits (see forms.cpp); bad input names the forms tried.
detected_id read_any_form(std::string_view command, std::string_view text,
                          const flakeid::layout& l);
/// The IDs a command reads: its operands, with standard input (split at white space) read for
/// '-' or when there are none.
std::vector<std::string> gather_ids(const context& c, const arguments& a);

/// Runs `step` on each of `items`; a failure that is bad input is reported on stderr and the
/// batch goes on. Returns the exit status: 2 when an item failed, else 0.
template <class Item, class Step>
int for_each_item(const context& c, const std::vector<Item>& items, Step step) {
  int status = exit_ok;
  for (const Item& item : items) {
    try {
      step(item);
    } catch (const write_error&) {
      throw;
    } catch (const std::invalid_argument&) {
      status = std::max(status, report_exception(c, std::current_exception()));
    } catch (const std::out_of_range&) {
      status = std::max(status, report_exception(c, std::current_exception()));
    } catch (const flakeid::timestamp_overflow_error&) {
      status = std::max(status, report_exception(c, std::current_exception()));
    }
  }
  return status;
}

// ---- times (times.cpp) -------------------------------------------------------------------------

/// `2016-04-30T11:18:25.796Z`.
std::string utc_text(flakeid::layout::time_point t);
std::string utc_text(std::int64_t unix_ms);

/// A time read from the command line, and a hint to show when a number looks like seconds.
struct read_time_result {
  flakeid::layout::time_point time;
  std::string hint;
};

read_time_result read_time(context& c, std::string_view what, std::string_view text);
/// The bounds of the IDs minted in [from, to): a time the layout cannot hold is bad input, with
/// the seconds hint when there is one; otherwise the hints are notes.
flakeid::id_bounds checked_range(const context& c, const flakeid::layout& l,
                                 const read_time_result& from, const read_time_result& to);

// ---- preset layouts, for the commands that need a generator -------------------------------------

/// `Op::run<L>` for each preset layout `L`, in the order of `flakeid::preset_names()`: commands
/// that need a generator (gen, bench) dispatch a layout read at run time through such a table.
template <class Op, std::size_t... I>
constexpr auto make_preset_table(std::index_sequence<I...>) {
  return std::array{&Op::template run<flakeid::layout_by_name(flakeid::preset_names()[I])>...};
}

constexpr std::size_t preset_count = flakeid::preset_names().size();

/// The index in `flakeid::preset_names()` of layout `l` (a spec equal to a preset is that
/// preset); any other layout is bad input: generators take their layout at compile time.
/// `doing` completes the message: "mint IDs of", "measure".
std::size_t preset_index(std::string_view command, const flakeid::layout& l, std::string_view name,
                         std::string_view doing);

/// Whether generators of `l` mint with a key: its lowest field is a gene.
bool keyed_layout(const flakeid::layout& l);

// ---- the commands ------------------------------------------------------------------------------

int run_gen(context& c, std::span<const std::string> argv);
int run_parse(context& c, std::span<const std::string> argv);
int run_range(context& c, std::span<const std::string> argv);
int run_encode(context& c, std::span<const std::string> argv);
int run_decode(context& c, std::span<const std::string> argv);
int run_layouts(context& c, std::span<const std::string> argv);
int run_sql(context& c, std::span<const std::string> argv);
int run_bench(context& c, std::span<const std::string> argv);
int run_serve(context& c, std::span<const std::string> argv);

extern const std::string_view gen_help;
extern const std::string_view parse_help;
extern const std::string_view range_help;
extern const std::string_view encode_help;
extern const std::string_view decode_help;
extern const std::string_view layouts_help;
extern const std::string_view sql_help;
extern const std::string_view bench_help;
extern const std::string_view serve_help;

}  // namespace flakeid_cli
