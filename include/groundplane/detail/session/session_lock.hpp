// The session's mutex, with a re-entrancy check: the thread that holds it calling back
// in is a bug (a predicate using the session, or a Session::View left alive), and a loud
// ConfigurationError beats a silent deadlock.
#pragma once

#include <atomic>
#include <mutex>
#include <thread>

#include "groundplane/errors.hpp"

namespace groundplane::detail {

struct SessionMutex {
  mutable std::mutex mutex;
  mutable std::atomic<std::thread::id> owner{};  // the thread holding `mutex`, if any
};

class SessionLock {
 public:
  explicit SessionLock(const SessionMutex& m) : m_(&m) { acquire(); }
  ~SessionLock() {
    if (held_) release();
  }
  SessionLock(const SessionLock&) = delete;
  SessionLock& operator=(const SessionLock&) = delete;

  void acquire() {
    if (m_->owner.load() == std::this_thread::get_id())
      throw ConfigurationError(
          "gp::Session called back into itself on the thread that holds it: enabled_when, "
          "guard and verify must not use the session, and no Session::View may be alive on "
          "this thread while it is called (handlers may call back; they run unlocked)");
    m_->mutex.lock();
    m_->owner.store(std::this_thread::get_id());
    held_ = true;
  }
  void release() {
    m_->owner.store(std::thread::id{});
    m_->mutex.unlock();
    held_ = false;
  }
  bool held() const noexcept { return held_; }

 private:
  const SessionMutex* m_;
  bool held_ = false;
};

}  // namespace groundplane::detail
