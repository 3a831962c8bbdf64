// FactRegistry: write-once typed facts with provenance (API.md A3, A4).
#include "catch2_compat.hpp"

#include <atomic>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <groundplane/groundplane.hpp>

#include "fixtures.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {
const gp::Ranking& seed_ranking(gp::FactRegistry& reg) { return gp::testing::record_campaign_ctr(reg); }
}  // namespace

TEST_CASE("a ranking computes its order best first with competition ranks") {
  gp::FactRegistry reg;
  const auto& r =
      reg.record_ranking("s", {{"a", 1}, {"b", 3}, {"c", 3}, {"d", 2}, {"e", 0}}, {.key = "score", .tool = "t"});
  CHECK(r.order() == std::vector<gp::Entity>{"b", "c", "d", "a", "e"});
  CHECK(r.rank_of("b") == 1);
  CHECK(r.rank_of("c") == 1);
  CHECK(r.rank_of("d") == 3);
  CHECK(r.rank_of("a") == 4);
  CHECK(r.rank_of("e") == 5);
  CHECK(r.rank_of("zzz") == 0);
  CHECK(r.score_of("d") == gp::Decimal(2));
  CHECK_FALSE(r.score_of("zzz").has_value());
  CHECK(r.key() == "score");
  CHECK(r.direction() == gp::Direction::higher_is_better);
  CHECK(r.scores().size() == 5);
  CHECK(r.scores()[0].first == "a");  // as recorded
}

TEST_CASE("a lower is better ranking puts the smallest score first") {
  gp::FactRegistry reg;
  const auto& r = reg.record_ranking("latency", {{"a", 120}, {"b", 80}, {"c", 95}},
                                     {.key = "ms", .direction = gp::Direction::lower_is_better, .tool = "t"});
  CHECK(r.order() == std::vector<gp::Entity>{"b", "c", "a"});
  CHECK(r.rank_of("a") == 3);
}

TEST_CASE("scores that print the same are the same score") {
  gp::FactRegistry reg;
  // 0.1 + 0.2 in binary floating point is not 0.3; as recorded decimals they tie.
  const auto& r =
      reg.record_ranking("s", {{"x", gp::Decimal(0.1) + gp::Decimal(0.2)}, {"y", 0.3}}, {.key = "k", .tool = "t"});
  CHECK(r.rank_of("x") == 1);
  CHECK(r.rank_of("y") == 1);
}

TEST_CASE("the seed's ranking carries its provenance") {
  gp::FactRegistry reg;
  const auto& r = seed_ranking(reg);
  CHECK(r.name() == "campaign_ctr");
  CHECK(r.provenance().tool == "warehouse.query");
  CHECK(r.provenance().render() == "warehouse.query(table='campaign_daily', window='7d')");
  CHECK(r.order().front() == "harbour");
  CHECK(reg.kind_of("campaign_ctr") == gp::FactKind::ranking);
  CHECK(&reg.get<gp::Ranking>("campaign_ctr") == &r);
}

TEST_CASE("a table keeps columns in first-seen order and answers by row and column") {
  gp::FactRegistry reg;
  const auto& t = reg.record_table("campaigns", json::parse(R"([{"campaign":"north","ctr":0.0412},
                                                   {"campaign":"harbour","ctr":0.0455,"spend":10},
                                                   {"campaign":"delta","ctr":0.0301}])"),
                                   {.key_column = "campaign", .total_rows = 3, .tool = "warehouse.query"});
  CHECK(t.columns() == std::vector<std::string>{"campaign", "ctr", "spend"});
  CHECK(t.row_count() == 3);
  CHECK(t.value(1, "ctr") == json(0.0455));
  CHECK(t.value(0, "spend").is_null());
  CHECK(t.value(0, "nope").is_null());
  CHECK(t.key_column() == std::optional<std::string>("campaign"));
  CHECK(t.total_rows() == std::optional<std::size_t>(3));
  CHECK(t.complete());
  CHECK(t.row_of(json("delta")) == std::optional<std::size_t>(2));
  CHECK_FALSE(t.row_of(json("nobody")).has_value());
  CHECK_THROWS_AS(t.value(3, "ctr"), std::out_of_range);
}

