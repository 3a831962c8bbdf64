// The cost harness for what a model's answer makes the claims half do: for each input a
// model controls (docs/security.md), the input at 1x, 10x and 100x its bound — or grown to
// 100 MB where there is none — never crashes, gets the stated outcome, and stays within a
// stated budget of time and peak resident memory; past a bound the cost is flat, below it
// linear (10x the input costs at most 15x the time). Deep inputs run on a thread with a
// 256 KiB stack. Time is CPU time, so a machine busy with other builds does not stretch it.
#include "catch2_compat.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <groundplane/boundary.hpp>
#include <groundplane/check_from_json.hpp>
#include <groundplane/checks/actions_performed.hpp>
#include <groundplane/checks/entities_recorded.hpp>
#include <groundplane/checks/ranking_prefix.hpp>
#include <groundplane/checks/row_integrity.hpp>
#include <groundplane/checks/superlative.hpp>
#include <groundplane/errors.hpp>
#include <groundplane/json_text.hpp>
#include <groundplane/registry.hpp>

#include "hostile/hostile_support.hpp"
#include "process_probe.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {

constexpr std::size_t MiB = 1024 * 1024;
// Not constexpr: clang cannot evaluate BoundaryOptions' std::string members at compile time.
const std::size_t text_bound = gp::BoundaryOptions{}.max_text_bytes;  // 1 MiB
const std::size_t depth_bound = gp::BoundaryOptions{}.max_depth;      // 256

// The budgets. This file is built optimized (tests/hostile/CMakeLists.txt), and held to
// the figures the library promises; built without optimization it runs the same linear
// code several times slower, so there the time budgets are ten times wider and only tell
// linear from worse. Memory budgets are the same; AddressSanitizer keeps freed memory
// resident, so there they are not asserted.
#ifdef __OPTIMIZE__
constexpr double slow = 1;
#else
constexpr double slow = 10;
#endif
constexpr double prose_10mb_seconds = 0.5 * slow;   // a 10 MB template, any kind of flood
constexpr std::size_t prose_10mb_added = 64 * MiB;  // peak resident memory above the template's own
constexpr double refused_seconds = 0.05 * slow;     // an input past its bound, refused without being read
constexpr std::size_t refused_added = 4 * MiB;
constexpr double linear_ratio = 15;  // the time of 10x the input over the time of 1x
// The same past the last-level cache (32 MiB here): 10 MB is read from it, 100 MB from
// memory, which costs about 1.7x per byte on this machine. A quadratic cost is 100x.
constexpr double past_cache_ratio = 25;

struct Fixture {
  gp::FactRegistry reg;
  Fixture() {
    reg.record_ranking("ctr", {{"north", 0.0412}, {"harbour", 0.0455}, {"delta", 0.0301}},
                       {.key = "ctr", .tool = "warehouse.query"});
    json rows = json::array();
    json ledger = json::array();
    gp::Scores scores;
    for (int i = 0; i < 100; ++i) {
      rows.push_back({{"region", "r" + std::to_string(i)}, {"v", i}});
      ledger.push_back({{"action", "a" + std::to_string(i)},
                        {"principal", "agent"},
                        {"outcome", "did NOT happen: refused"},
                        {"version", i}});
      scores.push_back({"e" + std::to_string(i), i});
    }
    reg.record_table("regions", rows, {.key_column = "region", .tool = "db"});
    reg.record_table("ledger", ledger,
                     {.tool = "session.ledger", .columns = {"action", "principal", "outcome", "version"}});
    reg.record_ranking("ranked", scores, {.key = "v", .tool = "t"});
  }
};
const Fixture& fixture() {
  static const Fixture f;
  return f;
}

// A verdict judged once, with the CPU time and the peak memory it added.
struct Judged {
  gp::Verdict verdict;
  double seconds = 0;
  std::size_t added = 0;
};

// Judged `runs` times: the least CPU time and the most memory of them. CTest runs another
// test beside this one, and its page faults and cache pressure add CPU time to this
// process too; the least of three is what the code itself costs, so a ratio of two such
// times says whether it is linear, not how busy the neighbour was.
template <class Judge>
Judged judged(Judge&& judge, int runs = 3) {
  Judged out;
  for (int run = 0; run < runs; ++run) {
    double seconds = 0;
    const std::size_t added = hostile::peak_added_by([&] {
      const double start = hostile::cpu_seconds();
      out.verdict = judge();
      seconds = hostile::cpu_seconds() - start;
    });
    out.seconds = run == 0 ? seconds : std::min(out.seconds, seconds);
    out.added = std::max(out.added, added);
  }
  return out;
}

