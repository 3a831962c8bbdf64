// A second unit of the precompiled-header consumer: the app's half, through the same
// precompiled groundplane.hpp as consumer.cpp's claims, in one program.
#include <groundplane/groundplane.hpp>

namespace gp = groundplane;

// Not called: the program links it beside consumer.cpp, which is what is checked.
int second_unit_fires();
int second_unit_fires() {
  gp::Session session;
  session.declare("cart.add", {.does = "Adds the item to the cart."});
  return session.fire("cart.add").ok ? 0 : 1;
}
