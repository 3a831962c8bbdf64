// The interface a Session writes its ledger through, and the one definition of a stored
// row that every store shares.
//
// A store keeps each session as a chain of rows. A row is what one thing that happened
// left behind (a fire recorded or refused, a settlement, an ask and each decision on it,
// a standing grant, work opened or closed, a cursor move): its position in the session
// (`seq`, from 1), the session version it carries, a short `kind`, and a JSON `body`.
// Each row also stores
//
//     hash(n) = SHA-256( hash(n-1) || canonical_bytes(row n) )
//
// where hash(0) = SHA-256("groundplane-ledger/1" 0x00 <session name>), so a chain is
// bound to the session it belongs to. Anyone can recompute the chain, so it proves order
// and integrity relative to a head hash published earlier (every GroundTruth carries
// one), not authorship.
//
// This header is deliberately free of I/O and of any hash implementation: the core
// Session includes it, and the core depends on nlohmann/json only. The hash lives in
// store/chain.hpp, which only the store targets (groundplane::sqlite, ...) include.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "groundplane/detail/json/canonical_json.hpp"
#include "groundplane/errors.hpp"

namespace groundplane {

// The version of the stored row format (docs/ledger-format.md) this release writes: 1 was
// 0.2's, 2 0.3's, 3 is 0.4's (keyed chains, the stored policy). A store keeps it beside
// the rows; this release reads every earlier version and refuses a later one.
inline constexpr int ledger_format_version = 3;

// A store could not do what was asked (the disk, the database, a second writer): the
// row was not written, and the call that tried to write it throws this.
class LedgerStoreError : public Error {
 public:
  using Error::Error;
};

// What a Session hands a store: the store gives it its seq and hash.
struct LedgerRow {
  std::uint64_t version = 0;      // the session version the row carries
  std::string kind;               // short tag, e.g. "fire", "gap", "settle" (1..255 bytes)
  nlohmann::json body = nullptr;  // the row's fields; stored as its canonical text
};

// What the format allows a stored row (docs/ledger-format.md, "Limits"): a body of at
// most ledger_max_body_bytes, nested at most ledger_max_nesting arrays and objects deep
// (the body object itself is 1). A store refuses to write a row past them, and every
// reader refuses one it finds, naming it: a row is never read past what a reader can
// hold.
inline constexpr std::size_t ledger_max_body_bytes = std::size_t{64} << 20;
inline constexpr std::size_t ledger_max_nesting = 512;

// A key an app keys its chain with (SqliteStoreOptions::key) has at least this many bytes.
inline constexpr std::size_t chain_key_min_bytes = 16;

inline constexpr std::size_t row_hash_size = 32;
using RowHash = std::array<unsigned char, row_hash_size>;

// A row as a store holds it and hands it back.
struct StoredRow {
  std::uint64_t seq = 0;  // position in its session, from 1, no gaps
  std::uint64_t version = 0;
  std::string kind;
  std::string body;  // canonical JSON text (see canonical_body)
  RowHash hash{};    // SHA-256(previous hash || canonical_bytes(*this))
};

// The newest row of a session: how many rows, and its hash ("" and 0 rows when empty).
struct LedgerHead {
  std::uint64_t rows = 0;
  std::string hex;
};

struct LedgerVerification {
  bool ok = false;
  std::uint64_t rows = 0;           // rows that verified (all of them when ok)
  std::string head;                 // hex hash of the newest row that verified; "" when none
  std::uint64_t first_bad_row = 0;  // 0 when ok, and when the ledger cannot be judged (unreadable, not a
                                    // ledger, keyed and verified without its key)
  std::string problem;              // "" when ok: what is wrong, in a sentence
  bool keyed = false;               // the session's first row says its chain is keyed (HMAC-SHA256)
  std::string key_id;               // the key id that row records ("" when unkeyed)
};

namespace detail {
struct SessionCore;
class DurableLog;

// A verdict that vouches for no row: first_bad_row 0 (the ledger cannot be judged) or 1
// (not one row of it can be vouched for), and what is wrong.
inline LedgerVerification failed_verification(std::string problem, std::uint64_t first_bad_row = 0) {
  LedgerVerification v;
  v.first_bad_row = first_bad_row;
  v.problem = std::move(problem);
  return v;
}

// A stored chain that does not verify, as LedgerStore::read_verified reports it: the
// first row it cannot vouch for (rows count from 1) and what is wrong with it.
// (0: the chain cannot be judged at all, as a keyed chain without its key.)
// A restore that met a row it cannot restore — malformed, past the format's limits, of a
// kind this release does not know, or one no session writes in the state rebuilt so far —
// refused naming it: the rows before it may verify, yet the ledger is not one a session
// wrote.
class RowRefused : public LedgerStoreError {
 public:
  RowRefused(std::uint64_t row, const std::string& what) : LedgerStoreError(what), row_(row) {}
  std::uint64_t row() const noexcept { return row_; }

