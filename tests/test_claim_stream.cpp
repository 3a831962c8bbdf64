// gp::ClaimStream (Boundary::stream()): the checks run on the model's JSON text while it
// streams, each as soon as the fields it reads have closed; finish() equals try_submit_json
// of the whole text however the text was cut into chunks, and `rejected` never comes for a
// text the whole-text verdict accepts, nor later than the byte that closes a failing
// check's last field.
#include "catch2_compat.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <groundplane/groundplane.hpp>

#include "process_probe.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {

struct Campaign {
  gp::FactRegistry reg;
  Campaign() {
    reg.record_ranking("campaign_ctr", {{"north", 0.0412}, {"harbour", 0.0455}, {"delta", 0.0301}},
                       {.key = "ctr", .tool = "warehouse.query", .args = {{"table", "campaign_daily"}}});
  }
};

const gp::superlative winner{.fact = "campaign_ctr"};          // reads winner, score
const gp::ranking_prefix top{.fact = "campaign_ctr", .k = 2};  // reads top
const gp::comparison lead{.fact = "campaign_ctr",              // reads a, b, by
                          .a_field = "a",
                          .b_field = "b",
                          .value_field = "by",
                          .convention = gp::Convention::percentage_points,
                          .rounding = gp::Rounding::as_stated};

using CampaignBoundary = gp::Boundary<gp::superlative, gp::ranking_prefix, gp::comparison>;

// Texts this short are cut every way into 1 to 8 chunks; longer ones a few random ways.
// (Two, not twenty: the random tests stay near 16 s in a Debug build, most of it the
// boundary's schema() that finish() builds for every rejected verdict.)
constexpr std::size_t cut_every_way_up_to = 8;
constexpr int sampled_cuttings = 2;
constexpr std::size_t most_chunks = 8;
constexpr int output_count = gp_test::random_output_count;
// A coverage floor stated for 10,000 outputs, scaled to output_count.
constexpr std::size_t per_10000(std::size_t n) { return n * static_cast<std::size_t>(output_count) / 10000; }

// A check of the caller's own that states no reads(): a stream runs it only at finish().
struct winner_is_harbour {
  std::vector<std::string> leans_on() const { return {}; }
  void validate(const gp::FactRegistry&) const {}
  void verify(const gp::FactRegistry&, const json& output, std::vector<gp::Finding>& findings) const {
    const auto it = output.find("winner");
    if (it != output.end() && *it == "harbour") return;
    gp::Finding f;
    f.check = "winner_is_harbour";
    f.field = "winner";
    f.detail = "the winner must be harbour";
    findings.push_back(std::move(f));
  }
};

// The text as a C++ string literal, so a failure can be pasted into a reproduction.
std::string shown(std::string_view text) {
  std::string out = "\"";
  bool after_hex = false;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", static_cast<unsigned>(u));
      out += buf;
      after_hex = true;
      continue;
    }
    const bool hex_digit = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    if (after_hex && hex_digit) out += "\" \"";  // "\xC3" "a", not "\xC3a"
    if (c == '"' || c == '\\') out += '\\';
    out += c;
    after_hex = false;
  }
  return out + "\"";
}

std::string shown(const std::vector<std::size_t>& cuts) {
  std::string out = "{";
  for (std::size_t i = 0; i < cuts.size(); ++i) out += (i ? ", " : "") + std::to_string(cuts[i]);
  return out + "}";
}

// The chunks `text` is cut into at `cuts` (sorted, each inside the text).
std::vector<std::string_view> chunks_of(std::string_view text, const std::vector<std::size_t>& cuts) {
  std::vector<std::string_view> chunks;
  std::size_t from = 0;
  for (const std::size_t cut : cuts) {
    chunks.push_back(text.substr(from, cut - from));
    from = cut;
  }
  chunks.push_back(text.substr(from));
  return chunks;
}

// What a streamed verdict must equal: the whole-text verdict — what its to_json() is made
// of (findings, passed, failed, warnings, prose; compared member by member, which is as
// strict and cheaper than building the JSON twice per stream), accepted() as written (1
// and 1.0 differ) and reask_schema().
struct Expected {
  gp::Verdict verdict;
  bool ok = false;
  std::string accepted;
  explicit Expected(const gp::Verdict& v) : verdict(v), ok(v.ok()), accepted(v.accepted().dump()) {}
};

// "" when `v` is the expected verdict; else both, as JSON.
std::string difference(const gp::Verdict& v, const Expected& e) {
  const gp::Verdict& w = e.verdict;
  if (v.ok() == w.ok() && v.findings() == w.findings() && v.passed() == w.passed() && v.failed() == w.failed() &&
      v.warnings() == w.warnings() && v.prose() == w.prose() && v.reask_schema() == w.reask_schema() &&
      v.accepted().dump() == e.accepted)
    return "";
  return "\n  finish():          " + v.to_json().dump() + "\n    accepted " + v.accepted().dump() + "\n    reask " +
         v.reask_schema().dump() + "\n  try_submit_json(): " + w.to_json().dump() + "\n    accepted " + e.accepted +
         "\n    reask " + w.reask_schema().dump();
}

// One stream of `text` cut at `cuts`: its verdict, and how its states went.
struct Streamed {
  gp::Verdict verdict;
  std::size_t first_rejected = 0;  // bytes fed when feed() first said rejected (0: never)
  std::string inconsistent;        // a state that contradicts findings() or went back
};

template <class B>
Streamed stream_through(B& b, std::string_view text, const std::vector<std::size_t>& cuts, bool empty_chunks = false) {
  Streamed out;
  gp::ClaimStream s = b.stream();
  std::size_t fed = 0;
  for (const std::string_view chunk : chunks_of(text, cuts)) {
    if (empty_chunks && s.feed("") != s.state()) out.inconsistent = "an empty chunk changed the state";
    const gp::StreamState state = s.feed(chunk);
    fed += chunk.size();
    const bool rejected = state == gp::StreamState::rejected;
    if (rejected != !s.findings().empty() || s.state() != state)
      out.inconsistent = "feed() said " + std::string(rejected ? "rejected" : "undecided") + " after " +
                         std::to_string(fed) + " bytes with " + std::to_string(s.findings().size()) + " findings";
    if (rejected && out.first_rejected == 0) out.first_rejected = fed;
    if (!rejected && out.first_rejected != 0)
      out.inconsistent =
          "rejected after " + std::to_string(out.first_rejected) + " bytes, undecided after " + std::to_string(fed);
  }
  if (empty_chunks) (void)s.feed("");
  out.verdict = s.finish();
  if (s.findings() != out.verdict.findings()) out.inconsistent = "findings() after finish() are not the verdict's";
  return out;
}

