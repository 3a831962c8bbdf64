// The body of finding.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/finding.hpp"

#include <string>

#include "groundplane/detail/text/escape.hpp"

namespace groundplane {

GROUNDPLANE_INLINE std::string Finding::message() const {
  std::string m = "unsupported claim";
  if (!field.empty()) m += " in field " + detail::quote(field);
  else if (!said.empty()) m += " in the output";
  if (said.empty() && field.empty()) m += ": nothing was submitted";
  else if (said.empty()) m += ": the output has no such field";
  else m += ": model said " + said;
  if (!supported.empty()) m += ", registered facts support " + supported;
  if (!fact.empty()) m += "\n| fact=" + detail::quote(fact);
  if (!provenance.empty()) m += "\n| provenance=" + provenance;
  if (!detail.empty()) m += "\n| " + detail;
  return m;
}

}  // namespace groundplane
