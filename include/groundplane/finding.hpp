// gp::Finding — one unsupported claim, and the message a person reads at 2am.
#pragma once

#include <string>

#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/text/escape.hpp"

namespace groundplane {

// One rejected claim. `said` and `supported` are already rendered (escaped, quoted,
// capped); `field`, `fact` and `provenance` are plain and escaped by message().
struct Finding {
  std::string check;       // "superlative"
  std::string field;       // "winner"; "" when the claim is the output as a whole
  std::string said;        // rendered value the model gave; "" when the field is missing
  std::string supported;   // rendered value the facts support; "" when none can be named
  std::string fact;        // fact name; "" when no single fact is involved
  std::string provenance;  // Provenance::render() of that fact
  std::string detail;      // the explanation line

  // unsupported claim in field 'winner': model said 'north', registered facts support 'harbour'
  // | fact='campaign_ctr'
  // | provenance=warehouse.query(table='campaign_daily', window='7d')
  // | computed argmax on 'ctr' is 'harbour' (0.0455); 'north' ranked #2 at 0.0412
  //
  // Lines whose content is empty are left out rather than printed blank.
  std::string message() const;

  friend bool operator==(const Finding&, const Finding&) = default;
};

}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/finding-inl.hpp"
#endif
