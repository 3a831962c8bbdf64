// The stores every store test runs against, behind one interface: an SQLite file and
// PostgreSQL (GROUNDPLANE_POSTGRES_URI; without it the PostgreSQL cases print a SKIPPED
// line). A case is written once as a template over the backend and registered for both
// with GP_STORE_CASE. Used by test_store_suite.cpp and test_store_tamper.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <groundplane/store/postgres.hpp>
#include <groundplane/store/sqlite.hpp>

#include "postgres_fixtures.hpp"
#include "store_fixtures.hpp"

namespace gp_test {

namespace gp = groundplane;
using nlohmann::json;

// What a test opens a store with, whichever store it is.
struct StoreOpen {
  std::string session = "default";
  bool read_only = false;
  std::string expected_head = "";
  std::string key = "";
  bool synchronous_commit = true;
};

class SqliteBackend {
 public:
  // Fires before resident memory is first measured: SQLite's page cache (2 MiB by
  // default) grows with the file until it is full.
  static constexpr std::size_t warm_up_fires = 20'000;
  std::string name(const std::string& session) const { return session; }
  std::shared_ptr<gp::LedgerStore> open(const std::string& session = "default") const {
    return gp::open_sqlite_store(file_.path(), {.session = session});
  }
  std::shared_ptr<gp::LedgerStore> open_read_only(const std::string& session = "default") const {
    return gp::open_sqlite_store(file_.path(), {.session = session, .read_only = true});
  }
  // A store opened with the head the app kept: the stored chain must pass through it.
  std::shared_ptr<gp::LedgerStore> open_trusting(const std::string& head, bool read_only = false) const {
    return gp::open_sqlite_store(file_.path(), {.read_only = read_only, .expected_head = head});
  }
  // A commit that returns before it reaches the disk: for the cases that are about what
  // a session holds in memory, not about durability (and must stay fast).
  std::shared_ptr<gp::LedgerStore> open_unflushed(const std::string& session = "default") const {
    return gp::open_sqlite_store(file_.path(), {.session = session, .synchronous_commit = false});
  }
  std::shared_ptr<gp::LedgerStore> open_as(const StoreOpen& o) const {
    return gp::open_sqlite_store(file_.path(), {.session = o.session,
                                                .read_only = o.read_only,
                                                .expected_head = o.expected_head,
                                                .synchronous_commit = o.synchronous_commit,
                                                .key = o.key});
  }
  gp::LedgerVerification verify(const std::string& session = "default", const std::string& head = "",
                                const std::string& chain_key = "") const {
    return gp::verify_sqlite_ledger(file_.path(), session, head, chain_key);
  }
  // The value groundplane_rows.session holds for a session.
  std::string key(const std::string& session) const {
    return "(SELECT id FROM groundplane_sessions WHERE name = " + gp_test::sql_literal(session) + ")";
  }
  std::string hash_literal(const std::string& hex) const { return "X'" + hex + "'"; }
  void sql(const std::string& statement) const { gp_test::raw_sql(file_.path(), statement); }
  // A trigger on the rows table that drops each row written (swallow) or refuses it.
  void plant_trigger(const std::string& name, bool swallow) const {
    sql("CREATE TRIGGER " + name + " BEFORE INSERT ON groundplane_rows BEGIN SELECT RAISE(" +
        (swallow ? "IGNORE" : "ABORT, 'no'") + "); END");
  }
  void drop_trigger(const std::string& name) const { sql("DROP TRIGGER " + name); }
  std::string location() const { return file_.str(); }

