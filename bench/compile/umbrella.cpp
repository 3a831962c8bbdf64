// Compile-time probe: a translation unit that includes the whole library.
#include <groundplane/groundplane.hpp>

int main() { return 0; }
