// The ledger in PostgreSQL (or a Postgres-protocol distributed database): the same rows,
// hash chain and verification as the SQLite store (store/ledger_store.hpp), so any
// replica of an app can restore any session, and one writer per session is enforced by
// the database itself. CMake: groundplane::postgres (libpq + OpenSSL::Crypto);
// header-only like the rest, so `c++ app.cpp -lpq -lcrypto` is all a build needs.
//
//   auto store = gp::open_postgres_store("postgresql://app@db/app", {.session = user_id});
//   gp::Session s({.store = store});   // restored if the database holds user_id
//
// One writer per session: opening a writable store takes the session's lease, a row in
// groundplane_sessions carrying an epoch that only grows. Every append is one statement
// that reads the session's row *only if the epoch is still this store's* (renewing the
// lease, or under a share lock when it was renewed recently) and inserts the rows joined
// to that read: a store whose lease was taken over inserts nothing, and its append throws
// SessionMoved. The renewal rides on a write (no extra round trip on a busy session);
// an idle store renews from a background thread. Opening blocks while
// another live store holds the lease, and takes over (epoch + 1) once it is released or
// has expired. Expiry is judged by the database's clock alone.
//
// Plain SQL (no extension, no advisory locks, no LISTEN), so it runs unchanged on
// PostgreSQL and on Postgres-protocol distributed databases. See docs/ledger-store.md.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <libpq-fe.h>
#include <unistd.h>

#include "groundplane/detail/text/escape.hpp"
#include "groundplane/store/chain.hpp"
#include "groundplane/store/ledger_store.hpp"

namespace groundplane {

// This process no longer owns the session: another store took its lease over (this one
// was paused, partitioned or too slow to renew). Nothing this store tried to write after
// that is in the ledger; reopen the session to continue from what the new owner wrote.
class SessionMoved : public LedgerStoreError {
 public:
  using LedgerStoreError::LedgerStoreError;
};

struct PostgresStoreOptions {
  std::string session = "default";
  std::chrono::milliseconds lease{10'000};  // how long an owner holds a session without renewing
  bool read_only = false;                   // for auditing: no lease is taken, append() throws
  bool synchronous_commit = true;           // false: a commit returns before its WAL is flushed —
                                            // survives an app crash, may lose the last rows if
                                            // the database server crashes
  // A head the app kept (GroundTruth::head, published earlier): a Session restored on this
  // store refuses a stored chain that does not pass through it (LedgerStoreError), so a
  // chain rewritten and recomputed after it is caught. "": the chain is verified alone.
  std::string expected_head = "";
  // A secret the app holds (at least 16 bytes; "" for none): each row's hash is then
  // HMAC-SHA256 under it, as SqliteStoreOptions::key says.
  std::string key = "";
};

namespace detail {

// The ledger format this release writes (store/ledger_store.hpp), kept in
// groundplane_schema; as for the SQLite store, an older database is marked with this
// version once a writable store opens it, and a newer one is refused.
inline constexpr std::int64_t postgres_schema_version = ledger_format_version;

struct PgConnCloser {
  void operator()(PGconn* c) const noexcept { PQfinish(c); }
};
struct PgResultClear {
  void operator()(PGresult* r) const noexcept { PQclear(r); }
};
using PgConn = std::unique_ptr<PGconn, PgConnCloser>;
using PgResult = std::unique_ptr<PGresult, PgResultClear>;

// A failed statement: the server's SQLSTATE ("" when the connection itself failed).
class PostgresError : public LedgerStoreError {
 public:
  PostgresError(const std::string& what, std::string sqlstate)
      : LedgerStoreError(what), sqlstate_(std::move(sqlstate)) {}
  const std::string& sqlstate() const noexcept { return sqlstate_; }
  // Serialization failure or deadlock: nothing was committed, the statement may be retried.
  bool retryable() const noexcept { return sqlstate_ == "40001" || sqlstate_ == "40P01"; }

