// The ledger in an SQLite file: one file holds many sessions, each a hash chain of rows
// (store/ledger_store.hpp). CMake: groundplane::sqlite (SQLite3 + OpenSSL::Crypto);
// header-only like the rest, so `c++ app.cpp -lsqlite3 -lcrypto` is all a build needs.
//
//   auto store = gp::open_sqlite_store("app.ledger", {.session = user_id});
//   gp::Session s({.store = store});          // restored if the file holds user_id
//   ...
//   gp::verify_sqlite_ledger("app.ledger", user_id);  // names the first row that was altered
//
// Durability: the file is in WAL mode. With synchronous_commit (the default) a row is on
// disk when the call that made it returns, so it survives a process crash and a power
// loss. With synchronous_commit = false (synchronous=NORMAL) it survives a process crash;
// on power loss or an OS crash the rows of the last few commits (those since the last
// WAL checkpoint reached the disk) may be lost, never half-written. See docs/ledger-store.md.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <sqlite3.h>

#include "groundplane/detail/text/escape.hpp"
#include "groundplane/store/chain.hpp"
#include "groundplane/store/ledger_store.hpp"

namespace groundplane {

struct SqliteStoreOptions {
  std::string session = "default";  // one file may hold many sessions (one per user, say)
  bool read_only = false;           // for auditing a file: append() throws, nothing is created
  // This store's connection alone opens the file until the store is destroyed (SQLite's
  // locking_mode=EXCLUSIVE, taken when the store opens): a commit makes no lock calls and
  // uses no -shm index (15-37% more fires/s at NORMAL, measured), but no other store,
  // process or groundplane-ledger can open the file meanwhile (they wait 10 s, then
  // fail). For a file one Session writes; ignored with read_only.
  bool exclusive = false;
  // A head the app kept (GroundTruth::head, published earlier): a Session restored on this
  // store refuses a stored chain that does not pass through it (LedgerStoreError), so a
  // chain rewritten and recomputed after it is caught. "": the chain is verified alone.
  std::string expected_head = "";
  bool synchronous_commit = true;  // false: WAL + synchronous=NORMAL — survives a process
                                   // crash, may lose the last rows on power loss
  // A secret the app holds (at least 16 bytes; "" for none): each row's hash is then
  // HMAC-SHA256 under it, so a row written by anyone without it fails verification at
  // that row, after a kept head too. A session is keyed from its first row (which records
  // the key's id, never the key) or never; opening it without its key, with another, or
  // an unkeyed one with a key, is refused (LedgerStoreError). See docs/security.md.
  std::string key = "";
};

namespace detail {

// The ledger format this release writes (store/ledger_store.hpp), kept in
// groundplane_schema. An older file is read as it is and, once opened to write, marked
// with this version (its rows stay as they are: every older row is a row of this
// format); a file from a newer release is refused.
inline constexpr std::int64_t sqlite_schema_version = ledger_format_version;

// An SQLite failure, with SQLite's result code (corrupt files are told apart by it).
class SqliteError : public LedgerStoreError {
 public:
  SqliteError(const std::string& what, int code) : LedgerStoreError(what), code_(code) {}
  int code() const noexcept { return code_; }
  bool corrupt() const noexcept { return (code_ & 0xff) == SQLITE_CORRUPT; }

