// Runtime composition keeps the compile-time guarantee: an AnyCheck cannot be made
// from something that is not a Check.
#include <groundplane/groundplane.hpp>

struct NotACheck {
  int fact = 0;
};

int main() {
  const groundplane::AnyCheck check(NotACheck{});
  (void)check;
}
