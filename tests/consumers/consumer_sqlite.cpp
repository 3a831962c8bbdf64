// What the store consumer builds: rows into a ledger file, the file reopened, its chain
// verified, and one edit made through SQLite named as the first bad row. Exits 0 only
// when all of that holds, so a consumer that links but behaves differently still fails.
#include <filesystem>
#include <iostream>
#include <string>

#include <sqlite3.h>

#include <groundplane/store/sqlite.hpp>

namespace gp = groundplane;

int main() {
  const auto file = std::filesystem::temp_directory_path() / "groundplane-consumer-sqlite.db";
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(file.string() + suffix);
  std::string head;
  {
    const auto store = gp::open_sqlite_store(file, {.session = "consumer"});
    for (int k = 0; k < 3; ++k) {
      const gp::LedgerRow row{static_cast<std::uint64_t>(k), "fire", {{"k", k}}};
      head = store->append(std::span(&row, 1)).hex;
    }
  }
  const auto intact = gp::verify_sqlite_ledger(file, "consumer", head);
  sqlite3* db = nullptr;
  sqlite3_open(file.string().c_str(), &db);
  sqlite3_exec(db, "UPDATE groundplane_rows SET body = '{\"k\":7}' WHERE seq = 2", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  const auto tampered = gp::verify_sqlite_ledger(file, "consumer");
  std::cout << "ledger: " << intact.rows << " rows, head " << intact.head << "\ntampered: first bad row "
            << tampered.first_bad_row << "\n";
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(file.string() + suffix);
  return intact.ok && intact.rows == 3 && !tampered.ok && tampered.first_bad_row == 2 ? 0 : 1;
}
