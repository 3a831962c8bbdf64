// Validating a payload against a compiled JSON Schema (detail/json/json_schema_node.hpp):
// the checker one validation runs, where its issues go, and the shape of the payload
// measured before it (how many values, where it first nests too deep). JsonSchema::validate
// is its entry point; the bodies are in json_schema_check-inl.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/json/json_schema_node.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/json_schema.hpp"

namespace groundplane::detail {

// Where one validation's issues go: the first `max` texts, and how many there were.
struct IssueSink {
  std::vector<std::string> texts;
  std::size_t count = 0;
  std::size_t max = JsonSchema::default_max_issues;
  bool explain = true;  // anyOf/oneOf add what their nearest alternative lacks
};

// One validation: a payload against a compiled schema, collecting issues into a sink (or
// only deciding, with no sink: the subschemas of anyOf, oneOf, not, if and contains).
class SchemaChecker {
 public:
  SchemaChecker(const CompiledSchema& schema, std::size_t budget) : s_(schema), budget_(budget) {}

  bool check(std::size_t n, const nlohmann::json& v);
  void set_sink(IssueSink* sink) noexcept { sink_ = sink; }
  bool exhausted() const noexcept { return exhausted_; }

 private:
  struct Step {
    const std::string* key;  // null for an array index
    std::size_t index;
  };
  class Descend {
   public:
    Descend(std::vector<Step>& path, Step step) : path_(path) { path_.push_back(step); }
    ~Descend() { path_.pop_back(); }
    Descend(const Descend&) = delete;
    Descend& operator=(const Descend&) = delete;

   private:
    std::vector<Step>& path_;
  };

  bool step(std::size_t n = 1) {
    steps_ += n;
    if (steps_ > budget_) exhausted_ = true;
    return !exhausted_;
  }
  bool collecting() const noexcept { return sink_ != nullptr && !exhausted_; }
  template <class Text>
  void issue(Text&& text) {
    if (!collecting()) return;
    ++sink_->count;
    if (sink_->texts.size() < sink_->max) sink_->texts.push_back(text());
  }
  bool passes(std::size_t n, const nlohmann::json& v) {
    IssueSink* saved = sink_;
    sink_ = nullptr;
    const bool ok = check(n, v);
    sink_ = saved;
    return ok;
  }
  std::size_t depth_left() const noexcept {
    return path_.size() >= JsonSchema::max_depth ? 0 : JsonSchema::max_depth - path_.size();
  }

  std::string place(const std::string* extra_key = nullptr) const;
  bool check_number(const SchemaNode& node, const nlohmann::json& v);
  bool check_string(const SchemaNode& node, const nlohmann::json& v);
  bool check_array(const SchemaNode& node, const nlohmann::json& v);
  bool check_unique(const nlohmann::json& v);
  bool check_object(const SchemaNode& node, const nlohmann::json& v);
  bool check_key(const SchemaNode& node, const std::string& key, const nlohmann::json& value);
  bool check_applicators(const SchemaNode& node, const nlohmann::json& v, std::uint8_t t);
  bool check_alternatives(const std::vector<std::size_t>& alternatives, bool exactly_one, const nlohmann::json& v,
                          std::uint8_t t);
  bool in_enum(const SchemaNode& node, const nlohmann::json& v, std::uint8_t t);

  // json_value_hash of `v`, `depth` levels down, each array and object hashed once per
  // validation however many uniqueItems and enum checks above it ask (a node always
  // stands at the same depth, so its hash is always cut at the same level): a payload
  // with a uniqueItems at each of sixty levels is hashed in one pass, not sixty.
  std::size_t hash_of(const nlohmann::json& v, std::size_t depth);

  // A key as a JSON string, for propertyNames: one value reused (a string has no keys,
  // so no propertyNames check runs inside another).
  const nlohmann::json& key_value(const std::string& key) {
    key_value_.get_ref<std::string&>() = key;
    return key_value_;
  }

  const CompiledSchema& s_;
  nlohmann::json key_value_ = nlohmann::json::string_t();
  std::size_t budget_;
  std::size_t steps_ = 0;
  bool exhausted_ = false;
  IssueSink* sink_ = nullptr;
  std::vector<Step> path_;
  std::unordered_map<const nlohmann::json*, std::size_t> hashes_;  // hash_of's arrays and objects
};

// Values in the payload, and where the first array/object nested max_depth deep stands;
// iterative, so a payload nested a million levels deep is walked without recursion.
struct PayloadShape {
  std::size_t values = 0;
  std::string too_deep;  // the place, or empty
};

PayloadShape payload_shape(const nlohmann::json& payload);

}  // namespace groundplane::detail

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/detail/json/json_schema_check-inl.hpp"
#endif
