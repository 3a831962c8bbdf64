// groundplane::compiled: gp::JsonText's reader, instantiated once for nlohmann::json.
#include "groundplane/detail/linkage.hpp"
#ifndef GROUNDPLANE_COMPILED_LIB
#error "src/ is built by the groundplane::compiled target, which defines GROUNDPLANE_COMPILED_LIB"
#endif

#include "groundplane/json_text-inl.hpp"

template class groundplane::BasicJsonText<nlohmann::json>;