 private:
  int code_;
};

struct SqliteCloser {
  void operator()(sqlite3* db) const noexcept { sqlite3_close_v2(db); }
};
struct SqliteFinalizer {
  void operator()(sqlite3_stmt* st) const noexcept { sqlite3_finalize(st); }
};
using SqliteHandle = std::unique_ptr<sqlite3, SqliteCloser>;

class SqliteStatement {
 public:
  SqliteStatement() = default;
  SqliteStatement(sqlite3* db, std::string_view sql) : db_(db) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &st, nullptr) !=
        SQLITE_OK)
      throw SqliteError("SQLite could not prepare \"" + std::string(sql) + "\": " + sqlite3_errmsg(db),
                        sqlite3_extended_errcode(db));
    st_.reset(st);
  }
  sqlite3_stmt* get() const noexcept { return st_.get(); }

  void bind(int i, std::int64_t v) { check(sqlite3_bind_int64(get(), i, v)); }
  void bind(int i, std::string_view text) {
    check(sqlite3_bind_text64(get(), i, text.data(), text.size(), SQLITE_STATIC, SQLITE_UTF8));
  }
  void bind_blob(int i, std::string_view bytes) {
    check(sqlite3_bind_blob64(get(), i, bytes.data(), bytes.size(), SQLITE_STATIC));
  }
  // SQLITE_ROW: true; SQLITE_DONE: false; anything else throws.
  bool step() {
    const int rc = sqlite3_step(get());
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    code_ = rc;
    throw SqliteError(std::string("SQLite: ") + sqlite3_errmsg(db_), sqlite3_extended_errcode(db_));
  }
  void reset() noexcept {
    sqlite3_reset(get());
    sqlite3_clear_bindings(get());
  }
  int last_error() const noexcept { return code_; }

  std::int64_t int_at(int col) const noexcept { return sqlite3_column_int64(get(), col); }
  std::string text_at(int col) const {
    // The text's bytes (a blob read of a TEXT column is the text itself).
    const auto* p = static_cast<const char*>(sqlite3_column_blob(get(), col));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(get(), col))) : std::string();
  }
  std::string_view blob_at(int col) const noexcept {
    const auto* p = static_cast<const char*>(sqlite3_column_blob(get(), col));
    return p ? std::string_view(p, static_cast<std::size_t>(sqlite3_column_bytes(get(), col))) : std::string_view();
  }

 private:
  void check(int rc) const {
    if (rc != SQLITE_OK) throw LedgerStoreError(std::string("SQLite could not bind a value: ") + sqlite3_errmsg(db_));
  }
  sqlite3* db_ = nullptr;
  std::unique_ptr<sqlite3_stmt, SqliteFinalizer> st_;
  int code_ = SQLITE_OK;
};

// Resets a statement when a scope using it ends, however it ends.
class StatementUse {
 public:
  explicit StatementUse(SqliteStatement& st) : st_(&st) {}
  ~StatementUse() { st_->reset(); }
  StatementUse(const StatementUse&) = delete;
  StatementUse& operator=(const StatementUse&) = delete;

 private:
  SqliteStatement* st_;
};

inline void sqlite_exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db);
    sqlite3_free(err);
    throw SqliteError("SQLite could not run \"" + std::string(sql) + "\": " + msg, sqlite3_extended_errcode(db));
  }
}

// `file` as an SQLite URI (https://sqlite.org/uri.html) with `query` after it: every byte
// but the unreserved ones percent-encoded, so no name can read as a query or a fragment.
inline std::string sqlite_uri(const std::filesystem::path& file, std::string_view query) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(file, ec);
  if (ec) throw LedgerStoreError("cannot open " + file.string() + ": " + ec.message());
  std::string uri = "file://";  // an empty authority: a path that starts with "//" is not a host
  for (const char ch : absolute.string()) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' || c == '-' ||
        c == '.' || c == '_' || c == '~') {
      uri.push_back(ch);
    } else {
      uri.push_back('%');
      uri.push_back(hex[c >> 4]);
      uri.push_back(hex[c & 0xF]);
    }
  }
  uri.push_back('?');
  uri.append(query);
  return uri;
}

