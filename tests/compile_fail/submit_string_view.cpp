// Prose does not compile: nor does a std::string_view.
#include <string_view>

#include <groundplane/groundplane.hpp>

int main() {
  groundplane::FactRegistry reg;
  reg.record_ranking("r", {{"a", 1}}, {.key = "k", .tool = "t"});
  groundplane::Boundary b(reg, {"r"}, groundplane::superlative{.fact = "r"});
  std::string_view prose = "north";
  (void)b.try_submit(prose);
}
