// A type that is not a check cannot be composed into a boundary.
#include <groundplane/groundplane.hpp>

struct NotACheck {
  int fact = 0;
};

int main() {
  groundplane::FactRegistry reg;
  groundplane::Boundary b(reg, {}, NotACheck{});
  b.submit({{"winner", "a"}});
}
