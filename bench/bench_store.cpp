// The ledger store's figures, for bench/run: fires per second in memory, on the SQLite
// store at synchronous=NORMAL and at FULL (side by side), bytes on disk per row, and the
// time to restore a session of 1M rows. Plain wall-clock timing of fixed workloads (a
// store's cost is I/O, which a micro-benchmark loop would only average away).
//
//   groundplane_bench_store DIR [--quick]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <sqlite3.h>

#include <groundplane/session.hpp>
#include <groundplane/store/sqlite.hpp>

namespace gp = groundplane;
using nlohmann::json;
using clock_type = std::chrono::steady_clock;

namespace {

void remove_ledger(const std::filesystem::path& f) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(f.string() + suffix);
}

void declare(gp::Session& s) {
  s.declare("cart.add",
            {.does = "Add the item to the cart.", .handler = [](const json&) { return gp::HandlerResult{}; }});
}

// Fires per second: agent fires of an action whose handler returns (two rows each with
// a store: the fire, stored before its handler runs, and its grade after).
double fires_per_second(std::shared_ptr<gp::LedgerStore> store, int fires) {
  gp::Session s({.node = "shop", .store = std::move(store)});
  declare(s);
  const json payload{{"sku", "A-1001"}, {"qty", 1}};
  const auto t0 = clock_type::now();
  for (int i = 0; i < fires; ++i) s.fire("cart.add", {.payload = payload});
  const std::chrono::duration<double> dt = clock_type::now() - t0;
  return fires / dt.count();
}

// Collects what a session writes, so a long ledger can be built in large transactions.
class Capture final : public gp::LedgerStore {
 public:
  const std::string& session() const noexcept override { return name_; }
  gp::LedgerHead append(std::span<const gp::LedgerRow> rows) override {
    for (const auto& r : rows) rows_.push_back(r);
    return {rows_.size(), ""};
  }
  void read(std::uint64_t, const std::function<bool(const gp::StoredRow&)>&) const override {}
  void read_verified(const std::function<bool(const gp::StoredRow&)>&) const override {}
  gp::LedgerHead head() const override { return {rows_.size(), ""}; }
  gp::LedgerVerification verify() const noexcept override {
    gp::LedgerVerification v;
    v.ok = true;
    v.rows = rows_.size();
    return v;
  }
  std::vector<gp::LedgerRow> rows_;

 private:
  std::string name_ = "default";
};

// The restore as it was before it verified the chain: the same store, with the rows a
// Session restores from handed over as they are read. The restore row's baseline, in
// the same run.
class UnverifiedReads final : public gp::LedgerStore {
 public:
  explicit UnverifiedReads(std::shared_ptr<gp::LedgerStore> inner) : inner_(std::move(inner)) {}
  const std::string& session() const noexcept override { return inner_->session(); }
  gp::LedgerHead append(std::span<const gp::LedgerRow> rows) override { return inner_->append(rows); }
  void read(std::uint64_t from_seq, const std::function<bool(const gp::StoredRow&)>& visit) const override {
    inner_->read(from_seq, visit);
  }
  void read_verified(const std::function<bool(const gp::StoredRow&)>& visit) const override { inner_->read(1, visit); }
  gp::LedgerHead head() const override { return inner_->head(); }
  bool writable() const noexcept override { return inner_->writable(); }
  gp::LedgerVerification verify() const noexcept override { return inner_->verify(); }

 private:
  std::shared_ptr<gp::LedgerStore> inner_;
};

