// A store's rows for a restore, read and parsed on a second thread a few batches ahead of
// the thread that replays them.
//
// A restore is three costs of about the same size: the store reading its rows, parsing
// each body, and replaying it into the session. The first two do not depend on the
// session, so they run beside the third: a restore of 1M rows takes the longer of the
// two sides, not their sum (measured in bench/run). Calls to the store never overlap:
// the replaying thread does not touch the store until the feed is gone.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "groundplane/detail/row_body.hpp"
#include "groundplane/store/ledger_store.hpp"

namespace groundplane::detail {

// A stored row with its body read (the text itself is not kept).
struct ParsedRow {
  std::uint64_t seq = 0;
  std::uint64_t version = 0;
  std::string kind;
  RowHash hash{};
  RowBody body;
  bool parsed = false;  // false: the body is not one JSON object
};

class RowFeed {
 public:
  RowFeed(const LedgerStore& store, std::uint64_t from_seq)
      : free_(in_flight), reader_([this, &store, from_seq] { run(store, from_seq); }) {}
  ~RowFeed() {
    {
      const std::lock_guard lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    reader_.join();
  }
  RowFeed(const RowFeed&) = delete;
  RowFeed& operator=(const RowFeed&) = delete;

  // The next row in seq order, or nullptr after the last; valid until the next call. What
  // the store threw is rethrown here, once the rows handed over before it are replayed.
  ParsedRow* next() {
    if (at_ < current_.size) return &current_.rows[at_++];
    std::unique_lock lock(mutex_);
    if (current_.size != 0) {
      current_.size = 0;
      free_.push_back(std::move(current_));
      changed_.notify_all();
    }
    changed_.wait(lock, [&] { return !filled_.empty() || done_; });
    if (filled_.empty()) {
      if (error_) std::rethrow_exception(error_);
      return nullptr;
    }
    current_ = std::move(filled_.front());
    filled_.pop_front();
    at_ = 1;
    return &current_.rows[0];
  }

  static void fill(ParsedRow& p, const StoredRow& r) {
    p.seq = r.seq;
    p.version = r.version;
    p.kind = r.kind;
    p.hash = r.hash;
    p.parsed = p.body.read(r.body);
  }

 private:
  static constexpr std::size_t batch_rows = 512;
  static constexpr std::size_t in_flight = 3;  // batches: one replayed, one read, one waiting

  struct Batch {
    std::vector<ParsedRow> rows;  // reused: [0, size) are this batch's, the rest keep their capacity
    std::size_t size = 0;
  };

  // False when the feed is closing.
  bool take_free(Batch& b) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !free_.empty() || stop_; });
    if (stop_) return false;
    b = std::move(free_.back());
    free_.pop_back();
    return true;
  }
  void hand_over(Batch& b) {
    {
      const std::lock_guard lock(mutex_);
      filled_.push_back(std::move(b));
    }
    changed_.notify_all();
  }

  void run(const LedgerStore& store, std::uint64_t from_seq) noexcept {
    std::exception_ptr error;
    try {
      Batch b;
      if (take_free(b)) {
        bool open = true;
        store.read(from_seq, [&](const StoredRow& r) {
          if (b.size == b.rows.size()) b.rows.emplace_back();
          fill(b.rows[b.size++], r);
          if (b.size < batch_rows) return true;
          hand_over(b);
          open = take_free(b);
          return open;
        });
        if (open && b.size != 0) hand_over(b);
      }
    } catch (...) {
      error = std::current_exception();
    }
    {
      const std::lock_guard lock(mutex_);
      error_ = error;
      done_ = true;
    }
    changed_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Batch> free_;
  std::deque<Batch> filled_;
  bool done_ = false;
  bool stop_ = false;
  std::exception_ptr error_;
  Batch current_;  // the replaying thread's alone
  std::size_t at_ = 0;
  std::thread reader_;  // last: started once everything it uses exists, joined before it goes
};

// Hands apply every row with seq >= from_seq, in order, its body read: through a RowFeed,
// or on this thread alone when no second thread can be had (second_thread false, or the
// system refused one) — the same rows either way, only slower.
template <class Apply>
void read_rows(const LedgerStore& store, std::uint64_t from_seq, Apply&& apply, bool second_thread = true) {
  std::optional<RowFeed> feed;
  if (second_thread) {
    try {
      feed.emplace(store, from_seq);
    } catch (const std::system_error&) {  // no thread to be had (a process limit, say)
    }
  }
  if (feed) {
    while (ParsedRow* p = feed->next()) apply(*p);
    return;
  }
  ParsedRow p;
  store.read(from_seq, [&](const StoredRow& r) {
    RowFeed::fill(p, r);
    apply(p);
    return true;
  });
}

}  // namespace groundplane::detail
