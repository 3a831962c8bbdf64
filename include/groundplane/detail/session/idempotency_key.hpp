// A fire's idempotency key as a session holds it: 96 random bits drawn for the fire
// (detail/session/key_source.hpp), kept in its row's 12 bytes, and written as 24 lowercase
// hexadecimal digits wherever it is shown or stored (FireContext, Transition, the `ik`
// member of a transition row). All twelve bytes zero is no key: a fire recorded before 0.4
// has none, and a key drawn is never all zero.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace groundplane::detail {

struct IdempotencyKey {
  static constexpr std::size_t size = 12;  // 96 bits
  std::array<unsigned char, size> bytes{};

  bool empty() const noexcept {
    for (const unsigned char b : bytes)
      if (b != 0) return false;
    return true;
  }
  // The 24 hexadecimal digits; "" for no key.
  std::string hex() const {
    if (empty()) return {};
    static constexpr char digits[] = "0123456789abcdef";
    std::string out(2 * size, '0');
    for (std::size_t i = 0; i < size; ++i) {
      out[2 * i] = digits[bytes[i] >> 4];
      out[2 * i + 1] = digits[bytes[i] & 0x0f];
    }
    return out;
  }
  // What hex() writes, read back: "" is no key; anything but 24 lowercase hexadecimal
  // digits (or all zero) is no key this release writes.
  static std::optional<IdempotencyKey> parse(std::string_view text) {
    IdempotencyKey k;
    if (text.empty()) return k;
    if (text.size() != 2 * size) return std::nullopt;
    const auto digit = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      return -1;
    };
    for (std::size_t i = 0; i < size; ++i) {
      const int hi = digit(text[2 * i]), lo = digit(text[2 * i + 1]);
      if (hi < 0 || lo < 0) return std::nullopt;
      k.bytes[i] = static_cast<unsigned char>(hi * 16 + lo);
    }
    if (k.empty()) return std::nullopt;
    return k;
  }
  friend bool operator==(const IdempotencyKey&, const IdempotencyKey&) = default;
};

}  // namespace groundplane::detail
