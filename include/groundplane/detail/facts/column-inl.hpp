// The bodies of detail/facts/column.hpp that compare JSON values: included by column.hpp in the
// header-only build, compiled once into groundplane::compiled otherwise (see
// detail/linkage.hpp), so a file that only holds a Table compiles no JSON comparison.
#pragma once

#include "groundplane/detail/facts/column.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace groundplane::detail {

GROUNDPLANE_INLINE bool same_json(const nlohmann::json& a, const nlohmann::json& b) { return a == b; }

GROUNDPLANE_INLINE std::optional<std::size_t> Column::find_equal(const nlohmann::json& v, std::size_t skip) const {
  const std::size_t n = tags.size();
  const auto scan = [&](auto&& same) -> std::optional<std::size_t> {
    for (std::size_t r = 0; r < n; ++r)
      if (r != skip && same(r)) return r;
    return std::nullopt;
  };
  if (v.is_number()) {
    const auto d = Decimal::from_json(v);
    if (!d || numbers == 0) return std::nullopt;
    if (scaled) {
      const auto w = scaled_word(*d);
      return scan([&](std::size_t r) {
        const CellTag t = tags[r];
        if (is_inline_number(t)) return w && words[r] == *w;
        return t == CellTag::big && number(r) == *d;
      });
    }
    return scan([&](std::size_t r) { return is_number(tags[r]) && number(r) == *d; });
  }
  if (v.is_string()) {
    const auto id = strings.find(v.get_ref<const std::string&>());
    if (!id) return std::nullopt;
    const auto word = static_cast<std::int64_t>(*id);
    return scan([&](std::size_t r) { return tags[r] == CellTag::string && words[r] == word; });
  }
  if (v.is_boolean()) {
    const CellTag want = v.get<bool>() ? CellTag::boolean_true : CellTag::boolean_false;
    return scan([&](std::size_t r) { return tags[r] == want; });
  }
  if (v.is_null()) return scan([&](std::size_t r) { return tags[r] == CellTag::null; });
  return scan([&](std::size_t r) {
    return tags[r] == CellTag::other && same_json(side[static_cast<std::size_t>(words[r])], v);
  });
}

}  // namespace groundplane::detail