// ---------------------------------------------------------------------------------------
// Random outputs, written member by member, remembering where each top-level value closes.

enum class Fault {
  none,
  truncated,
  trailing_garbage,
  trailing_comma,
  missing_comma,
  control_char,
  invalid_utf8,
  lone_surrogate,
  too_deep,
  bad_bom,
  bad_token,
  not_an_object,
  two_values,
};
constexpr std::size_t fault_count = 12;  // the faults after none

struct Output {
  std::string text;
  Fault fault = Fault::none;
  bool repeated_key = false;
  // Top-level key (as read, escapes decoded) → how many bytes have been fed once its value
  // (its first, when repeated) has closed: a string, object or array at its closing
  // delimiter, a number or literal at the byte after it.
  std::map<std::string, std::size_t> closed_by;
  std::size_t root_closed_by = 0;  // bytes fed once the root object's '}' has arrived
};

class Outputs {
 public:
  explicit Outputs(std::uint32_t seed) : rng_(seed) {}

  Output next() {
    if (below(1000) < 15) return tiny();  // 1.5%: each is cut every way
    Output out;
    careful_ = chance(45);
    if (chance(20)) out.fault = static_cast<Fault>(1 + below(fault_count));
    if (out.fault == Fault::bad_bom) {
      static const char* const boms[] = {"\xEF\xBB", "\xEF", "\xEF\xBB\xBF\xEF\xBB\xBF", " \xEF\xBB\xBF", "\xBB\xBF"};
      out.text += one_of(boms);
    } else if (chance(10)) {
      out.text += "\xEF\xBB\xBF";
    }
    out.text += ws();
    if (out.fault == Fault::not_an_object) {
      if (chance(50)) {  // a value of another kind
        std::string value;
        do value = random_value(0);
        while (value[0] == '{');
        out.text += value;
        out.text += ws();
        return out;
      }
      out.text += '[';
      out.text += ws();
      Output inner;
      object(inner);
      out.text += inner.text;
      out.text += ws();
      out.text += ']';
      out.text += ws();
      return out;
    }
    object(out);
    out.text += ws();
    switch (out.fault) {
      case Fault::truncated:
        out.text.resize(below(out.root_closed_by));
        break;
      case Fault::trailing_garbage: {
        static const char* const garbage[] = {"x", "}",   ",",    "]",        "{}",     "\"",
                                              "0", "nul", "\x01", "\xC3\xA9", "// done"};
        // A NUL and a second answer after it: read, never taken for the end of the text.
        if (chance(20)) out.text += std::string(1, '\0') + (chance(50) ? "" : "{\"winner\":\"north\"}");
        else out.text += one_of(garbage);
        break;
      }
      case Fault::two_values:
        out.text += chance(50) ? "{}" : random_value(1);
        out.text += ws();
        break;
      default:
        break;
    }
    return out;
  }

