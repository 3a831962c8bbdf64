// Shared by the PostgreSQL store tests: the server they run against, named by
// GROUNDPLANE_POSTGRES_URI (tests/postgres/start-cluster.sh starts a throwaway one and
// prints it). Without that variable a test prints a SKIPPED line and asserts nothing,
// which CTest reports as skipped, never as passed; with it, a server that cannot be
// reached fails the test.
#pragma once

#include <atomic>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <utility>

#include <unistd.h>

#include <groundplane/store/postgres.hpp>

#include "store_fixtures.hpp"  // sql_literal

namespace gp_test {

inline std::optional<std::string> postgres_uri() {
  const char* uri = std::getenv("GROUNDPLANE_POSTGRES_URI");
  if (uri == nullptr || *uri == '\0') {
    std::cout << "SKIPPED: no PostgreSQL server (set GROUNDPLANE_POSTGRES_URI; tests/postgres/start-cluster.sh "
                 "starts one)\n";
    return std::nullopt;
  }
  return std::string(uri);
}

// A session name no other test run uses: tests share one database.
inline std::string unique_session(const std::string& stem) {
  static std::atomic<int> counter{0};
  return stem + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
         std::to_string(std::chrono::steady_clock::now().time_since_epoch().count() % 1000000);
}

// Runs SQL on the database outside any store (as an attacker with database access would).
inline void postgres_sql(const std::string& uri, const std::string& sql) {
  const auto conn = groundplane::detail::pg_connect(uri);
  groundplane::detail::pg_run(conn.get(), sql.c_str());
}

// `uri` with the connection's search_path set to `path` (a libpq `options` parameter).
inline std::string with_search_path(const std::string& uri, const std::string& path) {
  std::string encoded;
  for (const char c : "-c search_path=" + path) {
    if (c == ' ') encoded += "%20";
    else if (c == '=') encoded += "%3D";
    else if (c == ',') encoded += "%2C";
    else encoded += c;
  }
  return uri + (uri.find('?') == std::string::npos ? "?" : "&") + "options=" + encoded;
}

// A schema of its own, dropped (with everything in it) when it goes: for the cases that
// change the ledger's tables themselves (a trigger planted on them), which would change
// them for every other test sharing the database.
class OwnSchema {
 public:
  OwnSchema(std::string uri, const std::string& stem)
      : uri_(std::move(uri)), name_("gp_" + stem + "_" + std::to_string(::getpid()) + "_" + std::to_string(next())) {
    postgres_sql(uri_, "CREATE SCHEMA " + name_);
  }
  ~OwnSchema() {
    try {
      postgres_sql(uri_, "DROP SCHEMA " + name_ + " CASCADE");
    } catch (...) {  // a schema left behind costs nothing but its name
    }
  }
  OwnSchema(const OwnSchema&) = delete;
  OwnSchema& operator=(const OwnSchema&) = delete;
  const std::string& name() const noexcept { return name_; }
  // The server's URI with this schema first on the connection's search_path.
  std::string uri() const { return with_search_path(uri_, name_); }

 private:
  static int next() {
    static std::atomic<int> counter{0};
    return counter++;
  }
  std::string uri_;
  std::string name_;
};

}  // namespace gp_test
