// The hash chain over a session's rows (see ledger_store.hpp), with SHA-256 and
// HMAC-SHA256 from OpenSSL's libcrypto (EVP), shared by every store: appending extends
// it, verifying re-derives it. Only the store targets include this header (it needs
// -lcrypto).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <nlohmann/json.hpp>

#include "groundplane/detail/json/canonical_json.hpp"
#include "groundplane/detail/text/escape.hpp"
#include "groundplane/store/ledger_store.hpp"

namespace groundplane::detail {

// One SHA-256 context, reused for every row: fetching the algorithm and allocating a
// context per row would cost more than hashing a short row does.
class Sha256 {
 public:
  Sha256() : md_(EVP_MD_fetch(nullptr, "SHA256", nullptr)), ctx_(EVP_MD_CTX_new()) {
    if (!md_ || !ctx_) throw LedgerStoreError("OpenSSL could not provide SHA-256 (EVP_MD_fetch \"SHA256\")");
  }

  // SHA-256(a || b || c)
  RowHash operator()(std::string_view a, std::string_view b = {}, std::string_view c = {}) {
    RowHash out{};
    unsigned int n = 0;
    if (EVP_DigestInit_ex2(ctx_.get(), md_.get(), nullptr) != 1 ||
        EVP_DigestUpdate(ctx_.get(), a.data(), a.size()) != 1 ||
        EVP_DigestUpdate(ctx_.get(), b.data(), b.size()) != 1 ||
        EVP_DigestUpdate(ctx_.get(), c.data(), c.size()) != 1 || EVP_DigestFinal_ex(ctx_.get(), out.data(), &n) != 1 ||
        n != out.size())
      throw LedgerStoreError("OpenSSL's SHA-256 failed");
    return out;
  }

 private:
  struct FreeMd {
    void operator()(EVP_MD* p) const noexcept { EVP_MD_free(p); }
  };
  struct FreeCtx {
    void operator()(EVP_MD_CTX* p) const noexcept { EVP_MD_CTX_free(p); }
  };
  std::unique_ptr<EVP_MD, FreeMd> md_;
  std::unique_ptr<EVP_MD_CTX, FreeCtx> ctx_;
};

// One HMAC-SHA256 context keyed once, re-initialised for every row with that key (what
// OpenSSL's EVP_MAC_init does given no key): the key's own blocks are hashed once.
class HmacSha256 {
 public:
  explicit HmacSha256(std::string_view key)
      : mac_(EVP_MAC_fetch(nullptr, "HMAC", nullptr)), ctx_(mac_ ? EVP_MAC_CTX_new(mac_.get()) : nullptr) {
    char digest[] = "SHA256";
    const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                                 OSSL_PARAM_construct_end()};
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the key's bytes viewed as unsigned chars
    const auto* bytes = reinterpret_cast<const unsigned char*>(key.data());
    if (!ctx_ || EVP_MAC_init(ctx_.get(), bytes, key.size(), params) != 1)
      throw LedgerStoreError("OpenSSL could not provide HMAC-SHA256 (EVP_MAC_fetch \"HMAC\")");
  }

  // HMAC-SHA256(key, a || b || c)
  RowHash operator()(std::string_view a, std::string_view b = {}, std::string_view c = {}) {
    RowHash out{};
    std::size_t n = 0;
    // NOLINTBEGIN(cppcoreguidelines-pro-type-reinterpret-cast): bytes viewed as unsigned chars
    if (EVP_MAC_init(ctx_.get(), nullptr, 0, nullptr) != 1 ||
        EVP_MAC_update(ctx_.get(), reinterpret_cast<const unsigned char*>(a.data()), a.size()) != 1 ||
        EVP_MAC_update(ctx_.get(), reinterpret_cast<const unsigned char*>(b.data()), b.size()) != 1 ||
        EVP_MAC_update(ctx_.get(), reinterpret_cast<const unsigned char*>(c.data()), c.size()) != 1 ||
        EVP_MAC_final(ctx_.get(), out.data(), &n, out.size()) != 1 || n != out.size())
      throw LedgerStoreError("OpenSSL's HMAC-SHA256 failed");
    // NOLINTEND(cppcoreguidelines-pro-type-reinterpret-cast)
    return out;
  }

