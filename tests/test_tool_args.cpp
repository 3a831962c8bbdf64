// gp::ToolArgs: a fact's provenance keeps the call's arguments in the order the caller
// wrote them, without a second JSON type, and refuses arguments that are not a call's.
#include "catch2_compat.hpp"

#include <string>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "groundplane/errors.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/tool_args.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {
std::string invalid_fact_message(const auto& record) {
  try {
    record();
  } catch (const gp::InvalidFact& e) {
    return e.what();
  }
  return "(no InvalidFact)";
}
}  // namespace

TEST_CASE("provenance renders the arguments in the order the caller wrote them, not sorted") {
  gp::FactRegistry reg;
  const auto& f = reg.record_fact("spend", 12,
                                  {.tool = "warehouse.query", .args = {{"window", "7d"}, {"table", "campaign_daily"}}});
  // nlohmann::json would have sorted these: table before window.
  CHECK(f.provenance().render() == "warehouse.query(window='7d', table='campaign_daily')");
  REQUIRE(f.provenance().args.size() == 2);
  CHECK(f.provenance().args.begin()->key == "window");
}

TEST_CASE("an ordered_json object keeps its order and a json object its sorted one") {
  nlohmann::ordered_json ordered;
  ordered["z"] = 1;
  ordered["a"] = "x";
  const gp::ToolArgs from_ordered = ordered;
  CHECK(gp::Provenance{"t", from_ordered}.render() == "t(z=1, a='x')");

  json sorted;
  sorted["z"] = 1;
  sorted["a"] = "x";
  const gp::ToolArgs from_json = sorted;
  CHECK(gp::Provenance{"t", from_json}.render() == "t(a='x', z=1)");
  CHECK(from_json.not_an_object().empty());
}

TEST_CASE("a JSON value that is not an object, null included, is refused naming what it is") {
  gp::FactRegistry reg;
  CHECK(invalid_fact_message([&] { reg.record_fact("f", 1, {.tool = "t", .args = json::array({1})}); }) ==
        "cannot record fact 'f': provenance args must be a JSON object of the call's arguments, got an array");
  CHECK(invalid_fact_message([&] { reg.record_fact("f", 1, {.tool = "t", .args = json("7d")}); }) ==
        "cannot record fact 'f': provenance args must be a JSON object of the call's arguments, got a string");
  CHECK(invalid_fact_message([&] { reg.record_fact("f", 1, {.tool = "t", .args = json(nullptr)}); }) ==
        "cannot record fact 'f': provenance args must be a JSON object of the call's arguments, got null");
  CHECK_FALSE(reg.contains("f"));
  // No arguments at all is the default, {}.
  CHECK(reg.record_fact("g", 1, {.tool = "t"}).provenance().render() == "t()");
}

TEST_CASE("one JSON object in braces is that object, not a list of one argument") {
  gp::FactRegistry reg;
  const nlohmann::ordered_json given{{"z", 1}, {"a", 2}};
  const auto& f = reg.record_fact("f", 1, {.tool = "t", .args = {given}});
  CHECK(f.provenance().render() == "t(z=1, a=2)");
}

TEST_CASE("an argument given twice is refused rather than one of its values kept") {
  gp::FactRegistry reg;
  // ordered_json's initializer list would have kept one of the two silently.
  CHECK(invalid_fact_message([&] {
          reg.record_fact("f", 1, {.tool = "t", .args = {{"window", "7d"}, {"table", "x"}, {"window", "30d"}}});
        }) == "cannot record fact 'f': provenance args name the argument 'window' twice");
  // The repeated name reaches the message escaped, like every rendered string.
  CHECK(invalid_fact_message([&] {
          reg.record_fact("f", 1, {.tool = "t", .args = {{"a\n'", 1}, {"a\n'", 2}}});
        }) == "cannot record fact 'f': provenance args name the argument 'a\\n\\'' twice");
  CHECK_FALSE(reg.contains("f"));
}

TEST_CASE("the arguments read back by name and convert to either JSON type in their order") {
  // A key held in a std::string or a std::string_view is a key as a literal is.
  const std::string table = "table";
  const std::string_view limit = "limit";
  CHECK(gp::ToolArgs{{table, "orders"}, {limit, 2}} == gp::ToolArgs{{"table", "orders"}, {"limit", 2}});
  const gp::ToolArgs args = {{"table", "orders"}, {"limit", 2}, {"filter", {{"region", "north"}}}};
  REQUIRE(args.find("limit") != nullptr);
  CHECK(*args.find("limit") == json(2));
  CHECK(args.find("filter")->at("region") == "north");
  CHECK(args.find("missing") == nullptr);

  const json as_json = args;
  CHECK(as_json == json{{"table", "orders"}, {"limit", 2}, {"filter", {{"region", "north"}}}});
  CHECK(args.to_json() == as_json);
  const nlohmann::ordered_json as_ordered = args;
  CHECK(as_ordered.dump() == R"({"table":"orders","limit":2,"filter":{"region":"north"}})");

  CHECK(args == gp::ToolArgs{{"table", "orders"}, {"limit", 2}, {"filter", {{"region", "north"}}}});
  CHECK_FALSE(args == gp::ToolArgs{{"limit", 2}, {"table", "orders"}, {"filter", {{"region", "north"}}}});
}

TEST_CASE("two argument lists with the same keys in the same order differ when one value does") {
  const gp::ToolArgs args = {{"table", "orders"}, {"limit", 2}, {"filter", {{"region", "north"}}}};
  CHECK_FALSE(args == gp::ToolArgs{{"table", "orders"}, {"limit", 3}, {"filter", {{"region", "north"}}}});
  CHECK_FALSE(args == gp::ToolArgs{{"table", "orders"}, {"limit", 2}, {"filter", {{"region", "south"}}}});
  CHECK_FALSE(args == gp::ToolArgs{{"table", "orders"}, {"limit", "2"}, {"filter", {{"region", "north"}}}});
  CHECK(gp::ToolArg("limit", 2) == gp::ToolArg("limit", 2));
  CHECK_FALSE(gp::ToolArg("limit", 2) == gp::ToolArg("limits", 2));
}

TEST_CASE("a file that records a fact needs only nlohmann::json: ToolArgs holds no ordered_json") {
  STATIC_REQUIRE(std::is_same_v<decltype(gp::ToolArg::value), json>);
  STATIC_REQUIRE(std::is_same_v<decltype(gp::Provenance::args), gp::ToolArgs>);
  STATIC_REQUIRE(std::is_same_v<decltype(gp::FactOptions::args), gp::ToolArgs>);
}