 private:
  std::string sqlstate_;
};

inline PgConn pg_connect(const std::string& conninfo) {
  PgConn conn(PQconnectdb(conninfo.c_str()));
  if (!conn) throw LedgerStoreError("libpq could not allocate a connection");
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    std::string msg = PQerrorMessage(conn.get());
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    throw LedgerStoreError("cannot connect to PostgreSQL: " + msg);
  }
  // A library does not print: the server's notices ("relation already exists, skipping")
  // go nowhere.
  PQsetNoticeProcessor(
      conn.get(), [](void*, const char*) {}, nullptr);
  return conn;
}

// Runs one statement with text parameters; results in binary (integers big-endian,
// text and bytea as their bytes). Throws PostgresError on failure.
inline PgResult pg_check(PGconn* conn, PgResult r) {
  const ExecStatusType st = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
  if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) return r;
  const char* state = r ? PQresultErrorField(r.get(), PG_DIAG_SQLSTATE) : nullptr;
  std::string msg = r ? PQresultErrorMessage(r.get()) : PQerrorMessage(conn);
  if (msg.empty()) msg = PQerrorMessage(conn);
  while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
  throw PostgresError("PostgreSQL: " + msg, state ? state : "");
}

// Runs a statement prepared on this connection (see pg_prepare) with text parameters.
inline PgResult pg_exec_prepared(PGconn* conn, const char* name, std::span<const std::string> params) {
  std::vector<const char*> values;
  std::vector<int> lengths;
  values.reserve(params.size());
  lengths.reserve(params.size());
  for (const std::string& p : params) {
    values.push_back(p.c_str());
    lengths.push_back(static_cast<int>(p.size()));
  }
  return pg_check(conn, PgResult(PQexecPrepared(conn, name, static_cast<int>(params.size()), values.data(),
                                                lengths.data(), nullptr, 1)));
}

// Parsed and planned once per connection: the hot statements then cost the server only
// their execution.
inline void pg_prepare(PGconn* conn, const char* name, const char* sql, int params) {
  pg_check(conn, PgResult(PQprepare(conn, name, sql, params, nullptr)));
}

inline PgResult pg_exec(PGconn* conn, const char* sql, std::span<const std::string> params = {}) {
  std::vector<const char*> values;
  std::vector<int> lengths;
  values.reserve(params.size());
  lengths.reserve(params.size());
  for (const std::string& p : params) {
    values.push_back(p.c_str());
    lengths.push_back(static_cast<int>(p.size()));
  }
  return pg_check(conn, PgResult(PQexecParams(conn, sql, static_cast<int>(params.size()), nullptr, values.data(),
                                              lengths.data(), nullptr, 1)));
}

// Runs statements without parameters (several, separated by semicolons, as one unit).
inline void pg_run(PGconn* conn, const char* sql) { pg_check(conn, PgResult(PQexec(conn, sql))); }

inline std::string_view pg_bytes(const PGresult* r, int row, int col) noexcept {
  if (PQgetisnull(r, row, col)) return {};
  return {PQgetvalue(r, row, col), static_cast<std::size_t>(PQgetlength(r, row, col))};
}

// A binary int8/int4 column.
inline std::int64_t pg_int(const PGresult* r, int row, int col) {
  const std::string_view b = pg_bytes(r, row, col);
  if (b.size() != 8 && b.size() != 4) throw LedgerStoreError("PostgreSQL returned an integer of unexpected width");
  std::uint64_t v = 0;
  for (const char c : b) v = (v << 8) | static_cast<unsigned char>(c);
  if (b.size() == 4) return static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
  return static_cast<std::int64_t>(v);
}

// One element of a text[] literal: quoted, with " and \ escaped.
inline void pg_array_element(std::string& out, std::string_view text) {
  out.push_back('"');
  for (const char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
}

// Reads one row from a result selecting (seq, version, kind, body, hash), into a row
// reused from one to the next: its strings keep their capacity.
inline const StoredRow& pg_row(const PGresult* r, int i, StoredRow& row) {
  row.seq = static_cast<std::uint64_t>(pg_int(r, i, 0));
  row.version = static_cast<std::uint64_t>(pg_int(r, i, 1));
  row.kind.assign(pg_bytes(r, i, 2));
  row.body.assign(pg_bytes(r, i, 3));
  const std::string_view h = pg_bytes(r, i, 4);
  if (h.size() == row.hash.size()) std::memcpy(row.hash.data(), h.data(), h.size());
  else row.hash.fill(0);  // cannot match any SHA-256 the chain expects
  return row;
}

// An identifier quoted for SQL ("..." with " doubled), and text as an SQL literal.
inline std::string pg_identifier(std::string_view name) {
  std::string out = "\"";
  for (const char c : name) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  return out + "\"";
}
inline std::string pg_literal(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'') out.push_back('\'');
    out.push_back(c);
  }
  return out + "'";
}

// The ledger's three tables, each name qualified by the schema that holds them: the
// store names nothing unqualified, so no relation or function on the search_path can
// stand in for its own (docs/ledger-format.md, "Schema objects").
struct PgTables {
  std::string schema;                   // the schema's name
  std::string version, sessions, rows;  // "schema".groundplane_schema, ... as SQL
  std::string problem;                  // what stands between the store and them; "" for nothing
};

inline PgTables pg_tables_in(std::string schema) {
  PgTables t;
  const std::string q = pg_identifier(schema);
  t.schema = std::move(schema);
  t.version = q + ".groundplane_schema";
  t.sessions = q + ".groundplane_sessions";
  t.rows = q + ".groundplane_rows";
  return t;
}

// Where the ledger is: the first schema on the connection's search_path holding all three
// tables as tables; nullopt when none does. Any other relation named like one of them on
// the search_path (a view, a table in another schema, an index) is the `problem`: to
// anyone reading the ledger by the unqualified names, it stands in for the ledger's own.
inline std::optional<PgTables> pg_find_tables(PGconn* conn) {
  const PgResult r = pg_exec(conn,
                             "SELECT n.nspname, c.relname, c.relkind = 'r'"
                             " FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
                             " WHERE c.relname IN ('groundplane_schema', 'groundplane_sessions', 'groundplane_rows')"
                             " AND n.nspname = ANY (pg_catalog.current_schemas(false))"
                             " ORDER BY pg_catalog.array_position(pg_catalog.current_schemas(false), n.nspname),"
                             " c.relname");
  struct Found {
    std::string schema, name;
    bool table;
  };
  std::vector<Found> found;
  found.reserve(static_cast<std::size_t>(PQntuples(r.get())));
  for (int i = 0; i < PQntuples(r.get()); ++i)
    found.push_back({std::string(pg_bytes(r.get(), i, 0)), std::string(pg_bytes(r.get(), i, 1)),
                     pg_bytes(r.get(), i, 2) == std::string_view("\x01", 1)});
  std::optional<std::string> home;
  for (std::size_t i = 0; i < found.size() && !home; ++i) {
    const auto tables = std::count_if(found.begin(), found.end(),
                                      [&](const Found& f) { return f.schema == found[i].schema && f.table; });
    if (tables == 3) home = found[i].schema;
  }
  if (!home) {
    if (found.empty()) return std::nullopt;
    PgTables none;  // names taken, no ledger: the store creates none beside them
    none.problem = "the search_path holds relations named like the ledger's tables, but no ledger:";
    for (const Found& f : found) none.problem += " " + escape(f.schema, 60) + "." + f.name;
    return none;
  }
  PgTables t = pg_tables_in(*home);
  std::string others;
  for (const Found& f : found)
    if (f.schema != *home) others += (others.empty() ? "" : ", ") + escape(f.schema, 60) + "." + f.name;
  if (!others.empty())
    t.problem = "relations named like the ledger's tables stand beside them on the search_path (the ledger is in " +
                escape(*home, 60) + "): " + others;
  return t;
}