 private:
  struct FreeMac {
    void operator()(EVP_MAC* p) const noexcept { EVP_MAC_free(p); }
  };
  struct FreeCtx {
    void operator()(EVP_MAC_CTX* p) const noexcept { EVP_MAC_CTX_free(p); }
  };
  std::unique_ptr<EVP_MAC, FreeMac> mac_;
  std::unique_ptr<EVP_MAC_CTX, FreeCtx> ctx_;
};

inline std::string_view as_chars(const RowHash& h) noexcept {
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): bytes viewed as chars, the one aliasing C++ allows
  return {reinterpret_cast<const char*>(h.data()), h.size()};
}

inline RowHash chain_genesis(Sha256& sha, std::string_view session) { return sha(chain_genesis_bytes(session)); }

// A key an app holds (SqliteStoreOptions::key, PostgresStoreOptions::key), checked: ""
// is no key; anything shorter than chain_key_min_bytes is the developer's mistake.
inline std::string chain_key_option(std::string_view key, const char* option) {
  if (!key.empty() && key.size() < chain_key_min_bytes)
    throw ConfigurationError(std::string(option) + " is " + std::to_string(key.size()) + " bytes; a key is at least " +
                             std::to_string(chain_key_min_bytes) +
                             " bytes (a secret the app holds, such as 32 random bytes), or \"\" for no key");
  return std::string(key);
}

// hex of the first 8 bytes of HMAC-SHA256(key, "groundplane-key-id"): names a key, so a
// wrong key is told from a tampered row, and reveals nothing of it.
inline std::string chain_key_id(std::string_view key) {
  HmacSha256 mac(key);
  const RowHash h = mac(chain_key_id_message);
  return to_hex(std::span(h.data(), chain_key_id_bytes));
}

// The hash a session's rows are chained with: SHA-256, or HMAC-SHA256 under the app's key.
// Either way the chain starts from the same genesis, SHA-256 of the session's name.
class ChainHash {
 public:
  ChainHash() = default;
  explicit ChainHash(std::string_view key) {
    if (!key.empty()) mac_ = std::make_unique<HmacSha256>(key);
  }
  bool keyed() const noexcept { return mac_ != nullptr; }
  RowHash genesis(std::string_view session) { return chain_genesis(sha_, session); }
  // The hash of a row (its canonical bytes as a header and a body) after `prev`.
  RowHash next(const RowHash& prev, const CanonicalHeader& header, std::string_view body) {
    return mac_ ? (*mac_)(as_chars(prev), header.view(), body) : sha_(as_chars(prev), header.view(), body);
  }

 private:
  Sha256 sha_;
  std::unique_ptr<HmacSha256> mac_;
};

// The key a store or a verifier holds: its secret bytes (wiped when it goes) and its id.
class ChainKey {
 public:
  ChainKey() = default;
  explicit ChainKey(std::string secret) : secret_(std::move(secret)) {
    if (!secret_.empty()) id_ = chain_key_id(secret_);
  }
  ChainKey(const ChainKey&) = delete;
  ChainKey& operator=(const ChainKey&) = delete;
  ~ChainKey() {
    if (!secret_.empty()) OPENSSL_cleanse(secret_.data(), secret_.size());
  }
  bool empty() const noexcept { return secret_.empty(); }
  std::string_view secret() const noexcept { return secret_; }
  const std::string& id() const noexcept { return id_; }

 private:
  std::string secret_;
  std::string id_;
};

