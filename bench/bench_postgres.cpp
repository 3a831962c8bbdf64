// The PostgreSQL store's figures, for bench/run, beside the SQLite store's measured in
// the same run: fires per second for one session and for 8 sessions firing at once (one
// thread and one connection each), and the cost of a takeover — how long a new owner
// waits after the old one was SIGKILLed (its lease must run out) or closed cleanly.
// Plain wall-clock timing of fixed workloads.
//
//   groundplane_bench_postgres URI DIR [--quick]
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <groundplane/session.hpp>
#include <groundplane/store/postgres.hpp>
#include <groundplane/store/sqlite.hpp>

namespace gp = groundplane;
using nlohmann::json;
using clock_type = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

std::string run_tag() { return "bench-" + std::to_string(::getpid()) + "-"; }

// Agent fires of an action whose handler returns: two rows each (the fire, stored
// before its handler runs, and its grade, stored before fire returns), so two commits
// (two round trips) a fire.
void fire_loop(const std::shared_ptr<gp::LedgerStore>& store, int fires) {
  gp::Session s({.node = "shop", .store = store});
  s.declare("cart.add",
            {.does = "Add the item to the cart.", .handler = [](const json&) { return gp::HandlerResult{}; }});
  const json payload{{"sku", "A-1001"}, {"qty", 1}};
  for (int i = 0; i < fires; ++i) s.fire("cart.add", {.payload = payload});
}

// Fires per second summed over `sessions` sessions firing at once, each on its own
// thread and store (opened before the clock starts).
template <class Open>
double fires_per_second(int sessions, int fires_each, Open open) {
  std::vector<std::shared_ptr<gp::LedgerStore>> stores;
  for (int k = 0; k < sessions; ++k) stores.push_back(open(k));
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int k = 0; k < sessions; ++k)
    threads.emplace_back([&, k] {
      ++ready;
      while (!go) std::this_thread::yield();
      fire_loop(stores[static_cast<std::size_t>(k)], fires_each);
    });
  while (ready < sessions) std::this_thread::yield();
  const auto t0 = clock_type::now();
  go = true;
  for (auto& t : threads) t.join();
  const std::chrono::duration<double> dt = clock_type::now() - t0;
  return sessions * fires_each / dt.count();
}

// A child process takes the lease and is SIGKILLed (it never releases); the parent then
// opens the session and measures from the kill until it owns it.
double takeover_after_kill_ms(const std::string& uri, const std::string& session, milliseconds lease) {
  int ready[2];
  if (::pipe(ready) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(ready[0]);
    const auto store = gp::open_postgres_store(uri, {.session = session, .lease = lease});
    const gp::LedgerRow row{0, "fire", json{{"owner", "child"}}};
    store->append(std::span(&row, 1));
    if (::write(ready[1], "r", 1) != 1) std::_Exit(3);
    for (;;) ::pause();
  }
  ::close(ready[1]);
  char c = 0;
  if (::read(ready[0], &c, 1) != 1) return -1;
  ::close(ready[0]);
  ::kill(pid, SIGKILL);
  const auto t0 = clock_type::now();
  ::waitpid(pid, nullptr, 0);
  const auto store = gp::open_postgres_store(uri, {.session = session, .lease = lease});
  const std::chrono::duration<double, std::milli> dt = clock_type::now() - t0;
  return dt.count();
}

// The previous owner closes its store (releasing the lease); the next open is timed.
double takeover_after_release_ms(const std::string& uri, const std::string& session) {
  gp::open_postgres_store(uri, {.session = session});  // opened and released at once
  const auto t0 = clock_type::now();
  const auto store = gp::open_postgres_store(uri, {.session = session});
  const std::chrono::duration<double, std::milli> dt = clock_type::now() - t0;
  return dt.count();
}

// The baseline in the same run: libpq alone committing one small row per round trip,
// prepared, no groundplane. A fire commits twice (its row, then its grade), so half of
// this is its ceiling on this server.
double raw_commits_per_second(const std::string& uri, bool sync, int n) {
  const auto conn = gp::detail::pg_connect(uri);
  if (!sync) gp::detail::pg_run(conn.get(), "SET synchronous_commit = off");
  // A real table (a temporary one writes no WAL, so its commits would flush nothing).
  gp::detail::pg_run(conn.get(),
                     "DROP TABLE IF EXISTS groundplane_bench_raw;"
                     " CREATE TABLE groundplane_bench_raw(s text, q bigint, b text, h bytea, PRIMARY KEY (s, q))");
  gp::detail::pg_prepare(conn.get(), "raw",
                         "INSERT INTO groundplane_bench_raw VALUES ('s', $1, '{\"a\":\"cart.add\"}', '\\x00')", 1);
  const auto t0 = clock_type::now();
  for (int i = 0; i < n; ++i) {
    const std::string params[] = {std::to_string(i)};
    gp::detail::pg_exec_prepared(conn.get(), "raw", params);
  }
  const std::chrono::duration<double> dt = clock_type::now() - t0;
  gp::detail::pg_run(conn.get(), "DROP TABLE groundplane_bench_raw");
  return n / dt.count();
}

