// The hash chain over a session's rows (see ledger_store.hpp), with SHA-256 from
// OpenSSL's libcrypto (EVP), shared by every store: appending extends it, verifying
// re-derives it. Only the store targets include this header (it needs -lcrypto).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <openssl/evp.h>

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
// With a published head, the chain must still contain it: a ledger that grew since is
// intact, one cut or rewritten after it is not.
class ChainVerifier {
 public:
  explicit ChainVerifier(std::string_view session, const RowHash* published_head = nullptr)
      : prev_(chain_genesis(sha_, session)) {
    if (published_head) {
      published_ = *published_head;
      want_published_ = true;
    }
  }

  // false once a row is bad (and for every row after it)
  bool feed(const StoredRow& row) {
    if (bad_) return false;
    const std::uint64_t position = rows_ + 1;
    const std::string n = std::to_string(position);
    if (row.seq != position) {
      fail(position, row.seq < position
                         ? "row " + n + " is missing: the row stored after row " + std::to_string(rows_) +
                               " claims to be row " + std::to_string(row.seq)
                         : "row " + n + " is missing: the next stored row is row " + std::to_string(row.seq));
      return false;
    }
    std::string bytes;
    try {
      bytes = canonical_bytes(row);
    } catch (const std::exception&) {
      fail(position, "row " + n + " has a malformed kind or body");
      return false;
    }
    if (chain_next(sha_, prev_, bytes) != row.hash) {
      fail(position, "row " + n + " does not follow from the rows before it: it was altered, inserted or moved");
      return false;
    }
    prev_ = row.hash;
    ++rows_;
    if (want_published_ && row.hash == published_) seen_published_ = true;
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
    } else if (want_published_ && !seen_published_) {
      v.first_bad_row = rows_ + 1;
      v.problem = "the published head " + to_hex(published_) + " is not the hash of any of the " +
                  std::to_string(rows_) +
                  " stored row(s): rows were cut from the tail, or the chain was rewritten after it was published";
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
  RowHash published_{};
  bool want_published_ = false;
  bool seen_published_ = false;
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

}  // namespace groundplane::detail
