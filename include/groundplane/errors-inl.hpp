// The bodies of errors.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "groundplane/errors.hpp"

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

}  // namespace detail

GROUNDPLANE_INLINE UnsupportedClaim::UnsupportedClaim(std::vector<Finding> findings)
    : Error(detail::join_messages(findings)), findings_(std::move(findings)) {}

}  // namespace groundplane
