// What the PostgreSQL store consumer builds: with a server (GROUNDPLANE_POSTGRES_URI),
// rows into a fresh session, its chain verified; without one, verification of an
// unreachable database, which must report it rather than throw. Either way libpq and
// libcrypto were linked through groundplane::postgres.
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>

#include <unistd.h>

#include <groundplane/store/postgres.hpp>

namespace gp = groundplane;

int main() {
  const char* uri = std::getenv("GROUNDPLANE_POSTGRES_URI");
  if (uri == nullptr || *uri == '\0') {
    const auto v = gp::verify_postgres_ledger("postgresql://nobody@/none?host=/nonexistent-groundplane-socket-dir");
    std::cout << "no server: " << v.problem << "\n";
    return !v.ok && v.first_bad_row == 0 && !v.problem.empty() ? 0 : 1;
  }
  const std::string session = "consumer-" + std::to_string(::getpid()) + "-" +
                              std::to_string(std::chrono::system_clock::now().time_since_epoch().count());
  std::string head;
  {
    const auto store = gp::open_postgres_store(uri, {.session = session});
    for (int k = 0; k < 3; ++k) {
      const gp::LedgerRow row{static_cast<std::uint64_t>(k), "fire", {{"k", k}}};
      head = store->append(std::span(&row, 1)).hex;
    }
  }
  const auto v = gp::verify_postgres_ledger(uri, session, head);
  std::cout << "ledger: " << v.rows << " rows, head " << v.head << "\n";
  return v.ok && v.rows == 3 && v.head == head ? 0 : 1;
}