TEST_CASE("a table with fewer rows than its source had is not complete") {
  gp::FactRegistry reg;
  const auto& t = reg.record_table("part", json::parse(R"([{"a":1},{"a":2}])"), {.total_rows = 2000, .tool = "t"});
  CHECK_FALSE(t.complete());
  CHECK(t.total_rows() == std::optional<std::size_t>(2000));
}

TEST_CASE("a domain keeps recorded order and answers membership exactly") {
  gp::FactRegistry reg;
  const auto& d = reg.record_domain("regions", {"north", "harbour", "Delta"}, {.tool = "crm.list"});
  CHECK(d.members() == std::vector<gp::Entity>{"north", "harbour", "Delta"});
  CHECK(d.contains("Delta"));
  CHECK_FALSE(d.contains("delta"));
}

TEST_CASE("a fact holds any JSON value, objects and arrays included, exactly as recorded") {
  gp::FactRegistry reg;
  const json config = json::parse(R"({"region": "north", "limits": [1, 2.5, null], "on": true})");
  CHECK(reg.record_fact("config", config, {.tool = "t"}).value() == config);
  CHECK(reg.record_fact("list", json::array({"a", 1}), {.tool = "t"}).value() == json::array({"a", 1}));
  CHECK(reg.record_fact("empty", json::object(), {.tool = "t"}).value() == json::object());
}

TEST_CASE("a fact whose value hides a non-finite number deep inside is refused naming where") {
  gp::FactRegistry reg;
  json v = {{"a", json::array({1, 2})}};
  v["a"][1] = std::numeric_limits<double>::infinity();
  CHECK_THROWS_AS(reg.record_fact("f", v, {.tool = "t"}), gp::InvalidFact);
  CHECK_FALSE(reg.contains("f"));
}

TEST_CASE("a fact holds one scalar") {
  gp::FactRegistry reg;
  CHECK(reg.record_fact("n", 42, {.tool = "t"}).value() == json(42));
  CHECK(reg.record_fact("s", "x", {.tool = "t"}).value() == json("x"));
  CHECK(reg.record_fact("b", true, {.tool = "t"}).value() == json(true));
  CHECK(reg.kind_of("b") == gp::FactKind::fact);
}

TEST_CASE("every refused record throws InvalidFact and changes nothing") {
  gp::FactRegistry reg;
  seed_ranking(reg);
  const auto names_before = reg.names();

  const auto refused = [&](auto&& record) {
    CHECK_THROWS_AS(record(), gp::InvalidFact);
    CHECK(reg.names() == names_before);
    CHECK(reg.size() == names_before.size());
  };
  refused([&] { reg.record_fact("", 1, {.tool = "t"}); });
  refused([&] { reg.record_fact("f", 1, {.tool = ""}); });
  refused([&] { reg.record_fact("f", json::array({1.0, std::nan("")}), {.tool = "t"}); });
  refused([&] { reg.record_fact("f", 1, {.tool = "t", .args = nlohmann::ordered_json::array({1})}); });
  refused([&] { reg.record_ranking("r", {}, {.key = "k", .tool = "t"}); });
  refused([&] { reg.record_ranking("r", {{"a", 1}, {"a", 2}}, {.key = "k", .tool = "t"}); });
  refused([&] { reg.record_ranking("r", {{"a", 1}}, {.key = "", .tool = "t"}); });
  refused([&] { reg.record_ranking("r", {{"", 1}}, {.key = "k", .tool = "t"}); });
  refused([&] { reg.record_table("t", json::object(), {.tool = "t"}); });
  refused([&] { reg.record_table("t", json::array({1, 2}), {.tool = "t"}); });
  refused([&] { reg.record_table("t", json::parse(R"([{"k":1},{"v":2}])"), {.key_column = "k", .tool = "t"}); });
  refused([&] { reg.record_table("t", json::parse(R"([{"k":1},{"k":1.0}])"), {.key_column = "k", .tool = "t"}); });
  refused([&] { reg.record_table("t", json::parse(R"([{"k":"a"},{"k":"b"}])"), {.total_rows = 1, .tool = "t"}); });
  refused([&] { reg.record_table("t", json::parse(R"([{"k":"a"}])"), {.key_column = "missing", .tool = "t"}); });
  refused([&] { reg.record_domain("d", {"a", "b", "a"}, {.tool = "t"}); });
  refused([&] { reg.record_fact("campaign_ctr", 1, {.tool = "t"}); });
}

