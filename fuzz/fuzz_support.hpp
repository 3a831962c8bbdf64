// Shared by the fuzz harnesses: invariant checks that abort with a clear message, a
// reader that decodes fuzz bytes into decisions, and the checks every message shown to
// a model must pass (no raw control bytes, no value over the render cap).
//
// Each harness defines LLVMFuzzerTestOneInput. Built with clang's -fsanitize=fuzzer it is
// a libFuzzer target; linked with replay_main.cpp it replays a corpus with any compiler.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/text/escape.hpp"
#include "groundplane/finding.hpp"
#include "groundplane/verdict.hpp"

namespace fuzz {

// Printable form of arbitrary bytes for a failure report: control bytes, DEL and every
// non-ASCII byte as \xHH. Independent of the library's escaping, which is under test.
inline std::string visible(std::string_view s, std::size_t max = 4000) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < s.size() && out.size() < max; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\n') out += "\\n\n";  // keep the line structure readable
    else if (c < 0x20 || c >= 0x7F) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 0xF];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (out.size() >= max) out += "...(cut)";
  return out;
}

[[noreturn]] inline void violated(const char* file, int line, std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "\n==== groundplane invariant violated at %s:%d\n==== %.*s\n", file, line,
               static_cast<int>(what.size()), what.data());
  if (!detail.empty()) {
    const std::string shown = visible(detail);
    std::fprintf(stderr, "---- offending text:\n%s\n----\n", shown.c_str());
  }
  std::fflush(stderr);
  std::abort();
}

}  // namespace fuzz

// FUZZ_CHECK(condition, "what must hold", text_to_show)
#define FUZZ_CHECK(cond, what, detail)                                   \
  do {                                                                   \
    if (!(cond)) ::fuzz::violated(__FILE__, __LINE__, (what), (detail)); \
  } while (0)

namespace fuzz {

// ---- decoding fuzz bytes into decisions ---------------------------------------------------

class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool empty() const noexcept { return pos_ >= size_; }
  std::size_t left() const noexcept { return empty() ? 0 : size_ - pos_; }
  // 0 once the input is used up, so every decision has a default.
  std::uint8_t byte() noexcept { return empty() ? 0 : data_[pos_++]; }
  bool flag() noexcept { return (byte() & 1) != 0; }
  std::size_t pick(std::size_t n) noexcept { return n == 0 ? 0 : byte() % n; }
  std::uint64_t u64() noexcept {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | byte();
    return v;
  }
  // A length byte (capped at max), then that many raw bytes.
  std::string str(std::size_t max) {
    const std::size_t n = std::min<std::size_t>(byte() % (max + 1), left());
    std::string out(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return out;
  }
  std::string_view rest() noexcept {
    if (empty()) return {};
    std::string_view out(reinterpret_cast<const char*>(data_ + pos_), size_ - pos_);
    pos_ = size_;
    return out;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

// ---- what every model-facing text must satisfy ---------------------------------------------

// A long run of this unit in a text means a value reached it uncapped: every rendered value
// is at most render_cap (80) code points, so 84 characters of "LEAK" cannot come from one.
inline constexpr std::string_view leak_unit = "LEAK";
inline std::string leak_run(std::size_t units) {
  std::string s;
  for (std::size_t i = 0; i < units; ++i) s += leak_unit;
  return s;
}
inline const std::string& overlong_leak() {
  static const std::string s = leak_run(groundplane::detail::render_cap / leak_unit.size() + 1);
  return s;
}

inline std::size_t code_points(std::string_view s) {
  std::size_t n = 0;
  for (const char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

// Why `s` is not safe to show a model, or "" when it is: a raw control byte (other than
// '\n' when line breaks are allowed), DEL, invalid UTF-8, an invisible or reordering code
// point (C1, U+2028/9, bidi overrides, BOM), or a value longer than the cap. With
// `message` false only a raw byte below 0x20 and invalid UTF-8 count: JSON text carries
// data verbatim inside its strings (DEL among it: RFC 8259 leaves it unescaped, as
// nlohmann writes it), and only its encoding must be clean.
inline std::string text_problem(std::string_view s, bool newlines_allowed, bool message = true) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if ((c < 0x20 && !(c == '\n' && newlines_allowed)) || (c == 0x7F && message))
        return "raw control byte 0x" + std::to_string(c) + " at byte " + std::to_string(i);
      ++i;
      continue;
    }
    std::size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
    if (n == 0 || c > 0xF4 || c == 0xC0 || c == 0xC1 || i + n > s.size())
      return "invalid UTF-8 at byte " + std::to_string(i);
    std::uint32_t cp = c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
    for (std::size_t k = 1; k < n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xC0) != 0x80) return "invalid UTF-8 at byte " + std::to_string(i);
      cp = (cp << 6) | (b & 0x3F);
    }
    const bool overlong = (n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
    if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return "invalid UTF-8 at byte " + std::to_string(i);
    if (message && ((cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) ||
                    (cp >= 0x2066 && cp <= 0x2069) || cp == 0xFEFF))
      return "raw invisible or reordering code point U+" + std::to_string(cp) + " at byte " + std::to_string(i);
    i += n;
  }
  if (message && s.find(overlong_leak()) != std::string_view::npos) return "a value longer than the render cap";
  return "";
}

inline void check_text(std::string_view s, bool newlines_allowed, std::string_view what, bool message = true) {
  const std::string problem = text_problem(s, newlines_allowed, message);
  FUZZ_CHECK(problem.empty(), std::string(what) + ": " + problem, s);
}

// Every line after the first must start with `prefix`: a line break inside a value would
// have started a line of its own.
inline void check_continuation_lines(std::string_view s, std::string_view prefix, std::string_view what) {
  for (std::size_t at = s.find('\n'); at != std::string_view::npos; at = s.find('\n', at + 1))
    FUZZ_CHECK(s.substr(at + 1, prefix.size()) == prefix,
               std::string(what) + ": a line does not start with '" + std::string(prefix) + "'", s);
}

// A finding as a developer and a model see it.
inline void check_finding(const groundplane::Finding& f) {
  for (const std::string* v : {&f.said, &f.supported}) {
    check_text(*v, false, "a finding's rendered value");
    FUZZ_CHECK(code_points(*v) <= groundplane::detail::render_cap, "a finding's rendered value is over the cap", *v);
  }
  check_text(f.check, false, "a finding's check name");
  check_text(f.provenance, false, "a finding's provenance");
  check_text(f.detail, false, "a finding's detail line");
  const std::string m = f.message();
  check_text(m, true, "Finding::message()");
  FUZZ_CHECK(m.rfind("unsupported claim", 0) == 0, "a message starts with 'unsupported claim'", m);
  check_continuation_lines(m, "| ", "Finding::message()");
}

inline void check_verdict(const groundplane::Verdict& v) {
  for (const auto& f : v.findings()) check_finding(f);
  const std::string c = v.correction();
  FUZZ_CHECK(v.ok() == c.empty(), "correction() is empty exactly when the verdict is ok", c);
  FUZZ_CHECK(c.size() <= groundplane::Verdict::max_correction, "correction() is bounded", c);
  check_text(c, true, "Verdict::correction()");
  check_continuation_lines(c, "- ", "Verdict::correction()");
}

// An error message shown to a developer and, through MCP, often to a model.
inline void check_error_message(const std::exception& e, std::string_view what) { check_text(e.what(), true, what); }

// JSON text from fuzz bytes, or a discarded value.
template <class J = nlohmann::json>
J parse_json(std::string_view text) {
  return J::parse(text.begin(), text.end(), nullptr, false);
}

}  // namespace fuzz
