// gp::check_from_json — build any of the eight checks from a JSON spec, for checks chosen
// by configuration or by a remote caller (the MCP `check` tool):
//
//   gp::check_from_json({{"check", "aggregate_reconciles"}, {"fact", "orders"},
//                        {"field", "total"}, {"op", "sum"}, {"column", "amount"}});
//
// Members are the C++ member names; enums by their names ("best", "accept_any", "sum",
// "percentage_points", "as_stated"); `tolerance` as {"absolute": n, "relative": n};
// row_integrity's `fields` as an object {output_field: column}. A member left out keeps
// its C++ default; members without one (a check's fact, say) are required.
//
// A bad spec is a developer's mistake, so it is a ConfigurationError that names the
// problem: not an object, an unknown check (listing the known ones), an unknown member
// (listing that check's members), a wrong type (expected vs got), a bad enum name
// (listing the valid ones). Whether the facts exist is checked later, when the Boundary
// validates the check, like any other.
//
// gp::check_to_json is the inverse, with every member written out.
#pragma once

#include <nlohmann/json.hpp>

#include "groundplane/any_check.hpp"
#include "groundplane/detail/linkage.hpp"

namespace groundplane {

// One of the eight checks from {"check": "<name>", <members>…}; ConfigurationError
// naming the problem for a spec that does not describe one. (Header-only, the eight
// readers are compiled only in a file that calls it: see detail/linkage.hpp.)
GROUNDPLANE_ON_CALL AnyCheck check_from_json(const nlohmann::json& spec);

// The spec check_from_json reads back into the same check, every member written out.
// A check that is not one of the eight has no spec: ConfigurationError.
GROUNDPLANE_ON_CALL nlohmann::json check_to_json(const AnyCheck& check);

namespace detail {
// The JSON Schema of a spec (the MCP check tool's inputSchema for each check): "check"
// naming one of the checks, and every member a check reads, typed and described with the
// checks that read it. Made from the same member tables check_from_json reads.
GROUNDPLANE_ON_CALL nlohmann::ordered_json check_spec_schema();
}  // namespace detail

}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/check_from_json-inl.hpp"
#endif
