// The library's version, kept in step with project(VERSION) in CMakeLists.txt.
#pragma once

#include "groundplane/detail/language_standard.hpp"

#define GROUNDPLANE_VERSION_MAJOR 0
#define GROUNDPLANE_VERSION_MINOR 4
#define GROUNDPLANE_VERSION_PATCH 0

namespace groundplane {
inline constexpr const char* version_string = "0.4.0";
}  // namespace groundplane
