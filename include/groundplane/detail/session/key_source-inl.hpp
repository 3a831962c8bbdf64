// The bodies of detail/session/key_source.hpp: included by it in the header-only build, compiled
// once into groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/detail/session/key_source.hpp"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <random>
#include <system_error>

#if defined(__linux__)
#include <pthread.h>
#include <sys/random.h>
#define GROUNDPLANE_KEY_SOURCE_GETRANDOM 1
#elif defined(__APPLE__) || defined(__FreeBSD__) || defined(__OpenBSD__) || defined(__NetBSD__)
#include <pthread.h>
#include <sys/random.h>
#include <unistd.h>
#define GROUNDPLANE_KEY_SOURCE_GETENTROPY 1
#endif

namespace groundplane::detail {

// How many times this process has forked (counted in the child): a buffer read before a
// fork is not used after it.
GROUNDPLANE_INLINE unsigned forks_seen() {
  static std::atomic<unsigned> forks{0};
#if defined(GROUNDPLANE_KEY_SOURCE_GETRANDOM) || defined(GROUNDPLANE_KEY_SOURCE_GETENTROPY)
  static const bool counted = ::pthread_atfork(nullptr, nullptr, [] { forks.fetch_add(1); }) == 0;
  (void)counted;
#endif
  return forks.load();
}

GROUNDPLANE_INLINE void KeySource::refill() {
#if defined(GROUNDPLANE_KEY_SOURCE_GETRANDOM)
  std::size_t got = 0;
  while (got < buffer_.size()) {
    const ssize_t n = ::getrandom(buffer_.data() + got, buffer_.size() - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "reading the random source for idempotency keys");
    }
    got += static_cast<std::size_t>(n);
  }
#elif defined(GROUNDPLANE_KEY_SOURCE_GETENTROPY)
  for (std::size_t got = 0; got < buffer_.size(); got += 256) {  // getentropy reads at most 256 bytes
    const std::size_t n = buffer_.size() - got < 256 ? buffer_.size() - got : 256;
    if (::getentropy(buffer_.data() + got, n) != 0)
      throw std::system_error(errno, std::generic_category(), "reading the random source for idempotency keys");
  }
#else
  std::random_device device;
  for (std::size_t i = 0; i < buffer_.size(); i += 4) {
    const auto word = static_cast<std::uint32_t>(device());
    for (std::size_t b = 0; b < 4 && i + b < buffer_.size(); ++b)
      buffer_[i + b] = static_cast<unsigned char>(word >> (8 * b));
  }
#endif
  used_ = 0;
}

GROUNDPLANE_INLINE IdempotencyKey KeySource::next() {
  for (;;) {
    const unsigned forks = forks_seen();
    if (forks != forks_) used_ = buffer_.size();  // read before a fork: the other process has the same bytes
    if (used_ == buffer_.size()) {
      refill();
      forks_ = forks;
    }
    IdempotencyKey key;
    std::memcpy(key.bytes.data(), buffer_.data() + used_, IdempotencyKey::size);
    std::memset(buffer_.data() + used_, 0, IdempotencyKey::size);  // taken: never handed out again
    used_ += IdempotencyKey::size;
    if (!key.empty()) return key;  // all zero means no key: draw again (one chance in 2^96)
  }
}

}  // namespace groundplane::detail
