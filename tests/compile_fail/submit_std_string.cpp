// Prose does not compile: handing a boundary a std::string is a compile error.
#include <string>

#include <groundplane/groundplane.hpp>

int main() {
  groundplane::FactRegistry reg;
  reg.record_ranking("r", {{"a", 1}}, {.key = "k", .tool = "t"});
  groundplane::Boundary b(reg, {"r"}, groundplane::superlative{.fact = "r"});
  const std::string prose = "The best campaign was north.";
  b.submit(prose);
}
