// Prose does not compile: a string literal is not a structured output.
#include <groundplane/groundplane.hpp>

int main() {
  groundplane::FactRegistry reg;
  reg.record_ranking("r", {{"a", 1}}, {.key = "k", .tool = "t"});
  groundplane::Boundary b(reg, {"r"}, groundplane::superlative{.fact = "r"});
  b.submit("The best campaign was north.");
}