// The baseline in the same run: SQLite alone committing one small row per transaction
// in WAL at synchronous=NORMAL, no groundplane. A fire with a handler commits twice (its
// row before the handler runs, its grade after), so half of this is its ceiling.
// With `exclusive`, the connection holds the file as SqliteStoreOptions::exclusive does.
double raw_commits_per_second(const std::filesystem::path& file, int n, bool exclusive = false) {
  remove_ledger(file);
  sqlite3* db = nullptr;
  sqlite3_open(file.string().c_str(), &db);
  if (exclusive) sqlite3_exec(db, "PRAGMA locking_mode=EXCLUSIVE;", nullptr, nullptr, nullptr);
  sqlite3_exec(
      db,
      "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
      "CREATE TABLE r(s INTEGER, q INTEGER, v INTEGER, k TEXT, b TEXT, h BLOB, PRIMARY KEY (s, q)) WITHOUT ROWID;",
      nullptr, nullptr, nullptr);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "INSERT INTO r VALUES (1, ?1, 0, 't', '{\"a\":\"cart.add\"}', zeroblob(32))", -1, &st,
                     nullptr);
  const auto t0 = clock_type::now();
  for (int i = 0; i < n; ++i) {
    sqlite3_bind_int64(st, 1, i);
    sqlite3_step(st);
    sqlite3_reset(st);
  }
  const std::chrono::duration<double> dt = clock_type::now() - t0;
  sqlite3_finalize(st);
  sqlite3_close(db);
  remove_ledger(file);
  return n / dt.count();
}

// Resident memory of this process, in bytes (Linux /proc).
std::size_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long pages = 0, resident = 0;
  const int got = std::fscanf(f, "%lu %lu", &pages, &resident);
  std::fclose(f);
  return got == 2 ? resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)) : 0;
}

// The fastest of 50 renders: the render's cost without the other processes' noise.
double render_seconds(const gp::Session& s) {
  double best = 1e9;
  for (int i = 0; i < 50; ++i) {
    const auto t0 = clock_type::now();
    (void)s.ground_truth();
    best = std::min(best, std::chrono::duration<double>(clock_type::now() - t0).count());
  }
  return best;
}

