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

#include <nlohmann/json.hpp>

#include "groundplane/detail/stored_text.hpp"
#include "groundplane/errors.hpp"

namespace groundplane {

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
  std::string head;                 // hex SHA-256 of the newest row that verified; "" when none
  std::uint64_t first_bad_row = 0;  // 0 when ok, and when the file is unreadable or not a ledger
  std::string problem;              // "" when ok: what is wrong, in a sentence
};

namespace detail {
struct SessionCore;
}

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

  virtual LedgerHead head() const = 0;

  // False for a store opened to read only (a Session restored on it can render, not write).
  virtual bool writable() const noexcept { return true; }

  // Re-derives the whole chain of this session; never throws.
  virtual LedgerVerification verify() const noexcept = 0;

 private:
  friend struct detail::SessionCore;
  // Set while a Session writes through this store: a second one would append from the
  // same head into the same chain, each unaware of the other's rows.
  std::atomic<bool> backs_a_session_{false};
};

namespace detail {

// A copy of `v` with every string and key that needs it in stored-text form.
inline nlohmann::json with_stored_text(const nlohmann::json& v) {
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    return needs_stored_text_encoding(s) ? nlohmann::json(encode_stored_text(s)) : v;
  }
  if (v.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : v) out.push_back(with_stored_text(item));
    return out;
  }
  if (v.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto it = v.begin(); it != v.end(); ++it) out[stored_text(it.key())] = with_stored_text(it.value());
    return out;
  }
  return v;
}

// Writes canonical bodies row after row with one serializer into one buffer: dump()
// builds a serializer for every call (a shared output adapter, a read of the locale's
// separators, a 512-byte buffer), which measured a tenth of a store's own work per row.
class CanonicalWriter {
 public:
  CanonicalWriter() = default;
  CanonicalWriter(const CanonicalWriter&) = delete;
  CanonicalWriter& operator=(const CanonicalWriter&) = delete;

  // The body's canonical text, valid until the next write.
  std::string_view write(const nlohmann::json& body) {
    text_.clear();
    try {
      serializer_.dump(body, false, false, 0);
      if (text_.find(stored_text_marker) == std::string::npos) return text_;
    } catch (const nlohmann::json::type_error&) {  // a string that is not UTF-8
    }
    text_.clear();
    serializer_.dump(with_stored_text(body), false, false, 0);
    return text_;
  }

 private:
  std::string text_;  // before serializer_, which writes into it
  nlohmann::detail::serializer<nlohmann::json> serializer_{nlohmann::detail::output_adapter<char>(text_), ' ',
                                                           nlohmann::json::error_handler_t::strict};
};

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

// The body as it is stored and hashed: nlohmann's compact dump, keys sorted (its default
// object type is ordered by key), no whitespace, UTF-8 kept as is. A string that is not
// UTF-8, or that holds U+10FFFF, is written in stored-text form (detail/stored_text.hpp),
// which a restore reads back byte for byte: a row is always writable, and nothing in it
// is lost.
inline std::string canonical_body(const nlohmann::json& body) {
  detail::CanonicalWriter writer;
  return std::string(writer.write(body));
}

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