// What a session's first row says of its chain's key (docs/ledger-format.md, "A keyed
// chain"): a keyed chain's row 1 body begins with {"_k":"<16 hex digits>" followed by ,
// or }. Read from the bytes as stored, with no JSON parser, so every verifier reads it
// alike.
struct RecordedKey {
  enum class Is { unkeyed, keyed, malformed };
  Is is = Is::unkeyed;
  std::string id;  // when keyed
};
inline RecordedKey recorded_key(std::string_view first_body) {
  constexpr std::string_view prefix = "{\"_k\":";
  if (!first_body.starts_with(prefix)) return {};
  const std::string_view rest = first_body.substr(prefix.size());
  const std::size_t hex = 2 * chain_key_id_bytes;
  const bool well_formed = rest.size() >= hex + 3 && rest[0] == '"' && rest[hex + 1] == '"' &&
                           (rest[hex + 2] == ',' || rest[hex + 2] == '}') &&
                           std::all_of(rest.begin() + 1, rest.begin() + 1 + static_cast<std::ptrdiff_t>(hex),
                                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
  if (!well_formed) return {RecordedKey::Is::malformed, {}};
  return {RecordedKey::Is::keyed, std::string(rest.substr(1, hex))};
}

// The body a store writes as a session's first row: a keyed store's records its key id
// (first of its members: "_k" sorts before every other key); no body of an unkeyed
// store's may claim one. `scratch` holds the keyed body.
inline const nlohmann::json& first_row_body(const nlohmann::json& body, const ChainKey& key, nlohmann::json& scratch) {
  if (key.empty()) {
    if (body.is_object() && body.contains(chain_key_member))
      throw ConfigurationError(std::string("a ledger row's body holds \"") + chain_key_member +
                               "\", which only a keyed store writes (the key id of its chain)");
    return body;
  }
  if (!body.is_object())
    throw ConfigurationError("the first row of a keyed chain must be a JSON object: it records the key id");
  scratch = body;
  scratch[chain_key_member] = key.id();
  return scratch;
}

// Whether a store holding `key` may open a session whose first row says `recorded`:
// refuses (LedgerStoreError) a keyed session opened with another key or, to write,
// without one, and an unkeyed session opened with a key — no silent downgrade or upgrade.
// Returns true for a keyed session opened to read without its key: its rows can be read,
// never verified. `what` names the session ("session \"u-7\" in app.ledger").
inline bool check_chain_key(const RecordedKey& recorded, const ChainKey& key, bool read_only, const std::string& what) {
  if (recorded.is == RecordedKey::Is::malformed) return false;  // its verification fails at row 1
  if (recorded.is == RecordedKey::Is::unkeyed) {
    if (key.empty()) return false;
    throw LedgerStoreError(what + " is not keyed: it was written without a key, and this store was given one (key id " +
                           key.id() + "); a chain is keyed from its first row or not at all");
  }
  if (key.empty()) {
    if (read_only) return true;
    throw LedgerStoreError(what + " is keyed (key id " + recorded.id +
                           "): open it with its key; without it, it can only be read, unverified (read_only)");
  }
  if (recorded.id != key.id())
    throw LedgerStoreError(what + " is keyed (key id " + recorded.id + "), and the key given has key id " + key.id() +
                           ": another key");
  return false;
}

// A row's body as a store writes it, its canonical text; a body past what the format
// allows a stored row is refused (LedgerStoreError) and nothing of it is written.
inline std::string_view write_body(CanonicalWriter& writer, std::uint64_t seq, const nlohmann::json& body) {
  std::string_view text;
  try {
    text = writer.write(body);
  } catch (const NestedTooDeep&) {
    throw LedgerStoreError("row " + std::to_string(seq) + "'s body nests arrays and objects more than " +
                           std::to_string(ledger_max_nesting) +
                           " deep, more than the ledger format allows: nothing was stored");
  }
  if (text.size() > ledger_max_body_bytes)
    throw LedgerStoreError(row_out_of_bounds(seq, text) + ": nothing was stored");
  return text;
}

// The refusal of a restore from a keyed session whose store has no key.
inline LedgerStoreError unverifiable_restore(const std::string& session, const std::string& key_id) {
  return LedgerStoreError("cannot restore session \"" + escape(session) + "\": its chain is keyed (key id " + key_id +
                          ") and this store was opened without its key, so no row of it can be verified (its rows "
                          "can still be read: LedgerStore::read, groundplane-ledger show)");
}

inline RowHash chain_next(Sha256& sha, const RowHash& prev, std::string_view canonical) {
  return sha(as_chars(prev), canonical);
}
// The same hash, of canonical_bytes given as its header and its body (nothing copied).
inline RowHash chain_next(Sha256& sha, const RowHash& prev, const CanonicalHeader& header, std::string_view body) {
  return sha(as_chars(prev), header.view(), body);
}

// Parses 64 hex digits (either case); false for anything else.
inline bool parse_row_hash(std::string_view hex, RowHash& out) noexcept {
  if (hex.size() != 2 * row_hash_size) return false;
  const auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < row_hash_size; ++i) {
    const int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<unsigned char>(hi * 16 + lo);
  }
  return true;
}

