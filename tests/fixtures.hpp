// What many test files share: the seed's ranking, and what any message built from
// hostile input must look like.
#pragma once

#include "catch2_compat.hpp"

#include <algorithm>
#include <cstddef>
#include <string>

#include <groundplane/registry.hpp>

namespace groundplane::testing {

// The seed's headline data: harbour leads on ctr, north is second, delta third.
inline const Ranking& record_campaign_ctr(FactRegistry& reg) {
  return reg.record_ranking(
      "campaign_ctr", {{"north", 0.0412}, {"harbour", 0.0455}, {"delta", 0.0301}},
      {.key = "ctr", .tool = "warehouse.query", .args = {{"table", "campaign_daily"}, {"window", "7d"}}});
}

// A finding's message, whatever it was built from, is the four lines of API.md A4 with
// no raw control byte and no line longer than a few capped values can make it.
inline void check_message_is_contained(const std::string& m) {
  std::size_t lines = 1;
  for (char c : m) lines += c == '\n';
  CHECK(lines == 4);
  for (const char ch : m) {
    const auto c = static_cast<unsigned char>(ch);
    CHECK((c >= 0x20 || c == '\n'));
  }
  std::size_t start = 0;
  while (start < m.size()) {
    const std::size_t end = std::min(m.find('\n', start), m.size());
    CHECK(end - start < 700);
    start = end + 1;
  }
}

}  // namespace groundplane::testing