TEST_CASE("a non-finite number is refused before it can become a fact") {
  gp::FactRegistry reg;
  CHECK_THROWS_AS(reg.record_fact("f", std::numeric_limits<double>::quiet_NaN(), {.tool = "t"}),
                  gp::ConfigurationError);
  CHECK_THROWS_AS(
      reg.record_table("t", json::array({json{{"x", std::numeric_limits<double>::infinity()}}}), {.tool = "t"}),
      gp::InvalidFact);
  // A Scores entry holds a NaN unconverted, so record_ranking refuses it naming the entity.
  CHECK_THROWS_AS(reg.record_ranking("r", {{"a", std::numeric_limits<double>::quiet_NaN()}}, {.key = "k", .tool = "t"}),
                  gp::InvalidFact);
  CHECK(reg.size() == 0);
}

TEST_CASE("recording a second fact under an existing name names the first one's provenance") {
  gp::FactRegistry reg;
  seed_ranking(reg);
  try {
    // Even with an identical value: write-once means once.
    seed_ranking(reg);
    FAIL("expected FactAlreadyRecorded");
  } catch (const gp::FactAlreadyRecorded& e) {
    const std::string what = e.what();
    CHECK(what.find("'campaign_ctr'") != std::string::npos);
    CHECK(what.find("warehouse.query(table='campaign_daily', window='7d')") != std::string::npos);
  }
  CHECK(reg.size() == 1);
}

TEST_CASE("refusal messages say what was wrong and escape hostile names") {
  gp::FactRegistry reg;
  try {
    reg.record_ranking("bad\nname", {{"a\x1b", 1}, {"a\x1b", 2}}, {.key = "k", .tool = "t"});
    FAIL("expected InvalidFact");
  } catch (const gp::InvalidFact& e) {
    const std::string what = e.what();
    CHECK(what == "cannot record fact 'bad\\nname': entity 'a\\x1b' appears more than once");
  }
}

TEST_CASE("asking for an unrecorded fact is UnregisteredFact listing every recorded name") {
  gp::FactRegistry reg;
  seed_ranking(reg);
  reg.record_fact("budget", 100, {.tool = "t"});
  try {
    (void)reg.get<gp::Ranking>("campaign_crt");
    FAIL("expected UnregisteredFact");
  } catch (const gp::UnregisteredFact& e) {
    CHECK(e.name() == "campaign_crt");
    CHECK(e.known() == std::vector<std::string>{"campaign_ctr", "budget"});
    CHECK(std::string(e.what()) == "no fact named 'campaign_crt' is recorded; recorded: 'campaign_ctr', 'budget'");
  }
  CHECK_THROWS_AS(reg.kind_of("nope"), gp::UnregisteredFact);
  CHECK(std::is_base_of_v<gp::ConfigurationError, gp::UnregisteredFact>);
}

TEST_CASE("an unregistered fact's message lists at most twenty names and counts the rest") {
  gp::FactRegistry reg;
  for (int i = 0; i < 23; ++i) reg.record_fact("f" + std::to_string(i), i, {.tool = "t"});
  try {
    (void)reg.get<gp::Fact>("g");
    FAIL("expected UnregisteredFact");
  } catch (const gp::UnregisteredFact& e) {
    const std::string what = e.what();
    CHECK(e.known().size() == 23);
    CHECK(what.find("'f19' and 3 more") != std::string::npos);
    CHECK(what.find("'f20'") == std::string::npos);
  }
}

TEST_CASE("an empty registry says so when a fact is asked for") {
  gp::FactRegistry reg;
  CHECK_THROWS_WITH(reg.get<gp::Fact>("x"), "no fact named 'x' is recorded (the registry is empty)");
}

TEST_CASE("asking for an absent fact or the wrong kind is a ConfigurationError") {
  gp::FactRegistry reg;
  seed_ranking(reg);
  CHECK_THROWS_AS(reg.kind_of("nope"), gp::ConfigurationError);
  CHECK_THROWS_AS(reg.get<gp::Table>("nope"), gp::ConfigurationError);
  CHECK_THROWS_WITH(reg.get<gp::Table>("campaign_ctr"),
                    "fact 'campaign_ctr' is a ranking, not a table; a table is recorded with record_table (this one "
                    "was recorded with record_ranking)");
  CHECK_FALSE(reg.contains("nope"));
}

