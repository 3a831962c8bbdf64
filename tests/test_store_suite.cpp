// What every ledger store must do, asserted once and run against each store: the SQLite
// file and PostgreSQL. The chain each writes, what survives a reopen, many sessions in
// one place, atomic batches, read-only use, tampering through the database itself, a
// Session restored from it, and groundplane-ledger on it. A session recorded on either
// store verifies the same way, so both run exactly the same assertions.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <sys/wait.h>

#include <nlohmann/json.hpp>
#include "catch2_compat.hpp"

#include "groundplane/session.hpp"
#include "groundplane/store/postgres.hpp"
#include "groundplane/store/sqlite.hpp"
#include "postgres_fixtures.hpp"
#include "store_fixtures.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {

class SqliteBackend {
 public:
  std::string name(const std::string& session) const { return session; }
  std::shared_ptr<gp::LedgerStore> open(const std::string& session = "default") const {
    return gp::open_sqlite_store(file_.path(), {.session = session});
  }
  std::shared_ptr<gp::LedgerStore> open_read_only(const std::string& session = "default") const {
    return gp::open_sqlite_store(file_.path(), {.session = session, .read_only = true});
  }
  gp::LedgerVerification verify(const std::string& session = "default", const std::string& head = "") const {
    return gp::verify_ledger(file_.path(), session, head);
  }
  // The value groundplane_rows.session holds for a session.
  std::string key(const std::string& session) const {
    return "(SELECT id FROM groundplane_sessions WHERE name = " + gp_test::sql_literal(session) + ")";
  }
  std::string hash_literal(const std::string& hex) const { return "X'" + hex + "'"; }
  void sql(const std::string& statement) const { gp_test::raw_sql(file_.path(), statement); }
  std::string location() const { return file_.str(); }

 private:
  gp_test::TempLedger file_{"suite"};
};

class PostgresBackend {
 public:
  explicit PostgresBackend(std::string uri) : uri_(std::move(uri)), prefix_(gp_test::unique_session("suite") + "-") {}
  std::string name(const std::string& session) const { return prefix_ + session; }
  std::shared_ptr<gp::LedgerStore> open(const std::string& session = "default") const {
    return gp::open_postgres_store(uri_, {.session = name(session)});
  }
  std::shared_ptr<gp::LedgerStore> open_read_only(const std::string& session = "default") const {
    return gp::open_postgres_store(uri_, {.session = name(session), .read_only = true});
  }
  gp::LedgerVerification verify(const std::string& session = "default", const std::string& head = "") const {
    return gp::verify_postgres_ledger(uri_, name(session), head);
  }
  std::string key(const std::string& session) const { return gp_test::sql_literal(name(session)); }
  std::string hash_literal(const std::string& hex) const { return "decode('" + hex + "', 'hex')"; }
  void sql(const std::string& statement) const { gp_test::postgres_sql(uri_, statement); }
  std::string location() const { return uri_; }

 private:
  std::string uri_;
  std::string prefix_;
};

// n rows, row k carrying version k - 1 and a body naming k.
gp::LedgerHead fill(gp::LedgerStore& store, int n, int from = 1) {
  gp::LedgerHead head;
  for (int k = from; k < from + n; ++k) {
    const gp::LedgerRow row{static_cast<std::uint64_t>(k - 1), "fire",
                            json{{"a", "act-" + std::to_string(k)}, {"k", k}}};
    head = store.append(std::span(&row, 1));
  }
  return head;
}

std::vector<gp::StoredRow> all_rows(const gp::LedgerStore& store) {
  std::vector<gp::StoredRow> out;
  store.read(1, [&](const gp::StoredRow& r) {
    out.push_back(r);
    return true;
  });
  return out;
}

// ---- the cases, each run on every store ---------------------------------------------