 private:
  std::uint64_t row_;
};

class ChainBroken : public LedgerStoreError {
 public:
  ChainBroken(std::uint64_t first_bad_row, const std::string& problem)
      : LedgerStoreError(first_bad_row == 0 ? problem
                                            : "first bad row " + std::to_string(first_bad_row) + ": " + problem),
        first_bad_row_(first_bad_row) {}
  std::uint64_t first_bad_row() const noexcept { return first_bad_row_; }

 private:
  std::uint64_t first_bad_row_;
};
}  // namespace detail

class LedgerStore {
 public:
  LedgerStore() = default;
  LedgerStore(const LedgerStore&) = delete;
  LedgerStore& operator=(const LedgerStore&) = delete;
  virtual ~LedgerStore() = default;

  // The session this store reads and writes (fixed when it is opened).
  virtual const std::string& session() const noexcept = 0;

  // Appends rows after the current head as one unit: all of them are durable (as far as
  // the store's mode promises) when this returns, or none is written and it throws
  // LedgerStoreError. Returns the new head.
  virtual LedgerHead append(std::span<const LedgerRow> rows) = 0;

  // Calls visit for every row with seq >= from_seq, in order; visit returns false to stop.
  // A Session restoring itself calls this on a thread of its own (so the rows are read
  // and parsed while the ones before them are replayed) and calls nothing else on the
  // store until it returns: a store need not be thread-safe, only usable from any thread.
  virtual void read(std::uint64_t from_seq, const std::function<bool(const StoredRow&)>& visit) const = 0;

  // What a Session restores from: every row of this session from seq 1, each handed to
  // visit only once the hash chain up to it has been re-derived (store/chain.hpp), and at
  // the end, when the store was opened with an expected head, a check that the chain
  // passes through it. A chain that breaks throws detail::ChainBroken (a LedgerStoreError)
  // naming the first bad row, and hands over no row from that one on. Called like read.
  // A store that cannot verify (one with no hashes, a test's) must say so in its name.
  virtual void read_verified(const std::function<bool(const StoredRow&)>& visit) const = 0;

  virtual LedgerHead head() const = 0;

  // False for a store opened to read only (a Session restored on it can render, not write).
  virtual bool writable() const noexcept { return true; }

  // Re-derives the whole chain of this session; never throws.
  virtual LedgerVerification verify() const noexcept = 0;

 private:
  friend class detail::DurableLog;
  // Set while a Session writes through this store: a second one would append from the
  // same head into the same chain, each unaware of the other's rows.
  std::atomic<bool> backs_a_session_{false};
};

namespace detail {

// The bytes of canonical_bytes before the body, in a buffer of their own (no allocation).
class CanonicalHeader {
 public:
  CanonicalHeader(std::uint64_t seq, std::uint64_t version, std::string_view kind, std::size_t body_size) {
    if (kind.empty() || kind.size() > 255)
      throw ConfigurationError("a ledger row's kind must be 1 to 255 bytes, got " + std::to_string(kind.size()));
    if (body_size > 0xffffffffu) throw ConfigurationError("a ledger row's body is over 4 GiB");
    put(seq, 8);
    put(version, 8);
    bytes_[size_++] = static_cast<char>(kind.size());
    for (const char c : kind) bytes_[size_++] = c;
    put(body_size, 4);
  }
  std::string_view view() const noexcept { return {bytes_.data(), size_}; }

