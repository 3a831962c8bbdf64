// A stored row's body, read for a restore: its top-level members, with scalars kept as
// plain values and only nested objects and arrays (payloads, state, deltas) built as JSON.
//
// A restore reads every row a session ever wrote. Parsing each body into a JSON object
// allocated a tree node per member and a string per text value, only for the replay to
// copy the values out and free the tree: most of a restore's time. This reader takes
// nlohmann's parse events instead, so a row of scalars costs no allocation once the
// reader is warm (it is reused from row to row). A member read as the wrong type throws
// MalformedRow; the caller names the row. Strings and keys come back from their
// stored-text form (detail/ledger/stored_text.hpp) as the app wrote them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/ledger/stored_text.hpp"
#include "groundplane/store/ledger_store.hpp"

namespace groundplane::detail {

class MalformedRow : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RowBody {
 public:
  using json = nlohmann::json;

  // False when the text is not one JSON object (nothing after it but whitespace), or is
  // past what the format allows a stored row (docs/ledger-format.md, "Limits"): larger
  // than ledger_max_body_bytes, or nesting arrays and objects deeper than
  // ledger_max_nesting (the body itself is 1). Reading stops there: a row nested a million
  // deep costs no more than its text. refusal() then says why.
  bool read(std::string_view text) {
    used_ = 0;
    depth_ = 0;
    trees_.clear();
    refusal_ = Refusal::none;
    if (text.size() > ledger_max_body_bytes) {
      refusal_ = Refusal::too_large;
      return false;
    }
    if (json::sax_parse(text, this)) return true;
    if (refusal_ == Refusal::none) refusal_ = Refusal::not_an_object;
    return false;
  }
  // Why the last read failed, in words that follow "row N (kind) ".
  std::string refusal() const {
    switch (refusal_) {
      case Refusal::too_large:
        return "is larger than " + std::to_string(ledger_max_body_bytes) + " bytes, more than the format allows";
      case Refusal::too_deep:
        return "nests arrays and objects more than " + std::to_string(ledger_max_nesting) +
               " deep, more than the format allows";
      default:
        return "is not a JSON object";
    }
  }

  bool has(std::string_view key) const { return find(key) != nullptr; }
  // This body, once `key` is known to be in it: for the members a row cannot go without
  // (b.require("o").integer("o")).
  RowBody& require(std::string_view key) {
    if (!has(key)) throw MalformedRow("member \"" + std::string(key) + "\" is missing");
    return *this;
  }
  bool is_null(std::string_view key) const {
    const Member* m = find(key);
    return m != nullptr && m->type == json::value_t::null;
  }

  // A text member, moved out; "" when absent.
  std::string take_text(std::string_view key) {
    Member* m = find(key);
    if (m == nullptr) return {};
    if (m->type != json::value_t::string) throw wrong(key, "a string");
    return std::move(m->text);
  }

  // A non-negative integer member; fallback when absent.
  std::uint64_t count(std::string_view key, std::uint64_t fallback = 0) const {
    const Member* m = find(key);
    if (m == nullptr) return fallback;
    if (m->type == json::value_t::number_unsigned) return m->u;
    if (m->type == json::value_t::number_integer && m->i >= 0) return static_cast<std::uint64_t>(m->i);
    throw wrong(key, "a non-negative integer");
  }

  // An integer member; fallback when absent.
  std::int64_t integer(std::string_view key, std::int64_t fallback = 0) const {
    const Member* m = find(key);
    if (m == nullptr) return fallback;
    if (m->type == json::value_t::number_integer) return m->i;
    if (m->type == json::value_t::number_unsigned && m->u <= static_cast<std::uint64_t>(INT64_MAX))
      return static_cast<std::int64_t>(m->u);
    throw wrong(key, "an integer");
  }

  // A boolean member; fallback when absent.
  bool flag(std::string_view key, bool fallback) const {
    const Member* m = find(key);
    if (m == nullptr) return fallback;
    if (m->type != json::value_t::boolean) throw wrong(key, "true or false");
    return m->b;
  }

  // Any member as JSON, moved out; null when absent.
  json take(std::string_view key) {
    Member* m = find(key);
    return m == nullptr ? json() : m->take();
  }
  // An object or array member, moved out; `fallback` when absent.
  json take_tree(std::string_view key, json fallback) {
    Member* m = find(key);
    if (m == nullptr) return fallback;
    if (m->type != json::value_t::object && m->type != json::value_t::array) throw wrong(key, "an object or array");
    return m->take();
  }