 private:
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(rng_() % n); }
  bool chance(unsigned percent) { return below(100) < percent; }
  template <std::size_t N>
  std::string one_of(const char* const (&options)[N]) {
    return options[below(N)];
  }

  // The parts in order. (Each part of a braced list is evaluated before the next, so the
  // random draws happen in the same order under every compiler, which `a() + b()` does
  // not promise.)
  static std::string join(std::initializer_list<std::string> parts) {
    std::string out;
    for (const auto& part : parts) out += part;
    return out;
  }

  std::string ws() {
    static const char* const spaces[] = {" ", "\n", "\t", "\r\n", "  ", " \n\t ", "\n    "};
    return chance(55) ? "" : one_of(spaces);
  }

  // Text short enough to be cut every way: a few JSON values and random bytes.
  Output tiny() {
    Output out;
    if (chance(50)) {
      static const char* const snippets[] = {
          "{}",
          "{ }",
          "[1,2]",
          "{\"a\":1}",
          "{\"b\":\"x\"}",
          "{\"by\":0.4}",
          "{\"top\":[]}",
          "{\"a\":{}}",
          "\"harbour\"",
          "1",
          "-0",
          "null",
          "",
          " ",
          "{\"a\":1,}",
          "{\"a\" 1}",
          "{\"a\":01}",
          "[",
          "{",
          "}",
          "{}{}",
          "{\"\":\"\xC3\xA9\"}",
          "{\"a\":\"\\u00e9\"}",
          "\xEF\xBB\xBF{}",
          "{\"winner\":1}",
          "{\"top\":1}",
          "{\"x\":[[]]}",
          "{\"a\":tru}",
          "{\"a\":1e}",
          "{\"a\":\"\\ud83d\"}",
          "\xEF\xBB\xBF",
          "\xEF\xBB\xBF \xEF\xBB\xBF{}",
          "{\"\xFF\":1}",
          "{\"a\x01\":1}",
          "{\"\\u0000\":0}",
          "[-]",
      };
      out.text = one_of(snippets);
      return out;
    }
    static constexpr std::string_view alphabet = "{}[]:,\"\\ 0123456789.eE+-trufalsn\xC3\xA9\xFF\x01uab";
    const std::size_t size = 1 + below(cut_every_way_up_to);
    for (std::size_t i = 0; i < size; ++i) out.text += alphabet[below(alphabet.size())];
    return out;
  }

  // A name of the ranking, or near one; as JSON text.
  std::string name() {
    static const char* const names[] = {
        "\"north\"",       "\"delta\"",       "\"nobody\"",   "\"Harbour\"",       "\"h\\u0061rbour\"", "\"\"",
        "\"n\\u006Frth\"", "\"harb\\u00e9\"", "\"harbour \"", "\"\\u0068arbour\"", "\"d\\u0065lta\""};
    return chance(55) ? "\"harbour\"" : one_of(names);
  }

  // Harbour, spelled one way or another.
  std::string harbour() {
    static const char* const spellings[] = {"\"h\\u0061rbour\"", "\"\\u0068arbour\"", "\"harbou\\u0072\""};
    return chance(85) ? "\"harbour\"" : one_of(spellings);
  }

  // Harbour's ctr, written one way or another.
  std::string harbour_ctr() {
    static const char* const numbers[] = {"0.04550", "4.55e-2", "455E-4", "4.55E-02", "0.0455e0", "45.5e-3"};
    return chance(70) ? "0.0455" : one_of(numbers);
  }

  // Harbour's lead over north in percentage points, 0.43, written one way or another.
  std::string harbour_margin() {
    static const char* const numbers[] = {"0.430", "4.3e-1", "43e-2", "0.4300"};
    return chance(70) ? "0.43" : one_of(numbers);
  }

  // The harbour's ctr, or another number, as written.
  std::string ctr() {
    static const char* const numbers[] = {"0.04550",
                                          "4.55e-2",
                                          "455E-4",
                                          "0.0412",
                                          "0.0301",
                                          "0.045",
                                          "0.046",
                                          "1e400",
                                          "-0",
                                          "12345678901234567890",
                                          "0.0455000000000000000000000001",
                                          "0.04549999999999999999",
                                          "4.55E-02",
                                          "-1e-400",
                                          "98765432109876543210",
                                          "1e2000"};
    return chance(50) ? "0.0455" : one_of(numbers);
  }

  // The margin of harbour over north in percentage points (0.43), or another.
  std::string margin() {
    static const char* const numbers[] = {
        "0.430", "0.4", "0.40",  "10.44", "-0.43", "4.3e-1", "43e-2", "0.44", "0.43000000000000000001",
        "0",     "-0",  "1e400", "0.4300"};
    return chance(50) ? "0.43" : one_of(numbers);
  }

  std::string number() {
    static const char* const numbers[] = {"0",
                                          "-0",
                                          "1",
                                          "-1",
                                          "0.5",
                                          "1e400",
                                          "-1e400",
                                          "1E+2",
                                          "1e-400",
                                          "12345678901234567890",
                                          "-12345678901234567890",
                                          "98765432109876543210",
                                          "3.14159265358979323846264338327950288",
                                          "0.04550",
                                          "2.5e-3",
                                          "-0.0",
                                          "1.0e+0",
                                          "0.1e1",
                                          "-1E-0"};
    if (chance(3)) {  // at and past the bounds of 100 significant digits and 10^±1000
      static const char* const edges[] = {"1e1000", "1e1001", "-1e-1000", "1e-1001", "1e2000", "12.5e999"};
      if (chance(50)) return one_of(edges);
      std::string digits = chance(50) ? "-" : "";
      for (std::size_t i = chance(50) ? 100 : 101; i > 0; --i) digits += static_cast<char>('1' + below(9));
      return digits;
    }
    if (chance(50)) return one_of(numbers);
    std::string n = chance(30) ? "-" : "";
    n += static_cast<char>('1' + below(9));
    for (std::size_t i = below(25); i > 0; --i) n += static_cast<char>('0' + below(10));
    if (chance(40)) {
      n += '.';
      for (std::size_t i = 1 + below(20); i > 0; --i) n += static_cast<char>('0' + below(10));
    }
    if (chance(30)) {
      n += chance(50) ? 'e' : 'E';
      if (chance(50)) n += chance(50) ? '-' : '+';
      n += std::to_string(below(500));
    }
    return n;
  }

  std::string string_body() {
    static const char* const pieces[] = {"a",
                                         "harbour",
                                         " ",
                                         "\\n",
                                         "\\t",
                                         "\\\"",
                                         "\\\\",
                                         "\\/",
                                         "\\b",
                                         "\\f",
                                         "\\r",
                                         "\\u00e9",
                                         "\\u20AC",
                                         "\\ud83d\\ude00",
                                         "\\u0041",
                                         "\xC3\xA9",
                                         "\xE2\x82\xAC",
                                         "\xF0\x9F\x98\x80",
                                         "{winner}",
                                         "{score}",
                                         "{",
                                         "}",
                                         "12",
                                         "%",
                                         "\\u00E9\\u00e9",
                                         "north"};
    std::string s;
    for (std::size_t i = below(6); i > 0; --i) s += one_of(pieces);
    return s;
  }

  std::string summary() {
    static const char* const templates[] = {"{winner} led at {score}",
                                            "harbour led",
                                            "{winner} \\u00e9t\\u00e9 {score}",
                                            "{winner} \\ud83d\\ude00",
                                            "{winner}\\n{score}",
                                            "caf\xC3\xA9 {winner}",
                                            "\xF0\x9F\x98\x80 {winner}",
                                            "{winner} won by 12%",
                                            "{winner} {{x}}",
                                            "{top}",
                                            "{winner} beat {b} by {by}",
                                            "{missing}"};
    return "\"" + (chance(70) ? std::string(one_of(templates)) : string_body()) + "\"";
  }

  std::string random_value(int depth) {
    const std::size_t kind = depth >= 3 ? below(3) : below(5);
    switch (kind) {
      case 0:
        return number();
      case 1: {
        static const char* const literals[] = {"true", "false", "null"};
        return one_of(literals);
      }
      case 2:
        return "\"" + string_body() + "\"";
      case 3: {
        std::string a = "[" + ws();
        for (std::size_t i = 0, n = below(4); i < n; ++i)
          a += join({i ? "," + ws() : "", random_value(depth + 1), ws()});
        return a + "]";
      }
      default: {
        static const char* const keys[] = {"\"winner\"", "\"score\"",     "\"top\"", "\"x\"",
                                           "\"\"",       "\"k\\u00e9y\"", "\"by\""};
        std::string o = "{" + ws();
        std::vector<std::string> used;
        for (std::size_t i = 0, n = below(4); i < n; ++i) {
          std::string key = one_of(keys);
          if (std::find(used.begin(), used.end(), key) != used.end() && !chance(10)) continue;  // rarely repeated
          used.push_back(key);
          o += join({used.size() > 1 ? "," + ws() : "", key, ws(), ":", ws(), random_value(depth + 1), ws()});
        }
        return o + "}";
      }
    }
  }

  std::string top_list() {
    if (chance(50)) return join({"[", ws(), "\"harbour\"", ws(), ",", ws(), "\"north\"", ws(), "]"});
    std::string a = "[" + ws();
    for (std::size_t i = 0, n = below(4); i < n; ++i) a += join({i ? "," + ws() : "", name(), ws()});
    return a + "]";
  }

  // The string value a fault inside a string puts in a member.
  std::string faulty_string(Fault fault) {
    if (fault == Fault::control_char) {
      static const char* const controls[] = {"\x01", "\n", "\x1F", "\t", "\r"};
      return "\"ab" + one_of(controls) + "cd\"";
    }
    if (fault == Fault::invalid_utf8) {
      static const char* const bad[] = {"\xFF",     "\xC3(", "\xED\xA0\x80", "\xC0\xAF", "\xF5\x80\x80\x80",
                                        "\xE2\x82", "\x80",  "\xF0\x9F\x98", "\xC3",     "\xF4\x90\x80\x80"};
      return "\"ab" + one_of(bad) + "cd\"";
    }
    static const char* const lone[] = {"\\ud83d",    "\\ude00", "\\ud83d\\u0041", "\\ud83dx",
                                       "\\ud83d\\n", "\\uZZZZ", "\\x41",          "\\u12"};
    return "\"ab" + one_of(lone) + "cd\"";
  }

  // A member's key as written, and as read.
  struct Key {
    std::string written;
    std::string read;
  };

  Key spelled(const std::string& key) {
    if (key == "winner" && chance(5)) return {"\"w\\u0069nner\"", key};
    if (key == "top" && chance(5)) return {"\"\\u0074op\"", key};
    return {"\"" + key + "\"", key};
  }

  void member(Output& out, bool& first, const Key& key, const std::string& value, bool bare) {
    if (!first) out.text += (skip_comma_ ? "" : ",") + ws();
    skip_comma_ = false;
    first = false;
    out.text += join({key.written, ws(), ":", ws(), value});
    const std::size_t closed = out.text.size() + (bare ? 1 : 0);
    if (!out.closed_by.emplace(key.read, closed).second) out.repeated_key = true;
    out.text += ws();
  }

  static bool is_bare(const std::string& value) { return value[0] != '"' && value[0] != '[' && value[0] != '{'; }

  // A root object of the checked fields, right or wrong, present or not, among others.
  void object(Output& out) {
    out.text += "{" + ws();
    std::vector<std::pair<Key, std::string>> members;
    const auto add = [&](const std::string& key, std::string value) {
      members.push_back({spelled(key), std::move(value)});
    };
    const unsigned right = careful_ ? 93 : 0;  // the chance a careful output's field is right
    if (careful_ || chance(85))
      add("winner", chance(right) ? harbour()
                    : chance(85)  ? name()
                    : chance(40)  ? "[\"harbour\", \"north\"]"
                                  : random_value(1));
    if (careful_ ? chance(70) : chance(75))
      add("score", chance(right) ? harbour_ctr() : chance(85) ? ctr() : chance(40) ? "\"0.0455\"" : random_value(1));
    if (careful_ || chance(80))
      add("top", chance(right) ? "[\"harbour\", \"north\"]" : chance(90) ? top_list() : random_value(1));
    if (careful_ && chance(right)) {
      add("a", harbour());
      add("b", "\"north\"");
      add("by", harbour_margin());
    } else {
      if (chance(80)) add("a", chance(90) ? name() : random_value(1));
      if (chance(80)) add("b", chance(80) ? "\"north\"" : chance(90) ? name() : random_value(1));
      if (chance(80)) add("by", chance(90) ? margin() : random_value(1));
    }
    if (chance(50)) add("summary", summary());
    for (std::size_t i = below(4); i > 0; --i) {
      static const char* const extras[] = {"note", "extra",  "meta",    "n",      "flag",
                                           "list", "Winner", "winner ", "scores", "nested"};
      const std::string key = one_of(extras);
      if (std::any_of(members.begin(), members.end(), [&](const auto& m) { return m.first.read == key; })) continue;
      add(key, key == "nested" ? "{\"winner\": \"north\", \"score\": 1, \"top\": []}" : random_value(1));
    }
    if (chance(1)) add("deep", std::string(255, '[') + std::string(255, ']'));  // 256 deep: the bound itself
    if (chance(3) && !members.empty()) {                                        // a key written twice
      const std::string again = members[below(members.size())].first.read;
      add(again, again == "winner" ? name() : random_value(1));
    }
    switch (out.fault) {
      case Fault::control_char:
      case Fault::invalid_utf8:
      case Fault::lone_surrogate:
        if (chance(25)) members.push_back({Key{faulty_string(out.fault), "faulty"}, "1"});  // in a key
        else add(chance(50) ? "note" : "summary", faulty_string(out.fault));
        break;
      case Fault::too_deep: {
        const std::size_t depth = 256 + below(40);  // inside the root: 257 deep or more
        std::string deep;
        if (chance(50)) {
          deep = std::string(depth, '[') + std::string(depth, ']');
        } else {
          for (std::size_t i = 0; i < depth; ++i) deep += "{\"x\":";
          deep += "1" + std::string(depth, '}');
        }
        add("deep", std::move(deep));
        break;
      }
      case Fault::bad_token: {
        static const char* const tokens[] = {"tru", "nul",   "01",   "1.",    ".5",  "-",   "+1",       "1e",   "NaN",
                                             "'x'", "truee", "0x10", "1.5.2", "--1", "1e+", "Infinity", "nulll"};
        add(chance(50) ? "score" : "by", one_of(tokens));
        break;
      }
      default:
        break;
    }
    // Shuffle (the order a model writes in is its own).
    for (std::size_t i = members.size(); i > 1; --i) std::swap(members[i - 1], members[below(i)]);
    bool first = true;
    const std::size_t skip_at = members.size() > 1 ? 1 + below(members.size() - 1) : 0;
    for (std::size_t i = 0; i < members.size(); ++i) {
      skip_comma_ = out.fault == Fault::missing_comma && i == skip_at;
      member(out, first, members[i].first, members[i].second, is_bare(members[i].second));
    }
    if (out.fault == Fault::trailing_comma || (out.fault == Fault::missing_comma && members.size() < 2))
      out.text += "," + ws();
    out.text += "}";
    out.root_closed_by = out.text.size();
  }

  std::mt19937 rng_;
  bool careful_ = false;  // this output gets its checked fields mostly right
  bool skip_comma_ = false;
};

