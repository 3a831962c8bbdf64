// The command line as groundplane's programs read it, the same in each: options in any
// order, before or after the other arguments, each as `--name value` or `--name=value`,
// each given once unless it is repeatable; `--` ends the options (every argument after
// it is an argument, even one that starts with a dash); --help (-h) prints the usage to
// standard output and --version the program's version, both exit 0; a mistake is one
// line naming it, then one pointing to --help, on standard error, exit 2.
#pragma once

#include <algorithm>
#include <functional>
#include <iostream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "groundplane/detail/text/escape.hpp"
#include "groundplane/version.hpp"

namespace groundplane::tools {

inline constexpr int exit_usage = 2;

// What an option takes after it.
enum class Takes { nothing, text, count };
struct Flag {
  std::string_view name;
  Takes takes;
  bool repeatable = false;  // given twice, a flag that is not is a mistake: which one was meant?
};

// A positive decimal number of at most 18 digits; nullopt for anything else.
inline std::optional<unsigned long long> count(std::string_view text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  unsigned long long n = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<unsigned long long>(c - '0');
  }
  return n;
}

// A mistake in the command line: what it is, then where to look.
inline int usage_error(std::string_view program, const std::string& message) {
  std::cerr << program << ": " << message << "\nTry '" << program << " --help' for the options.\n";
  return exit_usage;
}

// Reads argv[1..argc): each option by `flags` (handed to `option` with its value, "" for
// one that takes nothing), every other argument to `argument`, which returns "" to take
// it or the message refusing it. Returns the exit code when the program is to stop here
// (--help, --version, a mistake), nullopt to go on.
inline std::optional<int> read_command_line(
    std::string_view program, std::string_view usage, std::span<const Flag> flags, int argc, char** argv,
    const std::function<void(std::string_view flag, const std::string& value)>& option,
    const std::function<std::string(std::string_view argument)>& argument) {
  std::vector<std::string_view> given;
  bool options_ended = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (!options_ended && arg == "--") {
      options_ended = true;
      continue;
    }
    const std::string_view name = arg.substr(0, arg.rfind("--", 0) == 0 ? arg.find('=') : std::string_view::npos);
    const auto flag = options_ended
                          ? flags.end()
                          : std::find_if(flags.begin(), flags.end(), [&](const Flag& f) { return f.name == name; });
    if (flag == flags.end()) {
      if (!options_ended && !arg.empty() && arg.front() == '-')
        return usage_error(program, "unknown option '" + detail::escape(arg) + "'");
      if (std::string refused = argument(arg); !refused.empty()) return usage_error(program, refused);
      continue;
    }
    if (!flag->repeatable && std::find(given.begin(), given.end(), flag->name) != given.end())
      return usage_error(program, std::string(flag->name) + " is given twice");
    given.push_back(flag->name);
    const bool inline_value = name.size() < arg.size();
    if (flag->takes == Takes::nothing && inline_value)
      return usage_error(program, std::string(name) + " takes no value");
    if (name == "--help" || name == "-h") {
      std::cout << usage;
      return 0;
    }
    if (name == "--version") {
      std::cout << program << " " << version_string << "\n";
      return 0;
    }
    std::string value;
    if (inline_value) value = std::string(arg.substr(name.size() + 1));
    else if (flag->takes != Takes::nothing && i + 1 < argc) value = argv[++i];
    else if (flag->takes != Takes::nothing) return usage_error(program, std::string(name) + " needs a value");
    if (flag->takes == Takes::count && count(value).value_or(0) == 0)
      return usage_error(program, std::string(name) + " needs a positive number, got '" + detail::escape(value) + "'");
    option(name, value);
  }
  return std::nullopt;
}

}  // namespace groundplane::tools