// Walks a session's rows in stored order and stops at the first one that breaks the
// chain. Position, not the stored seq, is the truth: a deleted row shows as the next
// one sitting in its place, an inserted one as a row whose hash does not follow. A row
// past the format's limits (size, nesting) breaks it too, before anything reads it.
// With a trusted head (one published earlier, or the store's expected head), the chain
// must still contain it: a ledger that grew since is intact, one cut or rewritten after
// it is not. `head_noun` names that head in the problem ("published", "expected").
// With a key, every row's hash is HMAC-SHA256 under it, and the first row must record
// its key id; a chain whose first row records a key id cannot be judged without the key.
class ChainVerifier {
 public:
  explicit ChainVerifier(std::string_view session, const ChainKey& key, const RowHash* trusted_head = nullptr,
                         std::string_view head_noun = "published")
      : hash_(key.secret()), key_id_(key.id()), head_noun_(head_noun) {
    prev_ = hash_.genesis(session);
    if (trusted_head) {
      trusted_ = *trusted_head;
      want_trusted_ = true;
    }
  }

  // false once a row is bad (and for every row after it)
  bool feed(const StoredRow& row) {
    if (bad_ || unverifiable_) return false;
    const std::uint64_t position = rows_ + 1;
    if (row.seq != position) {
      const std::string n = std::to_string(position);
      fail(position, row.seq < position
                         ? "row " + n + " is missing: the row stored after row " + std::to_string(rows_) +
                               " claims to be row " + std::to_string(row.seq)
                         : "row " + n + " is missing: the next stored row is row " + std::to_string(row.seq));
      return false;
    }
    if (std::string past = row_out_of_bounds(position, row.body); !past.empty()) {
      fail(position, std::move(past));
      return false;
    }
    if (position == 1 && !first_row(row)) return false;
    RowHash h{};
    try {  // the header in a buffer of its own, the body where the row holds it: nothing copied
      h = hash_.next(prev_, CanonicalHeader(row.seq, row.version, row.kind, row.body.size()), row.body);
    } catch (const ConfigurationError&) {
      fail(position, "row " + std::to_string(position) + " has a malformed kind or body");
      return false;
    }
    if (h != row.hash) {
      fail(position, "row " + std::to_string(position) +
                         " does not follow from the rows before it: it was altered, inserted or moved");
      return false;
    }
    prev_ = row.hash;
    ++rows_;
    if (want_trusted_ && row.hash == trusted_) seen_trusted_ = true;
    return true;
  }

  // Stops the walk at `row` (a read error mid-chain, say).
  void fail(std::uint64_t row, std::string problem) {
    bad_ = true;
    first_bad_ = row;
    problem_ = std::move(problem);
  }

