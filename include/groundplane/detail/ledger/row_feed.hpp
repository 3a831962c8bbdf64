// A store's rows for a restore, read on a second thread a few batches ahead of the thread
// that replays them, their bodies parsed by whichever of the two gets to them first.
//
// A restore is three costs of about the same size: the store reading its rows, parsing
// each body, and replaying it into the session. Only the replay needs the session, so
// the reader thread reads ahead until four batches of 512 rows wait, and parses waiting
// batches while the slots are full; the replaying thread parses a batch it reaches before
// the reader did. The two sides balance however the costs fall on a machine. Calls to
// the store never overlap: the replaying thread does not touch the store until the feed
// is gone.
#pragma once

#include <array>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "groundplane/detail/ledger/row_body.hpp"
#include "groundplane/store/ledger_store.hpp"

namespace groundplane::detail {

// A stored row and its body, read.
struct ParsedRow {
  std::uint64_t seq = 0;
  std::uint64_t version = 0;
  std::string kind;
  RowHash hash{};
  std::string text;  // the body as stored, until it is read
  RowBody body;
  bool parsed = false;  // false: the body is not one JSON object

  void read_body() { parsed = body.read(text); }
};

// Hands every row a store's read gives to visit, in order, until visit returns false.
using RowVisit = std::function<bool(const StoredRow&)>;
using RowSource = std::function<void(const RowVisit&)>;

class RowFeed {
 public:
  explicit RowFeed(RowSource source) : source_(std::move(source)), reader_([this] { run(); }) {}
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
    if (current_ != nullptr && at_ < current_->size) return &current_->rows[at_++];
    std::unique_lock lock(mutex_);
    if (current_ != nullptr) {
      ++head_;  // its slot is the reader's again
      current_ = nullptr;
      changed_.notify_all();
    }
    // The next batch, once it is handed over and nobody else is reading its bodies.
    changed_.wait(lock, [&] { return head_ < tail_ ? state_[head_ % slots] != State::reading : done_; });
    if (head_ == tail_) {
      if (error_) std::rethrow_exception(error_);
      return nullptr;
    }
    Batch& b = ring_[head_ % slots];
    const bool mine = state_[head_ % slots] == State::read;
    state_[head_ % slots] = State::ready;
    lock.unlock();
    if (mine) b.read_bodies();  // the reader is busy: this thread reads them
    current_ = &b;
    at_ = 1;
    return &b.rows[0];
  }

  // A row as the store handed it, but for its body.
  static void copy_header(ParsedRow& p, const StoredRow& r) {
    p.seq = r.seq;
    p.version = r.version;
    p.kind = r.kind;
    p.hash = r.hash;
  }
  // A row as the store handed it; its body kept as text, to be read by whichever thread
  // gets to it (the store reuses its row for the next one).
  static void copy(ParsedRow& p, const StoredRow& r) {
    copy_header(p, r);
    p.text = r.body;
  }

 private:
  static constexpr std::size_t batch_rows = 512;
  static constexpr std::size_t slots = 4;

  struct Batch {
    std::vector<ParsedRow> rows;  // reused: [0, size) are this batch's, the rest keep their capacity
    std::size_t size = 0;
    void read_bodies() {
      for (std::size_t i = 0; i < size; ++i) rows[i].read_body();
    }
  };
  // A handed-over batch: bodies not read yet, being read by the reader, or ready (read, or
  // claimed by the replaying thread, which reads them itself).
  enum class State : unsigned char { read, reading, ready };

