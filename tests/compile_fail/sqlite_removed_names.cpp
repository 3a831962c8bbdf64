// The SQLite store's 0.2 names, deprecated in 0.3 for one release, are gone in 0.4: an
// option struct naming synchronous_full does not compile (synchronous_commit is its name).
#include <groundplane/store/sqlite.hpp>

int main() {
  const groundplane::SqliteStoreOptions options{.synchronous_full = false};
  return options.synchronous_commit ? 0 : 1;
}
