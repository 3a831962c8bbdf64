// What an attacker with write access to the ledger's file or database tries, one case per
// kind of attack, each run on SQLite and on PostgreSQL where it applies: rows appended
// onto the real head by someone without the key, a keyed chain opened without its key or
// with another, a chain that claims to be keyed or not. (The edits that break the chain
// itself — bytes, deletions, swaps, other sessions' rows — are test_store_suite.cpp's.)
#include <sys/wait.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <nlohmann/json.hpp>
#include "catch2_compat.hpp"

#include "groundplane/session.hpp"
#include "groundplane/store/postgres.hpp"
#include "groundplane/store/sqlite.hpp"
#include "store_backends.hpp"
#include "store_fixtures.hpp"

namespace gp = groundplane;
using gp_test::all_rows;
using gp_test::fill;
using nlohmann::json;

namespace {

// 32 bytes each: the app's key, and one a thief made up.
const std::string app_key = "the key of the app: 32 bytes, ok";
const std::string thief_key = "a thief made this key: 32 bytes!";

// HMAC-SHA256 by OpenSSL's one-shot HMAC(), apart from the store's own code.
gp::RowHash hmac_sha256(std::string_view key, std::string_view message) {
  gp::RowHash out{};
  unsigned int n = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(message.data()),  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
       message.size(), out.data(), &n);
  REQUIRE(n == out.size());
  return out;
}

std::string as_text(const gp::RowHash& h) { return {reinterpret_cast<const char*>(h.data()), h.size()}; }

// hex of the first 8 bytes of HMAC-SHA256(key, "groundplane-key-id"), as the format says
std::string key_id_of(std::string_view key) {
  const gp::RowHash h = hmac_sha256(key, "groundplane-key-id");
  return gp::to_hex(std::span(h.data(), 8));
}

gp::HandlerResult ok_handler(const json&) { return {}; }

void declare_ship(gp::Session& s, int* shipped = nullptr) {
  s.declare("note", {.does = "Save a note.", .handler = ok_handler});
  s.declare("ship", {.does = "Ship it.",
                     .handler =
                         [shipped](const json&) {
                           if (shipped) ++*shipped;
                           return gp::HandlerResult{};
                         },
                     .high_effect = true});
}

// A session whose one approval was given and spent: the app's head at the end.
template <class B>
std::string spent_approval(const B& b, const gp_test::StoreOpen& how) {
  gp::Session s({.require_human_approval = true, .store = b.open_as(how)});
  declare_ship(s);
  REQUIRE(s.fire("ship").reason == "APPROVAL_REQUIRED");
  const auto ask = s.confirm_ask("ship", {{"order", 7}});
  REQUIRE(s.approve_ask(ask.id, "ops").ok);
  REQUIRE(s.fire("ship", {.payload = {{"order", 7}}, .ask_id = ask.id}).ok);
  REQUIRE(s.fire("ship", {.payload = {{"order", 7}}, .ask_id = ask.id}).reason == "APPROVAL_SPENT");
  return s.head();
}

// A row appended after the stored head by someone who can write the database but does
// not hold the app's key: hashed onto the real head, with SHA-256 (as an unkeyed chain
// would be) or with a key of their own.
template <class B>
std::uint64_t append_forged(const B& b, const std::string& kind, const std::string& body,
                            const std::string& forger_key = "", const std::string& session_key = app_key) {
  const auto rows = all_rows(*b.open_as({.read_only = true, .key = session_key}));
  REQUIRE_FALSE(rows.empty());
  const gp::StoredRow& last = rows.back();
  const std::uint64_t seq = last.seq + 1;
  const std::string bytes = as_text(last.hash) + gp::canonical_bytes(seq, last.version, kind, body);
  gp::RowHash h{};
  if (forger_key.empty()) {
    gp::detail::Sha256 sha;
    h = sha(bytes);
  } else {
    h = hmac_sha256(forger_key, bytes);
  }
  b.sql("INSERT INTO groundplane_rows(session, seq, version, kind, body, hash) VALUES (" + b.key("default") + ", " +
        std::to_string(seq) + ", " + std::to_string(last.version) + ", " + gp_test::sql_literal(kind) + ", " +
        gp_test::sql_literal(body) + ", " + b.hash_literal(gp::to_hex(h)) + ")");
  return seq;
}

#ifdef GROUNDPLANE_LEDGER_TOOL
struct ToolRun {
  int code;
  std::string out;
};
ToolRun run_tool(const std::string& args) {
  const std::string cmd = std::string(GROUNDPLANE_LEDGER_TOOL) + " " + args + " 2>&1";
  std::FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  const int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}
#endif

// ---- a keyed chain ----------------------------------------------------------------------

