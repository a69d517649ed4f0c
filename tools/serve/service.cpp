// flakeid-serve's HTTP API (service.hpp).
#include "service.hpp"

#include <charconv>
#include <cstdio>
#include <exception>
#include <optional>
#include <span>
#include <system_error>
#include <utility>
#include <vector>

namespace flakeid_serve {

namespace {

/// A library message without its "flakeid: ".
std::string_view plain(std::string_view m) {
  if (m.starts_with("flakeid: ")) m.remove_prefix(9);
  return m;
}

/// Whether `got` is `want`, in a time that does not tell how much of a prefix matched.
bool same_secret(std::string_view got, std::string_view want) {
  unsigned char diff = got.size() == want.size() ? 0 : 1;
  for (std::size_t i = 0; i < got.size(); ++i)
    diff |= static_cast<unsigned char>(got[i] ^ want[i % want.size()]);
  return diff == 0;
}

/// `v` with `"` and `\` escaped, for a Prometheus label.
std::string label(std::string_view v) {
  std::string out;
  for (const char c : v) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// A JSON array of the strings `write(out, id)` appends for the IDs of `v`.
template <class Write>
std::string json_array(std::span<const std::uint64_t> v, Write write) {
  std::string body;
  body.reserve(v.size() * 23 + 2);
  body += '[';
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i != 0) body += ',';
    write(body, v[i]);
  }
  body += ']';
  return body;
}

}  // namespace

service::service(const flakeid::registry& ids, std::string token, std::uint64_t max_count)
    : ids_(ids), token_(std::move(token)), bearer_("Bearer " + token_), max_count_(max_count) {
  for (const std::string& name : ids_.names()) stats_.emplace(name, std::make_unique<name_stats>());
}

http::handlers service::handlers() {
  return {[this](const http::request& req, http::response& res) { handle(req, res); },
          [this](int status, const std::string& why, http::response& res) {
            refuse(res, status, why);
          }};
}

void service::reply(http::response& res, int status, std::string body, const char* type) {
  res.status = status;
  res.body = std::move(body);
  res.type = type;
  for (std::size_t i = 0; i < codes.size(); ++i)
    if (codes[i] == status) by_code_[i].fetch_add(1, std::memory_order_relaxed);
}

void service::refuse(http::response& res, int status, const std::string& why) {
  reply(res, status, "flakeid-serve: " + why + "\n", "text/plain");
}

flakeid::id_source* service::source_or_404(std::string_view name, http::response& res) {
  flakeid::id_source* s = ids_.find(name);
  if (s == nullptr)
    refuse(res, 404, "no generator named '" + std::string(name.substr(0, 64)) + "' (see /healthz)");
  return s;
}

bool service::read_count(const http::request& req, http::response& res, std::uint64_t& count) {
  count = 0;
  const std::optional<std::string> param = req.param("count");
  if (!param) return true;
  const std::string& v = *param;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), count);
  if (v.empty() || ec != std::errc{} || end != v.data() + v.size() || count < 1 ||
      count > max_count_) {
    refuse(res, 400,
           "count '" + v.substr(0, 24) + "' is not a whole number in [1, " +
               std::to_string(max_count_) + "]");
    return false;
  }
  return true;
}

void service::handle(const http::request& req, http::response& res) {
  const std::string_view path = req.path;
  if (req.method != "GET") return refuse(res, 405, "only GET is served");
  if (path == "/healthz" || path == "/readyz") return health(res);
  if (!token_.empty() && !same_secret(req.authorization, bearer_))
    return refuse(res, 401, "a bearer token is required (Authorization: Bearer TOKEN)");
  if (path == "/metrics") return reply(res, 200, metrics(), "text/plain; version=0.0.4");
  constexpr std::string_view snowflake = "/api/snowflake/get/";
  constexpr std::string_view segment = "/api/segment/get/";
  constexpr std::string_view text_path = "/api/text/";
  constexpr std::string_view decode_path = "/api/decode/";
  if (path.starts_with(snowflake))
    return mint(path.substr(snowflake.size()), "snowflake", req, res);
  if (path.starts_with(segment)) return mint(path.substr(segment.size()), "segment", req, res);
  if (path.starts_with(text_path)) return text(path.substr(text_path.size()), req, res);
  if (path.starts_with(decode_path)) return decode(path.substr(decode_path.size()), req, res);
  refuse(res, 404, "no such path: " + std::string(path.substr(0, 80)));
}

void service::mint(std::string_view name, std::string_view want, const http::request& req,
                   http::response& res) {
  flakeid::id_source* s = source_or_404(name, res);
  if (s == nullptr) return;
  if (s->is_snowflake() != (want == "snowflake"))
    return refuse(res, 404,
                  "'" + std::string(name) + "' is a " + std::string(s->kind()) +
                      " generator: ask /api/" + (s->is_snowflake() ? "snowflake" : "segment") +
                      "/get/" + std::string(name));
  std::uint64_t count = 0;
  if (!read_count(req, res, count)) return;
  name_stats& st = *stats_.find(name)->second;
  try {
    if (count == 0) {
      const std::uint64_t id = s->next_id();
      st.served.fetch_add(1, std::memory_order_relaxed);
      return reply(res, 200, std::to_string(id), "text/plain");
    }
    std::vector<std::uint64_t> v(static_cast<std::size_t>(count));
    s->next_ids(v);
    st.served.fetch_add(count, std::memory_order_relaxed);
    reply(res, 200,
          json_array(v,
                     [](std::string& out, std::uint64_t id) {
                       char digits[24];
                       out += '"';
                       out.append(digits, std::to_chars(digits, digits + sizeof digits, id).ptr);
                       out += '"';
                     }),
          "application/json");
  } catch (const std::exception& e) {
    st.errors.fetch_add(1, std::memory_order_relaxed);
    refuse(res, 503, std::string(name) + " cannot mint now: " + std::string(plain(e.what())));
  }
}