 private:
  void put(std::uint64_t v, std::size_t n) noexcept {  // big-endian
    for (std::size_t i = 0; i < n; ++i) bytes_[size_++] = static_cast<char>((v >> (8 * (n - 1 - i))) & 0xffu);
  }
  std::array<char, 8 + 8 + 1 + 255 + 4> bytes_{};
  std::size_t size_ = 0;
};
}  // namespace detail

// The body as it is stored and hashed: the ledger's canonical JSON (detail/json/canonical_json.hpp,
// docs/ledger-format.md): keys sorted, no whitespace, UTF-8 kept as is. A string that is
// not UTF-8, or that holds U+10FFFF, is written in stored-text form
// (detail/ledger/stored_text.hpp), which a restore reads back byte for byte: a row is always
// writable, and nothing in it is lost.
inline std::string canonical_body(const nlohmann::json& body) { return detail::canonical_json(body); }

// The bytes a row's hash covers, after the previous hash:
//   seq (u64 BE) | version (u64 BE) | len(kind) (u8) | kind | len(body) (u32 BE) | body
// Lengths make the encoding unambiguous; seq makes a row's position part of what it says.
inline std::string canonical_bytes(std::uint64_t seq, std::uint64_t version, std::string_view kind,
                                   std::string_view body) {
  const detail::CanonicalHeader header(seq, version, kind, body.size());
  std::string out;
  out.reserve(header.view().size() + body.size());
  out.append(header.view());
  out.append(body);
  return out;
}

inline std::string canonical_bytes(const StoredRow& row) {
  return canonical_bytes(row.seq, row.version, row.kind, row.body);
}

namespace detail {
// A keyed chain's key id: hex of the first chain_key_id_bytes of
// HMAC-SHA256(key, chain_key_id_message), stored in its first row under chain_key_member.
inline constexpr std::size_t chain_key_id_bytes = 8;
inline constexpr std::string_view chain_key_id_message = "groundplane-key-id";
inline constexpr const char* chain_key_member = "_k";

// The deepest nesting of arrays and objects in a stored body, counted on its text as every
// verifier counts it (docs/ledger-format.md, "Limits"): outside a string, [ and { open one
// level and ] and } close one (never below 0); " starts or ends a string, inside which a
// backslash escapes the byte after it. Counting stops past `limit` (the result is then limit + 1).
inline std::size_t body_nesting(std::string_view text, std::size_t limit) noexcept {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

// What is wrong with a stored row's size or nesting, or "" when the format allows it.
inline std::string row_out_of_bounds(std::uint64_t seq, std::string_view body) {
  if (body.size() > ledger_max_body_bytes)
    return "row " + std::to_string(seq) + "'s body is " + std::to_string(body.size()) +
           " bytes, more than the format allows (" + std::to_string(ledger_max_body_bytes) + ")";
  if (body_nesting(body, ledger_max_nesting) > ledger_max_nesting)
    return "row " + std::to_string(seq) + "'s body nests arrays and objects more than " +
           std::to_string(ledger_max_nesting) + " deep, more than the format allows";
  return {};
}
}  // namespace detail

// What hash(0) is taken over: the chain's domain and the session it belongs to.
inline std::string chain_genesis_bytes(std::string_view session) {
  std::string out = "groundplane-ledger/1";
  out.push_back('\0');
  out.append(session);
  return out;
}

// Every append returns the head in hex: written into a string sized once, not appended to.
inline std::string to_hex(std::span<const unsigned char> bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out(bytes.size() * 2, '\0');
  char* o = out.data();
  for (const unsigned char b : bytes) {
    *o++ = digits[b >> 4];
    *o++ = digits[b & 0x0f];
  }
  return out;
}

}  // namespace groundplane
