// What the hostile tests share: running a call on a thread with a small stack (a worker
// thread's, where a recursion once per level of a deep value runs out long before the
// main thread's 8 MiB would), a deep value built without recursion, the process's peak
// resident memory, a wall clock and CPU time for a cost's budget, and untouched memory
// for inputs far past a bound.
#pragma once

#include <pthread.h>
#include <sys/mman.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <chrono>
#include <cstddef>
#include <ctime>
#include <exception>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace hostile {

// The stack of many worker threads (musl's default is 128 KiB, a thread pool's often
// 256 KiB): a value nested deep enough to matter overflows it under recursion.
inline constexpr std::size_t small_stack = std::size_t{256} * 1024;

// Runs `f` on a new thread with a `stack`-byte stack and waits for it; what it throws is
// rethrown here. A recursion once per level of a deep value ends this process (SIGSEGV)
// rather than passing.
inline void on_small_stack(const std::function<void()>& f, std::size_t stack = small_stack) {
  struct Call {
    const std::function<void()>* f;
    std::exception_ptr thrown;
  } call{&f, nullptr};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, stack);
  pthread_t thread;
  const int made = pthread_create(
      &thread, &attr,
      [](void* p) -> void* {
        auto* c = static_cast<Call*>(p);
        try {
          (*c->f)();
        } catch (...) {
          c->thrown = std::current_exception();
        }
        return nullptr;
      },
      &call);
  pthread_attr_destroy(&attr);
  if (made != 0) throw std::runtime_error("pthread_create failed");
  pthread_join(thread, nullptr);
  if (call.thrown) std::rethrow_exception(call.thrown);
}

// [[[...]]] (or {"k":{"k":...}} with `objects`) nested `depth` levels, built in place:
// neither building nor destroying it recurses (nlohmann 3.11 destroys iteratively).
template <class Json = nlohmann::json>
Json nested(std::size_t depth, bool objects = false) {
  Json root = objects ? Json::object() : Json::array();
  Json* at = &root;
  for (std::size_t i = 1; i < depth; ++i) {
    if (objects) {
      (*at)["k"] = Json::object();
      at = &(*at)["k"];
    } else {
      at->push_back(Json::array());
      at = &at->back();
    }
  }
  return root;
}

// The same as JSON text, for the readers.
inline std::string nested_text(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// A /proc/self/status figure in bytes (VmRSS now, VmHWM the peak); 0 when unreadable.
inline std::size_t status_bytes(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field + ":", 0) == 0) return std::stoull(line.substr(field.size() + 1)) * 1024;
  return 0;
}

// Whether this build's RSS says what the code holds: a sanitizer's allocator keeps freed
// memory in quarantine (ASan holds 256 MiB of it), so there it does not.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool rss_is_meaningful = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
inline constexpr bool rss_is_meaningful = false;
#else
inline constexpr bool rss_is_meaningful = true;
#endif
#else
inline constexpr bool rss_is_meaningful = true;
#endif

// The peak from now on: the kernel's high-water mark is reset to the current RSS
// (Linux >= 4.0), so peak_rss() after a call is that call's peak.
inline void reset_peak_rss() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
}
inline std::size_t peak_rss() { return status_bytes("VmHWM"); }
inline std::size_t current_rss() { return status_bytes("VmRSS"); }

// Large blocks mapped and given back when freed, as groundplane-mcp sets glibc, and what
// earlier cases freed given back now: else RSS says what the heap once held (a freed
// 7 MiB request body, a million-deep value), not what is still held.
inline void return_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 1024 * 1024);
  malloc_trim(0);
#endif
}

// The peak resident memory `step` adds above what was resident before it. Memory freed
// before it is given back first, so the step cannot reuse pages an earlier one left
// resident and look free.
template <class Step>
std::size_t peak_added_by(Step&& step) {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
  reset_peak_rss();
  const std::size_t before = current_rss();
  step();
  const std::size_t peak = peak_rss();
  return peak > before ? peak - before : 0;
}

// CPU seconds this process has used.
inline double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

// Seconds `f` takes.
inline double seconds_of(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

inline constexpr std::size_t MiB = std::size_t{1024} * 1024;

// `bytes` of address space that reads as zeros and is never touched: an input far past a
// bound that must be refused without being read costs no memory to hand over.
class Untouched {
 public:
  explicit Untouched(std::size_t bytes) : size_(bytes) {
    data_ = ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (data_ == MAP_FAILED) throw std::runtime_error("Untouched: mmap failed");
  }
  Untouched(const Untouched&) = delete;
  Untouched& operator=(const Untouched&) = delete;
  ~Untouched() { ::munmap(data_, size_); }
  std::string_view view() const { return {static_cast<const char*>(data_), size_}; }

 private:
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace hostile
