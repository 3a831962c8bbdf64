// Fuzz gp::JsonSchema. The input is a schema's JSON text and a payload's JSON text,
// separated by a line "----" (without one, the same text is both). Beyond "no crash":
//   * compiling either builds a schema or throws gp::ConfigurationError, never anything
//     else, and the message is safe to show (escaped, capped);
//   * validate never throws, and answers the same twice;
//   * every issue is one line safe to show a model; there are at most max_issues, then one
//     "and N more"; a smaller cap keeps the same verdict and (unless the step budget cut
//     the check short) the same count and the same first issues;
//   * no issue ever holds a value from the payload: the payload is judged again with every
//     string value replaced by a planted secret and every number by a planted number, and
//     neither appears in any issue (keys are named by design, so they are left as they are).
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/json_schema.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {

constexpr std::string_view planted = "PLANTED-9f3a-SECRET";
constexpr double planted_number = 918273645.5;
constexpr std::string_view planted_digits = "918273645";

std::string shown(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

std::optional<gp::JsonSchema> compile(const json& schema) {
  try {
    return gp::JsonSchema(schema);
  } catch (const gp::ConfigurationError& e) {
    fuzz::check_error_message(e, "JsonSchema's ConfigurationError");
    return std::nullopt;
  } catch (const std::exception& e) {
    fuzz::violated(__FILE__, __LINE__, "compiling a JsonSchema threw something other than ConfigurationError",
                   std::string(e.what()) + "\nschema: " + shown(schema));
  }
}

std::vector<std::string> judge(const gp::JsonSchema& schema, const json& payload, std::size_t max) {
  try {
    return schema.validate(payload, max);
  } catch (const std::exception& e) {
    fuzz::violated(__FILE__, __LINE__, "JsonSchema::validate threw",
                   std::string(e.what()) + "\nschema: " + shown(schema.schema()) + "\npayload: " + shown(payload));
  }
}

bool is_more_line(const std::string& s) { return s.rfind("and ", 0) == 0 && s.size() > 9 && s.ends_with(" more"); }

bool cut_short(const std::vector<std::string>& issues) {
  for (const auto& i : issues)
    if (i.rfind("the input is too large to check", 0) == 0) return true;
  return false;
}

// How many issues there were in all: the entries, or the cap plus N of "and N more".
std::size_t total(const std::vector<std::string>& issues, std::size_t max) {
  if (issues.size() == max + 1 && is_more_line(issues.back()))
    return max + std::stoul(issues.back().substr(4, issues.back().size() - 9));
  return issues.size();
}

void check_issues(const std::vector<std::string>& issues, std::size_t max, const std::string& context) {
  FUZZ_CHECK(issues.size() <= max + 1, "at most max_issues issues and one 'and N more'", context);
  for (std::size_t i = 0; i < issues.size(); ++i) {
    const auto& issue = issues[i];
    fuzz::check_text(issue, false, "an issue");
    FUZZ_CHECK(!issue.empty() && issue.size() <= 2000, "an issue is a bounded line", issue);
    if (i == max) FUZZ_CHECK(is_more_line(issue), "the entry past the cap is 'and N more'", issue);
    else FUZZ_CHECK(!is_more_line(issue) || i + 1 == issues.size(), "'and N more' comes last", context);
  }
}

// The payload with every string value and every number replaced by planted ones;
// iterative, since a payload may nest as deep as the fuzz input allows.
json plant(const json& payload) {
  json out = payload;
  std::vector<json*> todo = {&out};
  while (!todo.empty()) {
    json* v = todo.back();
    todo.pop_back();
    if (v->is_string()) *v = std::string(planted);
    else if (v->is_number()) *v = planted_number;
    else if (v->is_structured())
      for (auto& child : *v) todo.push_back(&child);
  }
  return out;
}

// Only payloads a copy can take: copying a JSON value recurses.
bool shallow_enough(const json& v) {
  std::vector<std::pair<const json*, std::size_t>> todo = {{&v, 0}};
  while (!todo.empty()) {
    const auto [at, depth] = todo.back();
    todo.pop_back();
    if (depth > 300) return false;
    if (at->is_structured())
      for (const auto& child : *at) todo.emplace_back(&child, depth + 1);
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::size_t split = text.find("\n----\n");
  const std::string_view schema_text = split == std::string_view::npos ? text : text.substr(0, split);
  const std::string_view payload_text = split == std::string_view::npos ? text : text.substr(split + 6);
  const json schema_json = fuzz::parse_json(schema_text);
  const json payload = fuzz::parse_json(payload_text);
  if (schema_json.is_discarded() || payload.is_discarded()) return 0;
  const auto schema = compile(schema_json);
  if (!schema) return 0;
  const std::string context = "schema: " + shown(schema_json) + "\npayload: " + shown(payload);

  const auto issues = judge(*schema, payload, 10);
  check_issues(issues, 10, context);
  FUZZ_CHECK(judge(*schema, payload, 10) == issues, "validate answers the same twice", context);
  const auto few = judge(*schema, payload, 2);
  check_issues(few, 2, context);
  FUZZ_CHECK(few.empty() == issues.empty(), "a smaller cap keeps the verdict", context);
  if (!cut_short(issues) && !cut_short(few)) {
    FUZZ_CHECK(total(few, 2) == total(issues, 10), "a smaller cap keeps the count", context);
    for (std::size_t i = 0; i < few.size() && i < 2 && i < issues.size(); ++i)
      FUZZ_CHECK(few[i] == issues[i], "a smaller cap keeps the first issues", context);
  }

  if (!shallow_enough(payload)) return 0;
  // Keys are named by design: a planted marker already in the input proves nothing.
  if (text.find(planted) != std::string_view::npos || text.find(planted_digits) != std::string_view::npos) return 0;
  const json secret = plant(payload);
  for (const auto& issue : judge(*schema, secret, 50)) {
    FUZZ_CHECK(issue.find(planted) == std::string::npos, "an issue holds a string value from the payload",
               issue + "\n" + context);
    FUZZ_CHECK(issue.find(planted_digits) == std::string::npos, "an issue holds a number from the payload",
               issue + "\n" + context);
  }
  return 0;
}
