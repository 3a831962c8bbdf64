// gp::Entity — what a ranking entry, a table key or a domain member is: a string or an
// integer, kept as the code gave it.
//
//   reg.record_ranking("stores", {{101, 250.0}, {102, 200.0}}, {.key = "sales", .tool = "db"});
//
// Every check compares entities by JSON type and value: the model's 101 names entity
// 101; "101", 101.0 and true do not. An integer id is not text, and a string that reads
// as one is not an id.
#pragma once

#include <concepts>
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <nlohmann/json_fwd.hpp>

#include "groundplane/detail/linkage.hpp"

namespace groundplane {

namespace detail {
template <class T>
concept entity_integer =
    std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char> && !std::is_same_v<T, signed char> &&
    !std::is_same_v<T, unsigned char> && !std::is_same_v<T, wchar_t> && !std::is_same_v<T, char8_t> &&
    !std::is_same_v<T, char16_t> && !std::is_same_v<T, char32_t>;
}  // namespace detail

class Entity {
 public:
  Entity() = default;  // the empty string
  Entity(std::string name) : text_(std::move(name)) {}
  Entity(const char* name) : text_(name) {}
  Entity(std::string_view name) : text_(name) {}
  template <detail::entity_integer I>
  Entity(I id) : text_(std::to_string(id)), integer_(true) {}

  bool is_string() const noexcept { return !integer_; }
  bool is_integer() const noexcept { return integer_; }
  // The string, or the integer's decimal digits ("101", "-7").
  const std::string& text() const noexcept { return text_; }

  // A string as a JSON string, an integer as a JSON integer.
  nlohmann::json to_json() const;
  // The entity a JSON value names: a string, or an integer (a JSON number without a
  // fraction part or exponent: 101, never 101.0). Anything else names none.
  static std::optional<Entity> from_json(const nlohmann::json& value);

  // As a message shows it: 'north' (quoted and escaped, like every string), 101 bare.
  std::string render() const;

  friend bool operator==(const Entity&, const Entity&) = default;
  friend auto operator<=>(const Entity&, const Entity&) = default;

 private:
  std::string text_;
  bool integer_ = false;
};

// ADL hook for nlohmann::json: `nlohmann::json j = entity;`.
void to_json(nlohmann::json& j, const Entity& e);

// The rendered form ('north', 101), for test output and logs.
std::ostream& operator<<(std::ostream& out, const Entity& e);

}  // namespace groundplane

namespace std {
template <>
struct hash<groundplane::Entity> {
  std::size_t operator()(const groundplane::Entity& e) const noexcept {
    return std::hash<std::string>{}(e.text()) ^ static_cast<std::size_t>(e.is_integer());
  }
};
}  // namespace std

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/entity-inl.hpp"
#endif