template <class B>
void chain_from_genesis(const B& b) {
  const auto store = b.open("alice");
  fill(*store, 3);
  gp::detail::Sha256 sha;
  gp::RowHash prev = sha(gp::chain_genesis_bytes(b.name("alice")));
  const auto rows = all_rows(*store);
  REQUIRE(rows.size() == 3);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CHECK(rows[i].seq == i + 1);
    CHECK(rows[i].version == i);
    CHECK(rows[i].kind == "fire");
    CHECK(rows[i].body == R"({"a":"act-)" + std::to_string(i + 1) + R"(","k":)" + std::to_string(i + 1) + "}");
    CHECK(gp::to_hex(rows[i].hash) == gp::to_hex(sha(gp::detail::as_chars(prev), gp::canonical_bytes(rows[i]))));
    prev = rows[i].hash;
  }
  CHECK(store->head().hex == gp::to_hex(prev));
  CHECK(store->head().rows == 3);
}

template <class B>
void survives_reopen(const B& b) {
  std::string head;
  {
    const auto store = b.open();
    CHECK(store->head().rows == 0);
    CHECK(store->head().hex.empty());
    head = fill(*store, 4).hex;
  }
  const auto store = b.open();
  CHECK(store->head().rows == 4);
  CHECK(store->head().hex == head);
  fill(*store, 1, 5);
  CHECK(store->head().rows == 5);
  const auto v = b.verify();
  CHECK(v.ok);
  CHECK(v.rows == 5);
  CHECK(v.head == store->head().hex);
  CHECK(v.first_bad_row == 0);
  CHECK(v.problem.empty());
  CHECK(store->verify().ok);
}

template <class B>
void batch_is_atomic(const B& b) {
  const auto store = b.open();
  fill(*store, 2);
  const std::vector<gp::LedgerRow> batch{{2, "fire", json{{"a", 1}}}, {3, "", json{{"a", 2}}}};  // empty kind
  CHECK_THROWS(store->append(batch));
  CHECK(store->head().rows == 2);
  CHECK(all_rows(*store).size() == 2);
  const std::vector<gp::LedgerRow> two{{2, "fire", json{{"a", 1}}}, {3, "gap", json{{"a", 2}}}};
  CHECK(store->append(two).rows == 4);  // a batch that can be written is written whole, and chains
  CHECK(b.verify().ok);
  CHECK(b.verify().rows == 4);
}

template <class B>
void many_sessions(const B& b) {
  const auto a = b.open("alice");
  const auto o = b.open("bob");
  fill(*a, 3);
  fill(*o, 5);
  fill(*a, 1, 4);
  CHECK(b.verify("alice").rows == 4);
  CHECK(b.verify("bob").rows == 5);
  CHECK(b.verify("alice").ok);
  CHECK(all_rows(*a)[0].body == all_rows(*o)[0].body);  // same bodies, different sessions...
  CHECK(all_rows(*a)[0].hash != all_rows(*o)[0].hash);  // ...different chains
  const auto none = b.verify("carol");
  CHECK_FALSE(none.ok);
  CHECK(none.first_bad_row == 0);
  CHECK_THAT(none.problem, Catch::Contains("no session \"" + b.name("carol") + "\""));
}

template <class B>
void copied_rows_do_not_verify(const B& b) {
  fill(*b.open("alice"), 3);
  fill(*b.open("bob"), 3);
  // bob's rows replaced wholesale by alice's (bodies, hashes and all)
  b.sql("DELETE FROM groundplane_rows WHERE session = " + b.key("bob") + ";" + "INSERT INTO groundplane_rows SELECT " +
        b.key("bob") + ", seq, version, kind, body, hash FROM groundplane_rows WHERE session = " + b.key("alice"));
  const auto v = b.verify("bob");
  CHECK_FALSE(v.ok);
  CHECK(v.first_bad_row == 1);
  CHECK(b.verify("alice").ok);
}