  // Waits for a free slot, reading handed-over bodies meanwhile (the replaying thread
  // reads the ones it reaches first). False when the feed is closing.
  bool slot_free(std::unique_lock<std::mutex>& lock) {
    for (;;) {
      if (stop_) return false;
      if (tail_ - head_ < slots) return true;
      if (!read_one_batch(lock)) changed_.wait(lock);
    }
  }
  // Reads the bodies of the oldest batch nobody has claimed; false when there is none.
  bool read_one_batch(std::unique_lock<std::mutex>& lock) {
    for (std::size_t k = head_; k < tail_; ++k) {
      if (state_[k % slots] != State::read) continue;
      state_[k % slots] = State::reading;
      lock.unlock();
      ring_[k % slots].read_bodies();
      lock.lock();
      state_[k % slots] = State::ready;
      changed_.notify_all();
      return true;
    }
    return false;
  }

  void run() noexcept {
    std::exception_ptr error;
    try {
      std::unique_lock lock(mutex_);
      if (slot_free(lock)) {
        lock.unlock();
        bool open = true;
        Batch* b = &ring_[tail_ % slots];  // the reader's alone until it is handed over
        const auto hand_over = [&] {
          lock.lock();
          state_[tail_ % slots] = State::read;
          ++tail_;
          changed_.notify_all();
          open = slot_free(lock);
          b = &ring_[tail_ % slots];
          b->size = 0;
          lock.unlock();
          return open;
        };
        source_([&](const StoredRow& r) {
          if (b->size == b->rows.size()) b->rows.emplace_back();
          copy(b->rows[b->size++], r);
          return b->size < batch_rows || hand_over();
        });
        if (open && b->size != 0) hand_over();
      }
    } catch (...) {
      error = std::current_exception();
    }
    std::unique_lock lock(mutex_);
    error_ = error;
    done_ = true;
    changed_.notify_all();
    while (!stop_ && read_one_batch(lock)) {  // the store is done: help with the bodies
    }
  }

  RowSource source_;  // called on reader_ alone
  std::mutex mutex_;
  std::condition_variable changed_;
  std::array<Batch, slots> ring_;  // batch k is ring_[k % slots]
  std::array<State, slots> state_{};
  std::size_t head_ = 0;  // the batch being replayed, or the next one
  std::size_t tail_ = 0;  // the batch being filled; [head_, tail_) are handed over
  bool done_ = false;
  bool stop_ = false;
  std::exception_ptr error_;
  Batch* current_ = nullptr;  // the replaying thread's: ring_[head_ % slots] while it replays it
  std::size_t at_ = 0;
  std::thread reader_;  // last: started once everything it uses exists, joined before it goes
};

// Hands apply every row `source` reads, in order, its body read: through a RowFeed, or on
// this thread alone when no second thread can be had (second_thread false, or the system
// refused one) — the same rows either way, only slower.
template <class Apply>
void feed_rows(const RowSource& source, Apply&& apply, bool second_thread = true) {
  std::optional<RowFeed> feed;
  if (second_thread) {
    try {
      feed.emplace(source);
    } catch (const std::system_error&) {  // no thread to be had (a process limit, say)
    }
  }
  if (feed) {
    while (ParsedRow* p = feed->next()) apply(*p);
    return;
  }
  ParsedRow p;
  source([&](const StoredRow& r) {
    RowFeed::copy_header(p, r);
    p.parsed = p.body.read(r.body);  // read where the store holds it, before its next row
    apply(p);
    return true;
  });
}

// Every row with seq >= from_seq, as the store holds it (unverified).
template <class Apply>
void read_rows(const LedgerStore& store, std::uint64_t from_seq, Apply&& apply, bool second_thread = true) {
  feed_rows([&](const RowVisit& visit) { store.read(from_seq, visit); }, std::forward<Apply>(apply), second_thread);
}

// Every row of the session, each only once the chain up to it was re-derived: what a
// restore reads. A chain that breaks stops it with detail::ChainBroken, after the rows
// before the bad one were applied.
template <class Apply>
void read_rows_verified(const LedgerStore& store, Apply&& apply, bool second_thread = true) {
  feed_rows([&](const RowVisit& visit) { store.read_verified(visit); }, std::forward<Apply>(apply), second_thread);
}

}  // namespace groundplane::detail