// Ways to cut a text of `size` bytes into 1 to 8 chunks: every way for a short text,
// else a few at random (each with 1 to 8 chunks).
std::vector<std::vector<std::size_t>> cuttings_of(std::size_t size, std::mt19937& rng) {
  std::vector<std::vector<std::size_t>> out;
  if (size <= cut_every_way_up_to) {
    const std::size_t inside = size > 0 ? size - 1 : 0;  // the places a cut can go
    for (std::uint32_t mask = 0; mask < (std::uint32_t{1} << inside); ++mask) {
      if (static_cast<std::size_t>(std::popcount(mask)) > most_chunks - 1) continue;
      std::vector<std::size_t> cuts;
      for (std::size_t i = 0; i < inside; ++i)
        if (mask & (std::uint32_t{1} << i)) cuts.push_back(i + 1);
      out.push_back(std::move(cuts));
    }
    return out;
  }
  for (int k = 0; k < sampled_cuttings; ++k) {
    const std::size_t chunks = 1 + rng() % most_chunks;
    std::vector<std::size_t> cuts;
    while (cuts.size() + 1 < chunks) {
      const std::size_t at = 1 + rng() % (size - 1);
      if (std::find(cuts.begin(), cuts.end(), at) == cuts.end()) cuts.push_back(at);
    }
    std::sort(cuts.begin(), cuts.end());
    out.push_back(std::move(cuts));
  }
  return out;
}

