// What the cost harness (tests/hostile) measures with: this process's resident memory and
// its peak, CPU time, and a thread with a small stack for the deep inputs.
#pragma once

#include <malloc.h>
#include <pthread.h>
#include <sys/mman.h>

#include <cstddef>
#include <ctime>
#include <exception>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace hostile {

// The line "<key>: <n> kB" of /proc/self/status, in bytes.
inline std::size_t status_bytes(std::string_view key) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.compare(0, key.size(), key) == 0 && line.size() > key.size() && line[key.size()] == ':')
      return std::stoull(line.substr(key.size() + 1)) * 1024;
  return 0;
}

inline std::size_t resident_bytes() { return status_bytes("VmRSS"); }
inline std::size_t peak_resident_bytes() { return status_bytes("VmHWM"); }

// Sets the peak to what is resident now (Linux: "5" to clear_refs), so the peak read after
// a step is that step's.
inline void reset_peak_resident() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
}

// The peak resident memory `step` adds above what was resident before it. Memory freed
// before it is given back first (malloc_trim), so the step cannot reuse pages an earlier
// one left resident and look free.
template <class Step>
std::size_t peak_added_by(Step&& step) {
  ::malloc_trim(0);
  reset_peak_resident();
  const std::size_t before = resident_bytes();
  step();
  const std::size_t peak = peak_resident_bytes();
  return peak > before ? peak - before : 0;
}

// CPU seconds this process has used.
inline double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

// Runs `work` on a thread whose stack is `stack_bytes` (a worker's, far below the main
// thread's 8 MiB), and rethrows what it threw. A recursion a hostile input drives too deep
// overflows it: the test then dies, as the app would.
inline void on_small_stack(const std::function<void()>& work, std::size_t stack_bytes = 256 * 1024) {
  struct Call {
    const std::function<void()>* work;
    std::exception_ptr error;
  } call{&work, nullptr};
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, stack_bytes);
  pthread_t thread;
  const int started = pthread_create(
      &thread, &attributes,
      [](void* p) -> void* {
        auto* c = static_cast<Call*>(p);
        try {
          (*c->work)();
        } catch (...) {
          c->error = std::current_exception();
        }
        return nullptr;
      },
      &call);
  pthread_attr_destroy(&attributes);
  if (started != 0) throw std::runtime_error("on_small_stack: pthread_create failed");
  pthread_join(thread, nullptr);
  if (call.error) std::rethrow_exception(call.error);
}

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
