#include <groundplane/json_text.hpp>

#include <chrono>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include "catch2_compat.hpp"

using groundplane::JsonText;
using groundplane::JsonTextOptions;
using nlohmann::json;

namespace {

std::string text_of(const JsonText& doc, const json& node) {
  const auto* t = doc.number_text(node);
  return t ? t->text : std::string("(none)");
}

std::size_t error_offset(std::string_view text) {
  const JsonText doc = JsonText::read(text);
  REQUIRE_FALSE(doc.ok());
  CHECK_FALSE(doc.error()->reason.empty());
  CHECK(doc.value().is_null());
  return doc.error()->offset;
}

}  // namespace

TEST_CASE("A number keeps the digits it was written with beside the double nlohmann holds") {
  const JsonText doc = JsonText::read(R"({"a": 0.50, "b": [10.0, 1.5e-3, 7], "c": -0.0})");
  REQUIRE(doc.ok());
  CHECK(doc.value()["a"] == 0.5);
  CHECK(text_of(doc, doc.value()["a"]) == "0.50");
  CHECK(text_of(doc, doc.value()["b"][0]) == "10.0");
  CHECK(text_of(doc, doc.value()["b"][1]) == "1.5e-3");
  CHECK(doc.number_text(doc.value()["b"][2]) == nullptr);  // a plain integer is its own text
  CHECK(text_of(doc, doc.value()["c"]) == "-0.0");
  const json parsed = json::parse(R"({"a": 0.50, "b": [10.0, 1.5e-3, 7], "c": -0.0})");
  CHECK(doc.value() == parsed);
}

TEST_CASE("A root number keeps its digits, and so does one after moving the JsonText") {
  JsonText doc = JsonText::read("0.250");
  REQUIRE(doc.ok());
  CHECK(text_of(doc, doc.value()) == "0.250");
  JsonText moved = std::move(doc);
  CHECK(text_of(moved, moved.value()) == "0.250");
  JsonText nested = JsonText::read(R"([[1.10, 2.20], {"k": [3.30]}])");
  JsonText nested_moved = std::move(nested);
  CHECK(text_of(nested_moved, nested_moved.value()[0][1]) == "2.20");
  CHECK(text_of(nested_moved, nested_moved.value()[1]["k"][0]) == "3.30");
}

TEST_CASE("Numbers past a double's precision or range keep their exact text") {
  const JsonText doc = JsonText::read(R"({"big": 12345678901234567890.25, "huge": 1e400, "neg": -1.5e400,
                                          "tiny": 1e-400, "int": 123456789012345678901234567})");
  REQUIRE(doc.ok());
  CHECK(text_of(doc, doc.value()["big"]) == "12345678901234567890.25");
  CHECK(text_of(doc, doc.value()["huge"]) == "1e400");
  CHECK(doc.value()["huge"].get<double>() == std::numeric_limits<double>::infinity());
  CHECK(text_of(doc, doc.value()["neg"]) == "-1.5e400");
  CHECK(doc.value()["neg"].get<double>() == -std::numeric_limits<double>::infinity());
  CHECK(text_of(doc, doc.value()["tiny"]) == "1e-400");
  CHECK(text_of(doc, doc.value()["int"]) == "123456789012345678901234567");
  CHECK(doc.out_of_range_count() == 0);
}

namespace {
std::string hundred_kb_mantissa() {
  return "{\"x\": [1, 0." + std::string(100000, '7') + "], \"y\": 1e999999, \"z\": -1e-1001}";
}
}  // namespace

TEST_CASE("A number past the digit or exponent bound is out of range and held as null") {
  const JsonText doc = JsonText::read(hundred_kb_mantissa());
  REQUIRE(doc.ok());
  CHECK(doc.out_of_range_count() == 3);
  REQUIRE(doc.out_of_range().size() == 3);
  CHECK(doc.out_of_range()[0].pointer == "/x/1");
  CHECK(doc.out_of_range()[0].offset == 10);
  CHECK(doc.out_of_range()[0].text.size() == 43);  // 40 bytes and "..."
  CHECK(doc.out_of_range()[1].pointer == "/y");
  CHECK(doc.out_of_range()[1].text == "1e999999");
  CHECK(doc.out_of_range()[2].pointer == "/z");
  CHECK(doc.value()["x"][1].is_null());
  CHECK(doc.value()["y"].is_null());
  const auto* t = doc.number_text(doc.value()["y"]);
  REQUIRE(t != nullptr);
  CHECK(t->out_of_range);
  // Exactly at the bound is still a number.
  const JsonText edge = JsonText::read("[1e1000, 1e-1000, " + std::string(100, '9') + ".0e-1]");
  REQUIRE(edge.ok());
  CHECK(edge.out_of_range_count() == 1);  // 101 significant digits ("....0" counts its zero)
  CHECK(text_of(edge, edge.value()[0]) == "1e1000");
  CHECK(text_of(edge, edge.value()[1]) == "1e-1000");
}