template <class B>
void read_only(const B& b) {
  fill(*b.open(), 3);
  const auto ro = b.open_read_only();
  CHECK(ro->head().rows == 3);
  CHECK(all_rows(*ro).size() == 3);
  CHECK_FALSE(ro->writable());
  const gp::LedgerRow row{0, "fire", nullptr};
  CHECK_THROWS_AS(ro->append(std::span(&row, 1)), gp::LedgerStoreError);
  CHECK(b.verify().rows == 3);
}

template <class B>
std::string ten_rows(const B& b) {
  return fill(*b.open(), 10).hex;
}

template <class B>
void tamper_altered(const B& b) {
  const std::string head = ten_rows(b);
  const std::string where = " WHERE session = " + b.key("default") + " AND seq = ";
  SECTION("body") { b.sql("UPDATE groundplane_rows SET body = '{\"a\":\"act-4\",\"k\":40}'" + where + "4"); }
  SECTION("version") { b.sql("UPDATE groundplane_rows SET version = 99" + where + "4"); }
  SECTION("kind") { b.sql("UPDATE groundplane_rows SET kind = 'gap'" + where + "4"); }
  SECTION("hash") { b.sql("UPDATE groundplane_rows SET hash = " + b.hash_literal(std::string(64, '0')) + where + "4"); }
  const auto v = b.verify();
  CHECK_FALSE(v.ok);
  CHECK(v.first_bad_row == 4);
  CHECK(v.rows == 3);
  CHECK_THAT(v.problem, Catch::Contains("row 4"));
}

template <class B>
void tamper_deleted(const B& b) {
  ten_rows(b);
  b.sql("DELETE FROM groundplane_rows WHERE session = " + b.key("default") + " AND seq = 6");
  const auto v = b.verify();
  CHECK_FALSE(v.ok);
  CHECK(v.first_bad_row == 6);
  CHECK_THAT(v.problem, Catch::Contains("row 6 is missing"));
}

template <class B>
void tamper_appended(const B& b) {
  ten_rows(b);
  b.sql("INSERT INTO groundplane_rows(session, seq, version, kind, body, hash) VALUES (" + b.key("default") +
        ", 11, 10, 'fire', '{}', " + b.hash_literal(std::string(64, 'a')) + ")");
  const auto v = b.verify();
  CHECK_FALSE(v.ok);
  CHECK(v.first_bad_row == 11);
  CHECK(v.rows == 10);
}

template <class B>
void tamper_tail_cut(const B& b) {
  const std::string head = ten_rows(b);
  b.sql("DELETE FROM groundplane_rows WHERE session = " + b.key("default") + " AND seq > 7");
  const auto alone = b.verify();
  CHECK(alone.ok);  // a shorter chain is a chain: only a published head can tell
  CHECK(alone.rows == 7);
  const auto with_head = b.verify("default", head);
  CHECK_FALSE(with_head.ok);
  CHECK(with_head.first_bad_row == 8);
  CHECK_THAT(with_head.problem, Catch::Contains("cut from the tail"));
}

template <class B>
void session_restores(const B& b) {
  std::string block, head;
  {
    gp::Session s({.require_human_approval = true, .store = b.open()});
    s.declare("note",
              {.does = "Save a note.", .writes = {"note"}, .handler = [](const json&) { return gp::HandlerResult{}; }});
    s.declare("ship",
              {.does = "Ship it.", .handler = [](const json&) { return gp::HandlerResult{}; }, .high_effect = true});
    const auto noted = s.fire("note", {.payload = {{"text", "hello"}}});
    s.report_state({{"note", "hello"}}, noted.transition_id);
    CHECK(s.fire("ship").reason == "APPROVAL_REQUIRED");
    const auto ask = s.confirm_ask("ship", {{"order", 7}});
    s.approve_ask(ask.id, "ops");
    CHECK(s.fire("ship", {.payload = {{"order", 7}}, .ask_id = ask.id}).reason.empty());
    block = s.ground_truth().text;
    head = s.ground_truth().head;
  }
  CHECK_FALSE(head.empty());
  gp::Session r({.require_human_approval = true, .store = b.open()});
  r.declare("note",
            {.does = "Save a note.", .writes = {"note"}, .handler = [](const json&) { return gp::HandlerResult{}; }});
  r.declare("ship",
            {.does = "Ship it.", .handler = [](const json&) { return gp::HandlerResult{}; }, .high_effect = true});
  CHECK(r.ground_truth().text == block);
  CHECK(r.ground_truth().head == head);
  const auto v = b.verify("default", head);
  CHECK(v.ok);
  CHECK(v.head == head);
}