inline SqliteHandle sqlite_open_as(const std::string& name, const std::filesystem::path& file, int flags) {
  sqlite3* raw = nullptr;
  // NOMUTEX: the store's own mutex serializes its use.
  const int rc = sqlite3_open_v2(name.c_str(), &raw, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  SqliteHandle db(raw);
  if (rc != SQLITE_OK)
    throw LedgerStoreError("cannot open " + file.string() + ": " +
                           (raw ? std::string(sqlite3_errmsg(raw)) : std::string(sqlite3_errstr(rc))));
  sqlite3_extended_result_codes(db.get(), 1);
  sqlite3_busy_timeout(db.get(), 10'000);
  return db;
}

// Whether `file` has nothing beside it that holds rows the file itself does not: no WAL
// with frames in it, and no rollback journal (a writer's crashed transaction, which only
// a writer may roll back).
inline bool sqlite_nothing_beside(const std::filesystem::path& file) {
  std::error_code ec;
  if (std::filesystem::exists(file.string() + "-journal", ec) || ec) return false;
  const std::filesystem::path wal = file.string() + "-wal";
  if (!std::filesystem::exists(wal, ec)) return !ec;
  const auto size = std::filesystem::file_size(wal, ec);
  return !ec && size == 0;
}

// Opened to read only, a WAL file needs its -shm index, which SQLite creates beside the
// file: in a directory the reader cannot write (an auditor's copy, read-only media) SQLite
// says so (SQLITE_READONLY_DIRECTORY, or _CANTINIT; SQLITE_CANTOPEN when an empty -wal is
// there without its -shm). When nothing beside the file holds rows, every committed row
// is in the file itself (the last writer checkpointed and closed), so it is read as
// immutable: no index, no lock, no file created. A writer that opened the file meanwhile
// and checkpointed into it could make that one reading see a torn file; another run would
// not. Every other failure is the first statement's to report.
inline SqliteHandle sqlite_open(const std::filesystem::path& file, bool read_only) {
  if (!read_only) return sqlite_open_as(file.string(), file, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  SqliteHandle db = sqlite_open_as(file.string(), file, SQLITE_OPEN_READONLY);
  const int rc = sqlite3_exec(db.get(), "SELECT count(*) FROM sqlite_schema", nullptr, nullptr, nullptr);
  const int why = sqlite3_extended_errcode(db.get());
  if (rc == SQLITE_OK ||
      (why != SQLITE_READONLY_DIRECTORY && why != SQLITE_READONLY_CANTINIT && why != SQLITE_CANTOPEN) ||
      !sqlite_nothing_beside(file))
    return db;
  return sqlite_open_as(sqlite_uri(file, "immutable=1"), file, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
}

inline bool sqlite_has_table(sqlite3* db, std::string_view name) {
  SqliteStatement st(db, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1");
  st.bind(1, name);
  return st.step();
}

// The file's format version (the largest in groundplane_schema), or 0 when it holds no
// ledger tables. Throws for a file SQLite cannot read, and for a version stored as anything
// but an integer, which groundplane never writes (docs/ledger-format.md, "Verifying a
// session").
inline std::int64_t sqlite_read_schema_version(sqlite3* db) {
  if (!sqlite_has_table(db, "groundplane_schema")) return 0;
  SqliteStatement st(db, "SELECT version, typeof(version) FROM groundplane_schema");
  std::int64_t version = 0;
  while (st.step()) {
    if (st.blob_at(1) != "integer")
      throw LedgerStoreError("its format version is stored as " + std::string(st.blob_at(1)) + " (" +
                             escape(st.text_at(0), 40) + "), which groundplane never writes");
    version = std::max(version, st.int_at(0));
  }
  return version;
}

// The ledger's tables, and what each is created as (the SQL in sqlite_schema, every run of
// whitespace one space): the file may hold nothing else on them.
struct SqliteLedgerTable {
  std::string_view name;
  std::string_view sql;
};
inline constexpr SqliteLedgerTable sqlite_ledger_tables[] = {
    {"groundplane_schema", "CREATE TABLE groundplane_schema(version INTEGER NOT NULL)"},
    {"groundplane_sessions", "CREATE TABLE groundplane_sessions(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)"},
    {"groundplane_rows",
     "CREATE TABLE groundplane_rows( session INTEGER NOT NULL, seq INTEGER NOT NULL, version INTEGER NOT NULL, kind "
     "TEXT NOT NULL, body TEXT NOT NULL, hash BLOB NOT NULL, PRIMARY KEY (session, seq)) WITHOUT ROWID"}};
// The index SQLite makes for groundplane_sessions.name's UNIQUE.
inline constexpr std::string_view sqlite_sessions_index = "sqlite_autoindex_groundplane_sessions_1";

// Text with every run of ASCII whitespace made one space, and none at either end.
inline std::string sqlite_one_spaced(std::string_view text) {
  std::string out;
  bool space = false;
  for (const char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

// The schema objects on the ledger's tables that the store did not create — a trigger, a
// view or an index on them, a table of theirs defined otherwise — each named; "" when
// there is none. A trigger can drop or rewrite a row as it is written, a view can show
// rows that are not stored: a file holding one is not a ledger the store can vouch for
// (docs/ledger-format.md, "Schema objects").
inline std::string sqlite_foreign_objects(sqlite3* db) {
  SqliteStatement st(db,
                     "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE lower(name) IN ('groundplane_schema', "
                     "'groundplane_sessions', 'groundplane_rows') OR lower(tbl_name) IN ('groundplane_schema', "
                     "'groundplane_sessions', 'groundplane_rows') ORDER BY type, name");
  std::string found;
  while (st.step()) {
    const std::string_view type = st.blob_at(0), name = st.blob_at(1);
    const bool ours = std::any_of(std::begin(sqlite_ledger_tables), std::end(sqlite_ledger_tables), [&](const auto& t) {
      return type == "table" && name == t.name && sqlite_one_spaced(st.blob_at(3)) == t.sql;
    });
    if (ours || (type == "index" && name == sqlite_sessions_index && sqlite3_column_type(st.get(), 3) == SQLITE_NULL))
      continue;
    found += std::string(found.empty() ? "" : "; ") + escape(type, 20) + " \"" + escape(name, 80) + "\"" +
             (st.blob_at(2) == name ? std::string() : " on " + escape(st.blob_at(2), 80));
    if (type == "table") found += " (not as groundplane creates it)";
  }
  if (found.empty()) return {};
  return "the file holds schema objects on the ledger's tables that groundplane did not create: " + found +
         " (a trigger can drop or rewrite rows as they are written, a view can show rows that are not stored)";
}

// Another application's database: tables, none of them a ledger's. Refused before the
// store changes anything in it (WAL mode included).
inline bool sqlite_is_foreign(sqlite3* db) {
  if (sqlite_read_schema_version(db) != 0) return false;
  SqliteStatement any(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table'");
  return any.step() && any.int_at(0) > 0;
}

inline LedgerStoreError foreign_file(const std::filesystem::path& file) {
  return LedgerStoreError(file.string() + " is an SQLite database but not a groundplane ledger");
}

// Creates the tables in a new file, or checks an existing file's version. The rows
// table is keyed by (session, seq) without a rowid: one B-tree, rows of one session
// adjacent, and the key itself refuses a second row at the same position.
inline void sqlite_prepare_schema(sqlite3* db, const std::filesystem::path& file) {
  sqlite_exec(db, "BEGIN IMMEDIATE");
  try {
    const std::int64_t found = sqlite_read_schema_version(db);
    if (found == 0) {
      if (sqlite_is_foreign(db)) throw foreign_file(file);
      sqlite_exec(db,
                  "CREATE TABLE groundplane_schema(version INTEGER NOT NULL);"
                  "CREATE TABLE groundplane_sessions(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
                  "CREATE TABLE groundplane_rows("
                  " session INTEGER NOT NULL, seq INTEGER NOT NULL, version INTEGER NOT NULL,"
                  " kind TEXT NOT NULL, body TEXT NOT NULL, hash BLOB NOT NULL,"
                  " PRIMARY KEY (session, seq)) WITHOUT ROWID;");
      sqlite_exec(
          db,
          ("INSERT INTO groundplane_schema(version) VALUES (" + std::to_string(sqlite_schema_version) + ")").c_str());
    } else if (found > sqlite_schema_version) {
      throw LedgerStoreError(file.string() + " was written by a newer groundplane (ledger schema " +
                             std::to_string(found) + "; this release reads up to " +
                             std::to_string(sqlite_schema_version) + ")");
    } else if (found < sqlite_schema_version) {  // an older format's file, about to hold this one's rows
      sqlite_exec(db, ("UPDATE groundplane_schema SET version = " + std::to_string(sqlite_schema_version)).c_str());
    }
    sqlite_exec(db, "COMMIT");
  } catch (...) {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

// A session's entry in groundplane_sessions, found by its name's bytes as every verifier
// finds it (docs/ledger-format.md): its id (0: none), or what is wrong with the entries
// naming it — more than one, or a name stored as anything but text, which groundplane
// never writes.
struct SqliteSession {
  std::int64_t id = 0;
  std::string problem;
};
inline SqliteSession sqlite_find_session(sqlite3* db, std::string_view session) {
  SqliteStatement sel(db, "SELECT id, typeof(name) FROM groundplane_sessions WHERE CAST(name AS BLOB) = ?1");
  sel.bind_blob(1, session);
  SqliteSession found;
  int entries = 0;
  while (sel.step()) {
    ++entries;
    if (sel.blob_at(1) != "text")
      found.problem = "session \"" + escape(session, 120) + "\" is named in groundplane_sessions by a " +
                      std::string(sel.blob_at(1)) + ", which groundplane never writes";
    found.id = sel.int_at(0);
  }
  if (entries > 1)
    found.problem = "session \"" + escape(session, 120) + "\" has " + std::to_string(entries) +
                    " entries in groundplane_sessions, where groundplane writes one";
  if (!found.problem.empty()) found.id = 0;
  return found;
}

// The session's id in the file; with create, added when absent. 0: not there. Throws for
// a session whose entries groundplane did not write (sqlite_find_session).
inline std::int64_t sqlite_session_id(sqlite3* db, std::string_view session, bool create) {
  SqliteSession found = sqlite_find_session(db, session);
  if (!found.problem.empty()) throw LedgerStoreError(found.problem);
  if (found.id != 0 || !create) return found.id;
  SqliteStatement ins(db, "INSERT OR IGNORE INTO groundplane_sessions(name) VALUES (?1)");
  ins.bind(1, session);
  ins.step();
  found = sqlite_find_session(db, session);
  if (!found.problem.empty()) throw LedgerStoreError(found.problem);
  return found.id;
}

inline std::vector<std::string> sqlite_session_names(sqlite3* db) {
  std::vector<std::string> out;
  SqliteStatement st(db, "SELECT name FROM groundplane_sessions ORDER BY name");
  while (st.step()) out.push_back(st.text_at(0));
  return out;
}

// The sessions a ledger file holds, by name; empty for a file that is not a ledger.
// Opens the file to read only (what groundplane-ledger lists without --session).
inline std::vector<std::string> sqlite_session_names(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) return {};
  const SqliteHandle db = sqlite_open(file, true);
  if (sqlite_read_schema_version(db.get()) == 0) return {};
  return sqlite_session_names(db.get());
}

// A read that failed part way through the rows (walk_chain's broke_off).
inline std::string sqlite_broke_off(std::uint64_t rows_read, const char* what) {
  return "the file is corrupt or torn after row " + std::to_string(rows_read) + ": " + what;
}

// Reads one row from a statement selecting (seq, version, kind, body, hash).
// Into a row reused from one step to the next: its strings keep their capacity.
inline const StoredRow& sqlite_row(const SqliteStatement& st, StoredRow& row) {
  row.seq = static_cast<std::uint64_t>(st.int_at(0));
  row.version = static_cast<std::uint64_t>(st.int_at(1));
  row.kind.assign(st.blob_at(2));  // a blob read of a TEXT column is the text's bytes
  row.body.assign(st.blob_at(3));
  const std::string_view h = st.blob_at(4);
  if (h.size() == row.hash.size()) std::memcpy(row.hash.data(), h.data(), h.size());
  else row.hash.fill(0);  // cannot match any SHA-256 the chain expects
  return row;
}

inline constexpr std::string_view sqlite_select_rows =
    "SELECT seq, version, kind, body, hash FROM groundplane_rows WHERE session = ?1 AND seq >= ?2 ORDER BY seq";

}  // namespace detail

LedgerVerification verify_sqlite_ledger(const std::filesystem::path& file, std::string_view session = "default",
                                        std::string_view published_head = {}, std::string_view key = {}) noexcept;

namespace detail {

class SqliteStore final : public LedgerStore {
 public:
  SqliteStore(const std::filesystem::path& file, SqliteStoreOptions options)
      : file_(file),
        session_(std::move(options.session)),
        read_only_(options.read_only),
        expected_(expected_head_option(options.expected_head, "gp::SqliteStoreOptions::expected_head")),
        key_(chain_key_option(options.key, "gp::SqliteStoreOptions::key")),
        hash_(key_.secret()),
        body_writer_(ledger_max_nesting) {
    if (!options.key.empty()) OPENSSL_cleanse(options.key.data(), options.key.size());
    if (session_.empty()) throw ConfigurationError("gp::SqliteStoreOptions::session is empty");
    try {
      open(file, options);
    } catch (const SqliteError& e) {
      if (!e.corrupt()) throw;
      // A file SQLite finds malformed is torn or corrupt: refused naming the row from
      // which the file can no longer be vouched for, as verify_sqlite_ledger names it.
      db_.reset();
      const LedgerVerification v = verify_sqlite_ledger(file, session_, {}, key_.secret());
      throw ChainBroken(v.first_bad_row > 0 ? v.first_bad_row : 1,
                        v.ok || v.problem.empty() ? file.string() + " is corrupt or torn: " + e.what() : v.problem);
    }
  }

  const std::string& session() const noexcept override { return session_; }

  LedgerHead append(std::span<const LedgerRow> rows) override {
    const std::lock_guard lock(mutex_);
    if (read_only_) throw LedgerStoreError("this store of " + file_.string() + " was opened read-only");
    if (rows.empty()) return head_locked();
    const std::uint64_t start_rows = rows_;
    const RowHash start_hash = prev_;
    // One row is one statement, which SQLite commits as a unit by itself: BEGIN and COMMIT
    // would be two more statements run on every such call (most fires write one row).
    const bool one_statement = rows.size() == 1;
    // A transaction still open here (an earlier ROLLBACK that failed) would hold a one-row
    // append uncommitted while this call reported it stored: refuse rather than pretend.
    if (!sqlite3_get_autocommit(db_.get()))
      throw LedgerStoreError("a transaction on " + file_.string() +
                             " is still open after an earlier failure; reopen the store");
    if (!one_statement) {
      const StatementUse use(begin_);
      begin_.step();
    }
    try {
      for (const LedgerRow& r : rows) {
        const std::uint64_t seq = rows_ + 1;
        nlohmann::json keyed_first;
        const std::string_view body =
            write_body(body_writer_, seq, seq == 1 ? first_row_body(r.body, key_, keyed_first) : r.body);
        const RowHash h = hash_.next(prev_, CanonicalHeader(seq, r.version, r.kind, body.size()), body);
        const StatementUse use(insert_);
        insert_.bind(1, session_id_);
        insert_.bind(2, static_cast<std::int64_t>(seq));
        insert_.bind(3, static_cast<std::int64_t>(r.version));
        insert_.bind(4, r.kind);
        insert_.bind(5, body);
        insert_.bind_blob(6, as_chars(h));
        try {
          insert_.step();
        } catch (const LedgerStoreError& e) {
          if (insert_.last_error() == SQLITE_CONSTRAINT_PRIMARYKEY ||
              sqlite3_extended_errcode(db_.get()) == SQLITE_CONSTRAINT_PRIMARYKEY)
            throw LedgerStoreError("another writer appended to session \"" + session_ + "\" in " + file_.string() +
                                   " (row " + std::to_string(seq) + " already exists): one session, one writer");
          throw not_stored(seq, e.what());
        }
        // The insert writes nothing while a trigger or view sits on the rows table (its
        // guard), so a row that is not there now was not stored: never a silent loss.
        if (sqlite3_changes(db_.get()) != 1) throw not_stored(seq, "nothing was inserted");
        prev_ = h;
        rows_ = seq;
      }
      if (!one_statement) {
        const StatementUse use(commit_);
        commit_.step();
      }
    } catch (...) {
      // Only a transaction is rolled back: a one-row INSERT that failed undid itself.
      if (!sqlite3_get_autocommit(db_.get())) sqlite3_exec(db_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
      rows_ = start_rows;
      prev_ = start_hash;
      throw;
    }
    return head_locked();
  }

  void read(std::uint64_t from_seq, const std::function<bool(const StoredRow&)>& visit) const override {
    const std::lock_guard lock(mutex_);
    const StatementUse use(select_);
    select_.bind(1, session_id_);
    select_.bind(2, static_cast<std::int64_t>(from_seq));
    StoredRow row;
    while (select_.step())
      if (!visit(sqlite_row(select_, row))) break;
  }

  LedgerHead head() const override {
    const std::lock_guard lock(mutex_);
    return head_locked();
  }

  bool writable() const noexcept override { return !read_only_; }

  void read_verified(const std::function<bool(const StoredRow&)>& visit) const override {
    const std::lock_guard lock(mutex_);
    if (unverifiable_) throw unverifiable_restore(session_, recorded_key_id_);
    const StatementUse use(select_);
    read_verified_rows(
        session_, key_, expected_ ? &*expected_ : nullptr, foreign_,
        [&](const auto& each) {
          select_.bind(1, session_id_);
          select_.bind(2, 0);
          StoredRow row;
          while (select_.step())
            if (!each(sqlite_row(select_, row))) break;
        },
        sqlite_broke_off, visit);
  }

  LedgerVerification verify() const noexcept override {
    try {
      const std::lock_guard lock(mutex_);
      const StatementUse use(select_);
      return walk_chain(
          session_, key_, nullptr, foreign_,
          [&](const auto& visit) {
            select_.bind(1, session_id_);
            select_.bind(2, 0);
            StoredRow row;
            while (select_.step())
              if (!visit(sqlite_row(select_, row))) break;
          },
          sqlite_broke_off);
    } catch (const std::exception& e) {
      return failed_verification(e.what());
    }
  }

 private:
  // A row that did not land, with what the file holds that the store did not create.
  LedgerStoreError not_stored(std::uint64_t seq, std::string_view why) const {
    std::string foreign;
    try {
      foreign = sqlite_foreign_objects(db_.get());
    } catch (const std::exception&) {  // the reason below is all there is to say
    }
    return LedgerStoreError("row " + std::to_string(seq) + " of session \"" + escape(session_) +
                            "\" was not stored in " + file_.string() + ": " +
                            (foreign.empty() ? std::string(why) : foreign));
  }

  void open(const std::filesystem::path& file, const SqliteStoreOptions& options) {
    db_ = sqlite_open(file, read_only_);
    if (read_only_) {
      std::int64_t v = 0;
      try {
        v = sqlite_read_schema_version(db_.get());
      } catch (const SqliteError&) {
        throw;
      } catch (const LedgerStoreError& e) {
        throw LedgerStoreError(file.string() + " is not a ledger this release can read: " + e.what());
      }
      if (v == 0) throw LedgerStoreError(file.string() + " is not a groundplane ledger");
      if (v > sqlite_schema_version)
        throw LedgerStoreError(file.string() + " was written by a newer groundplane (ledger schema " +
                               std::to_string(v) + ")");
      // Read, not refused: an auditor reads such a file (it does not verify, below).
      foreign_ = sqlite_foreign_objects(db_.get());
    } else {
      // Before the first access, so that SQLite never maps an -shm index for this file.
      if (options.exclusive) sqlite_exec(db_.get(), "PRAGMA locking_mode = EXCLUSIVE");
      if (sqlite_is_foreign(db_.get())) throw foreign_file(file);
      // WAL: a commit is one append to the log, readers never block the writer, and a
      // crash mid-commit leaves the previous commit intact.
      {
        SqliteStatement wal(db_.get(), "PRAGMA journal_mode = WAL");
        if (!wal.step() || wal.text_at(0) != "wal")
          throw LedgerStoreError("SQLite could not put " + file.string() + " in WAL mode");
      }
      sqlite_exec(db_.get(), options.synchronous_commit ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL");
      sqlite_prepare_schema(db_.get(), file);
      if (std::string foreign = sqlite_foreign_objects(db_.get()); !foreign.empty())
        throw LedgerStoreError("refused to write to " + file.string() + ": " + foreign);
    }
    session_id_ = sqlite_session_id(db_.get(), session_, !read_only_);
    if (session_id_ == 0 && !read_only_)
      throw LedgerStoreError("SQLite could not register session \"" + session_ + "\" in " + file.string());
    if (!read_only_) {
      begin_ = SqliteStatement(db_.get(), "BEGIN IMMEDIATE");
      commit_ = SqliteStatement(db_.get(), "COMMIT");
      // Guarded: while any trigger or view names the rows table, it inserts nothing (a
      // trigger could drop or rewrite the row), and append says so.
      insert_ = SqliteStatement(db_.get(),
                                "INSERT INTO groundplane_rows(session, seq, version, kind, body, hash)"
                                " SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE NOT EXISTS (SELECT 1 FROM sqlite_schema"
                                " WHERE type IN ('trigger', 'view') AND lower(tbl_name) = 'groundplane_rows')");
    }
    select_ = SqliteStatement(db_.get(), sqlite_select_rows);
    last_ = SqliteStatement(db_.get(),
                            "SELECT seq, hash FROM groundplane_rows WHERE session = ?1 ORDER BY seq DESC LIMIT 1");
    load_head();
    check_key();
  }

  // The session's first row says whether its chain is keyed: this store's key must agree.
  void check_key() {
    if (rows_ == 0) return;
    SqliteStatement first(db_.get(), "SELECT body FROM groundplane_rows WHERE session = ?1 AND seq = 1");
    first.bind(1, session_id_);
    const RecordedKey recorded = first.step() ? recorded_key(first.blob_at(0)) : RecordedKey{};
    unverifiable_ =
        check_chain_key(recorded, key_, read_only_, "session \"" + escape(session_) + "\" in " + file_.string());
    recorded_key_id_ = recorded.id;
  }

  void load_head() {
    rows_ = 0;
    prev_ = hash_.genesis(session_);
    if (session_id_ == 0) return;
    const StatementUse use(last_);
    last_.bind(1, session_id_);
    if (last_.step()) {
      rows_ = static_cast<std::uint64_t>(last_.int_at(0));
      const std::string_view h = last_.blob_at(1);
      if (h.size() != prev_.size())
        throw LedgerStoreError("the newest row of session \"" + session_ + "\" in " + file_.string() +
                               " has no valid hash: the file was altered (run verify_sqlite_ledger)");
      std::memcpy(prev_.data(), h.data(), h.size());
    }
  }
  LedgerHead head_locked() const { return {rows_, rows_ ? to_hex(prev_) : std::string()}; }

  std::filesystem::path file_;
  std::string session_;
  bool read_only_;
  std::optional<RowHash> expected_;  // the head the app kept, if any
  ChainKey key_;                     // the app's key, if any
  ChainHash hash_;                   // SHA-256, or HMAC-SHA256 under key_
  bool unverifiable_ = false;        // keyed, opened to read without its key
  std::string recorded_key_id_;      // the key id the session's first row records
  std::string foreign_;              // opened to read: what the file holds that the store did not create
  SqliteHandle db_;
  std::int64_t session_id_ = 0;
  mutable std::mutex mutex_;
  CanonicalWriter body_writer_;  // one serializer for every row this store writes
  std::uint64_t rows_ = 0;
  RowHash prev_{};
  SqliteStatement begin_, commit_, insert_;
  mutable SqliteStatement select_, last_;
};

}  // namespace detail

// Opens (creating when absent) the ledger file and the session in it. Throws
// LedgerStoreError for a file that cannot be opened, is not a ledger, or was written by
// a newer release; ConfigurationError for an empty session name.
inline std::shared_ptr<LedgerStore> open_sqlite_store(const std::filesystem::path& file,
                                                      SqliteStoreOptions options = {}) {
  return std::make_shared<detail::SqliteStore>(file, std::move(options));
}

namespace detail {
inline LedgerVerification verify_sqlite_file(const std::filesystem::path& file, std::string_view session,
                                             std::string_view published_head, const RowHash& published,
                                             const ChainKey& key) noexcept {
  const auto unreadable = [](std::string problem) { return failed_verification(std::move(problem)); };
  try {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec))
      return unreadable(file.string() + " cannot be read: " + (ec ? ec.message() : "it is not a regular file"));
    SqliteHandle db;
    std::int64_t version = 0;
    std::string foreign;
    try {
      db = sqlite_open(file, true);
      try {
        version = sqlite_read_schema_version(db.get());
      } catch (const SqliteError&) {
        throw;
      } catch (const LedgerStoreError& e) {
        return unreadable(file.string() + " is not a ledger this release can read: " + e.what());
      }
      if (version != 0) foreign = sqlite_foreign_objects(db.get());
    } catch (const SqliteError& e) {
      // A file SQLite knows as its own but finds malformed is a torn or corrupt ledger:
      // not one row of it can be vouched for.
      if (e.corrupt()) return failed_verification(file.string() + " is corrupt or torn: " + e.what(), 1);
      return unreadable(file.string() + " is not a readable SQLite database: " + e.what());
    } catch (const std::exception& e) {
      return unreadable(file.string() + " is not a readable SQLite database: " + e.what());
    }
    if (version == 0)
      return unreadable(file.string() + " is not a groundplane ledger (it has no groundplane_schema table)");
    if (version > sqlite_schema_version)
      return unreadable(file.string() + " was written by a newer groundplane (ledger schema " +
                        std::to_string(version) + ")");
    const SqliteSession found = sqlite_find_session(db.get(), session);
    if (!found.problem.empty()) return failed_verification(file.string() + ": " + found.problem, 1);
    const std::int64_t id = found.id;
    if (id == 0) {
      std::string problem = file.string() + " holds no session \"" + escape(session, 120) + "\"" +
                            held_sessions(sqlite_session_names(db.get()));
      return missing_session(std::move(problem), !published_head.empty());
    }
    return walk_chain(
        session, key, published_head.empty() ? nullptr : &published, foreign,
        [&](const auto& visit) {
          SqliteStatement st(db.get(), sqlite_select_rows);
          st.bind(1, id);
          st.bind(2, 0);
          StoredRow row;
          while (st.step())
            if (!visit(sqlite_row(st, row))) break;
        },
        sqlite_broke_off);
  } catch (const std::exception& e) {
    return unreadable(e.what());
  } catch (...) {
    return unreadable("verification failed for an unknown reason");
  }
}
}  // namespace detail

// Re-derives the session's chain from the file alone and names the first row that
// breaks it. With published_head (hex, as GroundTruth::head gave it), also catches a
// tail cut: that hash must still be in the chain. Never throws: a file that cannot be
// read or is not a ledger is ok = false with first_bad_row = 0 — unless a head was
// published for it, which vouches that its rows existed: then whatever keeps them from
// being read is tampering, first_bad_row = 1. A file that breaks off mid-chain (corrupt
// or torn) names the row where it breaks.
inline LedgerVerification verify_sqlite_ledger(const std::filesystem::path& file, std::string_view session,
                                               std::string_view published_head, std::string_view key) noexcept {
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
  return detail::unreachable_head(published_head,
                                  detail::verify_sqlite_file(file, session, published_head, published, *chain_key));
}

}  // namespace groundplane
