// Reading one JSON-RPC message's text for gp::mcp::Protocol, in time linear in its
// length, in one pass, and never by an exception a client can cause.
//
// MessageBuilder builds the nlohmann::ordered_json the protocol works on (key order is
// the caller's: a ranking's scores break ties in it, a table's columns keep it) straight
// from nlohmann's SAX parser: each member is appended, never searched for, and a repeated
// key is caught by a linear scan of a small object or a hash set of a large one. A line
// is read once. Only a line the one pass stops on — not JSON, nested too deep, a
// repeated key, a number past the bound or a double's range (the builder measures each
// number that could be) — is read again: json_prescan then finds its wide numbers, and
// gp::JsonText (json_text.hpp) reports what is wrong (the byte offset, the key's JSON
// Pointer, the number as written) for the protocol's error to name.
//
// The builder also notes the bytes of /params/arguments/output, so that `check` reads
// the model's answer exactly (gp::JsonText over those bytes alone: "0.50" keeps its two
// decimals, 1e400 its value) without reading the rest of the line a second time. Inside
// that output a repeated key does not stop it: the model's answer is judged, and a key it
// wrote twice is a finding there, as submit_json makes it (the builder keeps the first
// value; check reads the bytes). output_repeats_key() says one was seen, for a protocol
// to refuse it where the message is not a check call after all.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/json/json_pointer.hpp"
#include "groundplane/json_text.hpp"

namespace groundplane::mcp::detail {

// A char iterator that tells where nlohmann's lexer has read to: the builder learns from
// it where a value's bytes begin and end (the SAX events carry no offsets).
class CountingIterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  CountingIterator() = default;
  CountingIterator(const char* at, const char** read_to) : at_(at), read_to_(read_to) {}
  reference operator*() const { return *at_; }
  CountingIterator& operator++() {
    *read_to_ = ++at_;
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const CountingIterator& other) const { return at_ == other.at_; }

 private:
  const char* at_ = nullptr;
  const char** read_to_ = nullptr;
};

// Builds an ordered_json from one pass of SAX events; stops (returns false) at a
// repeated key outside /params/arguments/output or a parse error, which the caller then
// reports from gp::JsonText.
class MessageBuilder {
 public:
  using json = nlohmann::ordered_json;

  // `bounds`: the builder stops at a container nested past max_depth and at a number past
  // the bound or a double's range (what json_prescan finds), so that a line it reads whole
  // is one the prescan would have passed, and only the rest pay for a second reading.
  MessageBuilder(std::string_view text, const JsonTextOptions& bounds) : text_(text), bounds_(bounds) {
    frames_.reserve(8);  // a tools/call nests 5 deep: one allocation, not one per doubling
  }

  // Reads `text` (the constructor's, or a copy of it with its wide numbers blanked out,
  // of the same length); true when it is one JSON value with every key once in its object.
  bool read(std::string_view text) {
    read_from_ = read_to_ = text.data();
    const CountingIterator first(text.data(), &read_to_);
    const CountingIterator last(text.data() + text.size(), &read_to_);
    return json::sax_parse(first, last, this) && !stopped_;
  }

  json take() { return std::move(root_); }
  // The message built so far, before take().
  const json& peek() const noexcept { return root_; }
  // The bytes of /params/arguments/output (in the text given to the constructor), when
  // it is an object or an array.
  std::optional<std::string_view> output_text() const { return output_; }
  // Whether a key appears twice inside /params/arguments/output.
  bool output_repeats_key() const noexcept { return output_repeats_; }

