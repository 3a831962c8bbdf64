// The ledger format (docs/ledger-format.md): the files earlier releases wrote
// (tests/data/ledgers/) restore and verify as they did then; the canonical JSON a body is
// written as; every stored enum number as the page lists it; and a verifier written from
// the page alone (tools/verify_ledger.py, Python's standard library) agreeing with
// verify_sqlite_ledger on every fixture, intact and tampered every way.
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include "catch2_compat.hpp"

#include "groundplane/detail/ledger/ledger_codec.hpp"
#include "groundplane/session.hpp"
#include "groundplane/store/sqlite.hpp"
#include "store_fixtures.hpp"

namespace gp = groundplane;
using gp_test::raw_sql;
using gp_test::TempLedger;
using nlohmann::json;

namespace {

namespace fs = std::filesystem;

const fs::path fixtures = GROUNDPLANE_LEDGER_FIXTURES;

// Every fixture file, with what the release that wrote it restored from it.
struct Fixture {
  fs::path file;
  json expected;
};
std::vector<Fixture> all_fixtures() {
  std::vector<Fixture> out;
  for (const auto& entry : fs::directory_iterator(fixtures)) {
    if (entry.path().extension() != ".ledger") continue;
    std::ifstream in(entry.path().string() + ".expected.json");
    out.push_back({entry.path(), json::parse(in)});
  }
  std::sort(out.begin(), out.end(), [](const Fixture& a, const Fixture& b) { return a.file < b.file; });
  return out;
}

// The key a fixture's session is keyed with ("" for an unkeyed session): FILE.key.
std::string key_of(const Fixture& f, const json& want) {
  if (!want.value("keyed", false)) return "";
  std::ifstream in(f.file.string() + ".key", std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A fixture is never written to: each test works on a copy.
void copy_to(const fs::path& from, const TempLedger& to) { fs::copy_file(from, to.path()); }

int schema_version(const fs::path& file) {
  const auto store = gp::open_sqlite_store(file, {.read_only = true});
  (void)store;
  int v = 0;
  sqlite3* db = nullptr;
  sqlite3_open_v2(file.string().c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "SELECT max(version) FROM groundplane_schema", -1, &st, nullptr);
  if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return v;
}

gp::HandlerResult ok_handler(const json&) { return {}; }

}  // namespace

TEST_CASE("Every ledger an earlier release wrote restores as that release restored it, and verifies", "[format]") {
  const auto all = all_fixtures();
  REQUIRE_FALSE(all.empty());
  for (const Fixture& f : all) {
    for (const auto& [session, want] : f.expected.items()) {
      INFO(f.file.filename().string() << ", session " << session);
      TempLedger copy{"fixture"};
      copy_to(f.file, copy);
      const std::string key = key_of(f, want);
      const auto v = gp::verify_sqlite_ledger(copy.path(), session, "", key);
      CHECK(v.ok == want.at("verified").get<bool>());
      CHECK(v.rows == want.at("rows").get<std::uint64_t>());
      CHECK(v.head == want.at("head").get<std::string>());
      CHECK(v.keyed == !key.empty());
      const gp::Session s(
          {.store = gp::open_sqlite_store(copy.path(), {.session = session, .read_only = true, .key = key})});
      const auto g = s.ground_truth();
      CHECK(g.text == want.at("block").get<std::string>());
      CHECK(g.version == want.at("version").get<std::uint64_t>());
      CHECK(g.head == want.at("head").get<std::string>());
      CHECK(s.node() == want.at("node").get<std::string>());
      CHECK(s.focus() == want.at("focus").get<std::string>());
      CHECK(s.state() == want.at("state"));
      // Byte for byte, so an integer read back as a float (equal as JSON) shows too.
      CHECK(s.state().dump() == want.at("state").dump());
      CHECK(s.transitions().size() == want.at("transitions").get<std::size_t>());
      CHECK(s.gap_rows().size() == want.at("gap_rows").get<std::size_t>());
      const auto asks = s.asks();
      REQUIRE(asks.size() == want.at("asks").size());
      for (std::size_t i = 0; i < asks.size(); ++i) {
        CHECK(asks[i].id == want.at("asks")[i].at("id").get<std::string>());
        // the number the file stores for the state, which the format fixes
        CHECK(gp::detail::stored_of(asks[i].state) == want.at("asks")[i].at("state").get<std::int64_t>());
      }
      // From 0.4: each fire's idempotency key, and the fires still in doubt.
      if (want.contains("idempotency_keys")) {
        json keys = json::array();
        for (const auto& t : s.transitions()) keys.push_back(t.idempotency_key);
        CHECK(keys == want.at("idempotency_keys"));
      } else {
        for (const auto& t : s.transitions()) CHECK(t.idempotency_key.empty());  // none before 0.4
      }
      if (want.contains("in_doubt")) {
        json in_doubt = json::array();
        for (const auto& d : s.in_doubt_fires()) in_doubt.push_back(d.transition_id);
        CHECK(in_doubt == want.at("in_doubt"));
      }
    }
  }
}

TEST_CASE("A ledger an earlier release wrote is marked with this format once opened to write, its rows untouched",
          "[format]") {
  for (const Fixture& f : all_fixtures()) {
    INFO(f.file.filename().string());
    TempLedger copy{"fixture"};
    copy_to(f.file, copy);
    const int was = schema_version(copy.path());
    REQUIRE(was <= gp::ledger_format_version);
    for (const auto& [session, want] : f.expected.items()) {
      INFO("session " << session);
      const std::string head = want.at("head").get<std::string>();
      const std::string key = key_of(f, want);
      const int before = schema_version(copy.path());  // an earlier session's write may have marked it
      const gp::Session r(
          {.store = gp::open_sqlite_store(copy.path(), {.session = session, .read_only = true, .key = key})});
      CHECK(schema_version(copy.path()) == before);  // reading changes nothing
      {
        // Whatever policy the session was stored with, this open changes it on purpose.
        gp::Session s(
            {.store = gp::open_sqlite_store(copy.path(), {.session = session, .expected_head = head, .key = key}),
             .policy_change = "opened by the format's tests"});
        s.declare("page.view", {.does = "Show the page.", .handler = ok_handler});
        CHECK(s.ground_truth().text.find(want.at("block").get<std::string>().substr(0, 40)) == 0);
        CHECK(s.fire("page.view").ok);
      }
      // Every head published under the earlier release still verifies.
      const auto v = gp::verify_sqlite_ledger(copy.path(), session, head, key);
      CHECK(v.ok);
      CHECK(v.rows > want.at("rows").get<std::uint64_t>());
    }
    CHECK(schema_version(copy.path()) == gp::ledger_format_version);
  }
}

TEST_CASE(
    "A session an earlier release wrote records the policy it is first opened with, in one row, and is held "
    "to it from then on",
    "[format]") {
  for (const Fixture& f : all_fixtures()) {
    if (f.file.filename().string().find("keyed") != std::string::npos) continue;
    for (const auto& item : f.expected.items()) {
      const std::string& session = item.key();
      INFO(f.file.filename().string() << ", session " << session);
      TempLedger copy{"fixture"};
      copy_to(f.file, copy);
      const auto rows = [&] {
        std::vector<gp::StoredRow> out;
        gp::open_sqlite_store(copy.path(), {.session = session, .read_only = true})
            ->read(1, [&](const gp::StoredRow& r) {
              out.push_back(r);
              return true;
            });
        return out;
      };
      const std::size_t before = rows().size();
      REQUIRE(rows().front().body.find(R"("po":)") == std::string::npos);  // no policy stored before 0.4
      {                                                                    // read, it checks nothing and writes nothing
        const gp::Session r({.store = gp::open_sqlite_store(copy.path(), {.session = session, .read_only = true})});
      }
      CHECK(rows().size() == before);
      {
        const gp::Session s({.require_human_approval = true,
                             .approval_ttl = std::chrono::seconds(30),
                             .store = gp::open_sqlite_store(copy.path(), {.session = session})});
      }
      const auto after = rows();
      const std::size_t added = after.size() - before;  // the policy row, after a restart's
      CHECK((added == 1 || (added == 2 && after[before].kind == "rs")));
      const auto policy = std::find_if(after.begin() + static_cast<std::ptrdiff_t>(before), after.end(),
                                       [](const gp::StoredRow& r) { return r.kind == "pol"; });
      REQUIRE(policy != after.end());
      CHECK(json::parse(policy->body) == json{{"po", {{"auf", false}, {"rha", true}, {"ttl", 30000}}}});
      CHECK_THROWS_WITH(gp::Session({.store = gp::open_sqlite_store(copy.path(), {.session = session})}),
                        Catch::Contains("require_human_approval: stored true, given false") &&
                            Catch::Contains("approval_ttl: stored 30000 ms, given 0 ms"));
      CHECK(gp::verify_sqlite_ledger(copy.path(), session).ok);
    }
  }
}

TEST_CASE("Every stored enum number is the one docs/ledger-format.md lists, and each table maps both ways",
          "[format]") {
  using gp::detail::from_name;
  using gp::detail::from_stored;
  using gp::detail::stored_of;
  CHECK(stored_of(gp::Principal::agent) == 0);
  CHECK(stored_of(gp::Principal::user) == 1);
  CHECK(stored_of(gp::Principal::system) == 2);
  const std::pair<gp::Outcome, int> outcomes[] = {
      {gp::Outcome::pending, 0},       {gp::Outcome::observed, 1},       {gp::Outcome::not_observed, 2},
      {gp::Outcome::unobservable, 3},  {gp::Outcome::handler_failed, 4}, {gp::Outcome::not_materialized, 5},
      {gp::Outcome::verify_failed, 6}, {gp::Outcome::inferred, 7},       {gp::Outcome::rejected, 8}};
  for (const auto& [o, n] : outcomes) CHECK(stored_of(o) == n);
  CHECK(stored_of(gp::Outcome::stopped) == -1);  // never stored
  for (const auto o : {gp::Outcome::confirmed, gp::Outcome::confirmed_not_run, gp::Outcome::confirmed_not_observed,
                       gp::Outcome::confirmed_by_person, gp::Outcome::confirmed_not_run_by_person,
                       gp::Outcome::confirmed_not_observed_by_person})
    CHECK(stored_of(o) == -1);  // a resolution row says them
  CHECK_FALSE(from_stored<gp::Outcome>(9).has_value());
  CHECK_FALSE(from_stored<gp::Outcome>(-1).has_value());
  const char* refusals[] = {"UNKNOWN_AFFORDANCE", "NOT_MATERIALIZED",     "TOOL_DISABLED",     "GUARD_FAILED",
                            "PRIOR_FIRE_PENDING", "DUPLICATE_EXECUTION",  "APPROVAL_REQUIRED", "APPROVAL_DECLINED",
                            "APPROVAL_SPENT",     "APPROVAL_REVOKED",     "APPROVAL_MISMATCH", "APPROVAL_STALE",
                            "PAYLOAD_INVALID",    "UNSUPPORTED_ARGUMENT", "INSTANCE_REQUIRED", "INSTANCE_UNKNOWN",
                            "REQUEST_KEY_REUSED"};
  for (int n = 0; n < 17; ++n) {
    INFO(refusals[n]);
    const auto r = from_name<gp::Refusal>(refusals[n]);
    REQUIRE(r.has_value());
    CHECK(stored_of(*r) == n);
    CHECK(from_stored<gp::Refusal>(n) == r);
    CHECK(gp::to_string(*r) == refusals[n]);
  }
  CHECK_FALSE(from_stored<gp::Refusal>(17).has_value());
  const std::pair<gp::AskState, int> states[] = {{gp::AskState::awaiting, 0},
                                                 {gp::AskState::approved, 1},
                                                 {gp::AskState::declined, 2},
                                                 {gp::AskState::spent, 3},
                                                 {gp::AskState::revoked, 4}};
  for (const auto& [s, n] : states) CHECK(stored_of(s) == n);
  CHECK(stored_of(gp::Concurrency::parallel) == 0);
  CHECK(stored_of(gp::Concurrency::single_flight) == 1);
  CHECK(stored_of(gp::Concurrency::once) == 2);
  CHECK_FALSE(from_stored<gp::Concurrency>(3).has_value());
  // Names: what the block renders and what the codec and an export share.
  CHECK(gp::to_string(gp::Principal::system) == "system");
  CHECK(gp::to_string(gp::Outcome::not_observed) == "not_observed");
  CHECK(gp::to_string(gp::AskState::revoked) == "revoked");
  CHECK(gp::to_string(gp::Concurrency::single_flight) == "single_flight");
}

TEST_CASE("A stored enum number this release does not list is refused on restore, never cast", "[format]") {
  TempLedger f;
  {
    const auto store = gp::open_sqlite_store(f.path());
    const gp::LedgerRow rows[] = {{0, "init", json{{"n", ""}, {"st", json::object()}}},
                                  {0, "t", json{{"a", "x"}, {"o", 42}}}};
    store->append(rows);
  }
  REQUIRE(gp::verify_sqlite_ledger(f.path()).ok);
  CHECK_THROWS_WITH(gp::Session({.store = gp::open_sqlite_store(f.path(), {.read_only = true})}),
                    Catch::Contains("row 2 (t) is malformed: member \"o\" holds 42, which is no value this release "
                                    "stores there"));
}

TEST_CASE("Each row kind is defined once, with a code, a name and named members, and the page lists every one",
          "[format]") {
  std::ifstream page(fs::path(GROUNDPLANE_SOURCE_DIR) / "docs" / "ledger-format.md");
  std::stringstream text;
  text << page.rdbuf();
  const std::string doc = text.str();
  std::vector<std::string> codes;
  for (const auto& k : gp::detail::rows::kinds) {
    INFO(k.kind);
    CHECK(std::find(codes.begin(), codes.end(), std::string(k.kind)) == codes.end());
    codes.emplace_back(k.kind);
    CHECK(gp::detail::rows::find_kind(k.kind) == &k);
    CHECK(doc.find("| `" + std::string(k.kind) + "` | " + std::string(k.name) + " |") != std::string::npos);
    for (const auto& m : k.members) {
      INFO(m.key);
      CHECK(doc.find("`" + std::string(m.key) + "`: " + std::string(m.name)) != std::string::npos);
    }
  }
  CHECK(codes.size() == 16);  // 0.4 added the policy and resolution rows
  CHECK(gp::detail::rows::find_kind("zz") == nullptr);
}

TEST_CASE("A body is written by the project's own canonical JSON, as the format page specifies", "[format]") {
  const auto body = [](const json& v) { return gp::canonical_body(v); };
  CHECK(body(json::parse(R"({ "b": [1, 2], "a": {"y": null, "x": "é"} })")) == R"({"a":{"x":"é","y":null},"b":[1,2]})");
  CHECK(body(json{{"s", "tab\there \"q\" \\ \x01 /"}}) == "{\"s\":\"tab\\there \\\"q\\\" \\\\ \\u0001 /\"}");
  CHECK(body(json{{"f", 1.0}, {"g", 0.1}, {"h", 12.5}, {"i", 1e21}, {"j", 5e-7}, {"k", 100.0}, {"l", -0.0}}) ==
        R"({"f":1.0,"g":0.1,"h":12.5,"i":1e+21,"j":5e-07,"k":100.0,"l":-0.0})");
  CHECK(body(json{{"n", std::numeric_limits<double>::infinity()}}) == R"({"n":null})");
  CHECK(body(json{{"u", 18446744073709551615u}, {"v", INT64_MIN}}) ==
        R"({"u":18446744073709551615,"v":-9223372036854775808})");
  // Not UTF-8: stored-text form, then sorted by the bytes as written.
  CHECK(body(json{{"k\xff", 1}, {"k~", 2}}) ==
        "{\"k~\":2,\"k\xF4\x8F\xBF\xBF"
        "ff\":1}");
  // Every value round-trips through a parse.
  const json v = {{"a", {1, 2.5, "x", nullptr, true}}, {"b", {{"c", -7}}}, {"d", 3.0}};
  CHECK(json::parse(body(v)) == v);
  CHECK(json::parse(body(v)).at("d").is_number_float());
}

namespace {

// The worked example of docs/ledger-format.md: its text block as key -> value, a line
// indented under a key continuing that key's value.
std::map<std::string, std::string> worked_example() {
  std::ifstream page(fs::path(GROUNDPLANE_SOURCE_DIR) / "docs" / "ledger-format.md");
  std::stringstream text;
  text << page.rdbuf();
  const std::string doc = text.str();
  const auto section = doc.find("## A worked example");
  REQUIRE(section != std::string::npos);
  const auto open = doc.find("```text\n", section);
  REQUIRE(open != std::string::npos);
  const auto start = open + 8;
  const auto close = doc.find("```", start);
  REQUIRE(close != std::string::npos);
  std::map<std::string, std::string> out;
  std::string key;
  std::istringstream lines(doc.substr(start, close - start));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    const auto value_at = line.find_first_not_of(' ', line[0] == ' ' ? 0 : line.find("  "));
    REQUIRE(value_at != std::string::npos);
    if (line[0] != ' ') {
      key = line.substr(0, line.find("  "));
      out[key] = line.substr(value_at);
    } else {
      REQUIRE_FALSE(key.empty());
      out[key] += " " + line.substr(value_at);
    }
  }
  return out;
}

std::string without_spaces(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  return s;
}

}  // namespace

TEST_CASE("The worked example's bytes on the format page are exactly what this release writes and hashes", "[format]") {
  const auto ex = worked_example();
  for (const char* key :
       {"session", "hash(0)", "value", "body", "seq", "version", "kind", "canonical_bytes", "hash(1)"})
    REQUIRE(ex.count(key) == 1);
  const std::string session = ex.at("session");
  gp::detail::Sha256 sha;
  const gp::RowHash genesis = sha(gp::chain_genesis_bytes(session));
  CHECK(gp::to_hex(genesis) == ex.at("hash(0)"));
  // The body from the value: the members sorted, no whitespace, the tab escaped, UTF-8 kept.
  const std::string body = gp::canonical_body(json::parse(ex.at("value")));
  CHECK(body == ex.at("body"));
  const std::uint64_t seq = std::stoull(ex.at("seq"));
  const std::uint64_t version = std::stoull(ex.at("version"));
  const std::string bytes = gp::canonical_bytes(seq, version, ex.at("kind"), body);
  const std::vector<unsigned char> raw(bytes.begin(), bytes.end());
  CHECK(gp::to_hex(raw) == without_spaces(ex.at("canonical_bytes")));
  CHECK(gp::to_hex(gp::detail::chain_next(sha, genesis, bytes)) == ex.at("hash(1)"));
  // And a store writing that row as a session's first gives the same head.
  TempLedger f{"example"};
  {
    const auto store = gp::open_sqlite_store(f.path(), {.session = session});
    const gp::LedgerRow rows[] = {{version, ex.at("kind"), json::parse(ex.at("value"))}};
    store->append(rows);
  }
  const auto v = gp::verify_sqlite_ledger(f.path(), session);
  CHECK(v.ok);
  CHECK(v.head == ex.at("hash(1)"));
}

// ---- a verifier written from the page agrees with verify_sqlite_ledger ----------------

#if defined(GROUNDPLANE_PYTHON)
namespace {

// What a shell command prints on stdout, and its status as pclose returns it.
std::pair<std::string, int> command_output(const std::string& cmd) {
  std::FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  char buf[65536];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  return {std::move(out), ::pclose(p)};
}

// verify_sqlite_ledger's verdicts, each compared with tools/verify_ledger.py's on the same
// file when run() is called: every field but the problem's words must agree. One Python
// process reads them all (tests/tools/verify_ledger_many.py): a process per file made
// these the suite's slowest tests. The files must stay until then; copy_of()'s copies do.
class Agreement {
 public:
  // A fresh copy of `original` to tamper with, removed when the agreement goes.
  fs::path copy_of(const fs::path& original) {
    const TempLedger& copy = *copies_.emplace_back(std::make_unique<TempLedger>("agree"));
    fs::copy_file(original, copy.path());
    return copy.path();
  }