void remove_ledger(const std::filesystem::path& f) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(f.string() + suffix);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: groundplane_bench_postgres URI DIR [--quick]\n");
    return 2;
  }
  const std::string uri = argv[1];
  const std::filesystem::path dir = argv[2];
  const bool quick = argc > 3 && std::string(argv[3]) == "--quick";
  std::filesystem::create_directories(dir);
  const std::string tag = run_tag();
  const int one = quick ? 500 : 3'000;
  const int each = quick ? 300 : 1'500;

  const auto pg = [&](const std::string& name, bool sync) {
    return [&uri, name, sync](int k) {
      return gp::open_postgres_store(uri, {.session = name + std::to_string(k), .synchronous_commit = sync});
    };
  };
  // Each baseline just before the rows it bounds: a disk shared with other work commits
  // at a rate that changes from one second to the next.
  const double raw_sync = raw_commits_per_second(uri, true, one);
  const double pg_one = fires_per_second(1, one, pg(tag + "one-", true));
  const double pg_eight = fires_per_second(8, each, pg(tag + "eight-", true));
  const double raw_async = raw_commits_per_second(uri, false, one);
  const double pg_one_async = fires_per_second(1, one, pg(tag + "one-async-", false));
  const double pg_eight_async = fires_per_second(8, each, pg(tag + "eight-async-", false));

  const auto file = dir / "bench-pg-compare.ledger";
  const auto sqlite = [&](bool full) {
    return [&file, full](int k) {
      return gp::open_sqlite_store(file, {.session = "s" + std::to_string(k), .synchronous_commit = full});
    };
  };
  remove_ledger(file);
  const double sq_one_full = fires_per_second(1, quick ? 200 : 500, sqlite(true));
  remove_ledger(file);
  const double sq_eight_full = fires_per_second(8, quick ? 50 : 100, sqlite(true));
  remove_ledger(file);
  const double sq_one_normal = fires_per_second(1, one, sqlite(false));
  remove_ledger(file);
  const double sq_eight_normal = fires_per_second(8, each, sqlite(false));
  remove_ledger(file);

  const milliseconds lease{1'000};
  double kill_worst = 0, kill_sum = 0, release_worst = 0;
  const int takeovers = quick ? 2 : 5;
  for (int k = 0; k < takeovers; ++k) {
    const double ms = takeover_after_kill_ms(uri, tag + "takeover-" + std::to_string(k), lease);
    kill_sum += ms;
    kill_worst = std::max(kill_worst, ms);
    release_worst = std::max(release_worst, takeover_after_release_ms(uri, tag + "release-" + std::to_string(k)));
  }

  std::printf("%-58s %14s %12s\n", "ledger on PostgreSQL (local server, unix socket)", "measured", "goal");
  std::printf("%-58s %12.0f/s %12s\n", "fires, 1 session, PostgreSQL (commit flushed)", pg_one, ">= 5000");
  std::printf("%-58s %12.0f/s %12s\n", "fires, 8 sessions at once, PostgreSQL (commit flushed)", pg_eight, ">= 4x one");
  std::printf("%-58s %12.1fx %12s\n", "  8 sessions / 1 session", pg_eight / pg_one, ">= 4");
  std::printf("%-58s %12.0f/s %12s\n", "  baseline: libpq alone, one-row commits (flushed)", raw_sync, "");
  std::printf("%-58s %12.0f/s %12s\n", "fires, 1 session, PostgreSQL synchronous_commit=off", pg_one_async, "");
  std::printf("%-58s %12.0f/s %12s\n", "fires, 8 sessions at once, PostgreSQL synchronous_commit=off", pg_eight_async,
              "");
  std::printf("%-58s %12.1fx %12s\n", "  8 sessions / 1 session", pg_eight_async / pg_one_async, "");
  std::printf("%-58s %12.0f/s %12s\n", "  baseline: libpq alone, one-row commits (not flushed)", raw_async, "");
  std::printf("%-58s %12.0f/s %12s\n", "  beside: fires, 1 session, SQLite synchronous=FULL", sq_one_full, "");
  std::printf("%-58s %12.0f/s %12s\n", "  beside: fires, 8 sessions, one SQLite file, FULL", sq_eight_full, "");
  std::printf("%-58s %12.0f/s %12s\n", "  beside: fires, 1 session, SQLite synchronous=NORMAL", sq_one_normal, "");
  std::printf("%-58s %12.0f/s %12s\n", "  beside: fires, 8 sessions, one SQLite file, NORMAL", sq_eight_normal, "");
  std::printf("%-58s %11.0f ms %12s\n",
              ("takeover after SIGKILL, lease " + std::to_string(lease.count()) + " ms, worst").c_str(), kill_worst,
              "< 1100 ms");
  std::printf("%-58s %11.0f ms %12s\n", "  mean", kill_sum / takeovers, "");
  std::printf("%-58s %11.1f ms %12s\n", "takeover after a clean release, worst", release_worst, "");
  std::printf("(%d fires for 1 session, %d per session for 8; %d takeovers)\n", one, each, takeovers);
  // The bench's sessions go again, so reruns do not grow the database.
  try {
    const auto conn = gp::detail::pg_connect(uri);
    const std::string like = tag + "%";
    const std::string params[] = {like};
    gp::detail::pg_exec(conn.get(), "DELETE FROM groundplane_rows WHERE session LIKE $1", params);
    gp::detail::pg_exec(conn.get(), "DELETE FROM groundplane_sessions WHERE name LIKE $1", params);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "could not remove the bench's sessions: %s\n", e.what());
  }
  return 0;
}
