// gp::mcp::Server's stdio framing: both line readers on every shape of input buffer,
// overlong lines skipped unheld, the last line without its newline, garbage, and when
// answers are flushed.
#include "catch2_compat.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <utility>
#include <vector>

#include <groundplane/mcp/line_reader.hpp>
#include <groundplane/mcp/server.hpp>

#include "mcp_fixtures.hpp"

using namespace mcp_test;  // NOLINT(google-build-using-namespace)

namespace {
// A stream buffer that yields `size` bytes of 'x' and then "\n" + tail, without holding them.
class Flood : public std::streambuf {
 public:
  Flood(std::size_t size, std::string tail) : left_(size), tail_(std::move(tail)) { chunk_.assign(64 * 1024, 'x'); }

 protected:
  int_type underflow() override {
    if (left_ > 0) {
      const std::size_t n = left_ < chunk_.size() ? left_ : chunk_.size();
      left_ -= n;
      setg(chunk_.data(), chunk_.data(), chunk_.data() + n);
      return traits_type::to_int_type(chunk_[0]);
    }
    if (!tail_done_) {
      tail_done_ = true;
      tail_ = "\n" + tail_;
      setg(tail_.data(), tail_.data(), tail_.data() + tail_.size());
      return traits_type::to_int_type(tail_[0]);
    }
    return traits_type::eof();
  }

 private:
  std::size_t left_;
  std::string tail_;
  std::string chunk_;
  bool tail_done_ = false;
};

// Input that arrives one chunk per read, as from a client that sends its next request
// only after it has its answer; notes how much output had been flushed at each read.
class Chunked : public std::streambuf {
 public:
  Chunked(std::vector<std::string> chunks, const std::function<std::size_t()>& flushed)
      : chunks_(std::move(chunks)), flushed_(flushed) {}
  std::vector<std::size_t> flushed_at_read;

 protected:
  int_type underflow() override {
    flushed_at_read.push_back(flushed_());
    if (next_ == chunks_.size()) return traits_type::eof();
    std::string& c = chunks_[next_++];
    setg(c.data(), c.data(), c.data() + c.size());
    return traits_type::to_int_type(c[0]);
  }

 private:
  std::vector<std::string> chunks_;
  std::size_t next_ = 0;
  std::function<std::size_t()> flushed_;
};

// Output that remembers how many bytes it held at each flush.
class Flushes : public std::stringbuf {
 public:
  std::vector<std::size_t> at;
  std::size_t flushed() const { return at.empty() ? 0 : at.back(); }

 protected:
  int sync() override {
    at.push_back(str().size());
    return 0;
  }
};

// A stream buffer that keeps no bytes of its own, as std::cin does while synchronized
// with C stdio: every character is a call.
class Unbuffered : public std::streambuf {
 public:
  explicit Unbuffered(std::string text) : text_(std::move(text)) {}

 protected:
  int_type underflow() override {
    return at_ < text_.size() ? traits_type::to_int_type(text_[at_]) : traits_type::eof();
  }
  int_type uflow() override { return at_ < text_.size() ? traits_type::to_int_type(text_[at_++]) : traits_type::eof(); }

 private:
  std::string text_;
  std::size_t at_ = 0;
};

// One that can hand out a character but not show the next one first (only uflow).
class NoPeek : public std::streambuf {
 public:
  explicit NoPeek(std::string text) : text_(std::move(text)) {}

 protected:
  int_type uflow() override { return at_ < text_.size() ? traits_type::to_int_type(text_[at_++]) : traits_type::eof(); }

 private:
  std::string text_;
  std::size_t at_ = 0;
};

// The two line readers: detail::read_line, which takes nothing past the newline, and
// detail::LineReader (what Server::serve uses), which takes blocks and keeps the rest for
// its next call. Every framing test runs on both: they must read the same lines.
enum class Reader { byte_at_a_time, block };
const char* name_of(Reader r) { return r == Reader::block ? "LineReader" : "read_line"; }

struct Lines {
  Reader kind;
  gp::mcp::detail::LineReader block{};
  template <class BeforeWait = gp::mcp::detail::NoWait>
  gp::mcp::detail::LineRead operator()(std::streambuf& in, std::string& line, std::size_t max,
                                       BeforeWait&& before_wait = {}) {
    return kind == Reader::block ? block.next(in, line, max, before_wait)
                                 : gp::mcp::detail::read_line(in, line, max, before_wait);
  }
};
constexpr Reader both_readers[] = {Reader::byte_at_a_time, Reader::block};

}  // namespace