  // verify_sqlite_ledger's verdict on the file as it is now, for the caller's own checks;
  // `what` names the case in a disagreement reported by run().
  gp::LedgerVerification verify(const std::string& what, const fs::path& file, const std::string& session,
                                const std::string& head = "", const std::string& key = "") {
    auto c = gp::verify_sqlite_ledger(file, session, head, key);
    pending_.push_back({file, session, head, key, what, c});
    return c;
  }

  // Python's verdict on every file given, compared with verify_sqlite_ledger's.
  void run() {
    json requests = json::array();
    for (const auto& p : pending_)
      requests.push_back(
          {{"file", p.file.string()},
           {"session", p.session},
           {"head", p.head},
           {"key_hex", gp::to_hex(std::span(reinterpret_cast<const unsigned char*>(p.key.data()), p.key.size()))}});
    TempLedger list{"agree-requests"};
    std::ofstream(list.path()) << requests.dump();
    const std::string cmd = std::string("'") + GROUNDPLANE_PYTHON + "' '" + GROUNDPLANE_SOURCE_DIR +
                            "/tests/tools/verify_ledger_many.py' '" + GROUNDPLANE_SOURCE_DIR + "/tools' '" +
                            list.str() + "'";
    const auto [text, status] = command_output(cmd);
    CHECK(status == 0);
    std::istringstream lines(text);
    std::size_t i = 0;
    for (std::string line; std::getline(lines, line); ++i) {
      REQUIRE(i < pending_.size());
      const Pending& p = pending_[i];
      const auto& c = p.verdict;
      INFO(p.what << ", session " << p.session << (p.head.empty() ? "" : ", with a head")
                  << (p.key.empty() ? "" : ", with a key"));
      INFO("verify_sqlite_ledger: ok " << c.ok << ", rows " << c.rows << ", first bad row " << c.first_bad_row << ": "
                                       << c.problem);
      INFO("python said: " << line);
      const json py = json::parse(line);
      CHECK(py.at("ok").get<bool>() == c.ok);
      CHECK(py.at("rows").get<std::uint64_t>() == c.rows);
      CHECK(py.at("head").get<std::string>() == c.head);
      CHECK(py.at("first_bad_row").get<std::uint64_t>() == c.first_bad_row);
      CHECK(py.at("keyed").get<bool>() == c.keyed);
      CHECK(py.at("key_id").get<std::string>() == c.key_id);
    }
    CHECK(i == pending_.size());  // a verdict for every file
    pending_.clear();
  }