// What is on the ledger's tables that the store did not create — a trigger, a rule,
// row-level security and its policies, a table inheriting one or inherited by one — each
// named; "" for nothing. Any of them can drop, rewrite or hide rows.
inline std::string pg_foreign_objects(PGconn* conn, const PgTables& t) {
  const std::string tables = "ARRAY[" + pg_literal(t.version) + ", " + pg_literal(t.sessions) + ", " +
                             pg_literal(t.rows) + "]::pg_catalog.regclass[]";
  const std::string sql =
      "WITH ours AS (SELECT pg_catalog.unnest(" + tables +
      ")::pg_catalog.oid AS oid)"
      " SELECT 'trigger', t.tgname::text, c.relname::text FROM pg_catalog.pg_trigger t"
      " JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid WHERE t.tgrelid IN (SELECT oid FROM ours) AND NOT "
      "t.tgisinternal"
      " UNION ALL SELECT 'rule', r.rulename::text, c.relname::text FROM pg_catalog.pg_rewrite r"
      " JOIN pg_catalog.pg_class c ON c.oid = r.ev_class WHERE r.ev_class IN (SELECT oid FROM ours)"
      " UNION ALL SELECT 'row-level security', c.relname::text, c.relname::text FROM pg_catalog.pg_class c"
      " WHERE c.oid IN (SELECT oid FROM ours) AND (c.relrowsecurity OR c.relforcerowsecurity)"
      " UNION ALL SELECT 'policy', p.polname::text, c.relname::text FROM pg_catalog.pg_policy p"
      " JOIN pg_catalog.pg_class c ON c.oid = p.polrelid WHERE p.polrelid IN (SELECT oid FROM ours)"
      " UNION ALL SELECT 'inheriting table', k.relname::text, c.relname::text FROM pg_catalog.pg_inherits i"
      " JOIN pg_catalog.pg_class k ON k.oid = i.inhrelid JOIN pg_catalog.pg_class c ON c.oid = i.inhparent"
      " WHERE i.inhparent IN (SELECT oid FROM ours) OR i.inhrelid IN (SELECT oid FROM ours)"
      " ORDER BY 1, 2";
  const PgResult r = pg_exec(conn, sql.c_str());
  std::string found;
  for (int i = 0; i < PQntuples(r.get()); ++i)
    found += std::string(found.empty() ? "" : "; ") + std::string(pg_bytes(r.get(), i, 0)) + " \"" +
             escape(pg_bytes(r.get(), i, 1), 80) + "\" on " + std::string(pg_bytes(r.get(), i, 2));
  if (found.empty()) return {};
  return "the database holds objects on the ledger's tables that groundplane did not create: " + found +
         " (they can drop, rewrite or hide rows)";
}

// What the ledger's tables hold that the store did not create, or that stands beside them.
inline std::string pg_problems(PGconn* conn, const PgTables& t) {
  std::string foreign = pg_foreign_objects(conn, t);
  if (t.problem.empty()) return foreign;
  return foreign.empty() ? t.problem : t.problem + "; " + foreign;
}

// From here on the connection resolves every unqualified function and operator in
// pg_catalog alone: nothing an attacker puts on the search_path runs in place of them.
inline void pg_pin_search_path(PGconn* conn) {
  pg_run(conn, "SELECT pg_catalog.set_config('search_path', 'pg_catalog', false)");
}

// Creates the tables when absent (in the first schema on the search_path), or checks the
// version of those there, and returns where they are. Rows are keyed by (session, seq):
// the key itself refuses a second row at one position, and a session's rows sit together
// (on a distributed database, in one range).
inline PgTables pg_prepare_schema(PGconn* conn) {
  std::optional<PgTables> tables = pg_find_tables(conn);
  // Many processes may create the tables at once; the loser of that race sees a
  // duplicate and finds the tables there on its next try.
  for (int attempt = 0; !tables; ++attempt) {
    const PgResult here = pg_exec(conn, "SELECT pg_catalog.current_schema()");
    if (PQntuples(here.get()) != 1 || PQgetisnull(here.get(), 0, 0))
      throw LedgerStoreError("the connection's search_path names no schema that exists, to create the ledger in");
    const PgTables t = pg_tables_in(std::string(pg_bytes(here.get(), 0, 0)));
    static_assert(postgres_schema_version == 3, "the CREATE below inserts the version this release writes");
    const std::string create = "CREATE TABLE IF NOT EXISTS " + t.version +
                               "(version integer NOT NULL);"
                               "CREATE TABLE IF NOT EXISTS " +
                               t.sessions +
                               "( name text PRIMARY KEY, epoch bigint NOT NULL DEFAULT 0,"
                               " owner text, lease_until timestamptz);"
                               "CREATE TABLE IF NOT EXISTS " +
                               t.rows +
                               "( session text NOT NULL, seq bigint NOT NULL, version bigint NOT NULL,"
                               " kind text NOT NULL, body text NOT NULL, hash bytea NOT NULL,"
                               " PRIMARY KEY (session, seq));"
                               "INSERT INTO " +
                               t.version + "(version) SELECT 3 WHERE NOT EXISTS (SELECT 1 FROM " + t.version + ")";
    try {
      pg_run(conn, create.c_str());
    } catch (const PostgresError& e) {
      if (attempt >= 5 || (e.sqlstate() != "23505" && e.sqlstate() != "42P07" && !e.retryable())) throw;
    }
    tables = pg_find_tables(conn);
  }
  if (!tables->problem.empty() && tables->rows.empty()) throw LedgerStoreError(tables->problem);
  const PgResult v = pg_exec(conn, ("SELECT max(version) FROM " + tables->version).c_str());
  const std::int64_t found = PQntuples(v.get()) == 1 && !PQgetisnull(v.get(), 0, 0) ? pg_int(v.get(), 0, 0) : 0;
  if (found > postgres_schema_version)
    throw LedgerStoreError("the database was written by a newer groundplane (ledger schema " + std::to_string(found) +
                           "; this release reads up to " + std::to_string(postgres_schema_version) + ")");
  if (found < postgres_schema_version)  // an older format's database, about to hold this one's rows
    pg_run(conn, ("UPDATE " + tables->version + " SET version = " + std::to_string(postgres_schema_version) +
                  " WHERE version < " + std::to_string(postgres_schema_version))
                     .c_str());
  return std::move(*tables);
}

