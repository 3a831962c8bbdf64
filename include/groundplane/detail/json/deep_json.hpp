// JSON that a model or a client sent, walked with an explicit stack and never by
// recursion: such a value may be nested a million levels deep, and nlohmann's copy, dump
// and comparison recurse once per level (a few hundred bytes of stack each; a worker
// thread's stack is often 256 KiB). What the session keeps of a value is bounded by
// depth first (max_payload_depth, action.hpp); these are what reads it before that.
//
//   json_extent(v, 64)        how deep it nests and how long its compact text is, and
//                             where it first passes the bound
//   copy_json<To>(v)          a copy, or a conversion between nlohmann::json and
//                             nlohmann::ordered_json
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/json/json_pointer.hpp"
#include "groundplane/detail/text/escape.hpp"

namespace groundplane::detail {

// How far a JSON value reaches.
struct JsonExtent {
  std::size_t depth = 0;    // arrays and objects nested at its deepest: 0 for a scalar, 1 for [1, 2]
  std::uint64_t bytes = 0;  // its compact text (dump() without ensure_ascii, bytes that are not UTF-8 dropped)
  // Where it first nests past the bound, in the JSON Schema validator's words
  // ("'/a/0' is nested more than 64 levels deep"); empty when it does not.
  std::string too_deep = {};
};

// The length of a string's JSON text, quotes included, as nlohmann writes it: ", \ and
// the named controls in two bytes, other control bytes as \u00XX, and a byte that is not
// UTF-8 dropped (dump's error_handler_t::ignore). Plain ASCII is taken eight bytes at a
// time: a refused megabyte payload is mostly that.
inline std::uint64_t json_string_bytes(std::string_view s) noexcept {
  constexpr std::uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
  // Whether some byte of `w` is below 0x20, or equals `b` (exact for the question "any?").
  const auto below_space = [](std::uint64_t w) { return ((w - ones * 0x20) & ~w & high) != 0; };
  const auto holds = [](std::uint64_t w, unsigned char b) {
    const std::uint64_t x = w ^ (ones * b);
    return ((x - ones) & ~x & high) != 0;
  };
  std::uint64_t n = 2;
  const char* p = s.data();
  const char* const end = p + s.size();
  while (p < end) {
    if (end - p >= 8) {
      std::uint64_t w = 0;
      std::memcpy(&w, p, sizeof w);
      if ((w & high) == 0 && !below_space(w) && !holds(w, '"') && !holds(w, '\\')) {
        n += 8;
        p += 8;
        continue;
      }
    }
    const auto c = static_cast<unsigned char>(*p);
    if (c >= 0x80) {
      const auto at = static_cast<std::size_t>(p - s.data());
      const std::size_t k = utf8_sequence_length(s, at);
      if (k == 0) {  // not UTF-8: nlohmann's decoder drops the bytes it rejects
        const std::string rest(s.substr(at));
        return n + nlohmann::json(rest).dump(-1, ' ', false, nlohmann::json::error_handler_t::ignore).size() - 2;
      }
      n += k;
      p += k;
      continue;
    }
    switch (c) {
      case '"':
      case '\\':
      case '\b':
      case '\f':
      case '\n':
      case '\r':
      case '\t':
        n += 2;
        break;
      default:
        n += c < 0x20 ? 6 : 1;
    }
    ++p;
  }
  return n;
}

// A scalar's compact text length: a string counted, any other made by dump(), which does
// not recurse into a scalar.
template <class Json>
inline std::uint64_t json_scalar_bytes(const Json& s) {
  return s.is_string() ? json_string_bytes(s.template get_ref<const typename Json::string_t&>())
                       : s.dump(-1, ' ', false, Json::error_handler_t::ignore).size();
}

// A container json_extent is walking: an array by index, an object by its iterator. Each
// frame stands at the child being walked, so the stack spells where the walk is.
template <class Json>
struct JsonExtentFrame {
  const Json* value;
  std::size_t index = 0;
  typename Json::object_t::const_iterator key{};
};

// Enters container `c`: its brackets counted, the depth reached noted.
template <class Json>
inline void open_extent_frame(std::vector<JsonExtentFrame<Json>>& stack, const Json& c, JsonExtent& out) {
  JsonExtentFrame<Json> f{&c};
  if (c.is_object()) f.key = c.template get_ref<const typename Json::object_t&>().begin();
  stack.push_back(f);
  out.bytes += 2;  // [] or {}
  if (stack.size() > out.depth) out.depth = stack.size();
}

// The frame's next child, the comma and key before it counted into `bytes`; nullptr when
// the container has no more.
template <class Json>
inline const Json* next_extent_child(JsonExtentFrame<Json>& f, std::uint64_t& bytes) {
  if (f.value->is_array()) {
    const auto& items = f.value->template get_ref<const typename Json::array_t&>();
    if (f.index >= items.size()) return nullptr;
    if (f.index > 0) ++bytes;  // ,
    return &items[f.index++];
  }
  const auto& members = f.value->template get_ref<const typename Json::object_t&>();
  if (f.key == members.end()) return nullptr;
  if (f.key != members.begin()) ++bytes;
  bytes += json_string_bytes(f.key->first) + 1;  // "key":
  return &(f.key++)->second;
}

// "'/a/0' is nested more than 64 levels deep", for the child the walk stands at.
template <class Json>
inline std::string too_deep_message(const std::vector<JsonExtentFrame<Json>>& stack, std::size_t max_depth) {
  std::string pointer;
  for (const JsonExtentFrame<Json>& parent : stack) {
    pointer += '/';
    if (parent.value->is_object())
      pointer += pointer_token(std::string_view(std::prev(parent.key)->first).substr(0, 400));
    else pointer += std::to_string(parent.index - 1);
  }
  return quote(pointer) + " is nested more than " + std::to_string(max_depth) + " levels deep";
}

// One pass over `v`: its depth, its compact text's length, and where it first nests past
// `max_depth` containers. Linear in its size, and needs no stack for its depth.
template <class Json>
JsonExtent json_extent(const Json& v, std::size_t max_depth) {
  JsonExtent out;
  if (!v.is_structured()) {
    out.bytes += json_scalar_bytes(v);
    return out;
  }
  std::vector<JsonExtentFrame<Json>> stack;
  open_extent_frame(stack, v, out);
  while (!stack.empty()) {
    const Json* child = next_extent_child(stack.back(), out.bytes);
    if (child == nullptr) {
      stack.pop_back();
    } else if (!child->is_structured()) {
      out.bytes += json_scalar_bytes(*child);
    } else {
      if (stack.size() >= max_depth && out.too_deep.empty()) out.too_deep = too_deep_message(stack, max_depth);
      open_extent_frame(stack, *child, out);
    }
  }
  return out;
}

// A deep copy of `v` as a `To` (nlohmann::json or nlohmann::ordered_json), built
// container by container from the top: the copy of a value nested a million deep needs
// no more stack than the copy of a flat one.
template <class To, class From>
To copy_json(const From& v) {
  if (!v.is_structured()) return To(v);  // a scalar's copy does not recurse
  struct Frame {
    const From* from;
    To* to;
    std::size_t index = 0;
    typename From::object_t::const_iterator key{};
  };
  To out = v.is_array() ? To::array() : To::object();
  const auto start = [](const From& from, To& to) {
    Frame f{&from, &to};
    if (from.is_array()) to.template get_ref<typename To::array_t&>().reserve(from.size());
    else f.key = from.template get_ref<const typename From::object_t&>().begin();
    return f;
  };
  std::vector<Frame> stack{start(v, out)};
  while (!stack.empty()) {
    Frame& f = stack.back();
    const From* child = nullptr;
    To* into = nullptr;
    // A container's members are added only while it is on top of the stack: the copy
    // being filled never moves under a frame below it.
    if (f.from->is_array()) {
      const auto& items = f.from->template get_ref<const typename From::array_t&>();
      if (f.index < items.size()) {
        child = &items[f.index++];
        auto& copied = f.to->template get_ref<typename To::array_t&>();
        copied.push_back(child->is_structured() ? (child->is_array() ? To::array() : To::object()) : To(*child));
        into = &copied.back();
      }
    } else if (f.key != f.from->template get_ref<const typename From::object_t&>().end()) {
      child = &f.key->second;
      auto& copied = f.to->template get_ref<typename To::object_t&>();
      into = &copied[f.key->first];
      if (child->is_structured()) *into = child->is_array() ? To::array() : To::object();
      else *into = To(*child);
      ++f.key;
    }
    if (child == nullptr) {
      stack.pop_back();
      continue;
    }
    if (child->is_structured()) stack.push_back(start(*child, *into));
  }
  return out;
}

}  // namespace groundplane::detail
