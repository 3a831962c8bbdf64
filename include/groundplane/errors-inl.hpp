// The bodies of errors.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/errors.hpp"

#include <string>
#include <utility>
#include <vector>

#include "groundplane/detail/text/escape.hpp"

namespace groundplane {
namespace detail {

GROUNDPLANE_INLINE std::string join_messages(const std::vector<Finding>& findings) {
  std::string out;
  for (const auto& f : findings) {
    if (!out.empty()) out += "\n\n";
    out += f.message();
  }
  return out;
}

GROUNDPLANE_INLINE std::string unregistered_message(const std::string& name, const std::vector<std::string>& known,
                                                    std::string_view context) {
  std::string out(context);
  out += "no fact named " + quote(name) + " is recorded";
  if (known.empty()) return out + " (the registry is empty)";
  out += "; recorded: ";
  for (std::size_t i = 0; i < known.size() && i < 20; ++i) out += (i > 0 ? ", " : "") + quote(known[i]);
  if (known.size() > 20) out += " and " + std::to_string(known.size() - 20) + " more";
  return out;
}

}  // namespace detail

GROUNDPLANE_INLINE UnregisteredFact::UnregisteredFact(std::string name, std::vector<std::string> known,
                                                      std::string_view context)
    : ConfigurationError(detail::unregistered_message(name, known, context)),
      name_(std::move(name)),
      known_(std::move(known)) {}

GROUNDPLANE_INLINE UnsupportedClaim::UnsupportedClaim(std::vector<Finding> findings)
    : Error(detail::join_messages(findings)), findings_(std::move(findings)) {}

}  // namespace groundplane
