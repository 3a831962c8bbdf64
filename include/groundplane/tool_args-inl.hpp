// The body of tool_args.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/tool_args.hpp"

#include <nlohmann/json.hpp>

namespace groundplane {

GROUNDPLANE_INLINE bool operator==(const ToolArg& a, const ToolArg& b) { return a.key == b.key && a.value == b.value; }

}  // namespace groundplane
