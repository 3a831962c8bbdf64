// Fuzz gp::check_from_json with arbitrary JSON specs. Beyond "no crash":
//   * a spec either builds a check or throws gp::ConfigurationError (a developer's
//     mistake), never anything else, and the message is safe to show (escaped, capped);
//   * check_to_json is its inverse: the spec written out builds the same check again;
//   * a built check validates against the fixed registry or throws ConfigurationError,
//     and when it validates, try_submit on canned outputs never throws and every finding
//     is safe to show.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fixture.hpp"
#include "fuzz_support.hpp"
#include "groundplane/any_check.hpp"
#include "groundplane/boundary.hpp"
#include "groundplane/check_from_json.hpp"
#include "groundplane/errors.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {

std::string shown(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

std::optional<gp::AnyCheck> build(const json& spec) {
  try {
    return gp::check_from_json(spec);
  } catch (const gp::ConfigurationError& e) {
    fuzz::check_error_message(e, "check_from_json's ConfigurationError");
    return std::nullopt;
  } catch (const std::exception& e) {
    fuzz::violated(__FILE__, __LINE__, "check_from_json threw something other than ConfigurationError",
                   std::string(e.what()) + "\nspec: " + shown(spec));
  }
}

// Outputs a model might give: right, wrong, hostile, and wrongly typed.
const std::vector<json>& canned_outputs() {
  static const std::vector<json> outs = [] {
    const auto& h = fuzz::hostile_strings();
    std::vector<json> v;
    v.push_back(json::object());
    v.push_back({{"winner", "harbour"},
                 {"score", 0.0455},
                 {"top", {"harbour", "north", h[0]}},
                 {"total", 246.85},
                 {"field", 1},
                 {"a", "harbour"},
                 {"b", "north"},
                 {"by", 10.4},
                 {"performed", {"cart.add"}}});
    json hostile = json::object();
    for (const char* k : {"winner", "score", "top", "total", "field", "a", "b", "by", "performed", "region", "amount",
                          "status", "mentioned", "count", "value"})
      hostile[k] = h[static_cast<std::size_t>(k[0]) % h.size()];
    v.push_back(hostile);
    // Integer ids (the fixture's stores), a text id that impersonates one, a signed lead.
    v.push_back(
        {{"winner", 102}, {"rank", 1}, {"top", {104, "101"}}, {"total", 1550}, {"a", 102}, {"b", 101.0}, {"by", -50}});
    v.push_back({{"winner", 7},
                 {"top", "north"},
                 {"total", "lots"},
                 {"a", nullptr},
                 {"by", {{"x", h[4]}}},
                 {"performed", {1, h[1]}}});
    return v;
  }();
  return outs;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const json spec = fuzz::parse_json(text);
  if (spec.is_discarded()) return 0;
  const auto check = build(spec);
  if (!check) return 0;

  // The spec written out builds the same check, and writes out the same again.
  json written;
  try {
    written = gp::check_to_json(*check);
  } catch (const std::exception& e) {
    fuzz::violated(__FILE__, __LINE__, "check_to_json failed on a check check_from_json built", e.what());
  }
  FUZZ_CHECK(written.value("check", "") == spec["check"].get<std::string>(), "check_to_json names the same check",
             shown(written));
  FUZZ_CHECK(check->kind() == spec["check"].get<std::string>(), "AnyCheck::kind() is the spec's check", shown(spec));
  FUZZ_CHECK(check->name().starts_with(std::string(check->kind()) + "("),
             "AnyCheck::name() is the check's kind with its configuration", shown(spec));
  const auto rebuilt = build(written);
  FUZZ_CHECK(rebuilt.has_value(), "check_from_json accepts what check_to_json wrote", shown(written));
  FUZZ_CHECK(gp::check_to_json(*rebuilt) == written, "check_from_json(check_to_json(c)) is c", shown(written));

  const gp::FactRegistry& reg = fuzz::fixture_registry();
  try {
    gp::Boundary boundary(reg, fuzz::fixture_fact_names(), *check);
    (void)boundary.schema();
    for (const json& out : canned_outputs()) {
      gp::Verdict v;
      try {
        v = boundary.try_submit(out);
      } catch (const std::exception& e) {
        fuzz::violated(__FILE__, __LINE__, "a validated check threw from verify",
                       std::string(e.what()) + "\nspec: " + shown(spec));
      }
      fuzz::check_verdict(v);
    }
  } catch (const gp::ConfigurationError& e) {
    fuzz::check_error_message(e, "a check's validate() message");
  } catch (const std::exception& e) {
    fuzz::violated(__FILE__, __LINE__, "validating a check threw something other than ConfigurationError",
                   std::string(e.what()) + "\nspec: " + shown(spec));
  }
  return 0;
}