void report(const char* row, std::size_t size, const Judged& j) {
  std::printf("hostile claims: %-44s %11zu bytes  %8.3f s  +%6.1f MiB peak  %zu finding(s)\n", row, size, j.seconds,
              static_cast<double>(j.added) / MiB, j.verdict.findings().size());
}

void check_memory(std::size_t added, std::size_t budget) {
  if (GP_UNDER_ASAN) return;
  CHECK(added <= budget);
}

// `unit` repeated to `bytes`.
std::string repeated(std::string_view unit, std::size_t bytes) {
  std::string out;
  out.reserve(bytes + unit.size());
  while (out.size() + unit.size() <= bytes) out += unit;
  return out;
}

// {"winner": "harbour", "score": 0.0455, "note": <bytes of text>} as JSON text of `bytes`.
std::string answer_of(std::size_t bytes) {
  std::string text = R"({"winner":"harbour","score":0.0455,"note":")";
  text += std::string(bytes - text.size() - 2, 'x');
  text += "\"}";
  return text;
}

}  // namespace

// ---- claim text: BoundaryOptions::max_text_bytes (1 MiB) -----------------------------------

TEST_CASE("claim text at its bound is judged, and at 10x and 100x it is refused at once without being read",
          "[timing]") {
  const auto& reg = fixture().reg;
  gp::Boundary b(reg, {"ctr"}, gp::superlative{.fact = "ctr"});
  const std::string at_bound = answer_of(text_bound);
  const Judged one = judged([&] { return b.try_submit_json(at_bound); });
  report("claim text, 1x (judged)", at_bound.size(), one);
  CHECK(one.verdict.ok());
  CHECK(one.seconds < 0.2 * slow);
  check_memory(one.added, 8 * text_bound);
  for (const std::size_t times : {std::size_t{10}, std::size_t{100}}) {
    const hostile::Untouched past(times * text_bound);
    const Judged j = judged([&] { return b.try_submit_json(past.view()); });
    report(times == 10 ? "claim text, 10x (refused)" : "claim text, 100x (refused)", past.view().size(), j);
    REQUIRE(j.verdict.findings().size() == 1);
    CHECK(j.verdict.findings()[0].check == "structured_output");
    CHECK_THAT(j.verdict.findings()[0].detail, Catch::Contains("longer than the 1,048,576 bytes"));
    CHECK(j.seconds < refused_seconds);
    check_memory(j.added, refused_added);
  }
}

TEST_CASE("claim text of the most nodes per byte at its bound costs a bounded multiple of itself", "[timing]") {
  // 1 MiB of empty arrays in a field no check reads: the most values a text of this size
  // can make a JSON library build, each a node of its own.
  const auto& reg = fixture().reg;
  gp::Boundary b(reg, {"ctr"}, gp::superlative{.fact = "ctr"});
  std::string text = R"({"winner":"harbour","score":0.0455,"aside":[)";
  while (text.size() + 3 + 4 <= text_bound) text += "[],";
  text += "[]]}";
  const Judged j = judged([&] { return b.try_submit_json(text); });
  report("claim text, 1x of empty arrays", text.size(), j);
  CHECK(j.verdict.ok());
  CHECK(j.seconds < 0.5 * slow);
  check_memory(j.added, 64 * text_bound);  // about 40 bytes of nodes and their growth per 3 bytes of text
}

TEST_CASE("claim text is read in time linear in its length", "[timing]") {
  const auto& reg = fixture().reg;
  gp::Boundary b(reg, {"ctr"}, gp::superlative{.fact = "ctr"});
  const std::string small = answer_of(text_bound / 10);
  const std::string large = answer_of(text_bound);
  const Judged s = judged([&] { return b.try_submit_json(small); });
  const Judged l = judged([&] { return b.try_submit_json(large); });
  INFO(s.seconds << " s for " << small.size() << " bytes, " << l.seconds << " s for " << large.size());
  CHECK(l.seconds <= linear_ratio * s.seconds + 0.01);
}

// ---- a stream's chunks: the same bound, counted as they arrive ------------------------------