 private:
  gp_test::TempLedger file_{"suite"};
};

class PostgresBackend {
 public:
  static constexpr std::size_t warm_up_fires = 2'000;
  explicit PostgresBackend(std::string uri) : uri_(std::move(uri)), prefix_(gp_test::unique_session("suite") + "-") {}
  // In a schema of its own (first on its search_path), for the cases that change the
  // ledger's tables themselves.
  PostgresBackend(const std::string& uri, const char* stem)
      : own_(std::make_shared<OwnSchema>(uri, stem)),
        uri_(own_->uri()),
        prefix_(gp_test::unique_session("suite") + "-") {}
  std::string name(const std::string& session) const { return prefix_ + session; }
  std::shared_ptr<gp::LedgerStore> open(const std::string& session = "default") const {
    return gp::open_postgres_store(uri_, {.session = name(session)});
  }
  std::shared_ptr<gp::LedgerStore> open_read_only(const std::string& session = "default") const {
    return gp::open_postgres_store(uri_, {.session = name(session), .read_only = true});
  }
  std::shared_ptr<gp::LedgerStore> open_trusting(const std::string& head, bool read_only = false) const {
    return gp::open_postgres_store(uri_, {.session = name("default"), .read_only = read_only, .expected_head = head});
  }
  std::shared_ptr<gp::LedgerStore> open_unflushed(const std::string& session = "default") const {
    return gp::open_postgres_store(uri_, {.session = name(session), .synchronous_commit = false});
  }
  std::shared_ptr<gp::LedgerStore> open_as(const StoreOpen& o) const {
    return gp::open_postgres_store(uri_, {.session = name(o.session),
                                          .read_only = o.read_only,
                                          .synchronous_commit = o.synchronous_commit,
                                          .expected_head = o.expected_head,
                                          .key = o.key});
  }
  gp::LedgerVerification verify(const std::string& session = "default", const std::string& head = "",
                                const std::string& chain_key = "") const {
    return gp::verify_postgres_ledger(uri_, name(session), head, chain_key);
  }
  std::string key(const std::string& session) const { return gp_test::sql_literal(name(session)); }
  std::string hash_literal(const std::string& hex) const { return "decode('" + hex + "', 'hex')"; }
  void sql(const std::string& statement) const { gp_test::postgres_sql(uri_, statement); }
  std::string location() const { return uri_; }
  // A trigger on the rows table (which must be this backend's own schema's) that drops each
  // row written (swallow: its function returns NULL) or refuses it.
  void plant_trigger(const std::string& name, bool swallow) const {
    sql("CREATE FUNCTION " + name + "_f() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN " +
        (swallow ? "RETURN NULL;" : "RAISE EXCEPTION 'no';") + " END$$; CREATE TRIGGER " + name +
        " BEFORE INSERT ON groundplane_rows FOR EACH ROW EXECUTE FUNCTION " + name + "_f()");
  }
  void drop_trigger(const std::string& name) const { sql("DROP TRIGGER " + name + " ON groundplane_rows"); }

 private:
  std::shared_ptr<OwnSchema> own_;  // when in a schema of its own
  std::string uri_;
  std::string prefix_;
};

// n rows, row k carrying version k - 1 and a body naming k.
inline gp::LedgerHead fill(gp::LedgerStore& store, int n, int from = 1) {
  gp::LedgerHead head;
  for (int k = from; k < from + n; ++k) {
    const gp::LedgerRow row{static_cast<std::uint64_t>(k - 1), "fire",
                            json{{"a", "act-" + std::to_string(k)}, {"k", k}}};
    head = store.append(std::span(&row, 1));
  }
  return head;
}

inline std::vector<gp::StoredRow> all_rows(const gp::LedgerStore& store) {
  std::vector<gp::StoredRow> out;
  store.read(1, [&](const gp::StoredRow& r) {
    out.push_back(r);
    return true;
  });
  return out;
}

}  // namespace gp_test

// Each case twice: on an SQLite file, and on PostgreSQL (skipped, and said so, when no
// server was given).
#define GP_STORE_CASE_TAGGED(sentence, tags, fn)                 \
  TEST_CASE("SQLite: " sentence, "[store][sqlite]" tags) {       \
    const gp_test::SqliteBackend b;                              \
    fn(b);                                                       \
  }                                                              \
  TEST_CASE("PostgreSQL: " sentence, "[store][postgres]" tags) { \
    const auto uri = gp_test::postgres_uri();                    \
    if (!uri) return;                                            \
    const gp_test::PostgresBackend b(*uri);                      \
    fn(b);                                                       \
  }
#define GP_STORE_CASE(sentence, fn) GP_STORE_CASE_TAGGED(sentence, "", fn)
// The same, for cases that change the ledger's tables themselves: on PostgreSQL in a
// schema of its own.
#define GP_STORE_CASE_OWN_TABLES(sentence, fn)              \
  TEST_CASE("SQLite: " sentence, "[store][sqlite]") {       \
    const gp_test::SqliteBackend b;                         \
    fn(b);                                                  \
  }                                                         \
  TEST_CASE("PostgreSQL: " sentence, "[store][postgres]") { \
    const auto uri = gp_test::postgres_uri();               \
    if (!uri) return;                                       \
    const gp_test::PostgresBackend b(*uri, "tamper");       \
    fn(b);                                                  \
  }
