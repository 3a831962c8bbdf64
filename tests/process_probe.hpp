// Shared by the tests that measure this process: its resident memory, whether it runs
// under AddressSanitizer (whose quarantine keeps freed memory resident, so memory bounds
// are not asserted there), sizes taken from the environment (small by default in CI), and
// the random tests' output count.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <fstream>
#include <string>

#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define GP_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GP_UNDER_ASAN 1
#endif
#endif
#ifndef GP_UNDER_ASAN
#define GP_UNDER_ASAN 0
#endif

namespace gp_test {

// How many random outputs the differential tests draw: 10,000, and a quarter of that
// under AddressSanitizer, where the same run takes six times as long and the plain build
// already covers the full count.
inline constexpr int random_output_count = GP_UNDER_ASAN ? 2500 : 10000;

// Resident memory of this process, in bytes (Linux).
inline std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

// The environment variable `name` as a size, or `fallback` when it is unset or empty.
inline std::size_t env_size(const char* name, std::size_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? static_cast<std::size_t>(std::stoull(v)) : fallback;
}

}  // namespace gp_test