// The first few of one kind of problem, described, and how many there were.
struct Problems {
  std::size_t count = 0;
  std::string described;
  void add(const std::string& what) {
    if (count++ < 4) described += what + "\n";
  }
};

// The random outputs every random test reads, made once.
const std::vector<Output>& random_outputs() {
  static const std::vector<Output> outputs = [] {
    Outputs make(20240611);
    std::vector<Output> out;
    out.reserve(output_count);
    for (int i = 0; i < output_count; ++i) out.push_back(make.next());
    return out;
  }();
  return outputs;
}

// The three boundaries the random tests stream through: every check reporting, stopping
// at the first that fails, and prose checked after the checks.
struct Boundaries {
  Campaign c;
  CampaignBoundary all{c.reg, {"campaign_ctr"}, winner, top, lead};
  CampaignBoundary first{c.reg, {"campaign_ctr"}, {.stop_at_first = true}, winner, top, lead};
  CampaignBoundary prose{c.reg, {"campaign_ctr"}, {.prose_field = "summary"}, winner, top, lead};
  struct Named {
    const char* name;
    CampaignBoundary* boundary;
  };
  std::vector<Named> each() {
    return {{"all checks", &all}, {"stop_at_first", &first}, {"prose_field=summary", &prose}};
  }
};

std::string where(const char* boundary, const Output& out, const std::vector<std::size_t>& cuts) {
  return std::string("boundary ") + boundary + ", text " + shown(out.text) + ", cut at " + shown(cuts);
}

}  // namespace

TEST_CASE(
    "finish() equals try_submit_json of the whole text however 10,000 random outputs (2,500 under ASan) are cut into "
    "1 to 8 chunks, "
    "and rejected never comes for a text the whole verdict accepts") {
  Boundaries bs;
  std::mt19937 rng(31);
  Problems differs, rejected_accepted, inconsistent;
  std::size_t streams = 0, exhaustive = 0, accepted = 0, rejected_early = 0, not_json = 0;
  std::vector<std::size_t> faults(fault_count + 1, 0);
  const auto boundaries = bs.each();
  for (std::size_t i = 0; i < random_outputs().size(); ++i) {
    const Output& out = random_outputs()[i];
    ++faults[static_cast<std::size_t>(out.fault)];
    const auto cuttings = cuttings_of(out.text.size(), rng);
    if (out.text.size() <= cut_every_way_up_to) ++exhaustive;
    const auto& [name, b] = boundaries[i % boundaries.size()];  // each boundary a third of the outputs
    const gp::Verdict whole_verdict = b->try_submit_json(out.text);
    const Expected whole(whole_verdict);
    accepted += whole.ok;
    not_json += !whole.ok && whole_verdict.findings()[0].check == "structured_output";
    for (std::size_t k = 0; k < cuttings.size(); ++k) {
      const Streamed s = stream_through(*b, out.text, cuttings[k], streams % 4 == 3);  // some with empty chunks
      ++streams;
      rejected_early += s.first_rejected != 0;
      if (const std::string d = difference(s.verdict, whole); !d.empty())
        differs.add(where(name, out, cuttings[k]) + d);
      if (whole.ok && s.first_rejected != 0)
        rejected_accepted.add(where(name, out, cuttings[k]) + ": rejected after " + std::to_string(s.first_rejected) +
                              " bytes");
      if (!s.inconsistent.empty()) inconsistent.add(where(name, out, cuttings[k]) + ": " + s.inconsistent);
    }
  }
  {
    INFO(differs.described);
    CHECK(differs.count == 0);
  }
  {
    INFO(rejected_accepted.described);
    CHECK(rejected_accepted.count == 0);
  }
  {
    INFO(inconsistent.described);
    CHECK(inconsistent.count == 0);
  }
  // What was covered: every fault, texts cut every way, accepted and rejected outputs.
  INFO("streams " << streams << ", accepted " << accepted << ", rejected early " << rejected_early << ", not JSON "
                  << not_json << ", cut every way " << exhaustive);
  CHECK(random_outputs().size() == static_cast<std::size_t>(output_count));
  for (std::size_t f = 0; f <= fault_count; ++f) CHECK(faults[f] > per_10000(20));
  CHECK(exhaustive > per_10000(100));
  CHECK(accepted > per_10000(1500));
  CHECK(rejected_early > per_10000(8000));
  CHECK(not_json > per_10000(1500));
}