TEST_CASE("a stream fed 1x, 10x and 100x its bound keeps at most the bound, and is rejected once past it", "[timing]") {
  const auto& reg = fixture().reg;
  gp::Boundary b(reg, {"ctr"}, gp::superlative{.fact = "ctr"});
  const std::string chunk(64 * 1024, ' ');  // whitespace before the answer: one buffer, fed again and again
  for (const std::size_t times : {std::size_t{1}, std::size_t{10}, std::size_t{100}}) {
    const std::size_t total = times * text_bound;
    gp::StreamState state = gp::StreamState::undecided;
    const Judged j = judged([&] {
      gp::ClaimStream s = b.stream();
      for (std::size_t fed = 0; fed < total; fed += chunk.size()) state = s.feed(chunk);
      return s.finish();
    });
    report(times == 1 ? "stream, 1x" : times == 10 ? "stream, 10x (rejected)" : "stream, 100x (rejected)", total, j);
    REQUIRE(j.verdict.findings().size() == 1);
    CHECK(j.verdict.findings()[0].check == "structured_output");
    if (times == 1) {
      CHECK(state == gp::StreamState::undecided);  // the bound is reached, not passed: whitespace is not JSON
      CHECK_THAT(j.verdict.findings()[0].detail, Catch::Contains("not exactly one JSON value"));
      check_memory(j.added, 8 * text_bound);  // the text kept as it grew, then read whole for the finding
    } else {
      CHECK(state == gp::StreamState::rejected);
      CHECK_THAT(j.verdict.findings()[0].detail, Catch::Contains("longer than the 1,048,576 bytes"));
      check_memory(j.added, 8 * text_bound);  // what it kept up to the bound, however much more came
      CHECK(j.seconds < 0.1 * slow);
    }
  }
}

// ---- depth: BoundaryOptions::max_depth (256), on a thread with a 256 KiB stack --------------

namespace {
std::string nested_text(std::size_t depth) {
  return R"({"winner":"harbour","score":0.0455,"aside":)" + std::string(depth - 1, '[') + std::string(depth - 1, ']') +
         "}";
}
json nested_value(std::size_t depth) {
  json out = {{"winner", "harbour"}, {"score", 0.0455}, {"aside", json::array()}};
  json* at = &out["aside"];
  for (std::size_t i = 2; i < depth; ++i) at = &at->emplace_back(json::array());
  return out;
}
bool too_deep(const gp::Verdict& v) {
  return v.findings().size() == 1 && v.findings()[0].check == "structured_output" &&
         (v.findings()[0].detail.find("nesting deeper than 256") != std::string::npos ||
          v.findings()[0].detail.find("nested deeper than 256") != std::string::npos);
}
}  // namespace

TEST_CASE("claim text, a stream and a value nested 1x, 10x, 100x and a million times the bound never crash") {
  const auto& reg = fixture().reg;
  for (const std::size_t depth : {depth_bound, 10 * depth_bound, 100 * depth_bound, std::size_t{1'000'000}}) {
    INFO("depth " << depth);
    const bool within = depth <= depth_bound;
    const std::string text = nested_text(depth);
    hostile::on_small_stack([&] {
      // Text long enough to be read (a million levels take two million bytes): depth, not
      // length, is what refuses it.
      gp::Boundary b(reg, {"ctr"}, gp::BoundaryOptions{.max_text_bytes = 4 * MiB}, gp::superlative{.fact = "ctr"});
      const gp::Verdict as_text = b.try_submit_json(text);
      CHECK((within ? as_text.ok() : too_deep(as_text)));
      gp::ClaimStream s = b.stream();
      for (std::size_t at = 0; at < text.size(); at += 4096) (void)s.feed(std::string_view(text).substr(at, 4096));
      const gp::Verdict streamed = s.finish();
      CHECK(streamed.findings() == as_text.findings());
      const json value = nested_value(depth);
      const gp::Verdict as_value = b.try_submit(value);
      CHECK((within ? as_value.ok() : too_deep(as_value)));
      // Accepted, the output is kept whole (accepted()): a copy no deeper than the bound.
      if (within) CHECK(as_value.accepted() == value);
      CHECK(gp::JsonText::read(text).ok() == within);
    });
  }
}