TEST_CASE("names come back in record order") {
  gp::FactRegistry reg;
  reg.record_fact("z", 1, {.tool = "t"});
  reg.record_domain("a", {"x"}, {.tool = "t"});
  reg.record_fact("m", 2, {.tool = "t"});
  CHECK(reg.names() == std::vector<std::string>{"z", "a", "m"});
}

TEST_CASE("references stay valid while thousands more facts are recorded") {
  gp::FactRegistry reg;
  const auto& first = reg.record_fact("first", 1, {.tool = "t"});
  for (int i = 0; i < 5000; ++i) reg.record_fact("f" + std::to_string(i), i, {.tool = "t"});
  CHECK(first.name() == "first");
  CHECK(first.value() == json(1));
  CHECK(&reg.get<gp::Fact>("first") == &first);
}

TEST_CASE("threads recording and reading one registry at once lose nothing") {
  gp::FactRegistry reg;
  constexpr int threads = 8;
  constexpr int per_thread = 400;
  std::atomic<int> duplicates{0};
  std::atomic<int> reads{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) {
        const std::string own = "t" + std::to_string(t) + "_" + std::to_string(i);
        reg.record_ranking(own, {{"a", i}, {"b", t}}, {.key = "k", .tool = "t"});
        // Every thread also races for the same shared names: exactly one wins each.
        try {
          reg.record_fact("shared_" + std::to_string(i), t, {.tool = "t"});
        } catch (const gp::FactAlreadyRecorded&) {
          ++duplicates;
        }
        const auto& mine = reg.get<gp::Ranking>(own);
        if (mine.name() == own && reg.contains("shared_" + std::to_string(i))) ++reads;
        (void)reg.names().size();
      }
    });
  }
  for (auto& th : pool) th.join();
  CHECK(reg.size() == static_cast<std::size_t>(threads * per_thread + per_thread));
  CHECK(duplicates.load() == (threads - 1) * per_thread);
  CHECK(reads.load() == threads * per_thread);
  const auto names = reg.names();
  CHECK(std::set<std::string>(names.begin(), names.end()).size() == names.size());
}

TEST_CASE("a table recorded from ordered_json keeps the tool's column order") {
  gp::FactRegistry reg;
  const auto rows = nlohmann::ordered_json::parse(R"([{"zeta":1,"alpha":"x"},{"alpha":"y","mid":true,"zeta":2}])");
  const auto& t = reg.record_table("t", rows, {.key_column = "alpha", .tool = "t"});
  CHECK(t.columns() == std::vector<std::string>{"zeta", "alpha", "mid"});
  CHECK(t.value(1, "zeta") == json(2));
  CHECK(t.row_of(json("y")) == std::optional<std::size_t>(1));
  // Braced rows still pick the nlohmann::json overload.
  const auto& u = reg.record_table("u", {{{"b", 1}, {"a", 2}}}, {.tool = "t"});
  CHECK(u.columns() == std::vector<std::string>{"a", "b"});
}

TEST_CASE("a table's listed columns come first in the listed order, then the rest in first-seen order") {
  gp::FactRegistry reg;
  // nlohmann::json sorts each row's keys, so without the list the columns would read
  // alpha, mid, zeta: the list is how a caller keeps the tool's order.
  const json rows = json::parse(R"([{"zeta":1,"alpha":"x"},{"alpha":"y","mid":true,"zeta":2}])");
  const auto& t = reg.record_table("t", rows, {.key_column = "alpha", .tool = "t", .columns = {"zeta", "alpha"}});
  CHECK(t.columns() == std::vector<std::string>{"zeta", "alpha", "mid"});
  CHECK(t.value(0, "zeta") == json(1));
  CHECK(t.value(1, "mid") == json(true));
  CHECK(t.value(0, "mid").is_null());
  CHECK(t.row_of(json("y")) == std::optional<std::size_t>(1));
  CHECK(t.column_of("zeta") == std::optional<std::size_t>(0));
  CHECK(t.column_of("mid") == std::optional<std::size_t>(2));
}

TEST_CASE("a listed column that no row holds is a column of nulls, so an empty result still has its columns") {
  gp::FactRegistry reg;
  const auto& empty = reg.record_table("none", json::array(), {.tool = "t", .columns = {"campaign", "ctr"}});
  CHECK(empty.row_count() == 0);
  CHECK(empty.columns() == std::vector<std::string>{"campaign", "ctr"});
  const auto& t =
      reg.record_table("some", json::parse(R"([{"ctr":1}])"), {.tool = "t", .columns = {"campaign", "ctr"}});
  CHECK(t.columns() == std::vector<std::string>{"campaign", "ctr"});
  CHECK(t.value(0, "campaign").is_null());
  CHECK(t.value(0, "ctr") == json(1));
}

