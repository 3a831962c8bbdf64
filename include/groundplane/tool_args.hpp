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

#include "groundplane/detail/json/json_depth.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/render.hpp"

namespace groundplane {

// One argument of the call: its name and its value. A value that is itself an object is
// an nlohmann::json, so its own keys are sorted; the order kept is the arguments'.
struct ToolArg {
  // A constructor rather than an aggregate: an nlohmann::json cannot become one by
  // itself, so `.args = {j}` is the object j, not a one-element list.
  ToolArg(std::string_view name, nlohmann::json v) : key(name), value(std::move(v)) {}
  std::string key;
  nlohmann::json value;
  // Out of line, not defaulted: a defaulted one is checked where the class is defined, and
  // resolving nlohmann::json's operator== there cost clang 0.1 s in every file that records a fact.
  friend bool operator==(const ToolArg& a, const ToolArg& b);
};

class ToolArgs {
 public:
  using value_type = ToolArg;
  using const_iterator = std::vector<ToolArg>::const_iterator;

  ToolArgs() = default;
  ToolArgs(std::initializer_list<ToolArg> args) : items_(args) {}

  // Any nlohmann::basic_json object: its members in its own order (ordered_json keeps the
  // caller's; json's are sorted), each value as an nlohmann::json. Anything else, null
  // included, is not a call's arguments: recording a fact with it throws InvalidFact
  // naming what it is (not_an_object()).
  template <class BasicJson>
  requires nlohmann::detail::is_basic_json<BasicJson>::value ToolArgs(
      const BasicJson& object) {  // implicit on purpose: `.args = j` reads as it did
    if (!object.is_object()) {
      not_an_object_ = detail::type_name(object);
      return;
    }
    // Each value measured before it is copied (a copy recurses once per level): one past
    // detail::max_value_depth is kept as null and recording a fact with it is refused.
    items_.reserve(object.size());
    for (auto it = object.begin(); it != object.end(); ++it) {
      if (detail::nested_deeper_than(it.value(), detail::max_value_depth)) {
        items_.emplace_back(it.key(), nlohmann::json());
        too_deep_ = true;
        continue;
      }
      items_.emplace_back(it.key(), nlohmann::json(it.value()));
    }
  }

  const_iterator begin() const noexcept { return items_.begin(); }
  const_iterator end() const noexcept { return items_.end(); }
  std::size_t size() const noexcept { return items_.size(); }
  bool empty() const noexcept { return items_.empty(); }

  // The value given for key, or nullptr.
  const nlohmann::json* find(std::string_view key) const noexcept {
    const auto it = std::find_if(items_.begin(), items_.end(), [&](const ToolArg& a) { return a.key == key; });
    return it == items_.end() ? nullptr : &it->value;
  }

  // What was given where an object of arguments belongs ("an array", say), or "" when
  // these are arguments: recording a fact refuses them.
  std::string_view not_an_object() const noexcept { return not_an_object_; }
  // An argument was nested past detail::max_value_depth and not copied (recording a fact
  // with these arguments throws InvalidFact).
  bool too_deep() const noexcept { return too_deep_; }

  // As a JSON object (nlohmann::json: its keys sorted).
  nlohmann::json to_json() const {
    nlohmann::json out;
    write_to(out);
    return out;
  }
  // Into any basic_json object (an ordered_json keeps the order). `j = args` comes here.
  template <class BasicJson>
  void write_to(BasicJson& j) const {
    j = BasicJson::object();
    for (const auto& [key, value] : items_) j[key] = value;
  }
  friend bool operator==(const ToolArgs&, const ToolArgs&) = default;

 private:
  std::vector<ToolArg> items_;
  std::string_view not_an_object_;  // static text from detail::type_name
  bool too_deep_ = false;
};

}  // namespace groundplane

// `j = args` for any basic_json (an ordered_json keeps the order). Only to_json: with a
// from_json, every basic_json's implicit conversion operator would compete with
// ToolArgs's converting constructor, and `.args = j` would be ambiguous.
template <>
struct nlohmann::adl_serializer<groundplane::ToolArgs> {
  template <class BasicJson>
  static void to_json(BasicJson& j, const groundplane::ToolArgs& args) {
    args.write_to(j);
  }
};

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/tool_args-inl.hpp"
#endif