template <class B>
void keyed_chain_is_hmac(const B& b) {
  const auto store = b.open_as({.key = app_key});
  fill(*store, 3);
  const auto rows = all_rows(*store);
  REQUIRE(rows.size() == 3);
  // The first row records the key id, first of its members; never the key.
  CHECK(rows[0].body == R"({"_k":")" + key_id_of(app_key) + R"(","a":"act-1","k":1})");
  for (const auto& r : rows) CHECK(r.body.find(app_key) == std::string::npos);
  CHECK(rows[1].body == R"({"a":"act-2","k":2})");
  gp::detail::Sha256 sha;
  gp::RowHash prev = sha(gp::chain_genesis_bytes(b.name("default")));  // the unkeyed chain's genesis
  for (const auto& r : rows) {
    INFO("row " << r.seq);
    CHECK(gp::to_hex(r.hash) == gp::to_hex(hmac_sha256(app_key, as_text(prev) + gp::canonical_bytes(r))));
    prev = r.hash;
  }
  const auto v = b.verify("default", "", app_key);
  CHECK(v.ok);
  CHECK(v.rows == 3);
  CHECK(v.keyed);
  CHECK(v.key_id == key_id_of(app_key));
  CHECK(v.head == gp::to_hex(prev));
  CHECK(store->verify().ok);
  const auto unkeyed = b.open("plain");
  fill(*unkeyed, 1);
  CHECK_FALSE(b.verify("plain").keyed);
  CHECK(b.verify("plain").key_id.empty());
}

template <class B>
void keyed_open_refusals(const B& b) {
  fill(*b.open_as({.key = app_key}), 2);
  const std::string id = key_id_of(app_key);
  const std::string other = key_id_of(thief_key);
  CHECK_THROWS_AS(b.open(), gp::LedgerStoreError);
  CHECK_THROWS_WITH(b.open(), Catch::Contains("is keyed (key id " + id + ")"));
  for (const bool read_only : {false, true}) {
    INFO((read_only ? "read-only" : "writable"));
    CHECK_THROWS_AS(b.open_as({.read_only = read_only, .key = thief_key}), gp::LedgerStoreError);
    CHECK_THROWS_WITH(b.open_as({.read_only = read_only, .key = thief_key}),
                      Catch::Contains("key id " + id) && Catch::Contains("key id " + other));
  }
  // An unkeyed session is not upgraded by a key either.
  fill(*b.open("plain"), 2);
  for (const bool read_only : {false, true}) {
    INFO((read_only ? "read-only" : "writable"));
    CHECK_THROWS_AS(b.open_as({.session = "plain", .read_only = read_only, .key = app_key}), gp::LedgerStoreError);
    CHECK_THROWS_WITH(b.open_as({.session = "plain", .read_only = read_only, .key = app_key}),
                      Catch::Contains("not keyed"));
  }
  // A key is a secret of at least 16 bytes; "" is no key.
  CHECK_THROWS_AS(b.open_as({.session = "new", .key = "fifteen bytes.."}), gp::ConfigurationError);
  CHECK_NOTHROW(b.open_as({.session = "new", .key = "sixteen bytes..."}));
  CHECK(b.verify("default", "", "short").problem.find("at least 16 bytes") != std::string::npos);
}

template <class B>
void keyless_verification(const B& b) {
  const std::string head = fill(*b.open_as({.key = app_key}), 4).hex;
  const auto v = b.verify();
  CHECK_FALSE(v.ok);
  CHECK(v.first_bad_row == 0);  // not judged: nothing can be vouched for without the key
  CHECK(v.rows == 0);
  CHECK(v.keyed);
  CHECK(v.key_id == key_id_of(app_key));
  CHECK_THAT(v.problem, Catch::Contains("keyed"));
  const auto with_head = b.verify("default", head);
  CHECK_FALSE(with_head.ok);
  CHECK(with_head.first_bad_row == 1);  // a head vouches the rows existed: unverifiable is a failure
  // With another key, or a key on an unkeyed chain: row 1, naming both.
  const auto wrong = b.verify("default", "", thief_key);
  CHECK(wrong.first_bad_row == 1);
  CHECK_THAT(wrong.problem, Catch::Contains(key_id_of(app_key)) && Catch::Contains(key_id_of(thief_key)));
  fill(*b.open("plain"), 2);
  const auto upgraded = b.verify("plain", "", app_key);
  CHECK(upgraded.first_bad_row == 1);
  CHECK_FALSE(upgraded.keyed);
  CHECK_THAT(upgraded.problem, Catch::Contains("unkeyed") && Catch::Contains(key_id_of(app_key)));
}

// A keyed session whose key is lost: its rows can be read, never verified or restored.
template <class B>
void lost_key_reads_only(const B& b) {
  spent_approval(b, {.key = app_key});
  const auto store = b.open_read_only();
  CHECK(all_rows(*store).size() > 5);
  const auto v = store->verify();
  CHECK_FALSE(v.ok);
  CHECK(v.keyed);
  CHECK_THROWS_AS(gp::Session({.require_human_approval = true, .store = store}), gp::LedgerStoreError);
  CHECK_THROWS_WITH(gp::Session({.require_human_approval = true, .store = b.open_read_only()}),
                    Catch::Contains("cannot restore session \"" + b.name("default") + "\"") &&
                        Catch::Contains("keyed (key id " + key_id_of(app_key) + ")"));
  // With its key, the same rows restore.
  gp::Session restored({.require_human_approval = true, .store = b.open_as({.read_only = true, .key = app_key})});
  CHECK(restored.view().attempts() == 3);
}

