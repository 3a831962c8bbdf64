// Hash tables for strings without a node per entry: open addressing with linear
// probing, each slot 32 bits of the hash (which also place it, so growing the table
// never re-reads a string) beside a 32-bit index; a lookup touches one cache line of
// slots and compares strings only when those 32 bits match.
//
// StringPool owns its strings (the distinct values of a table column); NameIndex
// indexes strings held elsewhere (a Domain's members, a Ranking's entities).
//
// (std::unordered_map with a transparent hash would do, but libstdc++ then stops
// caching hash codes and re-hashes every key it walks past: five times slower on a
// million names.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace groundplane::detail {

// A fast, well-mixed 64-bit hash of bytes (8 at a time).
inline std::uint64_t hash_bytes(std::string_view s) noexcept {
  constexpr std::uint64_t k = 0x9e3779b97f4a7c15ull;
  std::uint64_t h = 0x27d4eb2f165667c5ull ^ (static_cast<std::uint64_t>(s.size()) * k);
  const char* p = s.data();
  std::size_t n = s.size();
  for (; n >= 8; p += 8, n -= 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * k;
    h ^= h >> 29;
  }
  if (n > 0) {
    std::uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = (h ^ w) * k;
    h ^= h >> 29;
  }
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 32;
  return h;
}

// The slot array both tables below are built on. A slot is 32 bits of a string's hash
// beside its id + 1 (0: empty); the table is kept at most half full by its owner.
class SlotTable {
 public:
  using Id = std::uint32_t;
  struct Slot {
    std::uint32_t tag = 0;  // the hash's high 32 bits; the low ones of the tag give the home slot
    Id id1 = 0;             // id + 1; 0 when empty
  };

  static std::uint32_t tag_of(std::uint64_t h) noexcept { return static_cast<std::uint32_t>(h >> 32); }

  std::size_t capacity() const noexcept { return slots_.size(); }

  // The slot holding the id for which same(id) is true among those hashing to h, or
  // the empty slot where it belongs. The table must not be full.
  template <class Same>
  Slot& probe(std::uint64_t h, Same&& same) {
    const std::uint32_t tag = tag_of(h);
    for (std::size_t i = tag & mask_;; i = (i + 1) & mask_) {
      Slot& slot = slots_[i];
      if (slot.id1 == 0 || (slot.tag == tag && same(slot.id1 - 1))) return slot;
    }
  }

  template <class Same>
  std::optional<Id> find(std::uint64_t h, Same&& same) const {
    if (slots_.empty()) return std::nullopt;
    const std::uint32_t tag = tag_of(h);
    for (std::size_t i = tag & mask_;; i = (i + 1) & mask_) {
      const Slot& slot = slots_[i];
      if (slot.id1 == 0) return std::nullopt;
      if (slot.tag == tag && same(slot.id1 - 1)) return slot.id1 - 1;
    }
  }

  // Doubles the slots (16 at first), placing each entry by its tag: no string is re-read.
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    const std::size_t capacity = old.empty() ? 16 : old.size() * 2;
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    for (const Slot& slot : old) {
      if (slot.id1 == 0) continue;
      std::size_t i = slot.tag & mask_;
      while (slots_[i].id1 != 0) i = (i + 1) & mask_;
      slots_[i] = slot;
    }
  }

  // Empties the table, with room for n entries at most half full.
  void reset_for(std::size_t n) {
    std::size_t capacity = 16;
    while (capacity < 2 * n) capacity *= 2;
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
  }

  // Asks the cache for the slot a string hashing to h starts probing at.
  void prefetch([[maybe_unused]] std::uint64_t h) const noexcept {
#if defined(__GNUC__) || defined(__clang__)
    if (!slots_.empty()) __builtin_prefetch(&slots_[tag_of(h) & mask_]);
#endif
  }

 private:
  std::vector<Slot> slots_;  // open addressing, linear probing
  std::size_t mask_ = 0;
};

// Distinct strings, each stored once, numbered in first-seen order.
class StringPool {
 public:
  using Id = SlotTable::Id;
  static constexpr std::size_t max_size = std::numeric_limits<Id>::max() - 1;

  // The id of s, adding it when new (`added` says which). `h` is hash_bytes(s).
  Id intern(std::string_view s, bool& added) { return intern(s, hash_bytes(s), added); }
  Id intern(std::string_view s, std::uint64_t h, bool& added) {
    if ((ends_.size() + 1) * 2 > table_.capacity()) table_.grow();
    SlotTable::Slot& slot = table_.probe(h, [&](Id id) { return at(id) == s; });
    added = slot.id1 == 0;
    if (!added) return slot.id1 - 1;
    const auto id = static_cast<Id>(ends_.size());
    chars_.append(s);
    ends_.push_back(chars_.size());
    slot = {SlotTable::tag_of(h), id + 1};
    return id;
  }

  std::optional<Id> find(std::string_view s) const {
    return table_.find(hash_bytes(s), [&](Id id) { return at(id) == s; });
  }

  // Room for `count` strings of `bytes` characters in all, so interning that many
  // neither re-allocates nor grows the table.
  void reserve(std::size_t count, std::size_t bytes) {
    chars_.reserve(bytes);
    ends_.reserve(count);
    while (table_.capacity() < 2 * count) table_.grow();
  }

  void prefetch(std::uint64_t h) const noexcept { table_.prefetch(h); }

  std::string_view at(Id id) const noexcept {
    const std::size_t begin = id == 0 ? 0 : ends_[id - 1];
    return {chars_.data() + begin, ends_[id] - begin};
  }
  std::size_t size() const noexcept { return ends_.size(); }

  // Drops spare capacity once the column is complete.
  void shrink() {
    chars_.shrink_to_fit();
    ends_.shrink_to_fit();
  }

 private:
  std::string chars_;              // every string, back to back
  std::vector<std::size_t> ends_;  // ends_[id]: one past the id's last character
  SlotTable table_;
};

// An index over strings stored elsewhere: key_of(i) gives the i-th string, and must
// keep giving the same one while the index is used.
class NameIndex {
 public:
  using Id = SlotTable::Id;
  static constexpr std::size_t max_size = std::numeric_limits<Id>::max() - 1;

  void reserve(std::size_t n) {
    if (2 * n <= table_.capacity()) return;
    table_.reset_for(n);
    size_ = 0;
  }

  // Indexes string `id`; when an equal string is already indexed, returns its id and
  // indexes nothing.
  template <class KeyOf>
  std::optional<Id> insert(Id id, KeyOf&& key_of) {
    if ((size_ + 1) * 2 > table_.capacity()) table_.grow();
    const std::string_view s = key_of(id);
    const std::uint64_t h = hash_bytes(s);
    SlotTable::Slot& slot = table_.probe(h, [&](Id other) { return key_of(other) == s; });
    if (slot.id1 != 0) return slot.id1 - 1;
    slot = {SlotTable::tag_of(h), id + 1};
    ++size_;
    return std::nullopt;
  }

  template <class KeyOf>
  std::optional<Id> find(std::string_view s, KeyOf&& key_of) const {
    return table_.find(hash_bytes(s), [&](Id id) { return key_of(id) == s; });
  }

 private:
  SlotTable table_;
  std::size_t size_ = 0;
};

}  // namespace groundplane::detail
