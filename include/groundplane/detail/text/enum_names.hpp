// One table per named enum: each enumerator, the name it is written, read and rendered
// under (to_string, check_from_json / check_to_json, the MCP tools' input schemas, a
// ledger export), and, for an enum a ledger row stores, the number the row holds. A row
// never holds an enumerator's position in its declaration: the table's number is the
// ledger format's (docs/ledger-format.md), so an enum may be reordered or grow freely.
// Each table is specialized right below its enum, so a name is written once.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

namespace groundplane::detail {

template <class E>
struct EnumName {
  E value{};
  std::string_view name{};
  std::int64_t stored = -1;  // what a stored row holds; -1: never stored
};

// The table of each enum, specialized beside the enum it names.
template <class E>
inline constexpr std::span<const EnumName<E>> enum_table{};

template <class E>
concept named_enum = std::is_enum_v<E> &&(enum_table<E>.size() > 0);

// The name of a value ("higher_is_better"); empty for a value the table lacks.
template <named_enum E>
constexpr std::string_view name_of(E value) noexcept {
  for (const auto& e : enum_table<E>)
    if (e.value == value) return e.name;
  return {};
}

// The value a name stands for; nullopt for a name not in the table.
template <named_enum E>
constexpr std::optional<E> from_name(std::string_view name) noexcept {
  for (const auto& e : enum_table<E>)
    if (e.name == name) return e.value;
  return std::nullopt;
}

// 'best', 'worst': the valid names, for a message.
template <named_enum E>
std::string name_list_of() {
  std::string out;
  for (const auto& e : enum_table<E>) {
    out += out.empty() ? "'" : ", '";
    out += e.name;
    out += '\'';
  }
  return out;
}

template <named_enum E>
constexpr std::int64_t stored_of(E value) noexcept {
  for (const auto& e : enum_table<E>)
    if (e.value == value) return e.stored;
  return -1;
}

// The enumerator a stored number stands for; nullopt for a number the table does not
// have (a row this release did not write).
template <named_enum E>
constexpr std::optional<E> from_stored(std::int64_t stored) noexcept {
  for (const auto& e : enum_table<E>)
    if (e.stored >= 0 && e.stored == stored) return e.value;
  return std::nullopt;
}

}  // namespace groundplane::detail