// The attack that beats a kept head alone: a decision appended onto the real head turning
// the spent ask back to approved. With the key, it fails at its row, head or not.
template <class B>
void appended_reapproval_refused(const B& b) {
  const std::string head = spent_approval(b, {.key = app_key});
  const std::uint64_t written = all_rows(*b.open_as({.read_only = true, .key = app_key})).size();
  const std::string reapproval = R"({"at":1700000000000000,"by":"ops","q":0,"rd":{},"s":1})";
  for (const std::string& forger : {std::string(), thief_key}) {
    INFO((forger.empty() ? "hashed with SHA-256" : "hashed with the thief's own key"));
    b.sql("DELETE FROM groundplane_rows WHERE session = " + b.key("default") + " AND seq > " + std::to_string(written));
    const std::uint64_t seq = append_forged(b, "qd", reapproval, forger);
    REQUIRE(seq == written + 1);
    const auto v = b.verify("default", head, app_key);
    CHECK_FALSE(v.ok);
    CHECK(v.first_bad_row == seq);
    CHECK(v.rows == seq - 1);
    int shipped = 0;
    try {
      gp::Session s({.require_human_approval = true, .store = b.open_as({.expected_head = head, .key = app_key})});
      declare_ship(s, &shipped);
      s.fire("ship", {.payload = {{"order", 7}}, .ask_id = "ask-1"});
      FAIL("restored a session with a row appended by someone without the key");
    } catch (const gp::LedgerStoreError& e) {
      INFO(e.what());
      CHECK_THAT(e.what(), Catch::Contains("first bad row " + std::to_string(seq) + ":"));
    }
    CHECK(shipped == 0);
  }
}

// A standing grant appended the same way: refused at its row.
template <class B>
void appended_grant_refused(const B& b) {
  const std::string head = spent_approval(b, {.key = app_key});
  const std::uint64_t seq = append_forged(b, "sg", R"({"a":"ship","by":"ops","on":1})");
  CHECK(b.verify("default", "", app_key).first_bad_row == seq);
  CHECK(b.verify("default", head, app_key).first_bad_row == seq);
  CHECK_THROWS_WITH(gp::Session({.require_human_approval = true, .store = b.open_as({.key = app_key})}),
                    Catch::Contains("first bad row " + std::to_string(seq) + ":"));
}

// ---- a restored session keeps its policy -------------------------------------------------

// Rows a store holds for its session, counted as they are (unverified).
template <class B>
std::size_t rows_held(const B& b, const std::string& session = "default", const std::string& key = "") {
  return all_rows(*b.open_as({.session = session, .read_only = true, .key = key})).size();
}

// The second process of the newcomer's app, written as ledger-store.md once showed it:
// no policy given. The restore is refused naming the member, and nothing is written.
template <class B>
void restore_with_another_policy_refused(const B& b) {
  spent_approval(b, {});
  const std::size_t before = rows_held(b);
  try {
    gp::Session s({.store = b.open()});
    FAIL("restored a session stored under require_human_approval without it");
  } catch (const gp::ConfigurationError& e) {
    INFO(e.what());
    CHECK_THAT(e.what(), Catch::Contains("require_human_approval: stored true, given false"));
    CHECK_THAT(e.what(), Catch::Contains("policy_change"));
  }
  CHECK(rows_held(b) == before);
  // Every member that differs is named, booleans as true/false and durations in ms.
  try {
    gp::Session s({.allow_unmaterialized_fires = true, .approval_ttl = std::chrono::minutes(1), .store = b.open()});
    FAIL("restored a session with three members of its policy changed");
  } catch (const gp::ConfigurationError& e) {
    INFO(e.what());
    CHECK_THAT(e.what(), Catch::Contains("require_human_approval: stored true, given false"));
    CHECK_THAT(e.what(), Catch::Contains("allow_unmaterialized_fires: stored false, given true"));
    CHECK_THAT(e.what(), Catch::Contains("approval_ttl: stored 0 ms, given 60000 ms"));
  }
  CHECK(rows_held(b) == before);
  // The stored policy restores, and the spent approval stays spent.
  int shipped = 0;
  gp::Session s({.require_human_approval = true, .store = b.open()});
  declare_ship(s, &shipped);
  CHECK(s.fire("ship", {.payload = {{"order", 7}}, .ask_id = "ask-1"}).reason == "APPROVAL_SPENT");
  CHECK(s.fire("ship").reason == "APPROVAL_REQUIRED");
  CHECK(shipped == 0);
}