TEST_CASE("binary garbage gets parse errors and never anything but JSON-RPC on stdout") {
  Harness h;
  std::string garbage;
  std::uint32_t x = 12345;
  for (int i = 0; i < 4096; ++i) {
    x = x * 1103515245u + 12345u;
    garbage.push_back(static_cast<char>((x >> 16) & 0xFF));
  }
  garbage += "\n\xFF\xFE\x00\x01{\"jsonrpc\":\"2.0\"\n";
  garbage += "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xC3\x28\"}\n";  // invalid UTF-8 in a string
  const auto t = h.run(call(100, "record_ranking", seed_ranking) + garbage +
                       call(101, "check", check_args({{"winner", "north"}})));
  REQUIRE(t.replies.size() >= 4);
  std::size_t parse_errors = 0;
  for (const auto& r : t.replies)
    if (r.contains("error") && r["error"]["code"] == -32700) ++parse_errors;
  CHECK(parse_errors > 0);
  std::size_t errors = 0;
  for (const auto& r : t.replies) errors += r.contains("error") ? 1u : 0u;
  CHECK(errors + 2 == t.replies.size());
  CHECK(t.reply_to(101)["result"]["structuredContent"]["findings"][0]["message"] == seed_message);
}

TEST_CASE("a 10 MB line is answered with an error and skipped and the server carries on") {
  Harness h;
  std::string big =
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"record_fact","arguments":{"name":"big","tool":"t","value":")";
  big.append(10 * 1024 * 1024, 'a');
  big += "\"}}}\n";
  const auto t =
      h.run(call(0, "record_ranking", seed_ranking) + big + call(2, "check", check_args({{"winner", "harbour"}})));
  REQUIRE(t.replies.size() == 3);
  CHECK(t.replies[1]["id"].is_null());
  CHECK(t.replies[1]["error"]["code"] == -32600);
  CHECK(t.replies[1]["error"]["message"].get<std::string>().find("over this server's limit of 8388608") !=
        std::string::npos);
  CHECK(t.logged("skipped a " + std::to_string(big.size() - 1) + "-byte line"));
  CHECK_FALSE(h.server.registry().contains("big"));
  CHECK(t.reply_to(2)["result"]["structuredContent"]["ok"] == true);
}

TEST_CASE("an overlong line is consumed without being held in memory") {
  for (const Reader kind : both_readers) {
    INFO(name_of(kind));
    Flood flood(64 * 1024 * 1024, "after");
    Lines read{kind};
    std::string line;
    const auto r = read(flood, line, 1024);
    CHECK(r.too_long);
    CHECK(r.bytes == 64u * 1024 * 1024);
    CHECK(line.capacity() <= 2048);
    const auto next = read(flood, line, 1024);
    CHECK(line == "after");
    CHECK(next.end == gp::mcp::detail::LineEnd::eof_after_text);
  }
}

TEST_CASE(
    "a line reads the same whatever the input buffer holds at a time: all of it, a byte, a split CRLF, nothing, no "
    "peeking") {
  const std::string long_line(3000, 'x');
  const std::string input = "abc\r\n\n" + long_line + "\n{\"a\":1}\r\ntail";
  struct Line {
    std::string text;
    gp::mcp::detail::LineEnd end;
    std::size_t bytes;
    bool too_long;
    bool operator==(const Line&) const = default;
  };
  const auto read_all = [](std::streambuf& in, std::size_t max, Reader kind = Reader::byte_at_a_time) {
    std::vector<Line> lines;
    std::string line;
    Lines read{kind};
    for (;;) {
      const auto r = read(in, line, max);
      lines.push_back({line, r.end, r.bytes, r.too_long});
      if (r.end != gp::mcp::detail::LineEnd::newline) return lines;
    }
  };
  const auto none = [] { return std::size_t{0}; };
  std::vector<std::string> bytes,
      split_crlf{"abc\r", "\n\n" + long_line.substr(0, 10), long_line.substr(10) + "\n{\"a\":1}\r", "\ntail"};
  for (const char c : input) bytes.emplace_back(1, c);
  for (const std::size_t max : {std::size_t{3000}, std::size_t{2999}}) {
    INFO("max " << max);
    std::stringbuf whole(input);
    const auto expected = read_all(whole, max);
    REQUIRE(expected.size() == 5);
    CHECK(expected[0] == Line{"abc", gp::mcp::detail::LineEnd::newline, 4, false});
    CHECK(expected[1] == Line{"", gp::mcp::detail::LineEnd::newline, 0, false});
    CHECK(expected[2] == (max == 3000 ? Line{long_line, gp::mcp::detail::LineEnd::newline, 3000, false}
                                      : Line{"", gp::mcp::detail::LineEnd::newline, 3000, true}));
    CHECK(expected[3] == Line{"{\"a\":1}", gp::mcp::detail::LineEnd::newline, 8, false});
    CHECK(expected[4] == Line{"tail", gp::mcp::detail::LineEnd::eof_after_text, 4, false});
    for (const Reader kind : both_readers) {
      INFO(name_of(kind));
      std::stringbuf again(input);
      Chunked one_byte(bytes, none), split(split_crlf, none);
      Unbuffered unbuffered(input);
      NoPeek no_peek(input);
      CHECK(read_all(again, max, kind) == expected);
      CHECK(read_all(one_byte, max, kind) == expected);
      CHECK(read_all(split, max, kind) == expected);
      CHECK(read_all(unbuffered, max, kind) == expected);
      CHECK(read_all(no_peek, max, kind) == expected);
    }
  }
}

TEST_CASE("input closed in the middle of a message is a parse error and a clean return") {
  Harness h;
  const auto t = h.run(call(1, "record_ranking", seed_ranking) + R"({"jsonrpc":"2.0","id":2,"method":"tools/ca)");
  REQUIRE(t.replies.size() == 2);
  CHECK(t.replies[1]["error"]["code"] == -32700);
  CHECK(t.replies[1]["error"]["message"].get<std::string>().find("ended in the middle of a message") !=
        std::string::npos);
  CHECK(t.logged("input ended"));
  CHECK(h.server.registry().contains("campaign_ctr"));
}

TEST_CASE("a complete last message without its newline is still served") {
  Harness h;
  const auto t = h.run(R"({"jsonrpc":"2.0","id":1,"method":"ping"})");
  REQUIRE(t.replies.size() == 1);
  CHECK(t.replies[0]["result"] == ojson::object());
}

TEST_CASE("blank lines and CRLF line endings are tolerated") {
  Harness h;
  const auto t = h.run("\n   \n" + std::string(R"({"jsonrpc":"2.0","id":1,"method":"ping"})") + "\r\n");
  REQUIRE(t.replies.size() == 1);
  CHECK(t.replies[0]["id"] == 1);
}

TEST_CASE("an exception escaping the handling of one line is answered as an internal error and serving goes on") {
  int calls = 0;
  gp::mcp::Server server({.log =
                              [&calls](std::string_view) {
                                if (++calls == 1)
                                  throw std::runtime_error("log sink unavailable");  // thrown from the parse-error path
                              },
                          .verbose = true});
  std::istringstream in("not json\n" + request(2, "ping"));
  std::ostringstream out;
  server.serve(in, out);
  std::istringstream lines(out.str());
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  const auto a = ojson::parse(first);
  CHECK(a["error"]["code"] == -32603);
  CHECK(a["error"]["message"] == "Internal error: log sink unavailable");
  CHECK(ojson::parse(second)["id"] == 2);
}

TEST_CASE("the stdio loop writes exactly what the transport-free protocol answers, line for line") {
  const std::string input = request(1, "initialize", {{"protocolVersion", "2025-11-25"}}) +
                            call(2, "record_ranking", seed_ranking) +
                            call(3, "check", check_args({{"winner", "north"}})) + "not json\n" + request(4, "ping");
  Harness h;
  std::istringstream in(input);
  std::ostringstream out;
  h.server.serve(in, out);

  gp::mcp::Protocol bare({.log = [](std::string_view) {}});
  std::istringstream lines(input);
  std::string line, expected;
  while (std::getline(lines, line))
    if (auto r = bare.handle_line(line)) expected += *r + "\n";
  CHECK(out.str() == expected);
  CHECK(bare.registry().contains("campaign_ctr"));
}

TEST_CASE(
    "an answer is flushed before the server waits for more input, and answers to waiting requests go out at once") {
  Harness h;
  SECTION("a client that waits for each answer has it before the server reads on") {
    Flushes out_buf;
    Chunked in_buf({request(1, "ping"), request(2, "ping"), request(3, "ping")}, [&] { return out_buf.flushed(); });
    std::istream in(&in_buf);
    std::ostream out(&out_buf);
    h.server.serve(in, out);
    const std::string one = *h.server.handle_line(R"({"jsonrpc":"2.0","id":1,"method":"ping"})") + "\n";
    REQUIRE(in_buf.flushed_at_read.size() == 4);  // three chunks, then the end of input
    CHECK(in_buf.flushed_at_read[0] == 0);
    CHECK(in_buf.flushed_at_read[1] == one.size());
    CHECK(in_buf.flushed_at_read[2] == 2 * one.size());
    CHECK(in_buf.flushed_at_read[3] == 3 * one.size());
    CHECK(out_buf.str().size() == 3 * one.size());
  }
  SECTION("an answer is out before the server waits, even when lines that get no answer follow it") {
    const std::string one = *h.server.handle_line(R"({"jsonrpc":"2.0","id":1,"method":"ping"})") + "\n";
    const std::string notification = R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
                                     "\n";
    const std::string second = request(2, "ping");
    for (const std::string& after : {notification, std::string("\n"), std::string("\r\n"), second.substr(0, 10)}) {
      INFO("after the request, in the same read: " << after);
      Flushes out_buf;
      const bool partial = after == second.substr(0, 10);
      Chunked in_buf({request(1, "ping") + after, partial ? second.substr(10) : second},
                     [&] { return out_buf.flushed(); });
      std::istream in(&in_buf);
      std::ostream out(&out_buf);
      h.server.serve(in, out);
      REQUIRE(in_buf.flushed_at_read.size() == 3);
      CHECK(in_buf.flushed_at_read[1] == one.size());  // answer 1 out before the second read
      CHECK(out_buf.str().size() == 2 * one.size());
    }
  }
  SECTION("requests that came in one read are answered in one flush, after the last of them") {
    Flushes out_buf;
    Chunked in_buf({request(1, "ping") + request(2, "ping") + request(3, "ping")}, [&] { return out_buf.flushed(); });
    std::istream in(&in_buf);
    std::ostream out(&out_buf);
    h.server.serve(in, out);
    REQUIRE_FALSE(out_buf.at.empty());
    CHECK(out_buf.at.front() == out_buf.str().size());  // the first flush already held all three
    CHECK(Harness().run(request(1, "ping") + request(2, "ping") + request(3, "ping")).replies.size() == 3);
  }
}

TEST_CASE("a line is stored whole or refused whole at every length around the reader's chunk size") {
  for (const Reader kind : both_readers)
    for (const std::size_t length : {255u, 256u, 257u, 511u, 512u, 513u, 1000u, 65535u, 65536u, 65537u}) {
      const std::string text(length, 'y');
      for (const std::size_t max : {length, length - 1, std::size_t{256}}) {
        INFO(name_of(kind) << ", length " << length << ", max " << max);
        const bool fits = length <= max;
        std::vector<std::string> one_byte;
        for (const char c : text + "\nnext\n") one_byte.emplace_back(1, c);
        std::vector<std::string> hundreds;  // 100 bytes a read: runs that end inside the chunk and on it
        const std::string all = text + "\nnext\n";
        for (std::size_t at = 0; at < all.size(); at += 100) hundreds.push_back(all.substr(at, 100));
        std::size_t waits = 0;
        const auto before_wait = [&] { ++waits; };
        const std::function<std::size_t()> waits_so_far = [&] { return waits; };
        Chunked bytes(one_byte, waits_so_far);
        Chunked runs(hundreds, waits_so_far);
        std::stringbuf whole(all);
        for (std::streambuf* in : {static_cast<std::streambuf*>(&whole), static_cast<std::streambuf*>(&bytes),
                                   static_cast<std::streambuf*>(&runs)}) {
          Lines read{kind};
          std::string line = "left over";
          const auto r = read(*in, line, max, before_wait);
          CHECK(r.end == gp::mcp::detail::LineEnd::newline);
          CHECK(r.bytes == length);
          CHECK(r.too_long == !fits);
          CHECK(line == (fits ? text : std::string()));
          const auto next = read(*in, line, max, before_wait);
          CHECK(line == "next");
          CHECK(next.too_long == false);
        }
        // before_wait ran before every read that could wait: each chunk's read saw one more.
        for (const Chunked* c : {&bytes, &runs}) {
          REQUIRE(c->flushed_at_read.size() >= 2);
          CHECK(c->flushed_at_read.front() >= 1);
          for (std::size_t i = 1; i < c->flushed_at_read.size(); ++i)
            CHECK(c->flushed_at_read[i] > c->flushed_at_read[i - 1]);
        }
      }
    }
}

TEST_CASE("the block reader hands back the lines it read ahead, in order, and waits only when it holds none") {
  std::size_t waits = 0;
  const std::function<std::size_t()> waits_so_far = [&] { return waits; };
  Chunked in({"one\ntwo\r\nthr", "ee\n\nfour"}, waits_so_far);
  gp::mcp::detail::LineReader reader;
  std::string line;
  const auto before_wait = [&] { ++waits; };
  const auto next = [&] { return reader.next(in, line, 100, before_wait); };
  CHECK(next().end == gp::mcp::detail::LineEnd::newline);
  CHECK(line == "one");
  CHECK(waits == 1);
  CHECK(next().bytes == 4);  // "two\r": the CR is counted, and dropped from the line
  CHECK(line == "two");
  CHECK(waits == 1);  // held since the first read: no wait, so no flush before it is answered
  CHECK(next().end == gp::mcp::detail::LineEnd::newline);
  CHECK(line == "three");  // begun in one read, ended in the next
  CHECK(waits == 2);
  CHECK(next().bytes == 0);
  CHECK(line.empty());
  const auto last = next();
  CHECK(last.end == gp::mcp::detail::LineEnd::eof_after_text);
  CHECK(line == "four");
  CHECK(next().end == gp::mcp::detail::LineEnd::eof);
  CHECK(in.flushed_at_read == std::vector<std::size_t>{1, 2, 3, 4});  // a wait before every read
}