// The ledger's format version; 0 when it has no groundplane_schema table.
inline std::int64_t pg_read_schema_version(PGconn* conn, const PgTables& t) {
  const PgResult v = pg_exec(conn, ("SELECT max(version) FROM " + t.version).c_str());
  return PQntuples(v.get()) == 1 && !PQgetisnull(v.get(), 0, 0) ? pg_int(v.get(), 0, 0) : 0;
}

// The ledger's tables, found to read them: nullopt when the database holds none (then
// `why` says so), else where they are, with every problem in `problem`, the search_path
// pinned and the version checked (a newer release's is a LedgerStoreError).
inline std::optional<PgTables> pg_tables_to_read(PGconn* conn) {
  std::optional<PgTables> tables = pg_find_tables(conn);
  if (!tables || tables->rows.empty()) return std::nullopt;
  pg_pin_search_path(conn);
  tables->problem = pg_problems(conn, *tables);
  if (const std::int64_t v = pg_read_schema_version(conn, *tables); v > postgres_schema_version)
    throw LedgerStoreError("the database was written by a newer groundplane (ledger schema " + std::to_string(v) +
                           "; this release reads up to " + std::to_string(postgres_schema_version) + ")");
  return tables;
}

// The sessions the database holds, by name; empty when it holds no ledger.
inline std::vector<std::string> postgres_session_names(const std::string& conninfo) {
  const PgConn conn = pg_connect(conninfo);
  const std::optional<PgTables> t = pg_tables_to_read(conn.get());
  if (!t) return {};
  const PgResult all = pg_exec(conn.get(), ("SELECT name FROM " + t->sessions + " ORDER BY name").c_str());
  std::vector<std::string> names;
  names.reserve(static_cast<std::size_t>(PQntuples(all.get())));
  for (int row = 0; row < PQntuples(all.get()); ++row) names.emplace_back(pg_bytes(all.get(), row, 0));
  return names;
}

inline std::string pg_owner_name() {
  std::array<char, 256> host{};
  if (::gethostname(host.data(), host.size() - 1) != 0) host[0] = '\0';
  return std::string(host.data()) + ":" + std::to_string(::getpid());
}

inline std::string pg_select_rows(const PgTables& t) {
  return "SELECT seq, version, kind, body, hash FROM " + t.rows +
         " WHERE session = $1 AND seq >= $2 ORDER BY seq LIMIT $3";
}
// Rows are read in pages, so a long session is never held in memory at once.
inline constexpr std::uint64_t pg_page_rows = 4096;

// A read that failed part way through the rows (walk_chain's broke_off).
inline std::string pg_broke_off(std::uint64_t rows_read, const char* what) {
  return "reading row " + std::to_string(rows_read + 1) + " failed: " + what;
}

// Calls visit for each row of session from from_seq on, page by page.
inline void pg_read_rows(PGconn* conn, const PgTables& t, const std::string& session, std::uint64_t from_seq,
                         const std::function<bool(const StoredRow&)>& visit) {
  std::uint64_t next = from_seq;
  StoredRow row;
  const std::string select = pg_select_rows(t);
  for (;;) {
    const std::string params[] = {session, std::to_string(next), std::to_string(pg_page_rows)};
    const PgResult r = pg_exec(conn, select.c_str(), params);
    const int n = PQntuples(r.get());
    for (int i = 0; i < n; ++i) {
      if (!visit(pg_row(r.get(), i, row))) return;
      next = row.seq + 1;
    }
    if (static_cast<std::uint64_t>(n) < pg_page_rows) return;
  }
}

// The append is one statement: it renews the lease only if the epoch is still this
// store's and inserts the rows joined to that renewal — no renewal, no rows. The UPDATE
// locks the session's row, so a takeover and an append never interleave. Where the lease
// was renewed recently (renew = false) the epoch is checked under a share lock on the
// session's row instead (a takeover's UPDATE waits for it, and an append after a takeover
// finds the new epoch), so the row is not rewritten. The rows: up to
// pg_append_values_rows of them as a VALUES list of plain parameters (a fire appends
// two: its own row and the previous fire's grade), more as five arrays to unnest, which
// costs the server more to read per statement.
inline constexpr std::size_t pg_append_values_rows = 4;

inline std::string pg_append_name(bool renew, std::size_t values_rows) {
  return std::string(renew ? "groundplane_append" : "groundplane_append_fenced") +
         (values_rows ? "_" + std::to_string(values_rows) : std::string());
}