// SessionOptions::policy_change changes it on purpose: one row, audited, never rendered.
template <class B>
void policy_change_is_one_audited_row(const B& b) {
  spent_approval(b, {});
  std::string block;
  {
    gp::Session s({.require_human_approval = true, .store = b.open()});
    declare_ship(s);
    block = s.ground_truth().text;
  }
  const std::size_t before = rows_held(b);
  {
    gp::Session s({.require_human_approval = true, .store = b.open(), .policy_change = "nothing changes"});
    declare_ship(s);
  }
  CHECK(rows_held(b) == before);  // a change that changes nothing writes nothing
  {
    gp::Session s(
        {.approval_ttl = std::chrono::hours(1), .store = b.open(), .policy_change = "trial ends: ops signs off"});
    declare_ship(s);
    CHECK(s.ground_truth().text == block);  // never in the block
  }
  const auto rows = all_rows(*b.open_read_only());
  REQUIRE(rows.size() == before + 1);
  const json change = json::parse(rows.back().body);
  CHECK(rows.back().kind == "pol");
  CHECK(change.at("why") == "trial ends: ops signs off");
  CHECK(change.at("po") == json{{"auf", false}, {"rha", false}, {"ttl", 3'600'000}});
  CHECK(change.at("was").at("po") == json{{"auf", false}, {"rha", true}, {"ttl", 0}});
  // From then on the new policy is the stored one.
  CHECK_NOTHROW(gp::Session({.approval_ttl = std::chrono::hours(1), .store = b.open()}));
  CHECK_THROWS_AS(gp::Session({.require_human_approval = true, .store = b.open()}), gp::ConfigurationError);
  CHECK(b.verify().ok);
}

