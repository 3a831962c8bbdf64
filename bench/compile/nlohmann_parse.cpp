// Compile-time baseline: what a program that only reads JSON with nlohmann pays — the
// header, one parse and one dump of the reply the probes check.
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

int main() {
  const std::string reply = R"({"winner": "north"})";
  const nlohmann::json j = nlohmann::json::parse(reply);
  std::cout << j.dump() << "\n";
}
