// Restoring a Session from any LedgerStore: rows read in order across batches, rows this
// release did not write refused by name, a store failing mid-read. The stores here are
// in memory; the SQLite and PostgreSQL restores are in test_session_store.cpp and
// test_store_suite.cpp.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include "catch2_compat.hpp"

#include "groundplane/detail/ledger/row_feed.hpp"
#include "groundplane/session.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {

// A store holding rows as given, in memory: what a restore makes of any rows, with no
// file in the way. It can fail after a number of rows, as a disk or a network would.
class FixedRows final : public gp::LedgerStore {
 public:
  explicit FixedRows(std::vector<std::pair<std::string, std::string>> rows, std::uint64_t fail_after = 0)
      : fail_after_(fail_after) {
    std::uint64_t version = 0;  // as a session writes them: a recorded fire takes it, then it bumps
    for (auto& [kind, body] : rows) {
      const bool fire = kind == "t";
      rows_.push_back(gp::StoredRow{rows_.size() + 1, version, std::move(kind), std::move(body), {}});
      if (fire) ++version;
    }
  }
  // Rows exactly as given, versions included.
  explicit FixedRows(std::vector<gp::StoredRow> rows) : rows_(std::move(rows)), fail_after_(0) {}
  const std::string& session() const noexcept override { return name_; }
  gp::LedgerHead append(std::span<const gp::LedgerRow>) override { throw gp::LedgerStoreError("read only"); }
  void read(std::uint64_t from, const std::function<bool(const gp::StoredRow&)>& visit) const override {
    for (const auto& r : rows_) {
      if (r.seq < from) continue;
      if (fail_after_ != 0 && r.seq > fail_after_)
        throw gp::LedgerStoreError("the disk went away at row " + std::to_string(r.seq));
      ++visited;
      if (!visit(r)) return;
    }
  }
  // These rows carry no hashes: a test of the restore itself, not of the chain, so this
  // store vouches for them (the stores that hash verify in read_verified).
  void read_verified(const std::function<bool(const gp::StoredRow&)>& visit) const override { read(1, visit); }
  gp::LedgerHead head() const override { return {rows_.size(), ""}; }
  bool writable() const noexcept override { return false; }
  gp::LedgerVerification verify() const noexcept override {
    gp::LedgerVerification v;
    v.ok = true;
    v.rows = rows_.size();
    return v;
  }

  mutable std::atomic<std::uint64_t> visited{0};

 private:
  std::string name_ = "default";
  std::vector<gp::StoredRow> rows_;
  std::uint64_t fail_after_;
};

// An ordinary session's rows: a fire awaiting its report, settled, then a refusal, n times.
std::vector<std::pair<std::string, std::string>> shop_rows(std::size_t n) {
  std::vector<std::pair<std::string, std::string>> rows{{"init", R"({"n":"shop","st":{"cart":0}})"}};
  for (std::size_t i = 0; i < n; ++i) {
    rows.emplace_back("t", std::string(R"({"a":"cart.add",)") + (i == 0 ? R"("d":"Add the item.",)" : "") +
                               R"("pl":{"sku":"A-)" + std::to_string(i) + R"("},"w":1})");
    rows.emplace_back("u", R"({"o":0,"rc":1,"t":)" + std::to_string(i) + "}");
    rows.emplace_back("s", R"({"dl":{"cart":)" + std::to_string(i + 1) + "}}");
    rows.emplace_back("u", R"({"o":1,"t":)" + std::to_string(i) + "}");
    rows.emplace_back("g", R"({"a":"made.up","d":null,"r":0})");
  }
  return rows;
}

}  // namespace