// One linear scan of ~100 KB, never a big-number computation; a sanitizer build skips the
// [timing] cases.
TEST_CASE("A number past the digit or exponent bound is found in microseconds", "[timing]") {
  const std::string text = hundred_kb_mantissa();
  const auto start = std::chrono::steady_clock::now();
  const JsonText doc = JsonText::read(text);
  const auto took = std::chrono::steady_clock::now() - start;
  REQUIRE(doc.ok());
  CHECK(doc.out_of_range_count() == 3);
  CHECK(std::chrono::duration_cast<std::chrono::milliseconds>(took).count() < 50);
}

TEST_CASE("The bound on exactness is configurable") {
  JsonTextOptions options;
  options.max_digits = 5;
  options.max_exponent = 10;
  const JsonText doc = JsonText::read("[1.2345, 1.23456, 1e10, 1e11]", options);
  REQUIRE(doc.ok());
  CHECK(doc.out_of_range_count() == 2);
  CHECK(doc.out_of_range()[0].pointer == "/1");
  CHECK(doc.out_of_range()[1].pointer == "/3");
}

TEST_CASE("A duplicate key is reported with its object's pointer, the key and both values, at any depth") {
  const JsonText doc =
      JsonText::read(R"({"winner": "north", "winner": "harbour", "a/b": [0, {"k~": {"x": 1, "x": [2.50]}}]})");
  REQUIRE(doc.ok());
  REQUIRE(doc.duplicate_key_count() == 2);
  const auto& d = doc.duplicate_keys();
  CHECK(d[0].pointer == "");
  CHECK(d[0].key == "winner");
  CHECK(*d[0].first == "north");
  CHECK(*d[0].second == "harbour");
  CHECK(doc.value()["winner"] == "north");  // never a silent last-wins
  CHECK(d[1].pointer == "/a~1b/1/k~0");
  CHECK(d[1].key == "x");
  CHECK(*d[1].first == 1);
  CHECK(*d[1].second == json::array({2.5}));
  CHECK(text_of(doc, (*d[1].second)[0]) == "2.50");
}

TEST_CASE("Many duplicate keys are counted in full and listed up to max_listed") {
  std::string text = "{";
  for (int i = 0; i < 1000; ++i) text += "\"a\":" + std::to_string(i) + ",";
  text += "\"b\":1}";
  const JsonText doc = JsonText::read(text);
  REQUIRE(doc.ok());
  CHECK(doc.duplicate_key_count() == 999);
  CHECK(doc.duplicate_keys().size() == JsonTextOptions{}.max_listed);
  CHECK(doc.value()["a"] == 0);
}

