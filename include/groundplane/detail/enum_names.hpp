// One name table per enum a check or a fact is configured with. Each enum's header
// specializes detail::enum_names<E> right below the enum; to_string(E), check_from_json /
// check_to_json and the MCP tools' input schemas all read that one table, so a name is
// written once.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace groundplane::detail {

// Specialized next to each enum: static constexpr std::pair<std::string_view, E> values[].
template <class E>
struct enum_names;

template <class E>
concept named_enum = requires {
  enum_names<E>::values;
};

// The name of a value ("higher_is_better"); the first name when the value is not listed.
template <named_enum E>
constexpr std::string_view enum_name(E value) noexcept {
  for (const auto& [name, v] : enum_names<E>::values)
    if (v == value) return name;
  return enum_names<E>::values[0].first;
}

// The value a name stands for; nullopt for a name not in the table.
template <named_enum E>
constexpr std::optional<E> enum_from_name(std::string_view name) noexcept {
  for (const auto& [n, v] : enum_names<E>::values)
    if (n == name) return v;
  return std::nullopt;
}

// 'best', 'worst': the valid names, for a message.
template <named_enum E>
std::string enum_name_list() {
  std::string out;
  for (const auto& [name, v] : enum_names<E>::values) {
    out += out.empty() ? "'" : ", '";
    out += name;
    out += '\'';
  }
  return out;
}

}  // namespace groundplane::detail
