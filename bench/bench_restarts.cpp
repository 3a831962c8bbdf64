// Restarts and retries, for bench/run: what a request key adds to a fire (in memory and on
// the SQLite store at synchronous=NORMAL), and what a restore pays to probe 1,000 fires a
// stop left in doubt, each beside its baseline measured in the same run: a plain fire,
// and the same restore with the action declared without a probe. The probe's own time is
// measured inside it and taken out. Each figure is the best of several rounds, so a busy
// machine inflates neither side.
//
//   groundplane_bench_restarts DIR [--quick]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <groundplane/session.hpp>
#include <groundplane/store/sqlite.hpp>

namespace gp = groundplane;
using nlohmann::json;
using clock_type = std::chrono::steady_clock;

namespace {

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

void remove_ledger(const std::filesystem::path& f) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(f.string() + suffix);
}

void copy_ledger(const std::filesystem::path& from, const std::filesystem::path& to) {
  remove_ledger(to);
  for (const char* suffix : {"", "-wal"})
    if (std::filesystem::exists(from.string() + suffix))
      std::filesystem::copy_file(from.string() + suffix, to.string() + suffix);
}

gp::ActionSpec charge() {
  return {.does = "Charge the card.", .handler = [](const json&) { return gp::HandlerResult{}; }};
}

// Seconds per fire over `n` fires, each with a request key of its own when `keyed`. Each
// fire's options (its payload, and its key) are made before the clock starts: they are the
// caller's, and the same for both but the key.
double seconds_per_fire(const std::shared_ptr<gp::LedgerStore>& store, int n, bool keyed) {
  gp::Session s({.node = "shop", .store = store});
  s.declare("payments.charge", charge());
  const json payload{{"order", 57}, {"cents", 1299}};
  std::vector<gp::FireOptions> calls;
  calls.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    calls.push_back(
        {.payload = payload, .request_key = keyed ? "order-" + std::to_string(i) + "-charge-7f3a9c" : std::string()});
  const auto t0 = clock_type::now();
  for (auto& call : calls) s.fire("payments.charge", std::move(call));
  return seconds_since(t0) / n;
}

// The best of `rounds` alternating plain and keyed runs: {plain, keyed} seconds per fire.
std::pair<double, double> fire_costs(const std::function<std::shared_ptr<gp::LedgerStore>()>& store, int n,
                                     int rounds) {
  double plain = 1e9, keyed = 1e9;
  for (int r = 0; r < rounds; ++r) {
    plain = std::min(plain, seconds_per_fire(store(), n, false));
    keyed = std::min(keyed, seconds_per_fire(store(), n, true));
  }
  return {plain, keyed};
}

// A ledger whose app stopped with `in_doubt` fires awaiting their reports (their handlers
// returned, their declared effects never reported), after `history` ordinary fires.
void write_stopped(const std::filesystem::path& file, int history, int in_doubt) {
  remove_ledger(file);
  gp::Session s({.node = "shop", .store = gp::open_sqlite_store(file, {.synchronous_commit = false})});
  s.declare("payments.charge", charge());
  s.declare("parcels.ship", {.does = "Ship the parcel.", .writes = {"/shipped"}, .handler = [](const json&) {
                               return gp::HandlerResult{};
                             }});
  for (int i = 0; i < history; ++i) s.fire("payments.charge", {.payload = {{"order", i}}});
  for (int i = 0; i < in_doubt; ++i) s.fire("parcels.ship", {.payload = {{"order", i}}});
}  // the app stops before any report