TEST_CASE("another JSON flavour nested a million deep is measured before it is converted") {
  nlohmann::ordered_json deep = nlohmann::ordered_json::array();
  nlohmann::ordered_json* at = &deep;
  for (int i = 0; i < 1'000'000; ++i) at = &at->emplace_back(nlohmann::ordered_json::array());
  const nlohmann::ordered_json output = {{"winner", "harbour"}, {"aside", std::move(deep)}};
  hostile::on_small_stack([&] {
    gp::Boundary b(fixture().reg, {"ctr"}, gp::superlative{.fact = "ctr"});
    CHECK(too_deep(b.try_submit(output)));
  });
}

TEST_CASE("facts, table cells, provenance arguments and check specs nested a million deep are refused, never copied") {
  // Built in a loop and moved into place: a copy made by the caller's own code recurses
  // too (record_fact takes its value, so hand it over with std::move).
  const auto deep = [] {
    json v = json::array();
    json* at = &v;
    for (int i = 0; i < 1'000'000; ++i) at = &at->emplace_back(json::array());
    return v;
  };
  hostile::on_small_stack([&] {
    gp::FactRegistry reg;
    CHECK_THROWS_AS(reg.record_fact("fact", deep(), {.tool = "t"}), gp::InvalidFact);
    json row = json::object();
    row["k"] = "a";
    row["cell"] = deep();
    json rows = json::array();
    rows.push_back(std::move(row));
    CHECK_THROWS_AS(reg.record_table("table", rows, {.tool = "t"}), gp::InvalidFact);
    json args = json::object();
    args["q"] = deep();
    CHECK_THROWS_AS(reg.record_fact("args", 1, {.tool = "t", .args = args}), gp::InvalidFact);
    CHECK(reg.size() == 0);
    for (const std::size_t depth : {depth_bound + 1, 10 * depth_bound, 100 * depth_bound}) {
      json spec = {{"check", "aggregate_reconciles"},
                   {"fact", "orders"},
                   {"field", "total"},
                   {"op", "sum"},
                   {"column", "amount"},
                   {"where", {{"region", json::array()}}}};
      json* w = &spec["where"]["region"];
      for (std::size_t i = 3; i < depth; ++i) w = &w->emplace_back(json::array());
      CHECK_THROWS_AS(gp::check_from_json(spec), gp::ConfigurationError);
    }
    json spec = {{"check", "superlative"}, {"fact", "ctr"}};
    spec["deep"] = deep();
    CHECK_THROWS_WITH(gp::check_from_json(spec), Catch::Contains("nested deeper than 256"));
  });
}

// ---- prose: no bound on the template handed over as a value, so 1 MB, 10 MB and 100 MB ------

namespace {
struct Flood {
  const char* name;
  std::string_view unit;
  bool accepted;
};
const Flood floods[] = {
    {"numbers", "1 ", false},
    {"recorded names", "north ", false},
    {"look-alike names", "n\xD0\xBErth ", false},  // a Cyrillic o
    {"slots to no field", "{missing} ", false},
    {"signs against a slot", "-{score} ", false},
    {"words", "lorem ipsum ", true},
    {"words of another script", "\xD0\xBE\xD0\xBF ", true},
    {"numeric slots", "{score} ", true},
};

Judged prose_flood(gp::Boundary<gp::superlative>& b, const Flood& flood, std::size_t bytes, int runs = 3) {
  json output = {{"winner", "harbour"}, {"score", 0.0455}, {"summary", repeated(flood.unit, bytes)}};
  return judged([&] { return b.try_submit(output); }, runs);
}
}  // namespace

TEST_CASE("a prose flood of any kind is judged in linear time, 10 MB within the budget, with nine findings at most",
          "[timing]") {
  gp::Boundary b(fixture().reg, {"ctr"}, {.prose_field = "summary"}, gp::superlative{.fact = "ctr"});
  for (const Flood& flood : floods) {
    INFO(flood.name);
    const Judged one = prose_flood(b, flood, 1'000'000);
    const Judged ten = prose_flood(b, flood, 10'000'000);
    report((std::string("prose, ") + flood.name + ", 1 MB").c_str(), 1'000'000, one);
    report((std::string("prose, ") + flood.name + ", 10 MB").c_str(), 10'000'000, ten);
    for (const Judged* j : {&one, &ten}) {
      CHECK(j->verdict.ok() == flood.accepted);
      CHECK(j->verdict.findings().size() <= 9);
    }
    CHECK(ten.seconds < prose_10mb_seconds);
    CHECK(ten.seconds <= linear_ratio * one.seconds + 0.01);
    // What rendering an accepted template keeps (its text, once raw and once escaped), and
    // for a refused one next to nothing: never a finding per number or name.
    check_memory(ten.added, prose_10mb_added);
    if (flood.accepted) CHECK(ten.verdict.prose().size() >= 8'000'000);  // a slot renders about as long
  }
}