TEST_CASE("Text that is not exactly one JSON value is an error naming the byte offset") {
  CHECK(error_offset("The winner is north.") == 0);      // prose
  CHECK(error_offset(R"({"winner": "nor)") == 15);       // truncated string
  CHECK(error_offset(R"({"winner": "north")") == 18);    // truncated object
  CHECK(error_offset(R"({"winner": "north",})") == 19);  // trailing comma
  CHECK(error_offset(R"([1, 2,])") == 6);
  CHECK(error_offset(R"({"a": 1} {"a": 2})") == 9);               // two values
  CHECK(error_offset(R"({"a": 1} and that is my answer)") == 9);  // trailing text
  CHECK(error_offset("") == 0);                                   // nothing
  CHECK(error_offset("   ") == 3);
  CHECK(error_offset("{\"a\": \"caf\xC3\"}") == 11);  // a UTF-8 sequence cut short: the byte that breaks it
  CHECK(error_offset("{\"a\": \"\xFF\"}") == 7);      // invalid UTF-8 byte
  CHECK(error_offset(R"({"a": "\ud800"})") == 13);    // lone high surrogate
  CHECK(error_offset(R"({"a": "\udc00x"})") == 12);   // lone low surrogate
  CHECK(error_offset(R"({"a": NaN})") == 6);
  CHECK(error_offset(R"({"a": 01})") == 7);
  CHECK(error_offset(R"({'a': 1})") == 1);
  CHECK(error_offset("{\"a\": 1 // note\n}") == 8);  // no comments
}

TEST_CASE("A NUL byte is never the end of the text: after the value it is an error at its offset") {
  using namespace std::string_literals;
  // nlohmann's reader takes a NUL for the end of its input, so all of these were read as
  // the first value alone.
  CHECK(error_offset("{\"winner\":\"harbour\"}\0{\"winner\":\"north\"}"s) == 20);
  CHECK(error_offset("{\"a\": 1} \0"s) == 9);
  CHECK(error_offset("[1]\n\0\0garbage"s) == 4);
  CHECK(error_offset("7\0"s) == 1);
  // Before or inside the value too, the reason names the NUL rather than an end of input.
  for (const std::string& text : {"\0{\"a\": 1}"s, "{\"a\":\0 1}"s, "[1,\0 2]"s, "{\"a\": \"x\0y\"}"s}) {
    INFO(json(text).dump());
    const JsonText doc = JsonText::read(text);
    REQUIRE_FALSE(doc.ok());
    CHECK(doc.error()->offset == text.find('\0'));
    CHECK(doc.error()->reason.find("NUL") != std::string::npos);
    CHECK(doc.error()->reason.find("end of input") == std::string::npos);
  }
}

TEST_CASE("Nesting past max_depth is an error at the bracket that goes too deep") {
  JsonTextOptions options;
  options.max_depth = 4;
  CHECK(JsonText::read("[[[[1]]]]", options).ok());
  const JsonText deep = JsonText::read(R"([[{"a": [["x"]]}]])", options);
  REQUIRE_FALSE(deep.ok());
  CHECK(deep.error()->offset == 9);  // the fifth bracket
  CHECK(deep.error()->reason.find("deeper than 4") != std::string::npos);
  // A syntax error before the deep part is the one reported.
  const JsonText bad_first = JsonText::read(R"([}[[[[[[)", options);
  REQUIRE_FALSE(bad_first.ok());
  CHECK(bad_first.error()->offset == 1);
  // Brackets inside strings are not nesting.
  CHECK(JsonText::read(R"(["[[[[[[[[[[", "\"[[[[[["])", options).ok());
}

TEST_CASE("Digits inside strings, escaped quotes and literals do not disturb which number keeps which text") {
  const JsonText doc = JsonText::read(R"(["1e400 \" 2.50", true, 1e400, false, 0.10, null, "9", -1e999999, 3.0])");
  REQUIRE(doc.ok());
  const json& v = doc.value();
  CHECK(v[0] == "1e400 \" 2.50");
  CHECK(text_of(doc, v[2]) == "1e400");
  CHECK(text_of(doc, v[4]) == "0.10");
  CHECK(v[6] == "9");
  CHECK(v[7].is_null());
  CHECK(doc.number_text(v[7])->out_of_range);
  CHECK(text_of(doc, v[8]) == "3.0");
  CHECK(doc.out_of_range().at(0).pointer == "/7");
}

TEST_CASE("Reading is linear: deep nesting, many numbers and duplicates cost about what nlohmann's own parse does") {
  std::string text = "[";
  for (int i = 0; i < 4000; ++i) {
    if (i) text += ',';
    text += std::string(50, '[') + "{\"a\":1.50,\"a\":2.50,\"b\":[1e300,0.1]}" + std::string(50, ']');
  }
  text += ']';
  const auto start = std::chrono::steady_clock::now();
  const JsonText doc = JsonText::read(text);
  const auto ours = std::chrono::steady_clock::now() - start;
  const json parsed = json::parse(text);
  const auto theirs = std::chrono::steady_clock::now() - start - ours;
  REQUIRE(doc.ok());
  CHECK(doc.duplicate_key_count() == 4000);
  CHECK(parsed.size() == 4000);
  // nlohmann's parse is linear; a quadratic step here would be hundreds of times slower.
  CHECK(ours < 5 * theirs + std::chrono::milliseconds(100));
}

TEST_CASE("Any bytes at all are read without an exception, and a success equals nlohmann's own parse") {
  std::mt19937 rng(15);
  const std::string alphabet = "{}[]:,\"\\ 0123456789.eE+-truefalsnul\xC3\xA9\xFF\x01u";
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    const std::size_t len = rng() % 24;
    for (std::size_t i = 0; i < len; ++i) text += alphabet[rng() % alphabet.size()];
    JsonText doc = JsonText::read(text);  // must not throw
    const bool nlohmann_ok = json::accept(text);
    if (doc.ok()) {
      CHECK(doc.error() == std::nullopt);
      if (nlohmann_ok && doc.duplicate_key_count() == 0) CHECK(doc.value() == json::parse(text));
    } else {
      CHECK(doc.error()->offset <= text.size());
      // nlohmann accepts exactly what we accept, but for numbers past a double's range.
      if (nlohmann_ok) FAIL("refused text nlohmann accepts: " << text);
    }
  }
}
