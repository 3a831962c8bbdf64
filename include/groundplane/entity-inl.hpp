// The bodies of entity.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/entity.hpp"

#include <charconv>
#include <cstdint>
#include <ostream>

#include <nlohmann/json.hpp>

#include "groundplane/detail/text/escape.hpp"

namespace groundplane {

GROUNDPLANE_INLINE nlohmann::json Entity::to_json() const {
  if (!integer_) return text_;
  if (!text_.empty() && text_.front() == '-') {
    std::int64_t v = 0;
    std::from_chars(text_.data(), text_.data() + text_.size(), v);
    return v;
  }
  std::uint64_t v = 0;
  std::from_chars(text_.data(), text_.data() + text_.size(), v);
  return v;
}

GROUNDPLANE_INLINE std::optional<Entity> Entity::from_json(const nlohmann::json& value) {
  if (value.is_string()) return Entity(value.get_ref<const std::string&>());
  if (value.is_number_unsigned()) return Entity(value.get<std::uint64_t>());
  if (value.is_number_integer()) return Entity(value.get<std::int64_t>());
  return std::nullopt;
}

GROUNDPLANE_INLINE std::string Entity::render() const { return integer_ ? text_ : detail::quote(text_); }

GROUNDPLANE_INLINE void to_json(nlohmann::json& j, const Entity& e) { j = e.to_json(); }

GROUNDPLANE_INLINE std::ostream& operator<<(std::ostream& out, const Entity& e) { return out << e.render(); }

}  // namespace groundplane
