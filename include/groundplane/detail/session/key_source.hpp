// Where a session's idempotency keys come from: the operating system's random source
// (getrandom on Linux, getentropy on the BSDs and macOS, std::random_device elsewhere),
// read a few hundred bytes at a time, each key taking 12 bytes no key took before. One
// read serves 32 fires, so a key costs a copy rather than a system call; a process that
// forks reads afresh before its next key, so parent and child never hand out the same
// bytes.
#pragma once

#include <array>
#include <cstddef>

#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/session/idempotency_key.hpp"

namespace groundplane::detail {

class KeySource {
 public:
  // A key no fire has had: 96 bits from the random source, never all zero. Throws
  // std::system_error when the source cannot be read.
  IdempotencyKey next();

 private:
  void refill();
  static constexpr std::size_t keys_per_read = 32;
  std::array<unsigned char, IdempotencyKey::size * keys_per_read> buffer_{};
  std::size_t used_ = buffer_.size();  // empty until the first key
  unsigned forks_ = 0;                 // the forks the process had seen when the buffer was read
};

}  // namespace groundplane::detail

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/detail/session/key_source-inl.hpp"
#endif
