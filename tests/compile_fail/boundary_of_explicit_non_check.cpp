// Spelling the check type out does not get a non-check past the Check concept.
#include <groundplane/groundplane.hpp>

struct NotACheck {
  int fact = 0;
};

int main() {
  groundplane::FactRegistry reg;
  groundplane::Boundary<NotACheck> b(reg, {}, NotACheck{});
  b.submit({{"winner", "a"}});
}
