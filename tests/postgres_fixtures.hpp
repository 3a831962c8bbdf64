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

}  // namespace gp_test