// values_rows = 0: the rows as arrays ($4..$8); else that many rows, five parameters each.
// Guarded: while a trigger or a rule sits on the rows table the lease reads nothing, so
// nothing is inserted (a trigger could drop or rewrite the row) and append says so.
inline std::string pg_append_sql(const PgTables& t, bool renew, std::size_t values_rows) {
  const std::string rows = pg_literal(t.rows) + "::pg_catalog.regclass";
  const std::string guard =
      " AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger WHERE tgrelid = " + rows +
      " AND NOT tgisinternal) AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_rewrite WHERE ev_class = " + rows + ")";
  std::string sql = renew ? "WITH lease AS (UPDATE " + t.sessions +
                                " SET lease_until = clock_timestamp() + $3 * interval '1 millisecond'"
                                " WHERE name = $1 AND epoch = $2" +
                                guard + " RETURNING name)"
                          : "WITH lease AS (SELECT name FROM " + t.sessions +
                                " WHERE name = $1 AND epoch = $2 AND $3::bigint >= 0" + guard + " FOR SHARE)";
  sql += " INSERT INTO " + t.rows +
         "(session, seq, version, kind, body, hash)"
         " SELECT lease.name, r.seq, r.version, r.kind, r.body, decode(r.hash, 'hex') FROM lease, ";
  if (values_rows == 0) {
    sql += "unnest($4::bigint[], $5::bigint[], $6::text[], $7::text[], $8::text[])";
  } else {
    sql += "(VALUES ";
    for (std::size_t k = 0; k < values_rows; ++k) {
      const auto arg = [&](std::size_t i, const char* type) { return "$" + std::to_string(4 + 5 * k + i) + type; };
      sql += (k ? ", (" : "(") + arg(0, "::bigint, ") + arg(1, "::bigint, ") + arg(2, "::text, ") + arg(3, "::text, ") +
             arg(4, "::text)");
    }
    sql += ")";
  }
  return sql + " AS r(seq, version, kind, body, hash)";
}

// An append's parameters (see pg_append_sql), and the seq and hash its last row takes.
struct PgAppend {
  std::vector<std::string> params;
  std::size_t values_rows = 0;  // the rows as that many rows of five parameters; 0: as five arrays
  std::uint64_t seq = 0;
  RowHash prev{};
};

// Rows as the five arrays of an append's unnest: PostgreSQL array literals.
class PgRowArrays {
 public:
  void add(std::uint64_t seq, const LedgerRow& r, const std::string& body, const RowHash& hash) {
    const char* sep = first_ ? "" : ",";
    first_ = false;
    seqs_.append(sep).append(std::to_string(seq));
    versions_.append(sep).append(std::to_string(r.version));
    kinds_.append(sep);
    pg_array_element(kinds_, r.kind);
    bodies_.append(sep);
    pg_array_element(bodies_, body);
    hashes_.append(sep).append(to_hex(hash));
  }
  // Each array closed and moved to the end of `params`.
  void move_into(std::vector<std::string>& params) {
    for (std::string* a : {&seqs_, &versions_, &kinds_, &bodies_, &hashes_})
      params.push_back(std::move(a->append("}")));
  }

 private:
  bool first_ = true;
  std::string seqs_ = "{", versions_ = "{", kinds_ = "{", bodies_ = "{", hashes_ = "{";
};

class PostgresStore final : public LedgerStore {
 public:
  PostgresStore(const std::string& conninfo, PostgresStoreOptions options)
      : session_(std::move(options.session)),
        read_only_(options.read_only),
        lease_(options.lease),
        expected_(expected_head_option(options.expected_head, "gp::PostgresStoreOptions::expected_head")),
        key_(chain_key_option(options.key, "gp::PostgresStoreOptions::key")),
        hash_(key_.secret()),
        body_writer_(ledger_max_nesting) {
    if (!options.key.empty()) OPENSSL_cleanse(options.key.data(), options.key.size());
    if (session_.empty()) throw ConfigurationError("gp::PostgresStoreOptions::session is empty");
    if (session_.find('\0') != std::string::npos)
      throw ConfigurationError("gp::PostgresStoreOptions::session contains a NUL byte");
    if (lease_ < std::chrono::milliseconds(100))
      throw ConfigurationError("gp::PostgresStoreOptions::lease must be at least 100 ms, got " +
                               std::to_string(lease_.count()) + " ms");
    conn_ = pg_connect(conninfo);
    if (read_only_) {
      std::optional<PgTables> found = pg_tables_to_read(conn_.get());
      if (!found) throw LedgerStoreError("the database holds no groundplane ledger (no groundplane_rows table)");
      tables_ = std::move(*found);
      foreign_ = tables_.problem;  // read, not refused: an auditor reads it (it does not verify)
    } else {
      tables_ = pg_prepare_schema(conn_.get());
      pg_pin_search_path(conn_.get());
      if (std::string problems = pg_problems(conn_.get(), tables_); !problems.empty())
        throw LedgerStoreError("refused to write to session \"" + escape(session_) + "\": " + problems);
      if (!options.synchronous_commit) pg_run(conn_.get(), "SET synchronous_commit = off");
      acquire();
    }
    try {
      load_head();
      check_key();
      if (!read_only_) {
        // Every form of the append, prepared in one round trip.
        std::string prepare;
        for (const bool renew : {true, false})
          for (std::size_t n = 0; n <= pg_append_values_rows; ++n)
            prepare += "PREPARE " + pg_append_name(renew, n) + " AS " + pg_append_sql(tables_, renew, n) + ";";
        pg_run(conn_.get(), prepare.c_str());
        renewer_ = std::thread([this] { renew_loop(); });
      }
    } catch (...) {
      // Refused (another key, an altered head) after the lease was taken: no destructor
      // runs for a store that never opened, so the lease is given back here, or the next
      // open would wait out all of it.
      if (!read_only_) release();
      throw;
    }
  }

  ~PostgresStore() override {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (renewer_.joinable()) renewer_.join();
    if (!read_only_ && !moved_ && !broken_) release();
  }

  PostgresStore(const PostgresStore&) = delete;
  PostgresStore& operator=(const PostgresStore&) = delete;
  PostgresStore(PostgresStore&&) = delete;
  PostgresStore& operator=(PostgresStore&&) = delete;

