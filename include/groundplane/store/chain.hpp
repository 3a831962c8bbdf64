// The hash chain over a session's rows (see ledger_store.hpp), with SHA-256 from
// OpenSSL's libcrypto (EVP), shared by every store: appending extends it, verifying
// re-derives it. Only the store targets include this header (it needs -lcrypto).
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <openssl/evp.h>

#include "groundplane/detail/escape.hpp"
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

inline std::string_view as_chars(const RowHash& h) noexcept {
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): bytes viewed as chars, the one aliasing C++ allows
  return {reinterpret_cast<const char*>(h.data()), h.size()};
}

inline RowHash chain_genesis(Sha256& sha, std::string_view session) { return sha(chain_genesis_bytes(session)); }

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
// one sitting in its place, an inserted one as a row whose hash does not follow.
// With a trusted head (one published earlier, or the store's expected head), the chain
// must still contain it: a ledger that grew since is intact, one cut or rewritten after
// it is not. `head_noun` names that head in the problem ("published", "expected").
class ChainVerifier {
 public:
  explicit ChainVerifier(std::string_view session, const RowHash* trusted_head = nullptr,
                         std::string_view head_noun = "published")
      : prev_(chain_genesis(sha_, session)), head_noun_(head_noun) {
    if (trusted_head) {
      trusted_ = *trusted_head;
      want_trusted_ = true;
    }
  }

  // false once a row is bad (and for every row after it)
  bool feed(const StoredRow& row) {
    if (bad_) return false;
    const std::uint64_t position = rows_ + 1;
    if (row.seq != position) {
      const std::string n = std::to_string(position);
      fail(position, row.seq < position
                         ? "row " + n + " is missing: the row stored after row " + std::to_string(rows_) +
                               " claims to be row " + std::to_string(row.seq)
                         : "row " + n + " is missing: the next stored row is row " + std::to_string(row.seq));
      return false;
    }
    RowHash h{};
    try {  // the header in a buffer of its own, the body where the row holds it: nothing copied
      h = chain_next(sha_, prev_, CanonicalHeader(row.seq, row.version, row.kind, row.body.size()), row.body);
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

  LedgerVerification result() const {
    LedgerVerification v;
    v.rows = rows_;
    v.head = rows_ ? to_hex(prev_) : std::string();
    if (bad_) {
      v.first_bad_row = first_bad_;
      v.problem = problem_;
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
  Sha256 sha_;
  RowHash prev_;
  std::uint64_t rows_ = 0;
  bool bad_ = false;
  std::uint64_t first_bad_ = 0;
  std::string problem_;
  RowHash trusted_{};
  bool want_trusted_ = false;
  bool seen_trusted_ = false;
  std::string_view head_noun_;
};

// The verdict on a session the store does not hold, `problem` saying so. A published head
// vouches that the session's rows existed, so then their absence is tampering (deleted
// or renamed: first bad row 1); without one nothing says it ever existed, and the store
// cannot be judged (first bad row 0).
inline LedgerVerification missing_session(std::string problem, bool head_published) {
  if (head_published)
    return {false, 0, "", 1, problem + "; a head was published for it, so its rows were deleted or renamed"};
  return {false, 0, "", 0, std::move(problem)};
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

// One session's chain walked to its end: `read_rows(visit)` hands over the stored rows in
// order and stops when visit returns false. A read that throws part way makes the row
// after the last one read the first bad row, in the words `broke_off(rows_read, what)`.
template <class ReadRows, class BrokeOff>
LedgerVerification walk_chain(std::string_view session, const RowHash* published_head, ReadRows&& read_rows,
                              BrokeOff&& broke_off) {
  ChainVerifier chain(session, published_head);
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
void read_verified_rows(std::string_view session, const RowHash* expected_head, ReadRows&& read_rows,
                        BrokeOff&& broke_off, const std::function<bool(const StoredRow&)>& visit) {
  ChainVerifier chain(session, expected_head, "expected");
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
