// A boundary that checks nothing accepts anything: zero checks is a compile error.
#include <groundplane/groundplane.hpp>

int main() {
  groundplane::FactRegistry reg;
  groundplane::Boundary<> b(reg, {});
  b.submit({{"winner", "a"}});
}