#ifdef GROUNDPLANE_LEDGER_TOOL
int run_tool(const std::string& args) {
  const std::string cmd = std::string(GROUNDPLANE_LEDGER_TOOL) + " " + args + " >/dev/null 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

template <class B>
void tool_verifies(const B& b) {
  std::string head;
  {
    gp::Session s({.store = b.open()});
    s.declare("note", {.does = "Save a note.", .handler = [](const json&) { return gp::HandlerResult{}; }});
    s.fire("note");
    s.fire("note");
    head = s.ground_truth().head;
  }
  const std::string loc = "'" + b.location() + "' --session '" + b.name("default") + "'";
  CHECK(run_tool("verify " + loc) == 0);
  CHECK(run_tool("verify " + loc + " --head " + head) == 0);
  CHECK(run_tool("show " + loc) == 0);
  CHECK(run_tool("export " + loc) == 0);
  b.sql("UPDATE groundplane_rows SET version = 99 WHERE session = " + b.key("default") + " AND seq = 2");
  CHECK(run_tool("verify " + loc) == 1);
  CHECK(run_tool("verify '" + b.location() + "' --session nobody-has-this-session") == 2);
}
#endif

}  // namespace

// Each case twice: on an SQLite file, and on PostgreSQL (skipped, and said so, when no
// server was given).
#define GP_STORE_CASE(sentence, fn)                         \
  TEST_CASE("SQLite: " sentence, "[store][sqlite]") {       \
    const SqliteBackend b;                                  \
    fn(b);                                                  \
  }                                                         \
  TEST_CASE("PostgreSQL: " sentence, "[store][postgres]") { \
    const auto uri = gp_test::postgres_uri();               \
    if (!uri) return;                                       \
    const PostgresBackend b(*uri);                          \
    fn(b);                                                  \
  }

GP_STORE_CASE(
    "each stored hash is SHA-256 of the previous hash and the row's bytes, from a genesis bound to the session",
    chain_from_genesis)
GP_STORE_CASE("rows survive closing the store, and a reopened store chains new rows after them", survives_reopen)
GP_STORE_CASE("a batch is one transaction: a row that cannot be written leaves none of the batch", batch_is_atomic)
GP_STORE_CASE("one ledger holds many sessions, each its own chain, and an unknown session is named", many_sessions)
GP_STORE_CASE("a row copied from another session's chain does not verify in this one", copied_rows_do_not_verify)
GP_STORE_CASE("a read-only store reads the rows and refuses to append", read_only)
GP_STORE_CASE("an altered body, version, kind or hash is named as the first bad row", tamper_altered)
GP_STORE_CASE("a deleted row is named by its number", tamper_deleted)
GP_STORE_CASE("a row appended after the head without the chain is named", tamper_appended)
GP_STORE_CASE("a tail cut verifies as a shorter chain, and is caught with a head published earlier", tamper_tail_cut)
GP_STORE_CASE("a Session restored from the store renders the same block and the same head", session_restores)
#ifdef GROUNDPLANE_LEDGER_TOOL
GP_STORE_CASE("groundplane-ledger verify, show and export read it, and verify exits 1 when tampered, 2 when unusable",
              tool_verifies)
#endif