TEST_CASE("a 100 MB prose flood costs ten times a 10 MB one, not more", "[timing]") {
  gp::Boundary b(fixture().reg, {"ctr"}, {.prose_field = "summary"}, gp::superlative{.fact = "ctr"});
  for (const Flood& flood : {floods[0], floods[2], floods[5]}) {
    INFO(flood.name);
    const Judged ten = prose_flood(b, flood, 10'000'000);
    const Judged hundred =
        prose_flood(b, flood, 100'000'000, 1);  // seconds each: a neighbour's noise is small beside it
    report((std::string("prose, ") + flood.name + ", 100 MB").c_str(), 100'000'000, hundred);
    CHECK(hundred.verdict.findings().size() <= 9);
    CHECK(hundred.seconds <= past_cache_ratio * ten.seconds + 0.01);
    check_memory(hundred.added, 10 * prose_10mb_added);
  }
}

TEST_CASE("prose in claim text at the text bound is judged, and its slots cannot multiply it past the bound",
          "[timing]") {
  gp::Boundary b(fixture().reg, {"ctr"}, {.prose_field = "summary", .free_fields = {"note"}},
                 gp::superlative{.fact = "ctr"});
  // A template filling the text bound with slots, each inserting a field of a quarter of
  // it: tens of gigabytes if rendered.
  std::string text =
      R"({"winner":"harbour","score":0.0455,"note":")" + std::string(text_bound / 4, 'x') + R"(","summary":")";
  while (text.size() + 8 < text_bound) text += "{note} ";
  text += "\"}";
  const Judged j = judged([&] { return b.try_submit_json(text); });
  report("prose, slots inserting 1 MiB each", text.size(), j);
  REQUIRE(j.verdict.findings().size() == 1);
  CHECK_THAT(j.verdict.findings()[0].detail, Catch::Contains("insert more than 1,048,576 bytes"));
  CHECK(j.seconds < 0.2 * slow);
  check_memory(j.added, 8 * text_bound);
}

// ---- lists: one finding per wrong item, capped before it is built ----------------------------

TEST_CASE("a list of wrong items filling the text bound is judged in linear time with nine findings per check",
          "[timing]") {
  const auto& reg = fixture().reg;
  gp::Boundary b(reg, {"ctr", "regions", "ledger", "ranked"},
                 gp::entities_recorded{.facts = {"ctr"}, .fields = {"named"}},
                 gp::ranking_prefix{.fact = "ranked", .field = "top", .ordered = false},
                 gp::row_integrity{.fact = "regions", .key_field = "region", .fields = {{"v", "v"}}, .at = "/rows"},
                 gp::actions_performed{.fact = "ledger", .field = "did"});
  const auto text_of = [](std::size_t bytes) {
    // Four lists, every item wrong.
    std::string named = "[", top = "[", rows = "[", did = "[";
    for (std::size_t i = 0; named.size() + top.size() + rows.size() + did.size() + 100 < bytes; ++i) {
      const std::string n = std::to_string(i);
      named += "\"x" + n + "\",";
      top += "\"y" + n + "\",";
      rows += R"({"region":"r)" + std::to_string(i % 100) + R"(","v":-1},)";
      did += "\"a" + std::to_string(i % 100) + "\",";
    }
    for (std::string* s : {&named, &top, &rows, &did}) s->back() = ']';
    return R"({"named":)" + named + R"(,"top":)" + top + R"(,"rows":)" + rows + R"(,"did":)" + did + "}";
  };
  const std::string small = text_of(text_bound / 10);
  const std::string large = text_of(text_bound);
  const Judged s = judged([&] { return b.try_submit_json(small); });
  const Judged l = judged([&] { return b.try_submit_json(large); });
  report("lists of wrong items, 0.1x", small.size(), s);
  report("lists of wrong items, 1x", large.size(), l);
  CHECK(l.verdict.findings().size() == 4 * 9);
  CHECK(l.seconds <= linear_ratio * s.seconds + 0.01);
  CHECK(l.seconds < 0.5 * slow);
  check_memory(l.added, 32 * text_bound);
}