 private:
  struct Pending {
    fs::path file;
    std::string session, head, key, what;
    gp::LedgerVerification verdict;
  };
  std::vector<Pending> pending_;
  std::vector<std::unique_ptr<TempLedger>> copies_;
};

std::string hex_hash_of(const fs::path& file, const std::string& session, std::uint64_t seq) {
  std::string out;
  gp::open_sqlite_store(file, {.session = session, .read_only = true})->read(seq, [&](const gp::StoredRow& r) {
    out = gp::to_hex(r.hash);
    return false;
  });
  return out;
}

// The rows of `session` from `from` on, rewritten by `edit` (which may change the body)
// and every hash from there recomputed, as an editor who knows the construction would.
void recompute(const fs::path& file, const std::string& session, std::uint64_t from,
               const std::function<std::string(const gp::StoredRow&)>& edit) {
  std::vector<gp::StoredRow> rows;
  gp::open_sqlite_store(file, {.session = session, .read_only = true})->read(1, [&](const gp::StoredRow& r) {
    rows.push_back(r);
    return true;
  });
  gp::detail::Sha256 sha;
  gp::RowHash prev = from == 1 ? sha(gp::chain_genesis_bytes(session)) : rows[from - 2].hash;
  std::string sql;
  for (const auto& r : rows) {
    if (r.seq < from) continue;
    const std::string body = edit(r);
    prev = gp::detail::chain_next(sha, prev, gp::canonical_bytes(r.seq, r.version, r.kind, body));
    sql += "UPDATE groundplane_rows SET body = " + gp_test::sql_literal(body) + ", hash = x'" + gp::to_hex(prev) +
           "' WHERE seq = " + std::to_string(r.seq) +
           " AND session = (SELECT id FROM groundplane_sessions WHERE name = " + gp_test::sql_literal(session) + ");";
  }
  raw_sql(file, sql);
}

std::string in_session(const std::string& session) {
  return " AND session = (SELECT id FROM groundplane_sessions WHERE name = " + gp_test::sql_literal(session) + ")";
}

}  // namespace

// tools/verify_ledger.py was written from docs/ledger-format.md alone.
TEST_CASE("tools/verify_ledger.py agrees with verify_sqlite_ledger on every fixture, intact and tampered every way",
          "[format][python]") {
  Agreement agreement;
  for (const Fixture& f : all_fixtures()) {
    for (const auto& item : f.expected.items()) {
      // named copies, not structured bindings: the cases below capture them in lambdas
      const std::string session = item.key();
      const json& want = item.value();
      const std::string head = want.at("head").get<std::string>();
      const auto rows = want.at("rows").get<std::uint64_t>();
      const std::string key = key_of(f, want);
      REQUIRE(rows >= 8);
      const auto variant = [&](const std::string& what, const std::function<void(const fs::path&)>& tamper,
                               const std::string& with_head, std::optional<std::uint64_t> first_bad) {
        const std::string named = f.file.filename().string() + ": " + what;
        INFO(named << ", session " << session << (with_head.empty() ? "" : ", with the published head"));
        const fs::path copy = agreement.copy_of(f.file);
        tamper(copy);
        const auto v = agreement.verify(named, copy, session, with_head, key);
        if (first_bad) CHECK(v.first_bad_row == *first_bad);
      };
      const auto none = [](const fs::path&) {};
      const std::string other = session == "shop" ? "bob" : "shop";
      if (!key.empty()) {  // a keyed session, also without its key
        INFO(f.file.filename().string() << ", session " << session << ", without its key");
        const fs::path copy = agreement.copy_of(f.file);
        const std::string named = f.file.filename().string() + ": keyed, without its key";
        CHECK(agreement.verify(named, copy, session).first_bad_row == 0);
        CHECK(agreement.verify(named, copy, session, head).first_bad_row == 1);
      }
      variant("intact", none, "", 0);
      variant("intact", none, head, 0);
      TempLedger read_copy{"agree"};  // even a read-only open leaves -shm and -wal files beside a file
      copy_to(f.file, read_copy);
      variant("intact, an earlier head", none, hex_hash_of(read_copy.path(), session, rows / 2), 0);
      variant(
          "one byte of a body edited",
          [&](const fs::path& p) {
            // the first byte of the first key: '{"' then the byte, whatever the row holds
            raw_sql(p,
                    "UPDATE groundplane_rows SET body = substr(body, 1, 2) || CASE substr(body, 3, 1) WHEN 'a' THEN "
                    "'b' ELSE 'a' END || substr(body, 4) WHERE seq = 2" +
                        in_session(session));
          },
          "", 2);
      variant(
          "a version edited",
          [&](const fs::path& p) {
            raw_sql(p, "UPDATE groundplane_rows SET version = version + 1000 WHERE seq = 3" + in_session(session));
          },
          "", 3);
      variant(
          "a kind edited",
          [&](const fs::path& p) {
            raw_sql(p, "UPDATE groundplane_rows SET kind = CASE kind WHEN 'g' THEN 't' ELSE 'g' END WHERE seq = 4" +
                           in_session(session));
          },
          "", 4);
      variant(
          "a hash cut short",
          [&](const fs::path& p) {
            raw_sql(p, "UPDATE groundplane_rows SET hash = x'00' WHERE seq = 5" + in_session(session));
          },
          "", 5);
      variant(
          "a forged row with a hash of its own",
          [&](const fs::path& p) {
            gp::detail::Sha256 sha;
            gp::RowHash prev{};
            REQUIRE(gp::detail::parse_row_hash(hex_hash_of(p, session, 3), prev));
            std::uint64_t version = 0;
            std::string kind;
            gp::open_sqlite_store(p, {.session = session, .read_only = true})->read(4, [&](const gp::StoredRow& r) {
              version = r.version;
              kind = r.kind;
              return false;
            });
            const gp::RowHash forged = gp::detail::chain_next(sha, prev, gp::canonical_bytes(4, version, kind, "{}"));
            raw_sql(p, "UPDATE groundplane_rows SET body = '{}', hash = x'" + gp::to_hex(forged) + "' WHERE seq = 4" +
                           in_session(session));
          },
          "", key.empty() ? 5 : 4);  // keyed: a SHA-256 hash is none of its chain's
      variant(
          "a row deleted",
          [&](const fs::path& p) { raw_sql(p, "DELETE FROM groundplane_rows WHERE seq = 6" + in_session(session)); },
          "", 6);
      variant(
          "two rows swapped",
          [&](const fs::path& p) {
            raw_sql(p, "UPDATE groundplane_rows SET seq = -1 WHERE seq = 3" + in_session(session) +
                           ";UPDATE groundplane_rows SET seq = 3 WHERE seq = 7" + in_session(session) +
                           ";UPDATE groundplane_rows SET seq = 7 WHERE seq = -1" + in_session(session));
          },
          "", 3);
      variant(
          "another session's rows in its place",
          [&](const fs::path& p) {
            raw_sql(p, "DELETE FROM groundplane_rows WHERE 1" + in_session(session) +
                           ";INSERT INTO groundplane_rows SELECT (SELECT id FROM groundplane_sessions WHERE name = " +
                           gp_test::sql_literal(session) +
                           "), seq, version, kind, body, hash FROM groundplane_rows WHERE 1" + in_session(other));
          },
          // rows of a keyed session in an unkeyed one's place claim a key: not judged without it
          "", key.empty() && f.expected.at(other).value("keyed", false) ? 0 : 1);
      variant(
          "the tail cut",
          [&](const fs::path& p) { raw_sql(p, "DELETE FROM groundplane_rows WHERE seq > 5" + in_session(session)); },
          "", 0);
      variant(
          "the tail cut",
          [&](const fs::path& p) { raw_sql(p, "DELETE FROM groundplane_rows WHERE seq > 5" + in_session(session)); },
          head, 6);
      const auto rewritten = [&](const fs::path& p) {
        recompute(p, session, 3,
                  [](const gp::StoredRow& r) { return r.seq == 3 ? std::string("{\"a\":\"x\"}") : r.body; });
      };
      variant("the chain rewritten from row 3 and recomputed", rewritten, "", key.empty() ? 0 : 3);
      variant("the chain rewritten from row 3 and recomputed", rewritten, head, key.empty() ? rows + 1 : 3);
      const auto newer = [&](const fs::path& p) { raw_sql(p, "UPDATE groundplane_schema SET version = 99"); };
      variant("a schema version from a newer release", newer, "", 0);
      variant("a schema version from a newer release", newer, head, 1);
      const auto renamed = [&](const fs::path& p) {
        raw_sql(p, "UPDATE groundplane_sessions SET name = 'gone' WHERE name = " + gp_test::sql_literal(session));
      };
      variant("the session renamed", renamed, "", 0);
      variant("the session renamed", renamed, head, 1);
      variant(
          "no ledger tables", [](const fs::path& p) { raw_sql(p, "DROP TABLE groundplane_schema"); }, head, 1);
    }
  }
  agreement.run();
}

namespace {

// The id of a session's entry, as SQL.
std::string in_session_id(const std::string& session) {
  return "(SELECT id FROM groundplane_sessions WHERE name = " + gp_test::sql_literal(session) + ")";
}

// A ledger file holding a keyed session ("shop", under `key`) and an unkeyed one ("bob"),
// each a few fires, an ask and a decision long.
void two_sessions(const fs::path& file, const std::string& key) {
  for (const std::string& session : {std::string("shop"), std::string("bob")}) {
    gp::Session s({.require_human_approval = true,
                   .store = gp::open_sqlite_store(file, {.session = session, .key = session == "shop" ? key : ""})});
    s.declare("cart.add", {.does = "Add the item.", .handler = ok_handler});
    s.declare("order.place", {.does = "Place the order.", .handler = ok_handler, .high_effect = true});
    for (int k = 0; k < 4; ++k) s.fire("cart.add", {.payload = {{"sku", k}, {"note", "[{\"quoted\" ]"}}});
    const auto ask = s.confirm_ask("order.place", {{"cart", 4}});
    s.approve_ask(ask.id, "ana");
    s.fire("order.place", {.payload = {{"cart", 4}}, .ask_id = ask.id});
  }
}

// A body nested `depth` arrays deep (and an object around them).
std::string nested_body(std::size_t depth) {
  return R"({"dl":)" + std::string(depth, '[') + std::string(depth, ']') + "}";
}

}  // namespace

TEST_CASE(
    "tools/verify_ledger.py agrees with verify_sqlite_ledger on keyed chains and on files groundplane never writes",
    "[format][python]") {
  const std::string key = "a key held by the app, 32 bytes.";
  TempLedger original{"agree-keyed"};
  two_sessions(original.path(), key);
  Agreement agreement;
  const auto variant = [&](const std::string& what, const std::function<void(const fs::path&)>& tamper,
                           const std::string& session, const std::string& head, const std::string& with_key,
                           std::optional<std::uint64_t> first_bad) {
    INFO(what << ", session " << session << (with_key.empty() ? ", no key" : ", with a key")
              << (head.empty() ? "" : ", with a head"));
    const fs::path copy = agreement.copy_of(original.path());
    tamper(copy);
    const auto v = agreement.verify(what, copy, session, head, with_key);
    if (first_bad) CHECK(v.first_bad_row == *first_bad);
  };
  const auto none = [](const fs::path&) {};
  const std::string head = gp::verify_sqlite_ledger(original.path(), "shop", "", key).head;
  REQUIRE_FALSE(head.empty());
  variant("intact", none, "shop", "", key, 0);
  variant("intact", none, "shop", head, key, 0);
  variant("intact", none, "shop", "", "", 0);  // keyed: not judged without the key
  variant("intact", none, "shop", head, "", 1);
  variant("intact", none, "shop", "", "another key, 32 bytes long also!", 1);
  variant("intact", none, "bob", "", key, 1);  // unkeyed, given a key
  variant("intact", none, "bob", "", "", 0);
  variant(
      "a row appended without the key",
      [&](const fs::path& p) {
        std::uint64_t n = 0;
        gp::RowHash last{};
        gp::open_sqlite_store(p, {.session = "shop", .read_only = true, .key = key})
            ->read(1, [&](const gp::StoredRow& r) {
              n = r.seq;
              last = r.hash;
              return true;
            });
        gp::detail::Sha256 sha;
        const std::string body = R"({"a":"order.place","by":"ana","on":1})";
        const auto h = gp::detail::chain_next(sha, last, gp::canonical_bytes(n + 1, 1, "sg", body));
        raw_sql(p, "INSERT INTO groundplane_rows VALUES (" + in_session_id("shop") + ", " + std::to_string(n + 1) +
                       ", 1, 'sg', '" + body + "', x'" + gp::to_hex(h) + "')");
      },
      "shop", head, key, std::nullopt);
  variant(
      "row 1's key id made malformed",
      [&](const fs::path& p) {
        raw_sql(p, "UPDATE groundplane_rows SET body = replace(body, '{\"_k\":\"', '{\"_k\":\"zz') WHERE seq = 1" +
                       in_session("shop"));
      },
      "shop", "", "", 1);
  variant(
      "row 1's key id removed and the chain recomputed unkeyed",
      [&](const fs::path& p) {
        recompute(p, "shop", 1, [](const gp::StoredRow& r) {
          if (r.seq != 1) return r.body;
          return "{" + r.body.substr(r.body.find(',') + 1);
        });
      },
      "shop", "", key, 1);
  // A name or a version stored as groundplane never stores it.
  const auto blob_twin = [&](const fs::path& p) {
    raw_sql(p,
            "INSERT INTO groundplane_sessions(name) VALUES (CAST('bob' AS BLOB));"
            "INSERT INTO groundplane_rows SELECT (SELECT max(id) FROM groundplane_sessions), seq, version, kind, body,"
            " hash FROM groundplane_rows WHERE seq <= 3" +
                in_session("bob"));
  };
  variant("a second entry for the session, its name a blob", blob_twin, "bob", "", "", 1);
  variant(
      "the session's name stored as a blob",
      [&](const fs::path& p) {
        raw_sql(p, "UPDATE groundplane_sessions SET name = CAST(name AS BLOB) WHERE name = 'bob'");
      },
      "bob", "", "", 1);
  for (const std::string version : {"'2x'", "'3'", "3.0", "x'33'", "4294967299"}) {
    variant(
        "the format version stored as " + version,
        [&](const fs::path& p) { raw_sql(p, "UPDATE groundplane_schema SET version = " + version); }, "bob", "", "", 0);
  }
  // Schema objects groundplane did not create: the rows before them verify, no more.
  for (const std::string& object :
       {std::string("CREATE TRIGGER t BEFORE INSERT ON groundplane_rows BEGIN SELECT RAISE(IGNORE); END"),
        std::string("CREATE TRIGGER t AFTER UPDATE ON groundplane_sessions BEGIN SELECT 1; END"),
        std::string("CREATE INDEX i ON groundplane_rows(kind)"),
        std::string("CREATE VIEW v AS SELECT * FROM groundplane_rows"),
        std::string("ALTER TABLE groundplane_rows RENAME TO gp_old; CREATE VIEW groundplane_rows AS SELECT * FROM "
                    "gp_old WHERE kind <> 'qd'"),
        std::string("CREATE TABLE GroundPlane_Schema2(x)")}) {
    variant(
        object, [&](const fs::path& p) { raw_sql(p, object); }, "bob", "", "", std::nullopt);
  }
  // Rows past the format's limits, their hashes recomputed: they fail at their row.
  for (const std::size_t depth : {std::size_t{511}, std::size_t{512}, std::size_t{100'000}}) {
    variant(
        "a row nested " + std::to_string(depth) + " deep",
        [&](const fs::path& p) {
          recompute(p, "bob", 3, [&](const gp::StoredRow& r) { return r.seq == 3 ? nested_body(depth) : r.body; });
        },
        "bob", "", "", depth < 512 ? 0 : 3);
  }
  variant(
      "brackets in strings and a string left open",
      [&](const fs::path& p) {
        recompute(p, "bob", 3, [&](const gp::StoredRow& r) {
          return r.seq == 3 ? std::string(R"({"a":"[[[[\"{{{{","b":)") + std::string(600, '[') + "\"" : r.body;
        });
      },
      "bob", "", "", std::nullopt);
  variant(
      "a row over 64 MiB",
      [&](const fs::path& p) {
        recompute(p, "bob", 4, [&](const gp::StoredRow& r) {
          return r.seq == 4 ? R"({"a":")" + std::string(gp::ledger_max_body_bytes, 'x') + "\"}" : r.body;
        });
      },
      "bob", "", "", 4);
  agreement.run();
}
#if defined(GROUNDPLANE_LEDGER_TOOL)
namespace {

// Each line a command prints, parsed as JSON.
std::vector<json> json_lines(const std::string& cmd) {
  std::vector<json> lines;
  std::istringstream in(command_output(cmd).first);
  for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
  return lines;
}

}  // namespace

// The page's row kinds, members and enum values, read by a reader written from the page,
// against the library's own codec (what groundplane-ledger export prints).
TEST_CASE("tools/verify_ledger.py --rows names every row of every fixture as groundplane-ledger export does",
          "[format][python]") {
  std::size_t kinds_seen = 0;
  std::set<std::string> kinds;
  for (const Fixture& f : all_fixtures()) {
    for (const auto& item : f.expected.items()) {
      const std::string& session = item.key();
      INFO(f.file.filename().string() << ", session " << session);
      TempLedger copy{"rows"};
      copy_to(f.file, copy);
      // A keyed session is read with its key, by both.
      const std::string key_arg = key_of(f, item.value()).empty() ? "" : " --key-file '" + f.file.string() + ".key'";
      auto python = json_lines(std::string("'") + GROUNDPLANE_PYTHON + "' '" + GROUNDPLANE_SOURCE_DIR +
                               "/tools/verify_ledger.py' '" + copy.str() + "' --session '" + session +
                               "' --rows --json" + key_arg);
      REQUIRE_FALSE(python.empty());
      CHECK(python.back().at("ok") == true);  // the verdict comes last
      python.pop_back();
      const auto exported = json_lines(std::string("'") + GROUNDPLANE_LEDGER_TOOL + "' export '" + copy.str() +
                                       "' --session '" + session + "'" + key_arg);
      REQUIRE(python.size() == exported.size());
      REQUIRE(python.size() == item.value().at("rows").get<std::size_t>());
      for (std::size_t i = 0; i < python.size(); ++i) {
        INFO("row " << i + 1);
        CHECK(python[i] == exported[i]);
        kinds.insert(exported[i].at("kind").get<std::string>());
      }
    }
  }
  kinds_seen = kinds.size();
  CHECK(kinds_seen == std::size(gp::detail::rows::kinds));  // the fixtures hold every kind
}
#endif

TEST_CASE(
    "tools/verify_ledger.py agrees with verify_sqlite_ledger on a freshly written ledger, whole and cut short on disk",
    "[format][python]") {
  TempLedger f{"torn"};
  std::string head;
  {
    gp::Session s({.store = gp::open_sqlite_store(f.path(), {.synchronous_commit = false})});
    s.declare("cart.add", {.does = "Add the item.", .handler = ok_handler});
    for (int k = 0; k < 3000; ++k) s.fire("cart.add", {.payload = {{"pad", std::string(100, 'p')}}});
    head = s.head();
  }
  // Whole, the freshly written file verifies in both, with and without its head.
  Agreement agreement;
  CHECK(agreement.verify("whole", f.path(), "default").ok);
  CHECK(agreement.verify("whole", f.path(), "default", head).ok);
  const auto size = fs::file_size(f.path());
  for (const double at : {0.9, 0.5, 0.2}) {
    INFO("cut at " << at);
    const std::string what = "cut at " + std::to_string(at);
    const fs::path copy = agreement.copy_of(f.path());
    fs::resize_file(copy, static_cast<std::uintmax_t>(static_cast<double>(size) * at));
    const auto v = agreement.verify(what, copy, "default");
    CHECK_FALSE(v.ok);
    CHECK(v.first_bad_row > 0);
    agreement.verify(what, copy, "default", head);
  }
  agreement.run();
}
#else
// tools/verify_ledger.py was written from docs/ledger-format.md alone.
TEST_CASE("tools/verify_ledger.py agrees with verify_sqlite_ledger on every fixture, intact and tampered every way",
          "[format][python]") {
  std::puts("SKIPPED: no python3 was found when this tree was configured");
}
#endif
