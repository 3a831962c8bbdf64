// Which state keys changed, when, and by whom: what carried staleness (whats_here's
// stale_reads / stale_writes) and Session::keys_changed_since read.
//
// A report's delta (RFC 7386) changes the deepest members it sets or removes: an object
// merged into an object is recursed into; anything else (a scalar, an array, null, an
// object replacing a non-object) is the member itself. A member set to the value it had,
// or a removal of a member that was not there, changes nothing. Keys are JSON Pointers, compared by whole reference
// tokens: "/cart" covers
// "/cart/items" and is covered by "" (the whole state), never "/cartridge".
//
// Per key only the latest change, and the latest change by someone other than the agent's
// own recorded fires, are kept: versions and report numbers only grow, so "some change by
// another at or after version S, after this action was last cleared" holds exactly when
// the latest such change satisfies it. Memory is one entry per key ever changed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/json/json_pointer.hpp"

namespace groundplane::detail {

// A declared state key as a JSON Pointer: "/a/b" as written, a plain name "cart" as "/cart".
inline std::string state_key_pointer(std::string_view key) {
  if (!key.empty() && key.front() == '/') return std::string(key);
  return "/" + pointer_token(key);
}

// Whether one pointer is the other or an ancestor of it (by whole reference tokens).
inline bool pointers_overlap(std::string_view a, std::string_view b) {
  const std::string_view shorter = a.size() <= b.size() ? a : b;
  const std::string_view longer = a.size() <= b.size() ? b : a;
  return longer.starts_with(shorter) && (longer.size() == shorter.size() || longer[shorter.size()] == '/');
}

// The pointers `delta` changes when merged into `before` (before the merge), in the
// delta's key order.
inline void changed_pointers(const nlohmann::json* before, const nlohmann::json& delta, const std::string& at,
                             std::vector<std::string>& out) {
  for (const auto& [key, value] : delta.items()) {
    const std::string here = at + "/" + pointer_token(key);
    const nlohmann::json* old = nullptr;
    if (before && before->is_object()) {
      const auto it = before->find(key);
      if (it != before->end()) old = &*it;
    }
    if (value.is_object()) {
      if (old && old->is_object()) {
        changed_pointers(old, value, here, out);
      } else if (old) {  // a scalar or an array replaced by an object
        out.push_back(here);
      } else {  // created: the deepest members it sets, or itself when it sets none ({})
        const std::size_t n = out.size();
        changed_pointers(nullptr, value, here, out);
        if (out.size() == n) out.push_back(here);
      }
      continue;
    }
    if (value.is_null() ? old != nullptr : (!old || *old != value)) out.push_back(here);
  }
}

inline std::vector<std::string> changed_pointers(const nlohmann::json& before, const nlohmann::json& delta) {
  std::vector<std::string> out;
  changed_pointers(&before, delta, "", out);
  return out;
}

class ChangedKeys {
 public:
  // A report at `version` changed `pointers`; those also in `own` were the agent's own
  // recorded fire's doing.
  void note(const std::vector<std::string>& pointers, std::uint64_t version, const std::vector<std::string>& own) {
    ++reports_;
    for (const std::string& p : pointers) {
      Change& c = keys_[p];
      c.version = version;
      if (std::find(own.begin(), own.end(), p) == own.end()) {
        c.by_other = true;
        c.other_version = version;
        c.other_report = reports_;
      }
    }
  }

  // The agent has seen (or acted on) this action's keys as they are now.
  void clear(std::string_view action) {
    const auto it = cleared_.find(action);
    if (it != cleared_.end()) it->second = reports_;
    else cleared_.emplace(std::string(action), reports_);
  }

  // What a look with a cursor judges every action's keys from: the keys another changed
  // at or after `since`, each with the report that last did. One pass over the keys; each
  // action is then judged against this list (a few keys, for a recent cursor) rather than
  // the whole map.
  class Moved {
   public:
    // The keys of `declared` (as declared) one of these changes touches, made after
    // `action` was last cleared.
    std::vector<std::string> stale(std::string_view action, const std::vector<std::string>& declared) const {
      std::vector<std::string> out;
      if (moved_.empty()) return out;
      const auto it = keys_->cleared_.find(action);
      const std::uint64_t after = it == keys_->cleared_.end() ? 0 : it->second;
      if (newest_ <= after) return out;
      for (const std::string& key : declared) {
        const std::string built = key.empty() || key.front() != '/' ? state_key_pointer(key) : std::string();
        const std::string_view p = built.empty() ? std::string_view(key) : std::string_view(built);
        if (touched(p, after)) out.push_back(key);
      }
      return out;
    }

   private:
    friend class ChangedKeys;
    static constexpr std::size_t scan_at_most = 64;  // more moved keys: look them up in the map instead
    bool touched(std::string_view p, std::uint64_t after) const {
      if (moved_.size() <= scan_at_most) {
        for (const auto& [key, report] : moved_)
          if (report > after && pointers_overlap(p, key)) return true;
        return false;
      }
      return keys_->touched(
          p, [&](const Change& c) { return c.by_other && c.other_version >= since_ && c.other_report > after; });
    }
    const ChangedKeys* keys_ = nullptr;
    std::uint64_t since_ = 0;
    std::uint64_t newest_ = 0;  // the latest report among them
    std::vector<std::pair<std::string_view, std::uint64_t>> moved_;
  };

  Moved moved_since(std::uint64_t since) const {
    Moved m;
    m.keys_ = this;
    m.since_ = since;
    for (const auto& [key, c] : keys_) {
      if (!c.by_other || c.other_version < since) continue;
      m.moved_.emplace_back(key, c.other_report);
      m.newest_ = std::max(m.newest_, c.other_report);
    }
    return m;
  }

  // Every key changed at or after `version`, sorted.
  std::vector<std::string> since(std::uint64_t version) const {
    std::vector<std::string> out;
    for (const auto& [key, c] : keys_)
      if (c.version >= version) out.push_back(key);
    return out;
  }

 private:
  struct Change {
    std::uint64_t version = 0;  // of the latest change, by anyone
    bool by_other = false;
    std::uint64_t other_version = 0;  // of the latest change by another
    std::uint64_t other_report = 0;   // which report made it (1, 2, ...)
  };

  // Whether a changed key overlapping `p` (itself, an ancestor, a descendant) satisfies `flags`.
  template <class Flags>
  bool touched(std::string_view p, const Flags& flags) const {
    // Ancestors and p itself: "" and every prefix ending before a '/'.
    for (std::size_t end = 0; end <= p.size(); ++end) {
      if (end < p.size() && p[end] != '/') continue;
      const auto it = keys_.find(p.substr(0, end));
      if (it != keys_.end() && flags(it->second)) return true;
    }
    // Descendants: the keys that begin with p + "/", contiguous in the sorted map.
    const std::string below = std::string(p) + "/";
    for (auto it = keys_.lower_bound(below); it != keys_.end() && it->first.starts_with(below); ++it)
      if (flags(it->second)) return true;
    return false;
  }

  std::map<std::string, Change, std::less<>> keys_;
  std::map<std::string, std::uint64_t, std::less<>> cleared_;  // action -> reports_ when cleared
  std::uint64_t reports_ = 0;
};

}  // namespace groundplane::detail