  // nlohmann's SAX events (json::sax_parse calls these).
  bool null() { return scalar(nullptr); }
  bool boolean(bool v) { return scalar(v); }
  bool number_integer(json::number_integer_t v) { return scalar(v); }
  bool number_unsigned(json::number_unsigned_t v) { return scalar(v); }
  bool number_float(json::number_float_t v, const std::string&) { return scalar(v); }
  bool string(std::string& v) {  // the parser clears what it lent
    decode_stored_text(v);
    return scalar(std::move(v));
  }
  bool binary(json::binary_t&) { return false; }  // JSON text has none
  bool start_object(std::size_t) { return open(json::value_t::object); }
  bool start_array(std::size_t) { return open(json::value_t::array); }
  bool key(std::string& k) {
    decode_stored_text(k);
    if (depth_ > 1) {
      pending_key_.swap(k);
      return true;
    }
    if (used_ == members_.size()) members_.emplace_back();
    Member& m = members_[used_++];
    m.key.assign(k);  // keys are a few bytes: a copy is cheaper than trading buffers
    m.type = json::value_t::null;
    return true;
  }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

 private:
  struct Member {
    std::string key;
    json::value_t type = json::value_t::null;
    bool b = false;
    std::int64_t i = 0;
    std::uint64_t u = 0;
    double d = 0;
    std::string text;
    json tree;

    void set(std::nullptr_t) { type = json::value_t::null; }
    void set(bool v) {
      type = json::value_t::boolean;
      b = v;
    }
    void set(std::int64_t v) {
      type = json::value_t::number_integer;
      i = v;
    }
    void set(std::uint64_t v) {
      type = json::value_t::number_unsigned;
      u = v;
    }
    void set(double v) {
      type = json::value_t::number_float;
      d = v;
    }
    void set(std::string& v) {
      type = json::value_t::string;
      text.swap(v);
    }

    json take() {
      switch (type) {
        case json::value_t::boolean:
          return b;
        case json::value_t::number_integer:
          return i;
        case json::value_t::number_unsigned:
          return u;
        case json::value_t::number_float:
          return d;
        case json::value_t::string:
          return std::move(text);
        case json::value_t::object:
        case json::value_t::array:
          return std::move(tree);
        default:
          return nullptr;
      }
    }
  };

  // The newest member with this key: a key written twice reads as its last value, as in
  // a parsed object.
  std::size_t index_of(std::string_view key) const {
    for (std::size_t k = used_; k-- > 0;) {
      const std::string& have = members_[k].key;
      if (have.size() == key.size() && std::equal(have.begin(), have.end(), key.begin())) return k;
    }
    return used_;
  }
  const Member* find(std::string_view key) const {
    const std::size_t k = index_of(key);
    return k == used_ ? nullptr : &members_[k];
  }
  Member* find(std::string_view key) {
    const std::size_t k = index_of(key);
    return k == used_ ? nullptr : &members_[k];
  }

  static MalformedRow wrong(std::string_view key, const char* want) {
    return MalformedRow("member \"" + std::string(key) + "\" is not " + want);
  }

  // Where a value inside a nested tree goes: the open array, or the open object's pending key.
  json& slot() {
    json& parent = *trees_.back();
    if (parent.is_array()) {
      parent.push_back(nullptr);
      return parent.back();
    }
    return parent[pending_key_];
  }

  template <class T>
  bool scalar(T&& v) {
    if (depth_ == 0) return false;  // the body itself is not an object
    if (depth_ == 1) members_[used_ - 1].set(v);
    else slot() = json(std::forward<T>(v));
    return true;
  }

  bool open(json::value_t type) {
    if (depth_ >= ledger_max_nesting) {
      refusal_ = Refusal::too_deep;
      return false;
    }
    if (depth_ == 0) {
      if (type != json::value_t::object) return false;
      depth_ = 1;
      return true;
    }
    json* at = nullptr;
    if (depth_ == 1) {
      Member& m = members_[used_ - 1];
      m.type = type;
      m.tree = json(type);
      at = &m.tree;
    } else {
      at = &slot();
      *at = json(type);
    }
    trees_.push_back(at);
    ++depth_;
    return true;
  }

  bool close() {
    if (depth_ > 1) trees_.pop_back();
    --depth_;
    return true;
  }

  std::vector<Member> members_;  // reused from row to row: [0, used_) are this row's
  std::size_t used_ = 0;
  std::size_t depth_ = 0;
  std::vector<json*> trees_;  // the nested objects and arrays being built, innermost last
  std::string pending_key_;
  enum class Refusal : unsigned char { none, not_an_object, too_large, too_deep };
  Refusal refusal_ = Refusal::none;
};

}  // namespace groundplane::detail
