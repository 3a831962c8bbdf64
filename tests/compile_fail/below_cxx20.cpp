// Compiled as C++17, the umbrella stops at one line naming the standard it needs.
#include <groundplane/groundplane.hpp>

int main() {}