  const std::string& session() const noexcept override { return session_; }

  // The lease's epoch this store writes with (0 for a read-only store).
  std::uint64_t epoch() const noexcept { return epoch_; }

  LedgerHead append(std::span<const LedgerRow> rows) override {
    const std::lock_guard lock(mutex_);
    check_writable();
    if (rows.empty()) return head_locked();
    const PgAppend chained = chain_rows(rows);
    const auto now = std::chrono::steady_clock::now();
    const bool renew = now - last_renewal_ >= lease_ / 3;
    const PgResult res = exec_append(renew, chained);
    check_all_inserted(res, rows.size());
    rows_ = chained.seq;  // the head moves only once every row is stored
    prev_ = chained.prev;
    if (renew) last_renewal_ = now;
    return head_locked();
  }

  void read(std::uint64_t from_seq, const std::function<bool(const StoredRow&)>& visit) const override {
    const std::lock_guard lock(mutex_);
    pg_read_rows(conn_.get(), tables_, session_, from_seq, visit);
  }

  LedgerHead head() const override {
    const std::lock_guard lock(mutex_);
    return head_locked();
  }

  bool writable() const noexcept override { return !read_only_; }

  void read_verified(const std::function<bool(const StoredRow&)>& visit) const override {
    const std::lock_guard lock(mutex_);
    if (unverifiable_) throw unverifiable_restore(session_, recorded_key_id_);
    read_verified_rows(
        session_, key_, expected_ ? &*expected_ : nullptr, foreign_,
        [&](const auto& each) { pg_read_rows(conn_.get(), tables_, session_, 0, each); }, pg_broke_off, visit);
  }

  LedgerVerification verify() const noexcept override {
    try {
      const std::lock_guard lock(mutex_);
      return walk_chain(
          session_, key_, nullptr, foreign_,
          [&](const auto& visit) { pg_read_rows(conn_.get(), tables_, session_, 0, visit); }, pg_broke_off);
    } catch (const std::exception& e) {
      return failed_verification(e.what());
    }
  }

 private:
  // append's steps, in the order it takes them.

  void check_writable() const {
    if (read_only_) throw LedgerStoreError("this store of session \"" + session_ + "\" was opened read-only");
    if (moved_) throw moved_error();
    if (broken_)
      throw LedgerStoreError("the connection to PostgreSQL failed during an earlier write of session \"" + session_ +
                             "\": whether it committed is unknown, so this store writes no more (reopen the session)");
  }

  // The rows chained after the newest stored one, as the append's parameters: session,
  // epoch, lease, then the rows (seq, version, kind, body, hash as hex) — each its own
  // five parameters for a few rows, else five arrays. With the seq and hash the last row
  // takes, for the head once they are stored.
  PgAppend chain_rows(std::span<const LedgerRow> rows) {
    PgAppend out{.params = {session_, std::to_string(epoch_), std::to_string(lease_.count())},
                 .values_rows = rows.size() <= pg_append_values_rows ? rows.size() : 0,
                 .seq = rows_,
                 .prev = prev_};
    out.params.reserve(out.values_rows ? 3 + 5 * rows.size() : 8);
    PgRowArrays arrays;
    for (const LedgerRow& r : rows) {
      if (r.kind.find('\0') != std::string::npos)
        throw ConfigurationError("a ledger row's kind contains a NUL byte, which PostgreSQL text cannot hold");
      ++out.seq;
      nlohmann::json keyed_first;
      std::string body(
          write_body(body_writer_, out.seq, out.seq == 1 ? first_row_body(r.body, key_, keyed_first) : r.body));
      out.prev = hash_.next(out.prev, CanonicalHeader(out.seq, r.version, r.kind, body.size()), body);
      if (out.values_rows) {
        out.params.push_back(std::to_string(out.seq));
        out.params.push_back(std::to_string(r.version));
        out.params.push_back(r.kind);
        out.params.push_back(std::move(body));
        out.params.push_back(to_hex(out.prev));
      } else {
        arrays.add(out.seq, r, body, out.prev);
      }
    }
    if (!out.values_rows) arrays.move_into(out.params);
    return out;
  }

  // The append statement, run again while the server says nothing committed (up to 8
  // times). A connection lost on the way breaks the store: whether it committed is unknown.
  PgResult exec_append(bool renew, const PgAppend& chained) {
    for (int attempt = 0;; ++attempt) {
      try {
        return pg_exec_prepared(conn_.get(), pg_append_name(renew, chained.values_rows).c_str(), chained.params);
      } catch (const PostgresError& e) {
        if (e.retryable() && attempt < 8) continue;  // nothing committed: the same statement again
        if (PQstatus(conn_.get()) != CONNECTION_OK) broken_ = true;
        if (e.sqlstate() == "23505")
          throw LedgerStoreError("another writer appended to session \"" + session_ + "\" (row " +
                                 std::to_string(rows_ + 1) + " already exists): one session, one writer");
        throw;
      }
    }
  }

  // Fewer rows inserted than given: a trigger or a rule on the tables (said), or the lease
  // moved (SessionMoved).
  void check_all_inserted(const PgResult& res, std::size_t rows) {
    const std::string_view inserted = PQcmdTuples(res.get());
    if (inserted == std::to_string(rows)) return;
    if (const std::string problems = still_owner_but(); !problems.empty())
      throw LedgerStoreError("row " + std::to_string(rows_ + 1) + " of session \"" + escape(session_) +
                             "\" was not stored: " + problems);
    moved_ = true;
    note_new_owner();
    throw moved_error();
  }

  SessionMoved moved_error() const {
    return SessionMoved("session \"" + session_ + "\" moved: its lease was taken over" + new_owner_ +
                        " while this store held epoch " + std::to_string(epoch_) +
                        ", so this process no longer writes it");
  }

