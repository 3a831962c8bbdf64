// An immutable string that many ledger rows hold at once: an action's id and `does`, the
// node a row was minted on. A row holds one pointer, and a million fires of one action
// share one copy of its sentence instead of a million.
//
// The count is deliberately not atomic: every copy is made and dropped by a Session with
// its mutex held (rows, the declared actions and the cursor all live behind it), so an
// atomic increment per fire would buy nothing. Nothing outside the session holds one;
// the public rows (Transition, GapRow) are materialized as plain strings.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace groundplane::detail {

class SharedText {
 public:
  SharedText() noexcept = default;  // no text: an optional sentence that is absent
  explicit SharedText(std::string text) : block_(new Block{1, std::move(text)}) {}
  SharedText(const SharedText& other) noexcept : block_(other.block_) {
    if (block_) ++block_->refs;
  }
  SharedText(SharedText&& other) noexcept : block_(std::exchange(other.block_, nullptr)) {}
  SharedText& operator=(SharedText other) noexcept {
    std::swap(block_, other.block_);
    return *this;
  }
  ~SharedText() {
    if (block_ && --block_->refs == 0) delete block_;
  }

  explicit operator bool() const noexcept { return block_ != nullptr; }
  // The text, or "" when there is none.
  const std::string& str() const noexcept { return block_ ? block_->text : empty(); }
  std::optional<std::string> optional() const {
    return block_ ? std::optional<std::string>(block_->text) : std::nullopt;
  }
  bool same_as(const SharedText& other) const noexcept { return block_ == other.block_; }
  // Equal texts (an absent text equals only an absent one).
  friend bool operator==(const SharedText& a, const SharedText& b) noexcept {
    return a.block_ == b.block_ || (a.block_ && b.block_ && a.block_->text == b.block_->text);
  }

 private:
  struct Block {
    std::size_t refs;
    const std::string text;
  };
  static const std::string& empty() noexcept {
    static const std::string none;
    return none;
  }
  Block* block_ = nullptr;
};

// `text` as a SharedText, reusing `last` when it already holds the same characters: rows
// minted in a row on one node, or refusals of one invented id, then share one copy.
inline SharedText share(std::string_view text, SharedText& last) {
  if (!last || last.str() != text) last = SharedText(std::string(text));
  return last;
}

}  // namespace groundplane::detail
