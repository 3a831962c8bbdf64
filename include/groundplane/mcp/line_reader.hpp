// The stdio transport's line readers (gp::mcp::Server reads its input through them):
// newline-delimited messages taken from a stream buffer with a bound on a line's length,
// a line past it consumed and counted but never stored. Both put a line's bytes through
// one LineSink, so the limit, the count, a CR before the newline and how the line ended
// are decided in one place. Templates and the per-chunk hot path, so all in the header.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <ios>
#include <streambuf>
#include <string>
#include <string_view>
#include <type_traits>

#include "groundplane/detail/language_standard.hpp"

namespace groundplane::mcp::detail {

// How one read_line ended.
enum class LineEnd { newline, eof_after_text, eof };

struct LineRead {
  LineEnd end;
  std::size_t bytes = 0;  // bytes in the line, newline excluded (counted even when skipped)
  bool too_long = false;  // over the limit: `line` was cleared and the rest skipped
};

// What read_line does before it waits for input: nothing.
struct NoWait {
  void operator()() const noexcept {}
};

// Where both line readers put a line's bytes: kept up to `max`, counted past it and never
// stored past it; a line's end is decided here too (its CR dropped, EOF told apart).
class LineSink {
 public:
  LineSink(std::string& line, std::size_t max) : line_(line), max_(max) { line_.clear(); }
  void take(const char* bytes, std::size_t n) {
    read_.bytes += n;
    if (read_.too_long) return;
    if (n > max_ - line_.size()) {
      read_.too_long = true;
      std::string().swap(line_);  // give the memory back now
    } else {
      line_.append(bytes, n);
    }
  }
  // At a newline, or at the end of the input (`newline` false).
  LineRead end(bool newline) {
    read_.end = newline ? LineEnd::newline : (read_.bytes > 0 ? LineEnd::eof_after_text : LineEnd::eof);
    if (!read_.too_long && !line_.empty() && line_.back() == '\r') line_.pop_back();
    return read_;
  }

 private:
  std::string& line_;
  std::size_t max_;
  LineRead read_{LineEnd::eof};
};

// Reads up to '\n' from a stream buffer, keeping at most `max` bytes; the rest of an
// overlong line is consumed and counted but never stored. `before_wait` is called each
// time the buffer holds no further byte and the next one may have to be waited for (a
// writer flushes there what its peer may be waiting on). Bytes are taken one at a time
// through the buffer's public interface (nothing past the newline is consumed) and
// stored a chunk at a time.
template <class BeforeWait = NoWait>
LineRead read_line(std::streambuf& in, std::string& line, std::size_t max, BeforeWait&& before_wait = {}) {
  using traits = std::streambuf::traits_type;
  LineSink sink(line, max);
  std::array<char, 256> chunk{};
  std::size_t held = 0;
  const auto keep = [&] {
    sink.take(chunk.data(), held);
    held = 0;
  };
  // Each pass takes the bytes the buffer says it holds (one, when it holds none: that read
  // may wait), so in_avail is asked once per pass rather than once per byte.
  for (;;) {
    std::streamsize ready = 1;
    if constexpr (!std::is_same_v<std::remove_cvref_t<BeforeWait>, NoWait>) {
      ready = in.in_avail();
      if (ready <= 0) {
        keep();
        before_wait();
        ready = 1;
      }
    }
    for (; ready > 0; --ready) {
      const auto c = in.sbumpc();
      const bool at_end = traits::eq_int_type(c, traits::eof());
      if (at_end || traits::to_char_type(c) == '\n') {
        keep();
        return sink.end(!at_end);
      }
      chunk[held++] = traits::to_char_type(c);
      if (held == chunk.size()) keep();
    }
  }
}

// read_line for a reader that owns the stream: the same lines, limits and waits, but the
// bytes are taken a block at a time (as many as the buffer holds, up to 64 KiB) and
// searched for the newline at once, so a reader may hold bytes past the newline it
// returned; the next call returns them first. Server::serve reads this way: taking bytes
// one at a time through the stream buffer was about 8% of the server's CPU with 16
// requests in flight.
class LineReader {
 public:
  template <class BeforeWait = NoWait>
  LineRead next(std::streambuf& in, std::string& line, std::size_t max, BeforeWait&& before_wait = {}) {
    using traits = std::streambuf::traits_type;
    LineSink sink(line, max);
    for (;;) {
      if (at_ < held_.size()) {
        const std::string_view rest = std::string_view(held_).substr(at_);
        if (const std::size_t k = rest.find('\n'); k != std::string_view::npos) {  // memchr underneath
          sink.take(rest.data(), k);
          at_ += k + 1;
          return sink.end(true);
        }
        sink.take(rest.data(), rest.size());
      }
      held_.clear();
      at_ = 0;
      std::streamsize ready = in.in_avail();
      if (ready <= 0) {
        // Nothing held: take one byte the way every stream buffer can give it (one that
        // only implements uflow included); that read may wait. Then whatever came with it.
        before_wait();
        const auto c = in.sbumpc();
        if (traits::eq_int_type(c, traits::eof())) return sink.end(false);
        held_.push_back(traits::to_char_type(c));
        ready = in.in_avail();
      }
      // Never more than the buffer says it holds, so that sgetn does not wait for more.
      if (ready > 0) {
        const std::size_t had = held_.size();
        held_.resize(had + static_cast<std::size_t>(std::min<std::streamsize>(ready, block_bytes)));
        const auto got = in.sgetn(held_.data() + had, static_cast<std::streamsize>(held_.size() - had));
        held_.resize(had + static_cast<std::size_t>(std::max<std::streamsize>(got, 0)));
      }
    }
  }

 private:
  static constexpr std::streamsize block_bytes = std::streamsize{64} * 1024;
  std::string held_;  // bytes taken from the stream and not yet returned, from at_
  std::size_t at_ = 0;
};

}  // namespace groundplane::mcp::detail