// One restore of a copy of `file` and the declare that mounts the action, with a probe
// answering true or none: seconds, the probe's own time taken out; and how many fires the
// probe was asked about.
struct RestoreRun {
  double seconds = 0;
  int asked = 0;
};
RestoreRun restore_once(const std::filesystem::path& file, const std::filesystem::path& copy, bool probe) {
  copy_ledger(file, copy);
  RestoreRun run;
  double in_probe = 0;
  const auto t0 = clock_type::now();
  {
    gp::Session s({.store = gp::open_sqlite_store(copy, {.synchronous_commit = false})});
    s.declare("payments.charge", charge());
    gp::ActionSpec ship{
        .does = "Ship the parcel.", .writes = {"/shipped"}, .handler = [](const json&) { return gp::HandlerResult{}; }};
    if (probe)
      ship.probe = [&](const gp::FireContext& fire) -> std::optional<bool> {
        const auto p0 = clock_type::now();
        ++run.asked;
        const bool known = !fire.idempotency_key.empty();  // the carrier has every parcel
        in_probe += seconds_since(p0);
        return known;
      };
    s.declare("parcels.ship", std::move(ship));
    if (s.in_doubt_fires().size() != (probe ? 0U : 1000U))
      throw std::runtime_error("the restore did not leave the fires in doubt it should");
  }
  run.seconds = seconds_since(t0) - in_probe;
  remove_ledger(copy);
  return run;
}

struct RestoreCosts {
  double without = 1e9, with = 1e9;
  int asked = 0;
};
RestoreCosts restore_costs(const std::filesystem::path& file, const std::filesystem::path& copy, int rounds) {
  RestoreCosts c;
  for (int r = 0; r < rounds; ++r) {
    c.without = std::min(c.without, restore_once(file, copy, false).seconds);
    const RestoreRun with = restore_once(file, copy, true);
    c.with = std::min(c.with, with.seconds);
    c.asked = with.asked;
  }
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: groundplane_bench_restarts DIR [--quick]\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  const bool quick = argc > 2 && std::string(argv[2]) == "--quick";
  std::filesystem::create_directories(dir);
  const auto fires_file = dir / "restarts-fires.ledger";

  const int n_memory = quick ? 20'000 : 200'000;
  const int n_store = quick ? 5'000 : 50'000;
  const auto [memory_plain, memory_keyed] = fire_costs([] { return nullptr; }, n_memory, 5);
  const auto [store_plain, store_keyed] = fire_costs(
      [&] {
        remove_ledger(fires_file);
        return gp::open_sqlite_store(fires_file, {.synchronous_commit = false});
      },
      n_store, 3);
  remove_ledger(fires_file);

  const auto alone = dir / "restarts-in-doubt.ledger";
  const auto among = dir / "restarts-in-doubt-history.ledger";
  const auto copy = dir / "restarts-copy.ledger";
  write_stopped(alone, 0, 1000);
  write_stopped(among, quick ? 10'000 : 100'000, 1000);
  const RestoreCosts c_alone = restore_costs(alone, copy, 5);
  const RestoreCosts c_among = restore_costs(among, copy, 3);
  remove_ledger(alone);
  remove_ledger(among);

  std::printf("%-52s %12s %10s\n", "restarts and retries", "measured", "goal");
  std::printf("%-52s %10.2f us %10s\n", "fire with a request key, in memory", memory_keyed * 1e6, "");
  std::printf("%-52s %10.2f us %10s\n", "  baseline: a plain fire, in memory", memory_plain * 1e6, "");
  std::printf("%-52s %11.2fx %10s\n", "  against its baseline", memory_keyed / memory_plain, "<= 1.50x");
  std::printf("%-52s %10.2f us %10s\n", "fire with a request key, SQLite NORMAL", store_keyed * 1e6, "");
  std::printf("%-52s %10.2f us %10s\n", "  baseline: a plain fire, SQLite NORMAL", store_plain * 1e6, "");
  std::printf("%-52s %11.2fx %10s\n", "  against its baseline", store_keyed / store_plain, "<= 1.50x");
  for (const auto* c : {&c_alone, &c_among}) {
    const std::string what = c == &c_alone
                                 ? "1,000 fires in doubt alone"
                                 : "1,000 fires in doubt after " + std::to_string(quick ? 10'000 : 100'000) + " fires";
    std::printf("%-52s %10.2f ms %10s\n", ("restore probing " + what).c_str(), c->with * 1e3, "");
    std::printf("%-52s %10.2f ms %10s\n", "  baseline: the same, no probe declared", c->without * 1e3, "");
    std::printf("%-52s %11.2fx %10s\n", ("  against its baseline (" + std::to_string(c->asked) + " probed)").c_str(),
                c->with / c->without, "<= 2.00x");
  }
  std::printf("(%d fires in memory, %d on the store per round; the probe's own time taken out)\n", n_memory, n_store);
  return 0;
}