  std::uint64_t rows() const noexcept { return rows_; }

  // What the store holds on the ledger's tables that it did not create ("" for nothing):
  // a chain that verifies is then bad from the row after its last, which a trigger or a
  // view may have swallowed or hidden.
  void foreign_objects(std::string problem) { foreign_ = std::move(problem); }

  LedgerVerification result() const {
    LedgerVerification v;
    v.rows = rows_;
    v.head = rows_ ? to_hex(prev_) : std::string();
    v.keyed = keyed_;
    v.key_id = recorded_id_;
    if (unverifiable_) {
      v.problem = "the chain is keyed (key id " + recorded_id_ + "): it is verified only with its key";
    } else if (bad_) {
      v.first_bad_row = first_bad_;
      v.problem = problem_;
    } else if (!foreign_.empty()) {
      v.first_bad_row = rows_ + 1;
      v.problem = foreign_;
    } else if (want_trusted_ && !seen_trusted_) {
      v.first_bad_row = rows_ + 1;
      v.problem = "the " + std::string(head_noun_) + " head " + to_hex(trusted_) + " is not the hash of any of the " +
                  std::to_string(rows_) +
                  " stored row(s): rows were cut from the tail, or the chain was rewritten after it was " +
                  std::string(head_noun_ == "published" ? "published" : "kept");
    } else {
      v.ok = true;
    }
    return v;
  }

 private:
  // What the first row says of the chain's key, against the key this verifier holds.
  bool first_row(const StoredRow& row) {
    const RecordedKey recorded = recorded_key(row.body);
    switch (recorded.is) {
      case RecordedKey::Is::malformed:
        fail(1, std::string("row 1's key id (its member \"") + chain_key_member + "\") is malformed");
        return false;
      case RecordedKey::Is::unkeyed:
        if (key_id_.empty()) return true;
        fail(1, "row 1 starts an unkeyed chain, but a key (key id " + key_id_ +
                    ") was given: the session was written without a key, or its first row was rewritten");
        return false;
      case RecordedKey::Is::keyed:
        keyed_ = true;
        recorded_id_ = recorded.id;
        if (key_id_.empty()) {
          unverifiable_ = true;
          return false;
        }
        if (recorded.id == key_id_) return true;
        fail(1, "row 1 records key id " + recorded.id + ", but the key given has key id " + key_id_ +
                    ": another key, or a first row rewritten");
        return false;
    }
    return false;
  }

  ChainHash hash_;
  std::string key_id_;  // the key this verifier holds; "" for none
  RowHash prev_{};
  std::uint64_t rows_ = 0;
  bool bad_ = false;
  std::uint64_t first_bad_ = 0;
  std::string problem_;
  RowHash trusted_{};
  bool want_trusted_ = false;
  bool seen_trusted_ = false;
  std::string_view head_noun_;
  bool keyed_ = false;         // the first row records a key id
  std::string recorded_id_;    // that key id
  bool unverifiable_ = false;  // keyed, and no key to verify it with
  std::string foreign_;        // schema objects the store did not create
};

// The verdict on a session the store does not hold, `problem` saying so. A published head
// vouches that the session's rows existed, so then their absence is tampering (deleted
// or renamed: first bad row 1); without one nothing says it ever existed, and the store
// cannot be judged (first bad row 0).
inline LedgerVerification missing_session(std::string problem, bool head_published) {
  if (head_published)
    return failed_verification(problem + "; a head was published for it, so its rows were deleted or renamed", 1);
  return failed_verification(std::move(problem));
}