TEST_CASE("a column listed twice is refused, naming it, and nothing is recorded") {
  gp::FactRegistry reg;
  try {
    reg.record_table("t", json::parse(R"([{"a":1,"b":2}])"), {.tool = "t", .columns = {"b", "a", "b"}});
    FAIL("a column listed twice was accepted");
  } catch (const gp::InvalidFact& e) {
    CHECK(std::string(e.what()) == "cannot record fact 't': column 'b' is listed twice in columns");
  }
  CHECK_FALSE(reg.contains("t"));
}

TEST_CASE("a listed key column that no row holds is refused as having no value in any row, not as a null in row 0") {
  gp::FactRegistry reg;
  try {
    reg.record_table("t", json::parse(R"([{"a":1},{"a":2}])"),
                     {.key_column = "id", .tool = "t", .columns = {"id", "a"}});
    FAIL("a key column no row holds was accepted");
  } catch (const gp::InvalidFact& e) {
    CHECK(std::string(e.what()) ==
          "cannot record fact 't': key column 'id' has no value in any row (each is missing or null)");
  }
  // With no rows at all there is nothing to be missing from: the key column is listed.
  const auto& empty = reg.record_table("none", json::array(), {.key_column = "id", .tool = "t", .columns = {"id"}});
  CHECK(empty.row_of(json("x")) == std::nullopt);
}

TEST_CASE("a ranking read from a table with a row keyed by the empty string names that row, not an empty entity") {
  gp::FactRegistry reg;
  const gp::Table& t = reg.record_table(
      "t", nlohmann::json::parse(R"([{"id": "a", "v": 2}, {"id": "", "v": 3}, {"id": "b", "v": null}])"),
      {.key_column = "id", .tool = "db"});
  const auto rank = [&] { (void)t.to_ranking("v", gp::Direction::higher_is_better, gp::OnMissing::skip); };
  CHECK_THROWS_AS(rank(), gp::ConfigurationError);
  CHECK_THROWS_WITH(rank(),
                    "fact 't': row 1 has the empty string as its key in key column 'id' and a value in 'v'; a "
                    "ranking names every entity it ranks, so this table's rows cannot be ranked");
  // The row is the table's to keep: it is only a ranking of it that cannot name the row.
  CHECK(t.row_count() == 3);
  reg.record_table("u", nlohmann::json::parse(R"([{"id": "a", "v": 2}, {"id": "", "v": null}])"),
                   {.key_column = "id", .tool = "db"});
  CHECK(reg.get<gp::Table>("u").to_ranking("v", gp::Direction::higher_is_better, gp::OnMissing::skip).order() ==
        std::vector<gp::Entity>{"a"});
}

TEST_CASE("a value nested past 256 levels is refused before it is copied, as a fact, a table cell or an argument") {
  gp::FactRegistry reg;
  const auto deep = [](std::size_t depth) {
    json v = json::array();
    json* at = &v;
    for (std::size_t i = 1; i < depth; ++i) at = &at->emplace_back(json::array());
    return v;
  };
  CHECK_NOTHROW(reg.record_fact("edge", deep(256), {.tool = "t"}));
  CHECK_THROWS_WITH(reg.record_fact("fact", deep(257), {.tool = "t"}),
                    "cannot record fact 'fact': its value is nested deeper than 256 arrays/objects");
  CHECK_THROWS_WITH(reg.record_table("table", json::array({{{"k", "a"}, {"v", deep(257)}}}), {.tool = "t"}),
                    "cannot record fact 'table': a cell is nested deeper than 256 arrays/objects");
  CHECK_THROWS_WITH(reg.record_fact("args", 1, {.tool = "t", .args = json{{"q", deep(257)}}}),
                    Catch::Contains("a provenance argument is nested deeper than 256 arrays/objects"));
  CHECK_THROWS_AS(reg.record_fact("listed", 1, {.tool = "t", .args = {{"q", deep(300)}}}), gp::InvalidFact);
  CHECK(reg.names() == std::vector<std::string>{"edge"});
}
