// Reading one JSON-RPC message's text for gp::mcp::Protocol, in time linear in its
// length and never by an exception a client can cause.
//
// Two passes, both linear: gp::JsonText (json_text.hpp) reads the text exactly — depth
// limit, duplicate keys, numbers past a double's range or past its stated bound, the
// byte offset of anything that is not one JSON value. Only a message that passes is
// read again into the nlohmann::ordered_json the protocol works on (key order is the
// caller's: a provenance's args, a table's columns), by a SAX builder that appends each
// member without searching the object — JsonText has already proven every key unique —
// so an object of a million members costs a million appends, not a million scans.
#pragma once

#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/json_pointer.hpp"
#include "groundplane/json_text.hpp"

namespace groundplane::mcp::detail {

// Builds an ordered_json from SAX events; objects are appended to, never searched.
class OrderedBuilder {
 public:
  using json = nlohmann::ordered_json;

  bool null() { return place(json(nullptr)); }
  bool boolean(bool b) { return place(json(b)); }
  bool number_integer(json::number_integer_t v) { return place(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return place(json(v)); }
  bool number_float(json::number_float_t v, const json::string_t&) { return place(json(v)); }
  bool string(json::string_t& s) { return place(json(std::move(s))); }
  bool binary(json::binary_t&) { return false; }
  bool start_object(std::size_t) { return open(json::object()); }
  bool start_array(std::size_t) { return open(json::array()); }
  bool key(json::string_t& k) {
    key_ = std::move(k);
    return true;
  }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  template <class Exception>
  bool parse_error(std::size_t, const std::string&, const Exception&) {
    return false;
  }

  json take() { return std::move(root_); }

 private:
  bool place(json v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return true;
    }
    json& parent = *stack_.back();
    if (parent.is_array()) {
      parent.get_ref<json::array_t&>().push_back(std::move(v));
    } else {
      // ordered_map is a vector of pairs: emplace_back on the vector skips the search.
      auto& members = static_cast<std::vector<std::pair<const std::string, json>>&>(parent.get_ref<json::object_t&>());
      members.emplace_back(std::move(key_), std::move(v));
    }
    return true;
  }
  json* last() {
    if (stack_.empty()) return &root_;
    json& parent = *stack_.back();
    if (parent.is_array()) return &parent.get_ref<json::array_t&>().back();
    return &parent.get_ref<json::object_t&>().back().second;
  }
  bool open(json v) {
    place(std::move(v));
    stack_.push_back(last());
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }

  json root_;
  std::vector<json*> stack_;
  std::string key_;
};

// Where a number that cannot be a double (past its range, or past JsonText's bound on
// digits and exponent) stands, if there is one.
struct WideNumber {
  std::string pointer;
  std::string text;
  bool out_of_range = false;  // past the bound, not only past a double
};

// Depth-first, with an explicit stack (the text may nest up to max_depth).
inline std::optional<WideNumber> find_wide_number(const JsonText& doc) {
  struct Item {
    const nlohmann::json* node;
    std::string pointer;
  };
  std::vector<Item> todo{{&doc.value(), ""}};
  while (!todo.empty()) {
    Item item = std::move(todo.back());
    todo.pop_back();
    const nlohmann::json& node = *item.node;
    if (node.is_object()) {
      for (auto it = node.begin(); it != node.end(); ++it)
        todo.push_back({&it.value(), item.pointer + "/" + groundplane::detail::pointer_token(it.key())});
    } else if (node.is_array()) {
      for (std::size_t i = 0; i < node.size(); ++i) todo.push_back({&node[i], item.pointer + "/" + std::to_string(i)});
    } else if (node.is_null() || node.is_number_float()) {
      const NumberText* t = doc.number_text(node);
      if (t && (t->out_of_range || !std::isfinite(node.get<double>())))
        return WideNumber{std::move(item.pointer), t->text, t->out_of_range};
    }
  }
  return std::nullopt;
}

}  // namespace groundplane::mcp::detail
