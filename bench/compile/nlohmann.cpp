// Compile-time probe: the same translation unit with only nlohmann/json.hpp.
#include <nlohmann/json.hpp>

int main() { return 0; }