TEST_CASE("A stored row this release did not write stops the restore, naming the row and what is wrong with it",
          "[restore]") {
  const std::string init = R"({"n":"shop","st":{}})";
  struct Case {
    std::string kind, body, says;
  };
  const std::vector<Case> cases{
      {"t", R"([1,2])", "row 2 (t) is not a JSON object"},
      {"t", R"({"a":"cart.add")", "row 2 (t) is not a JSON object"},
      {"t", R"({"a":"cart.add"} {})", "row 2 (t) is not a JSON object"},
      {"t", "", "row 2 (t) is not a JSON object"},
      // Plausible but wrong: a number where the action's name belongs read as its digits.
      {"t", R"({"a":5})", "row 2 (t) is malformed"},
      {"t", R"({"a":"cart.add","d":7})", "row 2 (t) is malformed"},
      {"t", R"({"a":"cart.add","o":"pending"})", "row 2 (t) is malformed"},
      {"g", R"({"a":"made.up","d":null})", "row 2 (g) is malformed"},
      {"g", R"({"a":"made.up","r":[0]})", "row 2 (g) is malformed"},
      {"u", R"({"t":0,"o":1})", "row 2 (u) names a fire that is not in the ledger"},
      {"u", R"({"t":-1,"o":1})", "row 2 (u) is malformed"},
      {"u", R"({"t":"0","o":1})", "row 2 (u) is malformed"},
      {"s", R"({})", "row 2 (s) is malformed"},
      {"ms", R"({"on":1})", "row 2 (ms) is malformed"},
      {"qd", R"({"q":0,"s":1})", "row 2 (qd) names an ask that is not in the ledger"},
      {"zz", R"({})", "row 2 (zz) is of a kind this release does not know"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.kind, c.body);
    const auto store =
        std::make_shared<FixedRows>(std::vector<std::pair<std::string, std::string>>{{"init", init}, {c.kind, c.body}});
    try {
      gp::Session s({.store = store});
      FAIL("restored a session from a malformed row");
    } catch (const gp::LedgerStoreError& e) {
      CHECK_THAT(e.what(), Catch::Contains(c.says));
      CHECK_THAT(e.what(), Catch::Contains("cannot restore session \"default\""));
    }
  }
}

TEST_CASE("A stored fire whose version is not its place in the ledger stops the restore", "[restore]") {
  // Fire t-k is minted at version k-1, and only a recorded fire moves the version, so a
  // fire stored at any other version was not written by a session. Read as it says, the
  // block would count "attempts since version 1" from the wrong place.
  for (const std::uint64_t version : {std::uint64_t{0}, std::uint64_t{7}}) {
    CAPTURE(version);
    const auto store = std::make_shared<FixedRows>(std::vector<gp::StoredRow>{
        {1, 0, "init", R"({"n":"shop","st":{}})", {}},
        {2, 0, "t", R"({"a":"cart.add","d":"Add the item.","o":5})", {}},
        {3, version, "t", R"({"a":"cart.add","o":5})", {}},
    });
    try {
      gp::Session s({.store = store});
      FAIL("restored a fire stored at the wrong version");
    } catch (const gp::LedgerStoreError& e) {
      CHECK_THAT(e.what(), Catch::Contains("row 3 (t) records a fire at version " + std::to_string(version) +
                                           " where the ledger is at 1"));
    }
  }
  const auto right = std::make_shared<FixedRows>(std::vector<gp::StoredRow>{
      {1, 0, "init", R"({"n":"shop","st":{}})", {}},
      {2, 0, "t", R"({"a":"cart.add","d":"Add the item.","o":5})", {}},
      {3, 1, "t", R"({"a":"cart.add","o":5})", {}},
  });
  const gp::Session s({.store = right});
  CHECK(s.version() == 2);
  CHECK(s.transitions().size() == 2);
}

TEST_CASE("A restore reads every row in order, however many batches they take", "[restore]") {
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{102}, std::size_t{103}, std::size_t{5000}}) {
    CAPTURE(n);
    const auto store = std::make_shared<FixedRows>(shop_rows(n));
    gp::Session s({.store = store});
    CHECK(store->visited == 1 + 5 * n);
    CHECK(s.state() == json{{"cart", n}});
    CHECK(s.version() == n);
    const auto v = s.view();
    REQUIRE(v.transitions().size() == n);
    REQUIRE(v.gap_rows().size() == n);
    for (std::size_t i = 0; i < n; ++i) {
      CHECK(v.transitions()[i].id == "t-" + std::to_string(i + 1));
      CHECK(v.transitions()[i].outcome == gp::Outcome::observed);
      CHECK(v.transitions()[i].cause.payload == json{{"sku", "A-" + std::to_string(i)}});
      CHECK(v.transitions()[i].cause.does == "Add the item.");  // frozen once, carried by every later row
    }
  }
}