  // nlohmann's SAX interface
  bool null() { return place(json(nullptr)); }
  bool boolean(bool b) { return place(json(b)); }
  bool number_integer(json::number_integer_t v) { return place(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return place(json(v)); }
  bool number_float(json::number_float_t v, const json::string_t& written) {
    return may_be_wide(written) ? stop() : place(json(v));
  }
  bool string(json::string_t& s) { return place(json(std::move(s))); }
  bool binary(json::binary_t&) { return false; }
  bool start_object(std::size_t) { return open(json::object()); }
  bool start_array(std::size_t) { return open(json::array()); }
  bool key(json::string_t& k) {
    Frame& f = frames_.back();
    const auto& members = object_members(*f.node);
    if (f.keys) {
      if (!f.keys->insert(k).second) return repeated(f);
    } else {
      for (const auto& m : members)
        if (m.first == k) return repeated(f);
      if (members.size() >= small_object) {  // from here on a scan per key would be quadratic
        f.keys = std::make_unique<std::unordered_set<std::string>>();
        f.keys->reserve(2 * members.size());
        for (const auto& m : members) f.keys->insert(m.first);
        f.keys->insert(k);
      }
    }
    key_ = std::move(k);
    return true;
  }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  template <class Exception>
  bool parse_error(std::size_t, const std::string&, const Exception&) {
    return false;
  }

 private:
  static constexpr std::size_t small_object = 16;
  static constexpr std::array<std::string_view, 3> output_path{"params", "arguments", "output"};

  using Members = std::vector<std::pair<const std::string, json>>;
  static Members& object_members(json& object) {
    // ordered_map is a vector of pairs: appending to the vector skips ordered_map's search.
    return static_cast<Members&>(object.get_ref<json::object_t&>());
  }

  struct Frame {
    json* node = nullptr;
    bool on_output_path = false;  // the container at frames_.size() levels along output_path
    bool is_output = false;
    bool in_output = false;                                 // the output or inside it
    std::unique_ptr<std::unordered_set<std::string>> keys;  // a large object's keys
    std::unique_ptr<json> dropped;                          // a repeated key's container, not kept
  };

  bool stop() {
    stopped_ = true;
    return false;
  }
  // A key seen before in its object: the end of the reading, except inside the output,
  // where the value that follows is read and dropped.
  bool repeated(const Frame& f) {
    if (!f.in_output) return stop();
    output_repeats_ = true;
    drop_next_ = true;
    return true;
  }

  // Only a number with an exponent or of more than 16 characters can be past the bound or
  // a double's range (16 digits lead at most at 10^15); those are measured. nlohmann's
  // token holds the C locale's decimal point in place of the '.' the text had (',' under
  // de_DE, say), so the point is put back before the number is measured as JSON.
  bool may_be_wide(std::string_view written) const {
    if (written.size() <= 16 && written.find_first_of("eE") == std::string_view::npos) return false;
    std::string number(written);
    for (char& c : number)
      if (!groundplane::detail::json_digit(c) && c != '-' && c != '+' && c != 'e' && c != 'E') c = '.';
    const auto shape = groundplane::detail::json_number_shape(number, bounds_);
    return shape.well_formed && (shape.out_of_range || shape.past_double);
  }

  json* place_node(json v) {
    if (frames_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    json& parent = *frames_.back().node;
    if (parent.is_array()) {
      auto& items = parent.get_ref<json::array_t&>();
      items.push_back(std::move(v));
      return &items.back();
    }
    Members& members = object_members(parent);
    if (members.size() == members.capacity()) grow(members);
    members.emplace_back(std::move(key_), std::move(v));
    return &members.back().second;
  }
  // A member's key is const, so its move may throw and the vector's own growth copies
  // every member already placed, deeply (a record_table's rows, when a member follows
  // them). Growing here moves each value and copies only its key.
  static void grow(Members& members) {
    Members bigger;
    bigger.reserve(std::max<std::size_t>(4, 2 * members.size()));
    for (auto& m : members) bigger.emplace_back(m.first, std::move(m.second));
    members.swap(bigger);
  }
  bool place(json v) {
    if (drop_next_) drop_next_ = false;
    else place_node(std::move(v));
    return true;
  }
  bool open(json v) {
    if (frames_.size() >= bounds_.max_depth) return stop();
    if (drop_next_) {  // a repeated key's container: read into a node of its own, then gone
      drop_next_ = false;
      auto held = std::make_unique<json>(std::move(v));
      json* node = held.get();
      frames_.push_back({node, false, false, true, nullptr, std::move(held)});
      return true;
    }
    // Whether this container is the next step along /params/arguments/output.
    bool on_path = frames_.empty();
    if (!frames_.empty()) {
      const Frame& parent = frames_.back();
      const std::size_t level = frames_.size() - 1;
      on_path =
          parent.on_output_path && level < output_path.size() && parent.node->is_object() && key_ == output_path[level];
    }
    const bool is_output = on_path && frames_.size() == output_path.size();
    const bool in_output = is_output || (!frames_.empty() && frames_.back().in_output);
    if (is_output) output_begin_ = static_cast<std::size_t>(read_to_ - read_from_) - 1;  // the '{' or '['
    json* node = place_node(std::move(v));
    frames_.push_back({node, on_path, is_output, in_output, nullptr, nullptr});
    return true;
  }
  bool close() {
    if (frames_.back().is_output) {
      const auto end = static_cast<std::size_t>(read_to_ - read_from_);
      if (output_begin_ < end && end <= text_.size()) output_ = text_.substr(output_begin_, end - output_begin_);
    }
    frames_.pop_back();
    return true;
  }

  std::string_view text_;  // output_text() is a view of it
  JsonTextOptions bounds_;
  const char* read_from_ = nullptr;  // the text being read: text_, or a copy of the same length
  const char* read_to_ = nullptr;
  json root_;
  std::vector<Frame> frames_;
  std::string key_;
  std::size_t output_begin_ = 0;
  std::optional<std::string_view> output_;
  bool stopped_ = false;
  bool output_repeats_ = false;
  bool drop_next_ = false;  // the next value follows a repeated key in the output
};

// Where a number that cannot be a double (past its range, or past JsonText's bound on
// digits and exponent) stands, if there is one.
struct WideNumber {
  std::string pointer;
  std::string text;
  bool out_of_range = false;  // past the bound, not only past a double
};

// Depth-first, with an explicit stack (the text may nest up to max_depth). Nothing under
// `skip` (a JSON Pointer; empty: skip nothing) is looked at.
inline std::optional<WideNumber> find_wide_number(const JsonText& doc, std::string_view skip = {}) {
  struct Item {
    const nlohmann::json* node;
    std::string pointer;
  };
  std::vector<Item> todo{{&doc.value(), ""}};
  while (!todo.empty()) {
    Item item = std::move(todo.back());
    todo.pop_back();
    const nlohmann::json& node = *item.node;
    if (!skip.empty() && item.pointer == skip) continue;
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
