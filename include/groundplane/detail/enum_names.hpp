// One table per enum the session stores or renders: each enumerator, the name it is
// rendered and exported under, and the number a stored ledger row holds for it. A row
// never holds an enumerator's position in its declaration: the table's number is the
// ledger format's (docs/ledger-format.md), so the enum may be reordered or grow freely.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

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
constexpr std::string_view name_of(E value) noexcept {
  for (const auto& e : enum_table<E>)
    if (e.value == value) return e.name;
  return {};
}

template <class E>
constexpr std::int64_t stored_of(E value) noexcept {
  for (const auto& e : enum_table<E>)
    if (e.value == value) return e.stored;
  return -1;
}

// The enumerator a stored number stands for; nullopt for a number the table does not
// have (a row this release did not write).
template <class E>
constexpr std::optional<E> from_stored(std::int64_t stored) noexcept {
  for (const auto& e : enum_table<E>)
    if (e.stored >= 0 && e.stored == stored) return e.value;
  return std::nullopt;
}

template <class E>
constexpr std::optional<E> from_name(std::string_view name) noexcept {
  for (const auto& e : enum_table<E>)
    if (e.name == name) return e.value;
  return std::nullopt;
}

}  // namespace groundplane::detail