TEST_CASE("A malformed row far before the end stops the restore there, and the rows after it are not all read",
          "[restore]") {
  auto rows = shop_rows(20'000);
  rows[7].second = R"({"o":"observed","t":1})";  // row 8: a grade spelled out
  const auto store = std::make_shared<FixedRows>(std::move(rows));
  CHECK_THROWS_WITH(gp::Session({.store = store}), Catch::Contains("row 8 (u) is malformed"));
  // The reader stops a few batches ahead of the replay, not at the end of 100,001 rows.
  CHECK(store->visited < 10'000);
}

TEST_CASE("A store that fails in the middle of a restore fails the restore with its own error", "[restore]") {
  for (const std::uint64_t at : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{1'000}, std::uint64_t{4'999}}) {
    CAPTURE(at);
    const auto store = std::make_shared<FixedRows>(shop_rows(1'000), at);
    try {
      gp::Session s({.store = store});
      FAIL("a session restored from a store that failed");
    } catch (const gp::LedgerStoreError& e) {
      CHECK(std::string(e.what()) == "the disk went away at row " + std::to_string(at + 1));
    }
  }
}

TEST_CASE("Rows read on a second thread are the rows read on this one, in the same order", "[restore]") {
  auto rows = shop_rows(700);
  rows[9].second = "not json";
  rows[10].second = R"({"a":"x","a":"cart.add","n":[1,{"b":null}]})";  // a key written twice reads as its last
  const FixedRows store(std::move(rows));
  const auto seen = [&](bool second_thread) {
    std::vector<std::string> out;
    gp::detail::read_rows(
        store, 3,
        [&](gp::detail::ParsedRow& p) {
          std::string line = std::to_string(p.seq) + " v" + std::to_string(p.version) + " " + p.kind + " ";
          if (!p.parsed) line += "unparsed";
          else if (p.body.has("a")) line += p.body.take_text("a") + " " + p.body.take("n").dump();
          else line += std::to_string(p.body.count("t"));
          out.push_back(std::move(line));
        },
        second_thread);
    return out;
  };
  const auto threaded = seen(true);
  REQUIRE(threaded.size() == 1 + 5 * 700 - 2);
  CHECK(threaded == seen(false));
  CHECK(threaded.front() == "3 v1 u 0");
  CHECK(threaded[7] == "10 v2 u unparsed");
  CHECK(threaded[8] == R"(11 v2 g cart.add [1,{"b":null}])");
}

TEST_CASE("A row the library never writes in the state the restore has rebuilt stops it, naming the row", "[restore]") {
  const std::string init = R"({"n":"shop","st":{}})";
  // An ask, approved, spent by a fire: the rows a session writes, which every case below
  // extends by one it never writes at that point.
  const std::vector<std::pair<std::string, std::string>> spent{
      {"init", init},
      {"q", R"({"a":"ship","d":"Ship it.","in":{"order":7}})"},
      {"qd", R"({"at":1,"by":"ops","q":0,"rd":{},"s":1})"},
      {"t", R"({"a":"ship","k":"ask-1","pl":{"order":7}})"},
      {"qd", R"({"q":0,"s":3,"sb":"t-1"})"},
      {"u", R"({"o":3,"rc":1,"t":0})"},
  };
  struct Case {
    std::string what;
    std::vector<std::pair<std::string, std::string>> rows;
    std::string says;
  };
  const auto then = [&](std::vector<std::pair<std::string, std::string>> more) {
    auto rows = spent;
    rows.insert(rows.end(), more.begin(), more.end());
    return rows;
  };
  const std::vector<Case> cases{
      {"a spent ask approved again", then({{"qd", R"({"at":2,"by":"ops","q":0,"rd":{},"s":1})"}}),
       "row 7 (qd) turns ask-1 from spent to approved"},
      {"a spent ask spent again", then({{"qd", R"({"q":0,"s":3,"sb":"t-1"})"}}), "row 7 (qd) turns ask-1 from spent"},
      {"a spent ask revoked", then({{"qd", R"({"q":0,"rb":"ops","s":4})"}}), "row 7 (qd) turns ask-1 from spent"},
      {"a declined ask approved",
       {{"init", init},
        {"q", R"({"a":"ship","d":"Ship it.","in":{}})"},
        {"qd", R"({"by":"ops","q":0,"s":2})"},
        {"qd", R"({"at":2,"by":"ops","q":0,"rd":{},"s":1})"}},
       "row 4 (qd) turns ask-1 from declined to approved"},
      {"a revoked ask approved",
       {{"init", init},
        {"q", R"({"a":"ship","d":"Ship it.","in":{}})"},
        {"qd", R"({"at":1,"by":"ops","q":0,"rd":{},"s":1})"},
        {"qd", R"({"q":0,"rb":"ops","s":4})"},
        {"qd", R"({"at":2,"by":"ops","q":0,"rd":{},"s":1})"}},
       "row 5 (qd) turns ask-1 from revoked to approved"},
      {"an ask spent without an approval",
       {{"init", init}, {"q", R"({"a":"ship","d":"Ship it.","in":{}})"}, {"qd", R"({"q":0,"s":3,"sb":"t-1"})"}},
       "row 3 (qd) turns ask-1 from awaiting to spent"},
      {"a decision on an ask the ledger does not hold", then({{"qd", R"({"at":2,"by":"ops","q":1,"rd":{},"s":1})"}}),
       "row 7 (qd) names an ask that is not in the ledger"},
      {"a second first row", then({{"init", init}}), "row 7 (init) starts a session that row 1 already started"},
      {"a session that starts with another row",
       {{"t", R"({"a":"ship"})"}},
       "row 1 (t) is not the row that starts a session"},
      {"a restart naming a fire past the ledger", then({{"rs", R"({"t":[18446744073709551615],"w":[]})"}}),
       "row 7 (rs) names a fire the session does not hold in flight (t-18446744073709551616)"},
      {"a restart naming a settled fire", then({{"rs", R"({"t":[0],"w":[]})"}}),
       "row 7 (rs) names a fire the session does not hold in flight (t-1)"},
      {"a restart naming work never opened", then({{"rs", R"({"t":[],"w":[3]})"}}),
       "row 7 (rs) names work that is not open (work-4)"},
      {"a work row for unknown work", then({{"wc", R"({"w":0})"}}), "row 7 (wc) closes work that is not open (work-1)"},
      {"work closed twice", then({{"wo", R"({"l":"printing"})"}, {"wc", R"({"w":0})"}, {"wc", R"({"w":0})"}}),
       "row 9 (wc) closes work that is not open (work-1)"},
      {"a report whose delta is a number", then({{"s", R"({"dl":5})"}}), "row 7 (s) is malformed"},
      {"a report whose delta is an array", then({{"s", R"({"dl":[{"cart":1}]})"}}), "row 7 (s) is malformed"},
      {"a grade of a fire already graded", then({{"u", R"({"o":1,"t":0})"}}),
       "row 7 (u) grades t-1, which was already graded"},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    const auto store = std::make_shared<FixedRows>(c.rows);
    try {
      gp::Session s({.store = store});
      FAIL_CHECK("restored a session from a row the library never writes there");
    } catch (const gp::LedgerStoreError& e) {
      INFO(e.what());
      CHECK_THAT(e.what(), Catch::Contains("cannot restore session \"default\""));
      CHECK_THAT(e.what(), Catch::Contains(c.says));
    }
  }
  // What the library does write there restores.
  const auto right = std::make_shared<FixedRows>(then({{"q", R"({"a":"ship","in":{"order":8}})"},
                                                       {"qd", R"({"at":3,"by":"ops","q":1,"rd":{},"s":1})"},
                                                       {"qd", R"({"by":"ops","q":1,"s":2})"},
                                                       {"wo", R"({"l":"printing"})"},
                                                       {"wc", R"({"w":0})"}}));
  const gp::Session s({.store = right});
  CHECK(s.asks().size() == 2);
  CHECK(s.asks()[1].state == gp::AskState::declined);
}

TEST_CASE("A stored row nested or sized past the format's limits stops the restore naming it, at any depth",
          "[restore]") {
  for (const std::size_t depth : {std::size_t{513}, std::size_t{100'000}, std::size_t{1'000'000}}) {
    INFO(depth << " deep");
    const std::string deep = R"({"dl":)" + std::string(depth - 1, '[') + std::string(depth - 1, ']') + "}";
    const auto store = std::make_shared<FixedRows>(
        std::vector<std::pair<std::string, std::string>>{{"init", R"({"n":"shop","st":{}})"}, {"s", deep}});
    CHECK_THROWS_WITH(gp::Session({.store = store}),
                      Catch::Contains("row 2 (s)") && Catch::Contains("nests arrays and objects more than 512 deep"));
  }
  const std::string at_limit = R"({"dl":{"a":)" + std::string(510, '[') + std::string(510, ']') + "}}";
  const auto fits = std::make_shared<FixedRows>(
      std::vector<std::pair<std::string, std::string>>{{"init", R"({"n":"shop","st":{}})"}, {"s", at_limit}});
  const gp::Session s({.store = fits});
  CHECK(s.state().contains("a"));
  const std::string huge = R"({"dl":{"a":")" + std::string(gp::ledger_max_body_bytes, 'x') + R"("}})";
  const auto big = std::make_shared<FixedRows>(
      std::vector<std::pair<std::string, std::string>>{{"init", R"({"n":"shop","st":{}})"}, {"s", huge}});
  CHECK_THROWS_WITH(gp::Session({.store = big}),
                    Catch::Contains("row 2 (s)") && Catch::Contains("more than the format allows"));
}

TEST_CASE("A store opened to read that holds no row of its session restores an empty session and writes nothing",
          "[restore]") {
  const auto store = std::make_shared<FixedRows>(std::vector<std::pair<std::string, std::string>>{});
  const gp::Session s({.node = "shop", .require_human_approval = true, .store = store});
  CHECK(s.version() == 0);
  CHECK_THAT(s.ground_truth().text, Catch::Contains("No actions have been performed"));
}