TEST_CASE("the first rejected comes no later than the byte that closes the last field a failing check reads") {
  Boundaries bs;
  // Each check by the name the verdict gives it, with the fields it reads.
  const std::vector<std::pair<std::string, std::vector<std::string>>> checks = {
      {winner.name(), winner.reads()}, {top.name(), top.reads()}, {lead.name(), lead.reads()}};
  Problems late;
  std::size_t timed = 0, before_the_end = 0;
  const auto boundaries = bs.each();
  for (std::size_t i = 0; i < random_outputs().size(); i += 2) {  // every other output, for time
    const Output& out = random_outputs()[i];
    if (out.fault != Fault::none || out.repeated_key || out.root_closed_by == 0) continue;
    const auto& [name, b] = boundaries[(i / 2) % boundaries.size()];  // each boundary a third of them
    const gp::Verdict whole_verdict = b->try_submit_json(out.text);
    // The byte count by which some failing check has read every field it reads (an
    // absent field is known absent when the root closes).
    std::size_t due = std::numeric_limits<std::size_t>::max();
    std::string check_failed;
    for (const auto& [check, fields] : checks) {
      const auto& failed = whole_verdict.failed();
      if (std::find(failed.begin(), failed.end(), check) == failed.end()) continue;
      std::size_t by = 0;
      for (const auto& field : fields) {
        const auto it = out.closed_by.find(field);
        by = std::max(by, it != out.closed_by.end() ? it->second : out.root_closed_by);
      }
      if (by < due) {
        due = by;
        check_failed = check;
      }
    }
    if (due == std::numeric_limits<std::size_t>::max()) continue;
    ++timed;
    before_the_end += due < out.root_closed_by;
    // A byte at a time, up to the byte that is due.
    gp::ClaimStream s = b->stream();
    std::size_t fed = 0;
    while (fed < due && s.feed(std::string_view(out.text).substr(fed, 1)) == gp::StreamState::undecided) ++fed;
    if (fed == due)
      late.add(std::string("boundary ") + name + ", text " + shown(out.text) +
               " fed a byte at a time: undecided after " + std::to_string(due) + " bytes, when " + check_failed +
               " had read every field it reads");
  }
  {
    INFO(late.described);
    CHECK(late.count == 0);
  }
  INFO("timed " << timed << ", due before the root closed " << before_the_end);
  CHECK(timed > per_10000(2000));
  CHECK(before_the_end > per_10000(1500));
}

TEST_CASE("a wrong winner is rejected before the rest of the text has arrived") {
  Campaign c;
  gp::Boundary b(c.reg, {"campaign_ctr"}, winner, top, lead);
  const std::string head = R"({"winner": "north", "score": 0.0412,)";
  const std::string tail = R"( "top": ["harbour", "north"], "a": "harbour", "b": "north", "by": 0.43})";
  gp::ClaimStream s = b.stream();
  CHECK(s.feed(head.substr(0, head.size() - 1)) == gp::StreamState::undecided);  // the score is still open
  CHECK(s.feed(",") == gp::StreamState::rejected);
  REQUIRE(s.findings().size() == 1);
  CHECK(s.findings()[0].check == "superlative");
  CHECK(s.findings()[0].field == "winner");
  CHECK(s.findings()[0].said == "'north'");
  CHECK(s.feed(tail) == gp::StreamState::rejected);
  const gp::Verdict v = s.finish();
  CHECK(difference(v, Expected(b.try_submit_json(head + tail))).empty());
  CHECK(v.failed() == std::vector<std::string>{winner.name()});
}

TEST_CASE(
    "text that is not one JSON value gives try_submit_json's structured_output finding though a check rejected a "
    "prefix") {
  Campaign c;
  gp::Boundary b(c.reg, {"campaign_ctr"}, winner, top, lead);
  for (const std::string text :
       {R"({"winner": "north", "score": 0.0412} and more)", R"({"winner": "north", "score": 0.0412, "top": ["harbour")",
        R"({"winner": "north", "score": 0.0412}})"}) {
    CAPTURE(text);
    gp::ClaimStream s = b.stream();
    REQUIRE(s.feed(text) == gp::StreamState::rejected);
    CHECK(s.findings().at(0).check == "superlative");
    const gp::Verdict v = s.finish();
    const gp::Verdict whole = b.try_submit_json(text);
    REQUIRE(v.findings().size() == 1);
    CHECK(v.findings()[0].check == "structured_output");
    CHECK_THAT(v.findings()[0].detail, Catch::Contains("not exactly one JSON value"));
    CHECK(v.findings() == whole.findings());
    CHECK(difference(v, Expected(whole)).empty());
    CHECK(s.findings() == whole.findings());
  }
}