// max_rows_in_memory = 10000: a million-fire prefix, then the rest; resident memory and a
// block's render time after each, and the session's count beside the store's.
struct Bounded {
  std::size_t fires = 0, first = 0;
  std::size_t rss_first = 0, rss_last = 0;
  double render_first = 0, render_last = 0, seconds = 0;
  std::size_t counted = 0, stored = 0;
};
Bounded bounded(std::shared_ptr<gp::LedgerStore> store, std::size_t fires) {
  Bounded b;
  b.fires = fires;
  b.first = fires / 10;
  const bool has_store = store != nullptr;
  gp::Session s({.node = "shop", .store = store, .max_rows_in_memory = 10'000});
  declare(s);
  const auto t0 = clock_type::now();
  for (std::size_t i = 0; i < fires; ++i) {
    s.fire(i % 2 == 0 ? "cart.add" : "made.up");
    if (i + 1 == b.first) {
      b.rss_first = resident_bytes();
      b.render_first = render_seconds(s);
    }
  }
  b.seconds = std::chrono::duration<double>(clock_type::now() - t0).count();
  b.rss_last = resident_bytes();
  b.render_last = render_seconds(s);
  b.counted = s.view().attempts();
  if (has_store)
    store->read(1, [&](const gp::StoredRow& row) {
      if (row.kind == "t" || row.kind == "g") ++b.stored;
      return true;
    });
  return b;
}

// Memory one in-memory ledger row costs, no cap: resident growth over a million fires
// alternating a real and an unknown id (the workload issue-level figures use).
double bytes_per_memory_row(std::size_t fires) {
  gp::Session s({.node = "shop"});
  declare(s);
  s.fire("cart.add");
  const std::size_t before = resident_bytes();
  for (std::size_t i = 1; i < fires; ++i) s.fire(i % 2 == 0 ? "cart.add" : "made.up");
  return static_cast<double>(resident_bytes() - before) / static_cast<double>(fires - 1);
}

std::size_t env_size(const char* name, std::size_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? static_cast<std::size_t>(std::stoull(v)) : fallback;
}

// What an app restarting on its ledger pays, in seconds: reading the rows back alone,
// re-deriving the chain, a restore, the same restore without verifying the chain, and a
// restore under max_rows_in_memory = 10000.
struct RestoreTimes {
  double read_only = 0, verify = 0, restore = 0, restore_unverified = 0, restore_capped = 0;
  std::uint64_t read_rows = 0, verified_rows = 0, version = 0;
};

// With `key`, the file's chain is keyed: it is verified and restored with the key.
RestoreTimes time_restore(const std::filesystem::path& file, const std::string& key = "") {
  RestoreTimes t;
  const auto r0 = clock_type::now();
  gp::open_sqlite_store(file, {.read_only = true, .key = key})->read(1, [&](const gp::StoredRow&) {
    ++t.read_rows;
    return true;
  });
  t.read_only = std::chrono::duration<double>(clock_type::now() - r0).count();
  const auto v0 = clock_type::now();
  t.verified_rows = gp::verify_sqlite_ledger(file, "default", "", key).rows;
  t.verify = std::chrono::duration<double>(clock_type::now() - v0).count();
  const auto t0 = clock_type::now();
  {
    gp::Session r({.store = gp::open_sqlite_store(file, {.read_only = true, .key = key})});
    t.version = r.version();
  }
  t.restore = std::chrono::duration<double>(clock_type::now() - t0).count();
  const auto u0 = clock_type::now();
  {
    gp::Session r(
        {.store = std::make_shared<UnverifiedReads>(gp::open_sqlite_store(file, {.read_only = true, .key = key}))});
    if (r.version() != t.version) throw std::runtime_error("the unverified restore reached another version");
  }
  t.restore_unverified = std::chrono::duration<double>(clock_type::now() - u0).count();
  const auto c0 = clock_type::now();
  {
    gp::Session r(
        {.store = gp::open_sqlite_store(file, {.read_only = true, .key = key}), .max_rows_in_memory = 10'000});
    (void)r.version();
  }
  t.restore_capped = std::chrono::duration<double>(clock_type::now() - c0).count();
  return t;
}

// The same, in a new process (this program again, with --restore FILE): a restore is an app
// starting on its file, not the process that just built a million rows in memory (there,
// reading the rows alone measured 1.2-1.5 s against 0.56-0.62 s in a new process).
RestoreTimes time_restore_in_new_process(const std::filesystem::path& file,
                                         const std::filesystem::path& key_file = {}) {
  const std::string cmd = "'" + std::filesystem::read_symlink("/proc/self/exe").string() + "' --restore '" +
                          file.string() + "'" + (key_file.empty() ? std::string() : " '" + key_file.string() + "'");
  std::FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("cannot run " + cmd);
  RestoreTimes t;
  unsigned long long rows = 0, verified = 0, version = 0;
  const int got = std::fscanf(p, "%lf %lf %lf %lf %lf %llu %llu %llu", &t.read_only, &t.verify, &t.restore,
                              &t.restore_unverified, &t.restore_capped, &rows, &verified, &version);
  if (::pclose(p) != 0 || got != 8) throw std::runtime_error("the restore run failed: " + cmd);
  t.read_rows = rows;
  t.verified_rows = verified;
  t.version = version;
  return t;
}

}  // namespace

// The key the keyed rows are measured with (32 bytes, as an app's would be).
const std::string bench_key = "bench key: thirty-two bytes long";

// Fires per second unkeyed and keyed (NORMAL), alternating rounds on fresh files so that
// the machine's load falls on both alike; the best of each.
struct KeyedFires {
  double unkeyed = 0, keyed = 0;
};
KeyedFires keyed_fires(const std::filesystem::path& dir, int fires, int rounds) {
  KeyedFires k;
  const auto file = dir / "bench-keyed.ledger";
  for (int r = 0; r < rounds; ++r) {
    for (const bool keyed : {false, true}) {
      remove_ledger(file);
      const double f = fires_per_second(
          gp::open_sqlite_store(file, {.synchronous_commit = false, .key = keyed ? bench_key : std::string()}), fires);
      double& best = keyed ? k.keyed : k.unkeyed;
      best = std::max(best, f);
    }
  }
  remove_ledger(file);
  return k;
}

std::string read_key(const char* path) {
  std::FILE* f = std::fopen(path, "rb");
  if (!f) throw std::runtime_error(std::string("cannot read ") + path);
  std::string key(256, '\0');
  key.resize(std::fread(key.data(), 1, key.size(), f));
  std::fclose(f);
  return key;
}

// A verifying restore alone, in a new process (--restore-only FILE [KEY_FILE]), in seconds.
double restore_only_in_new_process(const std::filesystem::path& file, const std::filesystem::path& key_file = {}) {
  const std::string cmd = "'" + std::filesystem::read_symlink("/proc/self/exe").string() + "' --restore-only '" +
                          file.string() + "'" + (key_file.empty() ? std::string() : " '" + key_file.string() + "'");
  std::FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("cannot run " + cmd);
  double seconds = 0;
  const int got = std::fscanf(p, "%lf", &seconds);
  if (::pclose(p) != 0 || got != 1) throw std::runtime_error("the restore run failed: " + cmd);
  return seconds;
}

int main(int argc, char** argv) {
  if ((argc == 3 || argc == 4) && std::string(argv[1]) == "--restore-only") {
    const std::string key = argc == 4 ? read_key(argv[3]) : std::string();
    const auto t0 = clock_type::now();
    gp::Session r({.store = gp::open_sqlite_store(argv[2], {.read_only = true, .key = key})});
    std::printf("%.6f\n", std::chrono::duration<double>(clock_type::now() - t0).count());
    return r.version() > 0 ? 0 : 1;
  }
  if ((argc == 3 || argc == 4) && std::string(argv[1]) == "--restore") {
    const RestoreTimes t = time_restore(argv[2], argc == 4 ? read_key(argv[3]) : std::string());
    std::printf("%.6f %.6f %.6f %.6f %.6f %llu %llu %llu\n", t.read_only, t.verify, t.restore, t.restore_unverified,
                t.restore_capped, static_cast<unsigned long long>(t.read_rows),
                static_cast<unsigned long long>(t.verified_rows), static_cast<unsigned long long>(t.version));
    return 0;
  }
  if (argc < 2) {
    std::fprintf(stderr, "usage: groundplane_bench_store DIR [--quick]\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  const bool quick = argc > 2 && std::string(argv[2]) == "--quick";
  std::filesystem::create_directories(dir);
  const auto normal_file = dir / "bench-normal.ledger";
  const auto full_file = dir / "bench-full.ledger";
  const auto big_file = dir / "bench-restore.ledger";
  const auto keyed_big_file = dir / "bench-restore-keyed.ledger";
  remove_ledger(normal_file);
  remove_ledger(full_file);
  remove_ledger(big_file);
  remove_ledger(keyed_big_file);

  // First, while this process is small: resident memory is what these rows measure.
  // Bounded memory: GROUNDPLANE_BENCH_BOUNDED_FIRES in memory (10M by default), and
  // GROUNDPLANE_BENCH_BOUNDED_STORE_FIRES on the NORMAL store (1M by default).
  const Bounded mem = bounded(nullptr, env_size("GROUNDPLANE_BENCH_BOUNDED_FIRES", quick ? 1'000'000 : 10'000'000));
  const auto bounded_file = dir / "bench-bounded.ledger";
  remove_ledger(bounded_file);
  const Bounded disk = bounded(gp::open_sqlite_store(bounded_file, {.synchronous_commit = false}),
                               env_size("GROUNDPLANE_BENCH_BOUNDED_STORE_FIRES", quick ? 100'000 : 1'000'000));
  remove_ledger(bounded_file);
  const double row_bytes = bytes_per_memory_row(quick ? 200'000 : 1'000'000);

  const int n_memory = quick ? 20'000 : 200'000;
  const int n_normal = quick ? 20'000 : 100'000;
  const int n_full = quick ? 300 : 500;
  const double memory = fires_per_second(nullptr, n_memory);
  const double normal = fires_per_second(gp::open_sqlite_store(normal_file, {.synchronous_commit = false}), n_normal);
  const double raw = raw_commits_per_second(dir / "bench-raw.db", n_normal);
  const auto exclusive_file = dir / "bench-exclusive.ledger";
  remove_ledger(exclusive_file);
  const double exclusive = fires_per_second(
      gp::open_sqlite_store(exclusive_file, {.exclusive = true, .synchronous_commit = false}), n_normal);
  remove_ledger(exclusive_file);
  const double raw_exclusive = raw_commits_per_second(dir / "bench-raw.db", n_normal, true);
  const double full = fires_per_second(gp::open_sqlite_store(full_file, {.synchronous_commit = true}), n_full);
  const auto normal_rows = gp::verify_sqlite_ledger(normal_file).rows;
  const double bytes_per_row =
      static_cast<double>(std::filesystem::file_size(normal_file)) / static_cast<double>(normal_rows);

  // Restore: a session of (about) 1M rows, built by firing into a capture and appended
  // to the file in large transactions, then restored from the file.
  const std::uint64_t target = quick ? 100'000 : 1'000'000;
  {
    const auto capture = std::make_shared<Capture>();
    gp::Session s({.node = "shop", .state = {{"cart", 0}}, .store = capture});
    declare(s);
    s.declare("cart.save", {.does = "Save the cart.", .writes = {"cart"}, .handler = [](const json&) {
                              return gp::HandlerResult{};
                            }});
    for (std::uint64_t i = 0; capture->rows_.size() < target; ++i) {
      if (i % 4 == 0) {
        const auto t = s.fire("cart.save", {.payload = {{"n", i}}});
        s.report_state({{"cart", i}}, t.transition_id);
      } else if (i % 4 == 1) {
        s.fire("made.up");
      } else {
        s.fire("cart.add", {.payload = {{"sku", "A-1001"}}});
      }
    }
    for (const bool keyed : {false, true}) {
      const auto store = gp::open_sqlite_store(keyed ? keyed_big_file : big_file,
                                               {.synchronous_commit = false, .key = keyed ? bench_key : ""});
      const std::span<const gp::LedgerRow> all(capture->rows_);
      for (std::size_t k = 0; k < all.size(); k += 50'000)
        store->append(all.subspan(k, std::min<std::size_t>(50'000, all.size() - k)));
    }
  }
  // Where restore's time goes: reading the rows back alone, and re-deriving the chain.
  // The same rows keyed, restored with the key, right after, in a new process too.
  const RestoreTimes rt = time_restore_in_new_process(big_file);
  const auto key_file = dir / "bench.key";
  {
    std::FILE* f = std::fopen(key_file.string().c_str(), "wb");
    std::fwrite(bench_key.data(), 1, bench_key.size(), f);
    std::fclose(f);
  }
  const RestoreTimes keyed_rt = time_restore_in_new_process(keyed_big_file, key_file);
  if (keyed_rt.verified_rows != rt.verified_rows || keyed_rt.version != rt.version)
    throw std::runtime_error("the keyed restore read another ledger");
  // The two verifying restores again, alternating, three rounds each: the best of each
  // (the machine's load then falls on both alike).
  double best_unkeyed = rt.restore, best_keyed = keyed_rt.restore;
  for (int round = 0; round < 3; ++round) {
    best_unkeyed = std::min(best_unkeyed, restore_only_in_new_process(big_file));
    best_keyed = std::min(best_keyed, restore_only_in_new_process(keyed_big_file, key_file));
  }
  const KeyedFires kf = keyed_fires(dir, n_normal / 2, 3);
  const std::uint64_t big_rows = rt.verified_rows;
  const std::uint64_t read_rows = rt.read_rows;
  const std::uint64_t restored_version = rt.version;

  const double big_bytes = static_cast<double>(std::filesystem::file_size(big_file)) / static_cast<double>(big_rows);

  std::printf("%-44s %14s %10s\n", "ledger store", "measured", "goal");
  std::printf("%-44s %12.0f/s %10s\n", "fires, in memory", memory, "");
  std::printf("%-44s %12.0f/s %10s\n", "fires, SQLite WAL synchronous=NORMAL", normal, ">= 50000");
  std::printf("%-44s %12.0f/s %10s\n", "  baseline: SQLite alone, one-row commits", raw, "");
  std::printf("%-44s %12.0f/s %10s\n", "fires, NORMAL, exclusive (file held open)", exclusive, ">= 50000");
  std::printf("%-44s %12.0f/s %10s\n", "  baseline: SQLite alone, exclusive", raw_exclusive, "");
  std::printf("%-44s %12.0f/s %10s\n", "fires, SQLite WAL synchronous=FULL", full, "");
  std::printf("%-44s %12.1f B %10s\n", "bytes on disk per row (NORMAL run)", bytes_per_row, "<= 200");
  std::printf("%-44s %12.1f B %10s\n", ("bytes on disk per row (" + std::to_string(big_rows) + " rows)").c_str(),
              big_bytes, "<= 200");
  std::printf("%-44s %12.3f s %10s\n", ("restore " + std::to_string(big_rows) + " rows (a new process)").c_str(),
              rt.restore, quick ? "" : "< 2");
  std::printf("%-44s %12.3f s %10s\n", "  baseline: the same, the chain not verified", rt.restore_unverified, "");
  std::printf("%-44s %12.2fx %10s\n", "  restore against its baseline", rt.restore / rt.restore_unverified, "<= 1.30x");
  std::printf("%-44s %12.3f s %10s\n",
              ("  for scale: reading the " + std::to_string(read_rows) + " rows alone").c_str(), rt.read_only, "");
  std::printf("%-44s %12.3f s %10s\n", ("verify_sqlite_ledger, " + std::to_string(big_rows) + " rows").c_str(),
              rt.verify, "");
  std::printf("%-44s %12.3f s %10s\n", "  restore, max_rows_in_memory = 10000", rt.restore_capped, "< 2");
  std::printf("%-44s %12.0f/s %10s\n", "fires, NORMAL, unkeyed (best of 3 rounds)", kf.unkeyed, "");
  std::printf("%-44s %12.0f/s %10s\n", "fires, NORMAL, keyed (HMAC-SHA256; best of 3)", kf.keyed, "");
  std::printf("%-44s %12.2fx %10s\n", "  unkeyed against keyed", kf.unkeyed / kf.keyed, "<= 1.20x");
  std::printf("%-44s %12.3f s %10s\n",
              ("restore " + std::to_string(rt.verified_rows) + " rows, unkeyed (best of 4)").c_str(), best_unkeyed, "");
  std::printf("%-44s %12.3f s %10s\n",
              ("keyed restore " + std::to_string(keyed_rt.verified_rows) + " rows, with the key (best of 4)").c_str(),
              best_keyed, "");
  std::printf("%-44s %12.2fx %10s\n", "  keyed restore against the unkeyed restore", best_keyed / best_unkeyed,
              "<= 1.30x");
  std::printf("%-44s %12.3f s %10s\n", "  verify_sqlite_ledger with the key", keyed_rt.verify, "");
  std::printf("%-44s %12.1f B %10s\n", "memory per in-memory ledger row (no cap)", row_bytes, "<= 128");
  for (const Bounded* b : {&mem, &disk}) {
    const std::string where = b == &mem ? "in memory" : "NORMAL store";
    const double growth = 100.0 * (static_cast<double>(b->rss_last) - static_cast<double>(b->rss_first)) /
                          static_cast<double>(b->rss_first);
    std::printf("bounded (max_rows_in_memory = 10000, %s, %zu fires in %.1f s):\n", where.c_str(), b->fires,
                b->seconds);
    std::printf("%-44s %10.1f MiB %10s\n", ("  resident after " + std::to_string(b->first) + " fires").c_str(),
                static_cast<double>(b->rss_first) / 1048576.0, "");
    std::printf("%-44s %10.1f MiB %10s\n", ("  resident after " + std::to_string(b->fires) + " fires").c_str(),
                static_cast<double>(b->rss_last) / 1048576.0, "");
    std::printf("%-44s %11.1f %% %10s\n", "  growth after the first tenth", growth, "< 10");
    std::printf("%-44s %10.1f us %10s\n", ("  block render at " + std::to_string(b->first) + " fires").c_str(),
                b->render_first * 1e6, "");
    std::printf("%-44s %10.1f us %10s\n", ("  block render at " + std::to_string(b->fires) + " fires").c_str(),
                b->render_last * 1e6, "same");
    std::printf("%-44s %12zu %10s\n", "  attempts the session counts", b->counted, "");
    if (b == &disk) std::printf("%-44s %12zu %10s\n", "  attempt rows in the store", b->stored, "equal");
  }
  std::printf("(%d / %d / %d fires; restored version %llu)\n", n_memory, n_normal, n_full,
              static_cast<unsigned long long>(restored_version));
  remove_ledger(normal_file);
  remove_ledger(full_file);
  remove_ledger(big_file);
  remove_ledger(keyed_big_file);
  return 0;
}
