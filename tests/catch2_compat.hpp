// The tests' one way in to Catch2, 3 or 2.13: Catch2 3 splits its header and renames
// the substring matcher, 2.13 (Debian 12) has one header. tests/CMakeLists.txt says which
// one it found in GROUNDPLANE_CATCH2_MAJOR.
#pragma once

#ifndef GROUNDPLANE_CATCH2_MAJOR
#if __has_include(<catch2/catch_test_macros.hpp>)
#define GROUNDPLANE_CATCH2_MAJOR 3
#else
#define GROUNDPLANE_CATCH2_MAJOR 2
#endif
#endif

#if GROUNDPLANE_CATCH2_MAJOR >= 3
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <string>
#include <utility>

namespace Catch {
// The 2.x spellings the tests use, on Catch2 3's matchers.
inline Matchers::StringContainsMatcher Contains(std::string substring, CaseSensitive sensitivity = CaseSensitive::Yes) {
  return Matchers::ContainsSubstring(std::move(substring), sensitivity);
}
using Matchers::StartsWith;
}  // namespace Catch
#else
#include <catch2/catch.hpp>
#endif