TEST_CASE("empty chunks are fine anywhere in a stream") {
  Campaign c;
  gp::Boundary b(c.reg, {"campaign_ctr"}, winner, top);
  const std::string text = R"({"winner": "harbour", "score": 0.0455, "top": ["harbour", "north"]})";
  gp::ClaimStream s = b.stream();
  std::size_t undecided = 0;
  for (const char ch : text) {  // an empty chunk before every byte
    undecided += s.feed("") == gp::StreamState::undecided;
    undecided += s.feed(std::string_view(&ch, 1)) == gp::StreamState::undecided;
  }
  undecided += s.feed("") == gp::StreamState::undecided;
  CHECK(undecided == 2 * text.size() + 1);
  const gp::Verdict v = s.finish();
  CHECK(v.ok());
  CHECK(difference(v, Expected(b.try_submit_json(text))).empty());
  // An empty chunk after a rejection leaves it rejected, with the same findings.
  gp::ClaimStream wrong = b.stream();
  CHECK(wrong.feed(R"({"winner": "north", "score": 0.0412,)") == gp::StreamState::rejected);
  CHECK(wrong.feed("") == gp::StreamState::rejected);
  CHECK(wrong.findings().size() == 1);
  CHECK_FALSE(wrong.finish().ok());
  // A stream fed nothing at all is the verdict on the empty text.
  gp::ClaimStream nothing = b.stream();
  CHECK(nothing.feed("") == gp::StreamState::undecided);
  const gp::Verdict empty = nothing.finish();
  CHECK_FALSE(empty.ok());
  CHECK(difference(empty, Expected(b.try_submit_json(""))).empty());
}

TEST_CASE("a NUL byte after the answer is a finding however the text is cut, as try_submit_json makes it") {
  using namespace std::string_literals;
  Campaign c;
  gp::Boundary b(c.reg, {"campaign_ctr"}, winner);
  for (const std::string& text : {"{\"winner\":\"harbour\",\"score\":0.0455}\0{\"winner\":\"north\"}"s,
                                  "{\"winner\":\"harbour\",\"score\":0.0455} \0"s, "\0{\"winner\":\"harbour\"}"s}) {
    const gp::Verdict whole = b.try_submit_json(text);
    REQUIRE_FALSE(whole.ok());
    REQUIRE(whole.findings().size() == 1);
    CHECK(whole.findings()[0].check == "structured_output");
    CHECK_THAT(whole.findings()[0].detail, Catch::Contains("at byte " + std::to_string(text.find('\0')) + " "));
    for (std::size_t cut = 0; cut <= text.size(); ++cut) {
      INFO(shown(text) << " cut at " << cut);
      std::vector<std::size_t> cuts;
      if (cut > 0 && cut < text.size()) cuts.push_back(cut);
      const Streamed s = stream_through(b, text, cuts);
      CHECK(difference(s.verdict, Expected(whole)).empty());
    }
  }
}

TEST_CASE("a stream past max_text_bytes is rejected once it passes, keeps nothing more, and ends as try_submit_json") {
  Campaign c;
  gp::Boundary b(c.reg, {"campaign_ctr"}, gp::BoundaryOptions{.max_text_bytes = 64}, winner);
  const std::string text = R"({"winner": "harbour", "score": 0.0455, "note": ")" + std::string(200, 'x') + "\"}";
  const gp::Verdict whole = b.try_submit_json(text);
  REQUIRE(whole.findings().size() == 1);
  CHECK_THAT(whole.findings()[0].detail, Catch::Contains("longer than the 64 bytes"));
  for (const std::size_t chunk : {std::size_t{1}, std::size_t{7}, std::size_t{64}, std::size_t{65}, text.size()}) {
    INFO("chunks of " << chunk);
    gp::ClaimStream s = b.stream();
    std::size_t fed = 0;
    for (std::size_t at = 0; at < text.size(); at += chunk) {
      const std::string_view piece = std::string_view(text).substr(at, chunk);
      const gp::StreamState state = s.feed(piece);
      fed += piece.size();
      CHECK((state == gp::StreamState::rejected) == (fed > 64));
    }
    CHECK(difference(s.finish(), Expected(whole)).empty());
    gp::ClaimStream stopped = b.stream();
    (void)stopped.feed(text);
    CHECK(difference(stopped.stop(), Expected(whole)).empty());
  }
}

TEST_CASE("finish() called twice returns the same verdict") {
  Campaign c;
  gp::Boundary b(c.reg, {"campaign_ctr"}, winner, top);
  gp::ClaimStream s = b.stream();
  (void)s.feed(R"({"winner": "north", "top": ["harbour", "delta"]})");
  const gp::Verdict first = s.finish();
  const gp::Verdict second = s.finish();
  CHECK(first.findings().size() == 2);
  CHECK(difference(second, Expected(first)).empty());
  CHECK(s.findings() == first.findings());
}

TEST_CASE("feeding a stream after finish() throws a ConfigurationError") {
  Campaign c;
  gp::Boundary b(c.reg, {"campaign_ctr"}, winner);
  gp::ClaimStream s = b.stream();
  (void)s.feed(R"({"winner": "harbour"})");
  CHECK(s.finish().ok());
  CHECK_THROWS_AS(s.feed(" "), gp::ConfigurationError);
  CHECK_THROWS_AS(s.feed(""), gp::ConfigurationError);
  CHECK(s.finish().ok());  // the verdict stands
}

TEST_CASE("a moved-from stream is a ConfigurationError on every call, never a crash, and the stream moved to goes on") {
  Campaign c;
  gp::Boundary b(c.reg, {"campaign_ctr"}, winner);
  gp::ClaimStream s = b.stream();
  (void)s.feed(R"({"winner": )");
  gp::ClaimStream moved = std::move(s);
  // NOLINTBEGIN(bugprone-use-after-move,clang-analyzer-cplusplus.Move): the behaviour under test
  CHECK_THROWS_AS(s.feed(R"("north"})"), gp::ConfigurationError);
  CHECK_THROWS_WITH(s.feed(""), Catch::Contains("moved from"));
  CHECK_THROWS_AS(s.state(), gp::ConfigurationError);
  CHECK_THROWS_AS(s.findings(), gp::ConfigurationError);
  CHECK_THROWS_AS(s.finish(), gp::ConfigurationError);
  CHECK_THROWS_AS(s.stop(), gp::ConfigurationError);
  // Assigned a live stream, it is one again.
  s = b.stream();
  CHECK(s.feed(R"({"winner": "harbour", "score": 0.0455})") == gp::StreamState::undecided);
  CHECK(s.finish().ok());
  // NOLINTEND(bugprone-use-after-move,clang-analyzer-cplusplus.Move)
  CHECK(moved.feed(R"("north"})") == gp::StreamState::rejected);
  CHECK_FALSE(moved.finish().ok());
}

