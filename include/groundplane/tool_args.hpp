// gp::ToolArgs — the arguments of the tool call that produced a fact, in the order the
// caller wrote them.
//
//   reg.record_ranking("campaign_ctr", scores,
//                      {.key = "ctr", .tool = "warehouse.query",
//                       .args = {{"table", "campaign_daily"}, {"window", "7d"}}});
//   // renders: warehouse.query(table='campaign_daily', window='7d')
//
// A list of (key, value) pairs rather than an nlohmann::ordered_json: the order is kept by
// the list, so a file that records a fact compiles one JSON type (nlohmann::json), not two.
// An nlohmann::ordered_json or nlohmann::json object converts, keeping its own order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace groundplane {

class ToolArgs {
 public:
  using value_type = std::pair<std::string, nlohmann::json>;
  using const_iterator = std::vector<value_type>::const_iterator;

  ToolArgs() = default;
  ToolArgs(std::initializer_list<value_type> args) : items_(args) {}

  // Any nlohmann::basic_json: an object's members in its own order (ordered_json keeps
  // the caller's; json's are sorted), each value as an nlohmann::json. Null is no
  // arguments. Anything else is not a call's arguments: recording a fact with it throws
  // InvalidFact naming the JSON type (not_an_object()).
  template <class BasicJson>
  requires nlohmann::detail::is_basic_json<BasicJson>::value ToolArgs(
      const BasicJson& object) {  // implicit on purpose: `.args = j` reads as it did
    if (object.is_object()) {
      items_.reserve(object.size());
      for (auto it = object.begin(); it != object.end(); ++it)
        items_.emplace_back(it.key(), nlohmann::json(it.value()));
    } else if (!object.is_null()) {
      not_an_object_ = object.type_name();
    }
  }

  const_iterator begin() const noexcept { return items_.begin(); }
  const_iterator end() const noexcept { return items_.end(); }
  std::size_t size() const noexcept { return items_.size(); }
  bool empty() const noexcept { return items_.empty(); }

  // The value given for key, or nullptr.
  const nlohmann::json* find(std::string_view key) const noexcept {
    const auto it = std::find_if(items_.begin(), items_.end(), [&](const value_type& kv) { return kv.first == key; });
    return it == items_.end() ? nullptr : &it->second;
  }

  // The JSON type given where an object of arguments belongs ("array", say), or "" when
  // these are arguments: recording a fact refuses them.
  const std::string& not_an_object() const noexcept { return not_an_object_; }

  // As a JSON object (nlohmann::json: its keys sorted).
  nlohmann::json to_json() const {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, value] : items_) out[key] = value;
    return out;
  }
  friend bool operator==(const ToolArgs&, const ToolArgs&) = default;

 private:
  std::vector<value_type> items_;
  std::string not_an_object_;  // the JSON type given where an object belongs
};

}  // namespace groundplane

// `j = args` for any basic_json (an ordered_json keeps the order). Only to_json: with a
// from_json, every basic_json's implicit conversion operator would compete with
// ToolArgs's converting constructor, and `.args = j` would be ambiguous.
template <>
struct nlohmann::adl_serializer<groundplane::ToolArgs> {
  template <class BasicJson>
  static void to_json(BasicJson& j, const groundplane::ToolArgs& args) {
    j = BasicJson::object();
    for (const auto& [key, value] : args) j[key] = value;
  }
};