// The sessions a store holds, for the message naming one it does not: each escaped (a
// name is the store's data, so none can pass for a line of ours), and at most the first
// 50 by name (a store may hold one session per user).
inline std::string held_sessions(const std::vector<std::string>& names_in_order) {
  constexpr std::size_t shown = 50;
  if (names_in_order.empty()) return " (it holds none)";
  std::string out = names_in_order.size() <= shown ? std::string(" (it holds: ")
                                                   : " (it holds " + std::to_string(names_in_order.size()) +
                                                         " sessions; the first " + std::to_string(shown) + ": ";
  for (std::size_t i = 0; i < names_in_order.size() && i < shown; ++i)
    out += (i == 0 ? "" : ", ") + escape(names_in_order[i], 120);
  return out + (names_in_order.size() > shown ? ", ...)" : ")");
}

// A verdict given the head the verifier was handed: a ledger that cannot be judged at
// all (first bad row 0: unreadable, not a ledger, from a newer release) is, once a head
// vouches that its rows existed, a ledger whose rows cannot be reached: tampered from
// row 1. A monitor that alerts on tampering then never reads it as "unusable".
inline LedgerVerification unreachable_head(std::string_view published_head, LedgerVerification v) {
  if (published_head.empty() || v.ok || v.first_bad_row != 0) return v;
  v.first_bad_row = 1;
  v.problem = "the published head cannot be reached: " + v.problem;
  return v;
}

// One session's chain walked to its end (with `key`, a keyed chain's): `read_rows(visit)`
// hands over the stored rows in order and stops when visit returns false. A read that throws part way makes the row
// after the last one read the first bad row, in the words `broke_off(rows_read, what)`.
template <class ReadRows, class BrokeOff>
LedgerVerification walk_chain(std::string_view session, const ChainKey& key, const RowHash* published_head,
                              const std::string& foreign, ReadRows&& read_rows, BrokeOff&& broke_off) {
  ChainVerifier chain(session, key, published_head);
  chain.foreign_objects(foreign);
  try {
    read_rows([&](const StoredRow& r) { return chain.feed(r); });
  } catch (const std::exception& e) {
    chain.fail(chain.rows() + 1, broke_off(chain.rows(), e.what()));
  }
  return chain.result();
}

// A store's read_verified: `read_rows(visit)` hands over the stored rows in order; each is
// passed on to `visit` only once it follows from the rows before it, and a break throws
// ChainBroken naming the first bad row (a read that throws part way names the row after
// the last one read, in the words `broke_off(rows_read, what)`). An exception from
// `visit` itself propagates unchanged.
template <class ReadRows, class BrokeOff>
void read_verified_rows(std::string_view session, const ChainKey& key, const RowHash* expected_head,
                        const std::string& foreign, ReadRows&& read_rows, BrokeOff&& broke_off,
                        const std::function<bool(const StoredRow&)>& visit) {
  ChainVerifier chain(session, key, expected_head, "expected");
  chain.foreign_objects(foreign);
  std::exception_ptr from_visit;
  bool stopped = false;
  try {
    read_rows([&](const StoredRow& r) {
      if (!chain.feed(r)) return false;
      try {
        if (!visit(r)) stopped = true;
      } catch (...) {
        from_visit = std::current_exception();
        stopped = true;
      }
      return !stopped;
    });
  } catch (const std::exception& e) {
    if (from_visit) std::rethrow_exception(from_visit);
    chain.fail(chain.rows() + 1, broke_off(chain.rows(), e.what()));
  }
  if (from_visit) std::rethrow_exception(from_visit);
  if (stopped) return;  // the caller stopped reading: nothing more to judge
  const LedgerVerification v = chain.result();
  if (!v.ok) throw ChainBroken(v.first_bad_row, v.problem);
}

// An expected head given to a store's options, parsed; a malformed one is the
// developer's mistake.
inline std::optional<RowHash> expected_head_option(std::string_view hex, const char* option) {
  if (hex.empty()) return std::nullopt;
  RowHash h{};
  if (!parse_row_hash(hex, h))
    throw ConfigurationError(std::string(option) + " \"" + std::string(hex.substr(0, 80)) +
                             "\" is not a head hash (64 hexadecimal digits, as GroundTruth::head gives it)");
  return h;
}

}  // namespace groundplane::detail
