// A model call that returns prose does not compile with gp::reask: only structured
// output (a JSON value) can be checked.
#include <optional>
#include <string>

#include <groundplane/groundplane.hpp>

namespace gp = groundplane;

int main() {
  gp::FactRegistry reg;
  reg.record_ranking("r", {{"a", 1}}, {.key = "k", .tool = "t"});
  const auto prose = [](const nlohmann::json&, const std::optional<std::string>&) {
    return std::string("harbour won, clearly");
  };
  (void)gp::reask(reg, {"r"}, prose, 3, gp::superlative{.fact = "r"});
}
