// Shared by the store tests: a temporary ledger file, and raw SQL on it (the tamper
// tests edit the file the way an attacker with the file would: with SQLite directly).
#pragma once

#include <atomic>
#include <filesystem>
#include <string>
#include <system_error>

#include <sqlite3.h>
#include <unistd.h>

#include <groundplane/store/sqlite.hpp>

namespace gp_test {

// A fresh path under the temp directory; the file and its -wal / -shm go with it.
class TempLedger {
 public:
  explicit TempLedger(const std::string& stem = "ledger") {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("gp-" + stem + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".db");
    remove();
  }
  ~TempLedger() { remove(); }
  TempLedger(const TempLedger&) = delete;
  TempLedger& operator=(const TempLedger&) = delete;
  const std::filesystem::path& path() const noexcept { return path_; }
  std::string str() const { return path_.string(); }

 private:
  void remove() const {
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
      std::filesystem::remove(std::filesystem::path(path_.string() + suffix), ec);
  }
  std::filesystem::path path_;
};

// Runs SQL on the file outside any store; throws on error.
inline void raw_sql(const std::filesystem::path& file, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open(file.string().c_str(), &db) != SQLITE_OK) {
    sqlite3_close(db);
    throw std::runtime_error("cannot open " + file.string());
  }
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  const std::string msg = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(db);
  if (rc != SQLITE_OK) throw std::runtime_error("SQL failed: " + sql + ": " + msg);
}

// A string as an SQL literal (SQLite and PostgreSQL alike).
inline std::string sql_literal(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'') out.push_back('\'');
    out.push_back(c);
  }
  return out + "'";
}

}  // namespace gp_test
