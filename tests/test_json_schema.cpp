#include <groundplane/json_schema.hpp>

#include <nlohmann/json.hpp>
#include "catch2_compat.hpp"

namespace gp = groundplane;
using nlohmann::json;

TEST_CASE("A payload that fits the schema has no issues") {
  const gp::JsonSchema s(json{{"type", "object"}});
  CHECK(s.validate(json::object()).empty());
}
