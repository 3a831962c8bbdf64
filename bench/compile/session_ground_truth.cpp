// Compile-time probe (c): the app's side alone — a session, one action fired, and the
// ground-truth block rendered.
#include <iostream>

#include <groundplane/session.hpp>

namespace gp = groundplane;

int main() {
  gp::Session s;
  s.declare("cart.add", {.does = "Adds the item to the cart."});
  s.fire("cart.add");
  std::cout << s.ground_truth().text << "\n";
}