  // An append that inserted fewer rows than it was given, while this store still holds
  // the lease: what on the tables made it so (a trigger, a rule). "" when the lease moved
  // (or nothing can be said).
  std::string still_owner_but() noexcept {
    try {
      const std::string params[] = {session_, std::to_string(epoch_)};
      const PgResult r = pg_exec(
          conn_.get(), ("SELECT 1 FROM " + tables_.sessions + " WHERE name = $1 AND epoch = $2").c_str(), params);
      if (PQntuples(r.get()) != 1) return {};
      std::string problems = pg_problems(conn_.get(), tables_);
      return problems.empty() ? "nothing was inserted, and the lease is still this store's" : problems;
    } catch (...) {
      return {};
    }
  }

  // Who holds the session now, for the SessionMoved message (read only once it moved).
  void note_new_owner() noexcept {
    try {
      const std::string params[] = {session_};
      const PgResult r =
          pg_exec(conn_.get(),
                  ("SELECT epoch, coalesce(owner, '') FROM " + tables_.sessions + " WHERE name = $1").c_str(), params);
      if (PQntuples(r.get()) != 1) return;
      const std::string owner(pg_bytes(r.get(), 0, 1));
      new_owner_ = " by " + (owner.empty() ? std::string("another store") : owner) + " (epoch " +
                   std::to_string(pg_int(r.get(), 0, 0)) + ")";
    } catch (...) {  // the message then names no owner
    }
  }

  // Gives the lease back, so the next owner need not wait for it to run out.
  void release() noexcept {
    try {
      const std::string params[] = {session_, std::to_string(epoch_)};
      pg_exec(conn_.get(),
              ("UPDATE " + tables_.sessions + " SET owner = NULL, lease_until = NULL WHERE name = $1 AND epoch = $2")
                  .c_str(),
              params);
    } catch (...) {  // the lease then expires on its own
    }
  }

  // Takes the lease: registers the session, then bumps the epoch once nobody holds a
  // live lease. Waits (polling, by the database's clock) while someone does.
  void acquire() {
    const std::string owner = pg_owner_name();
    {
      const std::string params[] = {session_};
      pg_exec(conn_.get(),
              ("INSERT INTO " + tables_.sessions + "(name) VALUES ($1) ON CONFLICT (name) DO NOTHING").c_str(), params);
    }
    const std::string params[] = {session_, owner, std::to_string(lease_.count())};
    for (;;) {
      const PgResult r = pg_exec(conn_.get(),
                                 ("UPDATE " + tables_.sessions +
                                  " SET epoch = epoch + 1, owner = $2,"
                                  " lease_until = clock_timestamp() + $3 * interval '1 millisecond'"
                                  " WHERE name = $1 AND (lease_until IS NULL OR lease_until <= clock_timestamp())"
                                  " RETURNING epoch")
                                     .c_str(),
                                 params);
      if (PQntuples(r.get()) == 1) {
        epoch_ = static_cast<std::uint64_t>(pg_int(r.get(), 0, 0));
        last_renewal_ = std::chrono::steady_clock::now();
        return;
      }
      // Held: wait out what is left of that lease, looking again at least every 50 ms
      // (a release shows sooner than an expiry).
      const std::string p1[] = {session_};
      const PgResult left = pg_exec(conn_.get(),
                                    ("SELECT (extract(epoch FROM lease_until - clock_timestamp()) * 1000)::bigint"
                                     " FROM " +
                                     tables_.sessions + " WHERE name = $1")
                                        .c_str(),
                                    p1);
      std::int64_t ms = 1;  // released (or the session's row is gone) since: try again at once
      if (PQntuples(left.get()) == 1 && !PQgetisnull(left.get(), 0, 0)) ms = pg_int(left.get(), 0, 0) + 1;
      std::this_thread::sleep_for(std::chrono::milliseconds(std::clamp<std::int64_t>(ms, 1, 50)));
    }
  }

  // A store renews its lease with a write a third of the way through it; an idle one
  // renews from here, halfway through (later than a busy store's writes do, so a busy
  // session never pays this round trip).
  void renew_loop() {
    std::unique_lock lock(mutex_);
    const auto period = lease_ / 2;
    while (!stopping_) {
      const auto due = last_renewal_ + period;
      if (std::chrono::steady_clock::now() < due) {
        wake_.wait_until(lock, due, [&] { return stopping_; });
        continue;
      }
      if (moved_ || broken_) return;
      try {
        const std::string params[] = {session_, std::to_string(epoch_), std::to_string(lease_.count())};
        const PgResult r = pg_exec(
            conn_.get(),
            ("UPDATE " + tables_.sessions +
             " SET lease_until = clock_timestamp() + $3 * interval '1 millisecond' WHERE name = $1 AND epoch = $2")
                .c_str(),
            params);
        if (std::string_view(PQcmdTuples(r.get())) != "1") {
          moved_ = true;
          note_new_owner();
        }
        last_renewal_ = std::chrono::steady_clock::now();
      } catch (...) {
        // A failed renewal is retried soon; the next write finds out whether it still owns.
        last_renewal_ = std::chrono::steady_clock::now() - period + std::chrono::milliseconds(100);
        if (PQstatus(conn_.get()) != CONNECTION_OK) broken_ = true;
      }
    }
  }

  // The session's first row says whether its chain is keyed: this store's key must agree.
  void check_key() {
    if (rows_ == 0) return;
    const std::string params[] = {session_};
    const PgResult r =
        pg_exec(conn_.get(), ("SELECT body FROM " + tables_.rows + " WHERE session = $1 AND seq = 1").c_str(), params);
    const RecordedKey recorded = PQntuples(r.get()) == 1 ? recorded_key(pg_bytes(r.get(), 0, 0)) : RecordedKey{};
    unverifiable_ = check_chain_key(recorded, key_, read_only_, "session \"" + escape(session_) + "\"");
    recorded_key_id_ = recorded.id;
  }