void service::text(std::string_view name, const http::request& req, http::response& res) {
  flakeid::id_source* s = source_or_404(name, res);
  if (s == nullptr) return;
  std::uint64_t count = 0;
  if (!read_count(req, res, count)) return;
  name_stats& st = *stats_.find(name)->second;
  try {
    std::vector<std::uint64_t> v(static_cast<std::size_t>(count == 0 ? 1 : count));
    s->next_ids(v);
    st.served.fetch_add(v.size(), std::memory_order_relaxed);
    if (count == 0) return reply(res, 200, s->to_text(v.front()), "text/plain");
    reply(res, 200,
          json_array(v,
                     [s](std::string& out, std::uint64_t id) {
                       flakeid::detail::append_json_string(out, s->to_text(id));
                     }),
          "application/json");
  } catch (const std::exception& e) {
    st.errors.fetch_add(1, std::memory_order_relaxed);
    refuse(res, 503, std::string(name) + " cannot mint now: " + std::string(plain(e.what())));
  }
}

void service::decode(std::string_view rest, const http::request& req, http::response& res) {
  const auto slash = rest.find('/');
  if (slash == std::string_view::npos) return refuse(res, 404, "decode takes /api/decode/NAME/ID");
  flakeid::id_source* s = source_or_404(rest.substr(0, slash), res);
  if (s == nullptr) return;
  const std::string_view id_text = rest.substr(slash + 1);
  const std::string shown = "ID '" + std::string(id_text.substr(0, 40)) + "'";
  // The ID in decimal, or in the entry's text form: `?from=` says which, else whichever reads
  // (both, to different IDs: the caller must say).
  const std::optional<std::string> from = req.param("from");
  if (from && *from != "decimal" && *from != "text")
    return refuse(res, 400, "from '" + from->substr(0, 24) + "' is not decimal or text");
  std::optional<std::uint64_t> decimal;
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(id_text.data(), id_text.data() + id_text.size(), v);
  if (!id_text.empty() && ec == std::errc{} && end == id_text.data() + id_text.size()) decimal = v;
  std::optional<std::uint64_t> text;
  std::string text_error;
  try {
    text = s->from_text(id_text);
  } catch (const std::exception& e) {
    text_error = plain(e.what());
  }
  std::optional<std::uint64_t> id = from == "decimal" ? decimal : text;
  if (!from && decimal) {
    if (text && *text != *decimal)
      return refuse(res, 400,
                    shown + " reads as decimal " + std::to_string(*decimal) +
                        " and as the entry's text " + std::to_string(*text) +
                        ": add ?from=decimal or ?from=text");
    id = decimal;
  }
  if (!id) {
    if (from == "decimal")
      return refuse(res, 400, shown + " is not a decimal number in [0, 2^64-1]");
    return refuse(res, 400,
                  from ? text_error
                       : shown +
                             " is neither a decimal number in [0, 2^64-1] nor the entry's "
                             "text: " +
                             text_error);
  }
  try {
    reply(res, 200, s->describe(*id), "application/json");
  } catch (const std::exception& e) {
    refuse(res, 400, std::string(plain(e.what())));
  }
}

void service::health(http::response& res) {
  std::string unready;
  for (const std::string& name : ids_.names()) {
    const flakeid::source_health h = ids_.source(name).health();
    if (!h.ready) unready += name + ": " + std::string(plain(h.reason)) + "\n";
  }
  if (unready.empty()) return reply(res, 200, "ok\n", "text/plain");
  reply(res, 503, std::move(unready), "text/plain");
}

std::string service::metrics() const {
  std::string out;
  const auto family = [&](const char* metric, const char* type, const char* help) {
    out += std::string("# HELP ") + metric + " " + help + "\n# TYPE " + metric + " " + type + "\n";
  };
  family("flakeid_ids_served_total", "counter", "IDs handed out, by generator.");
  for (const auto& [name, st] : stats_)
    out += "flakeid_ids_served_total{name=\"" + label(name) + "\"} " +
           std::to_string(st->served.load(std::memory_order_relaxed)) + "\n";
  family("flakeid_errors_total", "counter", "Requests a generator could not answer, by generator.");
  for (const auto& [name, st] : stats_)
    out += "flakeid_errors_total{name=\"" + label(name) + "\"} " +
           std::to_string(st->errors.load(std::memory_order_relaxed)) + "\n";
  family("flakeid_requests_total", "counter", "Requests answered, by status code.");
  for (std::size_t i = 0; i < codes.size(); ++i)
    out += "flakeid_requests_total{code=\"" + std::to_string(codes[i]) + "\"} " +
           std::to_string(by_code_[i].load(std::memory_order_relaxed)) + "\n";
  family("flakeid_source_ready", "gauge", "1 while the generator can mint, else 0.");
  std::map<std::string, std::string> gauges;  // family -> its lines
  for (const auto& [name, st] : stats_) {
    const flakeid::id_source& s = ids_.source(name);
    out += "flakeid_source_ready{name=\"" + label(name) + "\"} " + (s.health().ready ? "1" : "0") +
           "\n";
    for (const auto& [gauge, value] : s.gauges()) {
      char number[32];
      (void)std::snprintf(number, sizeof number, "%.17g", value);
      gauges["flakeid_" + gauge] +=
          "flakeid_" + gauge + "{name=\"" + label(name) + "\"} " + number + "\n";
    }
  }
  for (const auto& [metric, lines] : gauges) {
    family(metric.c_str(), "gauge", "A generator's own figure (docs/serve.md).");
    out += lines;
  }
  return out;
}

}  // namespace flakeid_serve