// A store opened to read (an auditor, groundplane-ledger show) restores with the stored
// policy, whatever it is given, and checks nothing.
template <class B>
void read_only_restores_with_stored_policy(const B& b) {
  using namespace std::chrono;
  const system_clock::time_point t0{seconds(1'700'000'000)};
  system_clock::time_point now = t0;
  {
    gp::Session s(
        {.require_human_approval = true, .approval_ttl = seconds(10), .store = b.open(), .clock = [&] { return now; }});
    declare_ship(s);
    const auto ask = s.confirm_ask("ship", {{"order", 1}});
    s.approve_ask(ask.id, "ops");
  }
  const std::size_t before = rows_held(b);
  now = t0 + seconds(60);
  const gp::Session r({.store = b.open_read_only(), .clock = [&] { return now; }});
  // the stored approval_ttl (10 s), not the given 0 (never expires), ages the approval
  CHECK_THAT(r.ground_truth().text, Catch::Contains("Approved by the human, but stale now: ship (ask-1)."));
  CHECK(rows_held(b) == before);
}

// An action's high_effect and repeat rule are stored at its first declare and compared
// when it is declared again: re-declared without high_effect after a restart, it cannot
// skip its approvals.
template <class B>
void action_rules_kept(const B& b) {
  {
    gp::Session s({.require_human_approval = true, .store = b.open()});
    s.declare("refund", {.does = "Refund the order.",
                         .handler = ok_handler,
                         .high_effect = true,
                         .concurrency = gp::Concurrency::once});
    s.declare("note", {.does = "Save a note.", .handler = ok_handler});
  }
  const std::size_t before = rows_held(b);
  gp::Session s({.require_human_approval = true, .store = b.open()});
  try {
    s.declare("refund", {.does = "Refund the order.", .handler = ok_handler});
    FAIL("re-declared an action without its stored high_effect");
  } catch (const gp::ConfigurationError& e) {
    INFO(e.what());
    CHECK_THAT(e.what(), Catch::Contains("declare('refund')"));
    CHECK_THAT(e.what(), Catch::Contains("high_effect: stored true, given false"));
    CHECK_THAT(e.what(), Catch::Contains("concurrency: stored once, given parallel"));
  }
  CHECK(s.actions().empty());
  CHECK(s.fire("refund").reason == "UNKNOWN_AFFORDANCE");
  // Its other members are code and are not compared; the same rule declared again writes nothing.
  s.declare("refund", {.does = "Refund the whole order.",
                       .writes = {"refunded"},
                       .handler = ok_handler,
                       .high_effect = true,
                       .concurrency = gp::Concurrency::once});
  s.declare("note", {.does = "Save a note.", .handler = ok_handler});
  CHECK(rows_held(b) == before + 1);  // the refusal of the undeclared refund
  CHECK(s.fire("refund").reason == "APPROVAL_REQUIRED");
}

template <class B>
void action_rule_change_is_recorded(const B& b) {
  {
    gp::Session s({.require_human_approval = true, .store = b.open()});
    s.declare("refund", {.does = "Refund the order.", .handler = ok_handler, .high_effect = true});
  }
  const std::size_t before = rows_held(b);
  {
    gp::Session s({.require_human_approval = true, .store = b.open(), .policy_change = "refunds under 10 EUR"});
    s.declare("refund", {.does = "Refund the order.", .handler = ok_handler});
    CHECK(s.fire("refund").ok);
  }
  const auto rows = all_rows(*b.open_read_only());
  REQUIRE(rows.size() >= before + 1);
  const json change = json::parse(rows[before].body);
  CHECK(rows[before].kind == "pol");
  CHECK(change.at("ac") == json{{"refund", {{"cc", 0}, {"he", false}}}});
  CHECK(change.at("was").at("ac") == json{{"refund", {{"cc", 0}, {"he", true}}}});
  CHECK(change.at("why") == "refunds under 10 EUR");
  gp::Session s({.require_human_approval = true, .store = b.open()});
  CHECK_NOTHROW(s.declare("refund", {.does = "Refund the order.", .handler = ok_handler}));
}

// The policy in the first row rewritten (require_human_approval dropped) and the chain
// recomputed by someone without the key: refused at row 1 with the key, and by a kept
// head without it.
template <class B>
void rewritten_policy_refused(const B& b) {
  for (const std::string& key : {app_key, std::string()}) {
    INFO((key.empty() ? "unkeyed, with the kept head" : "keyed"));
    const std::string session = key.empty() ? "plain" : "default";
    std::string head;
    {
      gp::Session s({.require_human_approval = true, .store = b.open_as({.session = session, .key = key})});
      declare_ship(s);
      s.fire("note");
      head = s.head();
    }
    const auto rows = all_rows(*b.open_as({.session = session, .read_only = true, .key = key}));
    gp::detail::Sha256 sha;
    gp::RowHash prev = sha(gp::chain_genesis_bytes(b.name(session)));
    std::string sql;
    for (const auto& r : rows) {
      std::string body = r.body;
      if (r.seq == 1) {
        const auto at = body.find(R"("rha":true)");
        REQUIRE(at != std::string::npos);
        body.replace(at, 10, R"("rha":false)");
        if (!key.empty()) body = "{" + body.substr(body.find(',') + 1);  // the key id dropped too
      }
      prev = sha(as_text(prev) + gp::canonical_bytes(r.seq, r.version, r.kind, body));
      sql += "UPDATE groundplane_rows SET body = " + gp_test::sql_literal(body) +
             ", hash = " + b.hash_literal(gp::to_hex(prev)) + " WHERE session = " + b.key(session) +
             " AND seq = " + std::to_string(r.seq) + ";";
    }
    b.sql(sql);
    if (key.empty()) {
      CHECK(b.verify(session).ok);                                      // alone, a recomputed chain verifies...
      CHECK(b.verify(session, head).first_bad_row == rows.size() + 1);  // ...not past the kept head
      CHECK_THROWS_WITH(gp::Session({.store = b.open_as({.session = session, .expected_head = head})}),
                        Catch::Contains("first bad row " + std::to_string(rows.size() + 1) + ":"));
    } else {
      CHECK(b.verify(session, "", key).first_bad_row == 1);
      CHECK_THROWS_AS(b.open_as({.session = session, .key = key}), gp::LedgerStoreError);  // now unkeyed
    }
  }
}

// The same without the key and without a kept head: a policy row appended onto the real
// head to drop the approvals is read back as the stored policy — which the app's own
// policy then contradicts: the restore is refused, not weakened.
template <class B>
void appended_policy_row_refused_by_the_app(const B& b) {
  spent_approval(b, {});
  append_forged(b, "pol", R"({"po":{"auf":false,"rha":false,"ttl":0}})", "", "");
  CHECK(b.verify().ok);
  CHECK_THROWS_WITH(gp::Session({.require_human_approval = true, .store = b.open()}),
                    Catch::Contains("require_human_approval: stored false, given true"));
}

// An ask spent, then a decision appended onto the real head turning it back to approved,
// chained as the writer would chain it (no key, no kept head): no session writes that
// row, and the restore refuses it by name.
template <class B>
void appended_reapproval_refused_without_key(const B& b) {
  spent_approval(b, {});
  const std::uint64_t seq = append_forged(b, "qd", R"({"at":1700000000000000,"by":"ops","q":0,"rd":{},"s":1})", "", "");
  CHECK(b.verify().ok);  // the chain holds: it is the row that is impossible
  int shipped = 0;
  try {
    gp::Session s({.require_human_approval = true, .store = b.open()});
    declare_ship(s, &shipped);
    s.fire("ship", {.payload = {{"order", 7}}, .ask_id = "ask-1"});
    FAIL("restored a spent approval turned back to approved");
  } catch (const gp::LedgerStoreError& e) {
    INFO(e.what());
    CHECK_THAT(e.what(), Catch::Contains("row " + std::to_string(seq) + " (qd) turns ask-1 from spent to approved"));
  }
  CHECK(shipped == 0);
}

// ---- the store refuses what it did not write -------------------------------------------

// A trigger planted on the rows table before the store opens: the open is refused naming
// it, and the verifiers do not call the ledger intact.
template <class B>
void planted_trigger_refused_at_open(const B& b) {
  spent_approval(b, {});
  const std::uint64_t rows = b.verify().rows;
  b.plant_trigger("swallow", true);
  CHECK_THROWS_AS(b.open(), gp::LedgerStoreError);
  CHECK_THROWS_WITH(b.open(), Catch::Contains("trigger") && Catch::Contains("swallow"));
  const auto v = b.verify();
  CHECK_FALSE(v.ok);
  CHECK(v.rows == rows);
  CHECK(v.first_bad_row == rows + 1);
  CHECK_THAT(v.problem, Catch::Contains("swallow"));
  CHECK_THROWS_WITH(gp::Session({.require_human_approval = true, .store = b.open_read_only()}),
                    Catch::Contains("swallow"));
  CHECK(all_rows(*b.open_read_only()).size() == rows);  // an auditor still reads the rows
}

// A trigger planted while the store is open, swallowing every row: the fire that would
// spend the approval is a LedgerStoreError at that fire, its handler never runs, and
// after the trigger is gone and the app restarts, the approval is spent by one fire only.
template <class B>
void planted_trigger_refused_at_fire(const B& b) {
  int shipped = 0;
  for (const bool swallow : {true, false}) {
    INFO((swallow ? "a trigger that drops the row" : "a trigger that refuses the row"));
    const std::string trigger = swallow ? "planted_drop" : "planted_refuse";
    const int shipped_before = shipped;
    std::string ask_id;
    {
      gp::Session s({.require_human_approval = true, .store = b.open()});
      declare_ship(s, &shipped);
      const auto ask = s.confirm_ask("ship", {{"order", swallow ? 7 : 8}});
      REQUIRE(s.approve_ask(ask.id, "ops").ok);
      ask_id = ask.id;
      b.plant_trigger(trigger, swallow);
      try {
        s.fire("ship", {.payload = {{"order", swallow ? 7 : 8}}, .ask_id = ask.id});
        FAIL("a fire whose row a trigger swallowed returned");
      } catch (const gp::LedgerStoreError& e) {
        INFO(e.what());
        CHECK_THAT(e.what(), Catch::Contains("planted"));
        CHECK_THAT(e.what(), !Catch::Contains("another writer"));
      }
      CHECK(shipped == shipped_before);
    }
    CHECK_THROWS_WITH(b.open(), Catch::Contains(trigger));
    b.drop_trigger(trigger);
    gp::Session r({.require_human_approval = true, .store = b.open()});
    declare_ship(r, &shipped);
    CHECK(r.fire("ship", {.payload = {{"order", swallow ? 7 : 8}}, .ask_id = ask_id}).ok);
    CHECK(r.fire("ship", {.payload = {{"order", swallow ? 7 : 8}}, .ask_id = ask_id}).reason == "APPROVAL_SPENT");
    CHECK(b.verify().ok);
  }
  CHECK(shipped == 2);
}

// A row nested far past what the format allows, chained onto an unkeyed session's head as
// its writer would chain it: every reader refuses it by name, and none of them crashes.
template <class B>
void deep_row_refused_by_every_reader(const B& b) {
  spent_approval(b, {});
  const std::uint64_t written = all_rows(*b.open_read_only()).size();
  for (const std::size_t depth : {std::size_t{100'000}, std::size_t{1'000'000}}) {
    INFO(depth << " deep");
    b.sql("DELETE FROM groundplane_rows WHERE session = " + b.key("default") + " AND seq > " + std::to_string(written));
    const std::string body = R"({"dl":)" + std::string(depth, '[') + std::string(depth, ']') + "}";
    const std::uint64_t seq = append_forged(b, "s", body, "", "");
    const auto v = b.verify();
    CHECK(v.first_bad_row == seq);
    CHECK(v.rows == seq - 1);
    CHECK_THAT(v.problem, Catch::Contains("more than 512 deep"));
    for (const bool read_only : {false, true}) {
      INFO((read_only ? "read-only" : "writable"));
      CHECK_THROWS_WITH(
          gp::Session({.require_human_approval = true, .store = read_only ? b.open_read_only() : b.open()}),
          Catch::Contains("first bad row " + std::to_string(seq) + ":") && Catch::Contains("512"));
    }
#ifdef GROUNDPLANE_LEDGER_TOOL
    const std::string loc = "'" + b.location() + "' --session '" + b.name("default") + "'";
    for (const char* command : {"verify", "show", "export", "audit"}) {
      INFO(command);
      CHECK(run_tool(std::string(command) + " " + loc).code == 1);
    }
#endif
  }
}

// A restart row naming the largest index a file can hold: refused by the restore, and
// audit names it as it is, never as t-0.
template <class B>
void restart_past_the_ledger(const B& b) {
  spent_approval(b, {});
  const std::uint64_t seq = append_forged(b, "rs", R"({"t":[18446744073709551615],"w":[]})", "", "");
  CHECK(b.verify().ok);  // the chain holds: it is the row that is impossible
  CHECK_THROWS_WITH(
      gp::Session({.require_human_approval = true, .store = b.open()}),
      Catch::Contains("row " + std::to_string(seq) + " (rs)") && Catch::Contains("t-18446744073709551616"));
#ifdef GROUNDPLANE_LEDGER_TOOL
  const auto audit = run_tool("audit '" + b.location() + "' --session '" + b.name("default") + "'");
  CHECK(audit.code == 0);
  CHECK_THAT(audit.out, Catch::Contains("t-18446744073709551616"));
  CHECK_THAT(audit.out, !Catch::Contains("t-0"));
  const auto show = run_tool("show '" + b.location() + "' --session '" + b.name("default") + "'");
  CHECK(show.code == 1);  // it verifies, but no session writes that row: tampered
  CHECK_THAT(show.out, Catch::Contains("t-18446744073709551616"));
#endif
}

#ifdef GROUNDPLANE_LEDGER_TOOL
// groundplane-ledger takes the key from a file, and only from a file.
template <class B>
void tool_with_key_file(const B& b) {
  const std::string head = spent_approval(b, {.key = app_key});
  gp_test::TempLedger key_file{"key"};
  gp_test::TempLedger thief_file{"key"};
  std::ofstream(key_file.path(), std::ios::binary) << app_key;
  std::ofstream(thief_file.path(), std::ios::binary) << thief_key;
  const std::string loc = "'" + b.location() + "' --session '" + b.name("default") + "'";
  const std::string with_key = " --key-file '" + key_file.str() + "'";
  const auto intact = run_tool("verify " + loc + with_key);
  CHECK(intact.code == 0);
  CHECK_THAT(intact.out, Catch::Contains("keyed, key id " + key_id_of(app_key)));
  CHECK(run_tool("verify " + loc + with_key + " --head " + head).code == 0);
  const auto keyless = run_tool("verify " + loc);
  CHECK(keyless.code == 2);
  CHECK_THAT(keyless.out, Catch::Contains("keyed (key id " + key_id_of(app_key) + ")"));
  CHECK(run_tool("verify " + loc + " --head " + head).code == 1);
  CHECK(run_tool("verify " + loc + " --key-file '" + thief_file.str() + "'").code == 1);
  for (const char* command : {"show", "export", "audit"}) {
    INFO(command);
    CHECK(run_tool(std::string(command) + " " + loc + with_key).code == 0);
    const auto unverified = run_tool(std::string(command) + " " + loc);
    CHECK(unverified.code == 2);  // read, but nothing in it vouched for
    CHECK_THAT(unverified.out, Catch::Contains("no key was given"));
    CHECK(unverified.out.size() > 200);  // what the rows say is printed below the warning
  }
  const std::uint64_t seq = append_forged(b, "sg", R"({"a":"ship","by":"ops","on":1})");
  const auto tampered = run_tool("verify " + loc + with_key + " --head " + head);
  CHECK(tampered.code == 1);
  CHECK_THAT(tampered.out, Catch::Contains("first bad row " + std::to_string(seq)));
  // The key is never taken from the command line.
  CHECK(run_tool("verify " + loc + " --key '" + app_key + "'").code == 2);
}
#endif

}  // namespace

GP_STORE_CASE(
    "a keyed chain hashes every row with HMAC-SHA256 from the unkeyed genesis, its first row naming the key id",
    keyed_chain_is_hmac)
GP_STORE_CASE("a keyed session opened without its key or with another, or an unkeyed one opened with a key, is refused",
              keyed_open_refusals)
GP_STORE_CASE(
    "verified without its key a keyed chain is never intact, and with another key it fails at row 1 naming both",
    keyless_verification)
GP_STORE_CASE("a keyed session whose key is lost is read only and never restored without it", lost_key_reads_only)
GP_STORE_CASE(
    "with a key and a kept head, a decision appended onto the real head turning a spent ask back to approved is "
    "refused "
    "at its row",
    appended_reapproval_refused)
GP_STORE_CASE("with a key, a standing grant appended onto the real head is refused at its row", appended_grant_refused)
#ifdef GROUNDPLANE_LEDGER_TOOL
GP_STORE_CASE("groundplane-ledger verifies a keyed chain with --key-file, and without it says it cannot",
              tool_with_key_file)
#endif
GP_STORE_CASE(
    "a session restored with another policy than the one stored is refused naming each member, and nothing "
    "is written",
    restore_with_another_policy_refused)
GP_STORE_CASE(
    "policy_change changes the stored policy on purpose in one audited row, and one that changes nothing "
    "writes nothing",
    policy_change_is_one_audited_row)
GP_STORE_CASE("a store opened to read restores with the stored policy and checks nothing",
              read_only_restores_with_stored_policy)
GP_STORE_CASE("an action re-declared after a restart without its stored high_effect or repeat rule is refused",
              action_rules_kept)
GP_STORE_CASE("policy_change records an action's weaker rule in one row", action_rule_change_is_recorded)
GP_STORE_CASE(
    "a policy rewritten in the first row and the chain recomputed is refused with the key, and past a kept "
    "head",
    rewritten_policy_refused)
GP_STORE_CASE("a policy row appended without the key is read back, and the app's own policy refuses it",
              appended_policy_row_refused_by_the_app)
GP_STORE_CASE(
    "without a key or a kept head, a decision appended onto the real head turning a spent ask back to "
    "approved is refused at its row",
    appended_reapproval_refused_without_key)
GP_STORE_CASE_OWN_TABLES(
    "a trigger planted on the rows table is refused by name when the store opens, and verify "
    "does not call the ledger intact",
    planted_trigger_refused_at_open)
GP_STORE_CASE_OWN_TABLES(
    "a trigger planted while the store is open makes that fire a LedgerStoreError naming it, "
    "its handler never run",
    planted_trigger_refused_at_fire)

// ---- PostgreSQL: what else can stand between the store and its tables ------------------

namespace {

// A ledger in a schema of its own, its session's rows written; then `plant` is run in
// that schema (or beside it), and opening the store must be refused saying `names`.
void postgres_open_refused(const std::function<void(const gp_test::OwnSchema&)>& plant,
                           const std::vector<std::string>& names, const std::string& search_path_extra = "") {
  const auto uri = gp_test::postgres_uri();
  if (!uri) return;
  const gp_test::OwnSchema own(*uri, "pg");
  {
    gp::Session s({.store = gp::open_postgres_store(own.uri(), {.session = "s"})});
    s.declare("note", {.does = "Save a note.", .handler = ok_handler});
    s.fire("note");
  }
  plant(own);
  const std::string where =
      search_path_extra.empty() ? own.uri() : gp_test::with_search_path(*uri, search_path_extra + "," + own.name());
  for (const bool read_only : {false, true}) {
    INFO((read_only ? "read-only" : "writable"));
    try {
      gp::Session s({.store = gp::open_postgres_store(where, {.session = "s", .read_only = read_only})});
      FAIL("restored a ledger holding what the store did not create");
    } catch (const gp::LedgerStoreError& e) {
      INFO(e.what());
      for (const auto& name : names) CHECK_THAT(e.what(), Catch::Contains(name));
    }
  }
  const auto v = gp::verify_postgres_ledger(where, "s");
  CHECK_FALSE(v.ok);
  CHECK(v.first_bad_row >= 1);
  for (const auto& name : names) CHECK_THAT(v.problem, Catch::Contains(name));
}

}  // namespace

TEST_CASE("PostgreSQL: a rule on the rows table is refused by name", "[store][postgres]") {
  postgres_open_refused(
      [](const gp_test::OwnSchema& own) {
        gp_test::postgres_sql(own.uri(), "CREATE RULE swallow AS ON INSERT TO groundplane_rows DO INSTEAD NOTHING");
      },
      {"rule", "swallow"});
}

TEST_CASE("PostgreSQL: row-level security on the rows table, and its policies, are refused by name",
          "[store][postgres]") {
  postgres_open_refused(
      [](const gp_test::OwnSchema& own) {
        gp_test::postgres_sql(own.uri(),
                              "ALTER TABLE groundplane_rows ENABLE ROW LEVEL SECURITY;"
                              "CREATE POLICY hide_decisions ON groundplane_rows USING (kind <> 'qd')");
      },
      {"row-level security", "hide_decisions"});
}

TEST_CASE("PostgreSQL: a table inheriting the rows table is refused by name", "[store][postgres]") {
  postgres_open_refused(
      [](const gp_test::OwnSchema& own) {
        gp_test::postgres_sql(own.uri(), "CREATE TABLE more_rows () INHERITS (groundplane_rows)");
      },
      {"more_rows"});
}

TEST_CASE("PostgreSQL: a relation named like a ledger table earlier on the search_path is refused by name",
          "[store][postgres]") {
  const auto uri = gp_test::postgres_uri();
  if (!uri) return;
  const gp_test::OwnSchema shadow(*uri, "shadow");
  postgres_open_refused(
      [&](const gp_test::OwnSchema&) {
        gp_test::postgres_sql(shadow.uri(), "CREATE VIEW groundplane_rows AS SELECT 1 AS seq");
      },
      {shadow.name() + ".groundplane_rows"}, shadow.name());
}

TEST_CASE("PostgreSQL: a trigger planted while the store is open is refused at the next append, not taken for a move",
          "[store][postgres]") {
  const auto uri = gp_test::postgres_uri();
  if (!uri) return;
  const gp_test::OwnSchema own(*uri, "pgtrig");
  const auto store = gp::open_postgres_store(own.uri(), {.session = "s"});
  fill(*store, 2);
  gp_test::postgres_sql(
      own.uri(),
      "CREATE FUNCTION later_f() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NULL; END$$;"
      "CREATE TRIGGER later AFTER INSERT ON groundplane_rows FOR EACH ROW EXECUTE FUNCTION later_f()");
  try {
    fill(*store, 1, 3);
    FAIL("an append returned with a trigger on the rows table");
  } catch (const gp::SessionMoved& e) {
    FAIL("taken for a move: " << e.what());
  } catch (const gp::LedgerStoreError& e) {
    CHECK_THAT(e.what(), Catch::Contains("later"));
  }
  CHECK(all_rows(*gp::open_postgres_store(own.uri(), {.session = "s", .read_only = true})).size() == 2);
}

GP_STORE_CASE(
    "a row nested 100,000 and 1,000,000 deep fails verification at its row, is refused by the restore and "
    "makes every groundplane-ledger command exit 1, never crash",
    deep_row_refused_by_every_reader)
GP_STORE_CASE("a restart row naming fire index 2^64-1 is refused by the restore, and audit names it as it is",
              restart_past_the_ledger)
