// A model call whose result is neither JSON nor JSON text does not compile with
// gp::reask: a number, say, is no answer that fields can be read from. (Prose returned
// as a std::string is JSON text that fails to read: a structured_output finding the
// model is re-asked about — test_submit_json and test_reask cover it.)
#include <optional>
#include <string>

#include <groundplane/groundplane.hpp>

namespace gp = groundplane;

int main() {
  gp::FactRegistry reg;
  reg.record_ranking("r", {{"a", 1}}, {.key = "k", .tool = "t"});
  const auto number = [](const nlohmann::json&, const std::optional<std::string>&) { return 42; };
  (void)gp::reask(reg, {"r"}, number, 3, gp::superlative{.fact = "r"});
}