  void load_head() {
    rows_ = 0;
    prev_ = hash_.genesis(session_);
    const std::string params[] = {session_};
    const PgResult r = pg_exec(
        conn_.get(),
        ("SELECT seq, hash FROM " + tables_.rows + " WHERE session = $1 ORDER BY seq DESC LIMIT 1").c_str(), params);
    if (PQntuples(r.get()) == 0) return;
    rows_ = static_cast<std::uint64_t>(pg_int(r.get(), 0, 0));
    const std::string_view h = pg_bytes(r.get(), 0, 1);
    if (h.size() != prev_.size())
      throw LedgerStoreError("the newest row of session \"" + session_ +
                             "\" has no valid hash: the ledger was altered (run verify_postgres_ledger)");
    std::memcpy(prev_.data(), h.data(), h.size());
  }

  LedgerHead head_locked() const { return {rows_, rows_ ? to_hex(prev_) : std::string()}; }

  std::string session_;
  bool read_only_;
  std::chrono::milliseconds lease_;
  std::optional<RowHash> expected_;  // the head the app kept, if any
  PgConn conn_;
  PgTables tables_;  // where the ledger's tables are
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::thread renewer_;
  bool stopping_ = false;
  bool moved_ = false;
  bool broken_ = false;
  std::string new_owner_;  // " by host:pid (epoch N)" once moved
  std::uint64_t epoch_ = 0;
  std::chrono::steady_clock::time_point last_renewal_{};
  ChainKey key_;                 // the app's key, if any
  ChainHash hash_;               // SHA-256, or HMAC-SHA256 under key_
  bool unverifiable_ = false;    // keyed, opened to read without its key
  std::string recorded_key_id_;  // the key id the session's first row records
  std::string foreign_;          // opened to read: what the database holds that the store did not create
  CanonicalWriter body_writer_;  // one serializer for every row this store writes
  std::uint64_t rows_ = 0;
  RowHash prev_{};
};

}  // namespace detail

// Connects (conninfo: a libpq connection string or postgresql:// URI), creates the
// tables when absent, and — unless read_only — takes the session's lease, blocking
// while another live store holds it. Throws LedgerStoreError when the database cannot
// be reached or was written by a newer release; ConfigurationError for an empty session
// name or a lease under 100 ms.
inline std::shared_ptr<LedgerStore> open_postgres_store(const std::string& conninfo,
                                                        PostgresStoreOptions options = {}) {
  return std::make_shared<detail::PostgresStore>(conninfo, std::move(options));
}

namespace detail {
inline LedgerVerification verify_postgres_database(const std::string& conninfo, std::string_view session,
                                                   std::string_view published_head, const RowHash& published,
                                                   const ChainKey& key) noexcept {
  const auto unreadable = [](std::string problem) { return failed_verification(std::move(problem)); };
  try {
    detail::PgConn conn;
    try {
      conn = detail::pg_connect(conninfo);
    } catch (const std::exception& e) {
      return unreadable(e.what());
    }
    std::optional<PgTables> tables;
    try {
      tables = pg_tables_to_read(conn.get());
    } catch (const LedgerStoreError& e) {
      return unreadable(e.what());
    }
    if (!tables) return unreadable("the database is not a groundplane ledger (it has no groundplane_rows table)");
    const std::string name(session);
    {
      const std::string params[] = {name};
      const detail::PgResult s =
          detail::pg_exec(conn.get(), ("SELECT 1 FROM " + tables->sessions + " WHERE name = $1").c_str(), params);
      if (PQntuples(s.get()) == 0) {
        const detail::PgResult all =
            detail::pg_exec(conn.get(), ("SELECT name FROM " + tables->sessions + " ORDER BY name").c_str());
        std::vector<std::string> names;
        names.reserve(static_cast<std::size_t>(PQntuples(all.get())));
        for (int row = 0; row < PQntuples(all.get()); ++row) names.emplace_back(detail::pg_bytes(all.get(), row, 0));
        return detail::missing_session(
            "the database holds no session \"" + detail::escape(name, 120) + "\"" + detail::held_sessions(names),
            !published_head.empty());
      }
    }
    return detail::walk_chain(
        session, key, published_head.empty() ? nullptr : &published, tables->problem,
        [&](const auto& visit) { detail::pg_read_rows(conn.get(), *tables, name, 0, visit); }, detail::pg_broke_off);
  } catch (const std::exception& e) {
    return unreadable(e.what());
  } catch (...) {
    return unreadable("verification failed for an unknown reason");
  }
}
}  // namespace detail

// Re-derives the session's chain from the database alone, with the same semantics as
// verify_sqlite_ledger (a published head also catches a tail cut). Takes no lease and
// writes nothing. Never throws: a database that cannot be reached or holds no such
// session is ok = false with first_bad_row = 0 — or 1 when a head was published for it.
inline LedgerVerification verify_postgres_ledger(const std::string& conninfo, std::string_view session = "default",
                                                 std::string_view published_head = {},
                                                 std::string_view key = {}) noexcept {
  RowHash published{};
  if (!published_head.empty() && !detail::parse_row_hash(published_head, published))
    return detail::failed_verification("the published head \"" + std::string(published_head) +
                                       "\" is not a head hash (64 hexadecimal digits)");
  std::optional<detail::ChainKey> chain_key;
  try {
    chain_key.emplace(detail::chain_key_option(key, "the key"));
  } catch (const std::exception& e) {
    return detail::failed_verification(e.what());
  }
  return detail::unreachable_head(
      published_head, detail::verify_postgres_database(conninfo, session, published_head, published, *chain_key));
}

}  // namespace groundplane