TEST_CASE("a check of the caller's own without reads() runs only at finish()") {
  Campaign c;
  gp::Boundary b(c.reg, {"campaign_ctr"}, winner_is_harbour{}, top);
  const std::string text = R"({"winner": "north", "top": ["harbour", "north"]})";
  gp::ClaimStream s = b.stream();
  std::size_t undecided = 0;
  for (const char ch : text) undecided += s.feed(std::string_view(&ch, 1)) == gp::StreamState::undecided;
  CHECK(undecided == text.size());  // though the winner is wrong, and the object has closed
  CHECK(s.findings().empty());
  const gp::Verdict v = s.finish();
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].check == "winner_is_harbour");
  CHECK(difference(v, Expected(b.try_submit_json(text))).empty());
}

TEST_CASE("a stream whose root is an array ends in the structured_output finding") {
  Campaign c;
  gp::Boundary b(c.reg, {"campaign_ctr"}, winner, top, lead);
  gp::ClaimStream s = b.stream();
  CHECK(s.feed("[1,") == gp::StreamState::undecided);
  CHECK(s.feed("2]") == gp::StreamState::undecided);
  const gp::Verdict v = s.finish();
  REQUIRE(v.findings().size() == 1);
  CHECK(v.findings()[0].check == "structured_output");
  CHECK_THAT(v.findings()[0].detail, Catch::Contains("got an array"));
  CHECK(difference(v, Expected(b.try_submit_json("[1,2]"))).empty());
  // An array holding a wrong winner is not an object: no check runs on it early.
  gp::ClaimStream wrapped = b.stream();
  CHECK(wrapped.feed(R"([{"winner": "north", "score": 0.0412}])") == gp::StreamState::undecided);
  CHECK(wrapped.finish().findings().at(0).check == "structured_output");
}

TEST_CASE("the boundary counts as submitted once its stream finishes, and an unfinished stream leaves it unsubmitted") {
  Campaign c;
  {
    gp::Boundary b(c.reg, {"campaign_ctr"}, winner);
    gp::ClaimStream s = b.stream();
    (void)s.feed(R"({"winner": "harbour"})");
    CHECK_FALSE(b.submitted());
    (void)s.finish();
    CHECK(b.submitted());
  }
  const auto unfinished = [&] {
    gp::Boundary b(c.reg, {"campaign_ctr"}, winner);
    gp::ClaimStream s = b.stream();
    (void)s.feed(R"({"winner": "north", "score": 0.0412})");
  };
  CHECK_THROWS_AS(unfinished(), gp::NothingSubmitted);
}

TEST_CASE("a number cut between chunks keeps its digits under Rounding::as_stated") {
  Campaign c;
  {
    // "0.04" alone is two decimals and wrong (0.0455 is 0.05 at two); "0.0455" is right.
    gp::Boundary b(c.reg, {"campaign_ctr"},
                   gp::superlative{.fact = "campaign_ctr", .rounding = gp::Rounding::as_stated});
    gp::ClaimStream s = b.stream();
    CHECK(s.feed(R"({"winner": "harbour", "score": 0.04)") == gp::StreamState::undecided);
    CHECK(s.feed("55") == gp::StreamState::undecided);
    CHECK(s.feed("}") == gp::StreamState::undecided);
    const gp::Verdict v = s.finish();
    CHECK(v.ok());
    CHECK(difference(v, Expected(b.try_submit_json(R"({"winner": "harbour", "score": 0.0455})"))).empty());
    CHECK_FALSE(b.try_submit_json(R"({"winner": "harbour", "score": 0.04})").ok());
  }
  {
    // "0.4" is one decimal and right (0.43 points is 0.4 at one); "0.40" is two and wrong.
    gp::Boundary b(c.reg, {"campaign_ctr"}, lead);
    const std::string head = R"({"a": "harbour", "b": "north", "by": 0.4)";
    gp::ClaimStream s = b.stream();
    CHECK(s.feed(head) == gp::StreamState::undecided);
    CHECK(s.feed("0") == gp::StreamState::undecided);
    CHECK(s.feed(" ") == gp::StreamState::rejected);  // the space closes the number
    REQUIRE(s.findings().size() == 1);
    CHECK(s.findings()[0].field == "by");
    CHECK(s.findings()[0].said == "0.40");
    CHECK(s.feed("}") == gp::StreamState::rejected);
    const gp::Verdict v = s.finish();
    CHECK(difference(v, Expected(b.try_submit_json(head + "0 }"))).empty());
    CHECK(b.try_submit_json(head + "}").ok());
  }
}

TEST_CASE("a string cut inside a multi-byte UTF-8 character or inside a unicode escape reads the same") {
  Campaign c;
  gp::Boundary b(c.reg, {"campaign_ctr"}, {.prose_field = "summary"}, winner);
  // The winner spelled with an escape; the summary with é raw and escaped, an emoji raw and
  // as a surrogate pair.
  const std::string text =
      "{\"winner\": \"h\\u0061rbour\", \"score\": 0.0455, "
      "\"summary\": \"caf\xC3\xA9 {winner} \\u00e9 \\ud83d\\ude00 \xF0\x9F\x98\x80\"}";
  const std::string summary = "caf\xC3\xA9 {winner} \xC3\xA9 \xF0\x9F\x98\x80 \xF0\x9F\x98\x80";
  const Expected whole(b.try_submit_json(text));
  REQUIRE(whole.ok);
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {
    CAPTURE(cut);
    gp::ClaimStream s = b.stream();
    CHECK(s.feed(std::string_view(text).substr(0, cut)) == gp::StreamState::undecided);
    CHECK(s.feed(std::string_view(text).substr(cut)) == gp::StreamState::undecided);
    const gp::Verdict v = s.finish();
    REQUIRE(v.ok());
    CHECK(v.accepted().at("winner") == "harbour");
    CHECK(v.accepted().at("summary") == summary);
    CHECK(v.prose() == "caf\xC3\xA9 harbour \xC3\xA9 \xF0\x9F\x98\x80 \xF0\x9F\x98\x80");
    CHECK(difference(v, whole).empty());
  }
}
