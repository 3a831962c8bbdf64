// The PostgreSQL store's own promise: one writer per session, enforced by the database.
// The lease and its epoch, takeover after release or expiry, SessionMoved for a former
// owner whose write the database refuses — in one process, then between processes
// (two replicas, an owner SIGSTOPped past its lease), an owner SIGKILLed again and again
// and resumed by a new process each time, and many processes with many sessions at once.
#include <fcntl.h>
#include <signal.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>
#include "catch2_compat.hpp"

#include "groundplane/session.hpp"
#include "groundplane/store/postgres.hpp"
#include "postgres_fixtures.hpp"

namespace gp = groundplane;
using nlohmann::json;
using std::chrono::milliseconds;
using steady = std::chrono::steady_clock;

namespace {

gp::LedgerHead fill(gp::LedgerStore& store, int n, const std::string& by = "a") {
  gp::LedgerHead head;
  for (int k = 0; k < n; ++k) {
    const gp::LedgerRow row{static_cast<std::uint64_t>(k), "fire", json{{"by", by}, {"k", k}}};
    head = store.append(std::span(&row, 1));
  }
  return head;
}

std::uint64_t epoch_of(const std::shared_ptr<gp::LedgerStore>& store) {
  return dynamic_cast<const gp::detail::PostgresStore&>(*store).epoch();
}

std::vector<gp::StoredRow> all_rows(const gp::LedgerStore& store) {
  std::vector<gp::StoredRow> out;
  store.read(1, [&](const gp::StoredRow& r) {
    out.push_back(r);
    return true;
  });
  return out;
}

long env_or(const char* name, long fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atol(v) : fallback;
}

}  // namespace

TEST_CASE(
    "A second store on a session waits while the first holds its lease, and takes over with a higher epoch "
    "once it is released",
    "[store][postgres]") {
  const auto uri = gp_test::postgres_uri();
  if (!uri) return;
  const std::string session = gp_test::unique_session("lease");
  auto first = gp::open_postgres_store(*uri, {.session = session});
  fill(*first, 2);
  const std::uint64_t first_epoch = epoch_of(first);
  CHECK(first_epoch >= 1);
  std::atomic<bool> opened{false};
  std::shared_ptr<gp::LedgerStore> second;
  std::thread t([&] {
    second = gp::open_postgres_store(*uri, {.session = session});
    opened = true;
  });
  std::this_thread::sleep_for(milliseconds(400));
  CHECK_FALSE(opened.load());  // the lease is 10 s and renewed: the second store waits
  first.reset();               // released
  t.join();
  REQUIRE(second);
  CHECK(epoch_of(second) == first_epoch + 1);
  CHECK(second->head().rows == 2);  // it restores what the first wrote, and chains after it
  fill(*second, 1, "b");
  CHECK(gp::verify_postgres_ledger(*uri, session).rows == 3);
  CHECK(gp::verify_postgres_ledger(*uri, session).ok);
}

TEST_CASE(
    "The lease is renewed in the background while the store lives, and its bookkeeping adds no rows and does "
    "not move the head",
    "[store][postgres]") {
  const auto uri = gp_test::postgres_uri();
  if (!uri) return;
  const std::string session = gp_test::unique_session("renew");
  const auto store = gp::open_postgres_store(*uri, {.session = session, .lease = milliseconds(300)});
  const std::string head = fill(*store, 2).hex;
  std::this_thread::sleep_for(milliseconds(1000));  // more than three lease periods, idle
  // Still owned: a store that waited for expiry would have taken over by now.
  const auto conn = gp::detail::pg_connect(*uri);
  const std::string params[] = {session};
  const auto r = gp::detail::pg_exec(
      conn.get(), "SELECT lease_until > clock_timestamp() FROM groundplane_sessions WHERE name = $1", params);
  REQUIRE(PQntuples(r.get()) == 1);
  CHECK(gp::detail::pg_bytes(r.get(), 0, 0) == std::string_view("\x01", 1));
  CHECK(store->head().hex == head);
  CHECK(store->head().rows == 2);
  const auto v = gp::verify_postgres_ledger(*uri, session);
  CHECK(v.ok);
  CHECK(v.rows == 2);
  CHECK(v.head == head);
  fill(*store, 1);  // and it still writes
  CHECK(gp::verify_postgres_ledger(*uri, session).rows == 3);
}

TEST_CASE(
    "A store refused after it took the lease (a keyed session opened without its key or with another) gives the "
    "lease back: the next open takes the session at once",
    "[store][postgres]") {
  const auto uri = gp_test::postgres_uri();
  if (!uri) return;
  const std::string session = gp_test::unique_session("refused");
  const std::string key = "the key of the app: 32 bytes, ok";
  fill(*gp::open_postgres_store(*uri, {.session = session, .key = key}), 2);
  const auto conn = gp::detail::pg_connect(*uri);
  const std::string params[] = {session};
  for (const std::string wrong : {"", "a thief made this key: 32 bytes!"}) {
    INFO("opened with " << (wrong.empty() ? "no key" : "another key"));
    // A long lease: were it kept, the open below would wait a minute for it.
    CHECK_THROWS_AS(gp::open_postgres_store(*uri, {.session = session, .lease = milliseconds(60'000), .key = wrong}),
                    gp::LedgerStoreError);
    const auto r = gp::detail::pg_exec(conn.get(),
                                       "SELECT count(*) FROM groundplane_sessions"
                                       " WHERE name = $1 AND owner IS NULL AND lease_until IS NULL",
                                       params);
    CHECK(gp::detail::pg_int(r.get(), 0, 0) == 1);  // nobody holds it
  }
  const auto started = steady::now();
  const auto store = gp::open_postgres_store(*uri, {.session = session, .key = key});
  CHECK(steady::now() - started < milliseconds(5'000));
  CHECK(store->head().rows == 2);
}

// clang-format off
TEST_CASE("A write from a store whose lease was taken over is refused inside the database: SessionMoved, and nothing of it is stored", "[store][postgres]") {
  // clang-format on
  const auto uri = gp_test::postgres_uri();
  if (!uri) return;
  const std::string session = gp_test::unique_session("fence");
  const auto old_owner = gp::open_postgres_store(*uri, {.session = session});
  fill(*old_owner, 2, "old");
  // The old owner's lease runs out as if it had been paused (it never learns of it: its
  // own view still says it owns the session, so only the database can refuse it).
  gp_test::postgres_sql(*uri,
                        "UPDATE groundplane_sessions SET lease_until = clock_timestamp() - interval '1 second'"
                        " WHERE name = " +
                            gp_test::sql_literal(session));
  const auto new_owner = gp::open_postgres_store(*uri, {.session = session});
  CHECK(epoch_of(new_owner) == epoch_of(old_owner) + 1);
  CHECK(new_owner->head().rows == 2);
  fill(*new_owner, 1, "new");
  // A few rows go as plain parameters, more as arrays: each form is fenced.
  std::vector<gp::LedgerRow> late;
  SECTION("one row") { late.resize(1); }
  SECTION("six rows") { late.resize(6); }
  for (std::size_t k = 0; k < late.size(); ++k)
    late[k] = gp::LedgerRow{9 + k, "fire", json{{"by", "old"}, {"late", true}, {"k", k}}};
  CHECK_THROWS_AS(old_owner->append(late), gp::SessionMoved);
  try {
    old_owner->append(late);  // and every write after it
    FAIL("a former owner appended");
  } catch (const gp::SessionMoved& e) {
    // It names who holds the session now, and both epochs.
    CHECK_THAT(e.what(), Catch::Contains("moved: its lease was taken over by "));
    CHECK_THAT(e.what(), Catch::Contains(":" + std::to_string(::getpid()) + " (epoch " +
                                         std::to_string(epoch_of(new_owner)) + ")"));
    CHECK_THAT(e.what(), Catch::Contains("while this store held epoch " + std::to_string(epoch_of(old_owner))));
  }
  fill(*new_owner, 1, "new");
  const auto rows = all_rows(*new_owner);
  REQUIRE(rows.size() == 4);
  for (const auto& r : rows) CHECK(r.body.find("late") == std::string::npos);
  const auto v = gp::verify_postgres_ledger(*uri, session);
  CHECK(v.ok);
  CHECK(v.rows == 4);
  CHECK(v.head == new_owner->head().hex);
}

TEST_CASE("A Session on a store that lost its lease throws SessionMoved from its next fire and records nothing of it",
          "[store][postgres]") {
  const auto uri = gp_test::postgres_uri();
  if (!uri) return;
  const std::string session = gp_test::unique_session("moved");
  const auto ok = [](const json&) { return gp::HandlerResult{}; };
  gp::Session a({.store = gp::open_postgres_store(*uri, {.session = session})});
  a.declare("note", {.does = "Save a note.", .handler = ok});
  bool ran = false;
  a.declare("send", {.does = "Send mail.", .handler = [&](const json&) {
                       ran = true;
                       return gp::HandlerResult{};
                     }});
  a.fire("note", {.payload = {{"by", "a"}}});
  gp_test::postgres_sql(*uri,
                        "UPDATE groundplane_sessions SET lease_until = clock_timestamp() - interval '1 second'"
                        " WHERE name = " +
                            gp_test::sql_literal(session));
  gp::Session b({.store = gp::open_postgres_store(*uri, {.session = session})});
  b.declare("note", {.does = "Save a note.", .handler = ok});
  b.fire("note", {.payload = {{"by", "b"}}});
  CHECK_THROWS_AS(a.fire("send", {.payload = {{"by", "a"}, {"after", "moved"}}}), gp::SessionMoved);
  // An action's first declare stores its rule: refused too, and not mounted.
  CHECK_THROWS_AS(a.declare("archive", {.does = "Archive it.", .handler = ok}), gp::SessionMoved);
  CHECK(a.availability("archive") == gp::Availability::unknown);
  CHECK_FALSE(ran);  // the fire is stored before its handler runs: refused, it never ran
  const auto v = gp::verify_postgres_ledger(*uri, session);
  CHECK(v.ok);
  gp::Session reader({.store = gp::open_postgres_store(*uri, {.session = session, .read_only = true})});
  const auto view = reader.view();
  REQUIRE(view.transitions().size() == 2);
  for (const auto& t : view.transitions()) CHECK(t.cause.payload.value("after", "") != "moved");
}

// ---- processes ------------------------------------------------------------------------

#ifdef GROUNDPLANE_POSTGRES_CHILD
namespace {

// A postgres_child process and its stdout, read line by line.
class Child {
 public:
  explicit Child(const std::vector<std::string>& args) {
    int out[2];
    REQUIRE(::pipe(out) == 0);
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      ::dup2(out[1], 1);
      ::close(out[0]);
      ::close(out[1]);
      std::vector<char*> argv;
      std::vector<std::string> copy = args;
      argv.push_back(const_cast<char*>(GROUNDPLANE_POSTGRES_CHILD));
      for (auto& a : copy) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(GROUNDPLANE_POSTGRES_CHILD, argv.data());
      std::_Exit(127);
    }
    ::close(out[1]);
    fd_ = out[0];
  }
  ~Child() {
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      ::kill(pid_, SIGCONT);
      wait();
    }
    if (fd_ >= 0) ::close(fd_);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const noexcept { return pid_; }

  // Reads until a line starting with prefix arrives (true) or the timeout / EOF (false).
  bool wait_for(const std::string& prefix, milliseconds timeout) {
    const auto deadline = steady::now() + timeout;
    for (;;) {
      for (; scanned_ < lines_.size(); ++scanned_)
        if (lines_[scanned_].rfind(prefix, 0) == 0) {
          ++scanned_;
          return true;
        }
      if (eof_ || steady::now() >= deadline) return false;
      pump(milliseconds(5));
    }
  }
  // Reads whatever arrives within `for_`.
  void drain(milliseconds for_) {
    const auto deadline = steady::now() + for_;
    while (!eof_ && steady::now() < deadline) pump(milliseconds(5));
  }
  int wait() {
    while (!eof_) pump(milliseconds(50));
    int status = 0;
    ::waitpid(pid_, &status, 0);
    reaped_ = true;
    status_ = status;
    return status;
  }
  const std::vector<std::string>& lines() const noexcept { return lines_; }
  std::size_t line_count() const noexcept { return lines_.size(); }

 private:
  void pump(milliseconds timeout) {
    fd_set set;
    FD_ZERO(&set);
    FD_SET(fd_, &set);
    timeval tv{0, static_cast<suseconds_t>(timeout.count() * 1000)};
    if (::select(fd_ + 1, &set, nullptr, nullptr, &tv) <= 0) return;
    char buf[65536];
    const ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n <= 0) {
      eof_ = true;
      return;
    }
    partial_.append(buf, static_cast<std::size_t>(n));
    for (std::size_t nl; (nl = partial_.find('\n')) != std::string::npos;) {
      lines_.push_back(partial_.substr(0, nl));
      partial_.erase(0, nl + 1);
    }
  }
  pid_t pid_ = -1;
  int fd_ = -1;
  bool eof_ = false;
  bool reaped_ = false;
  int status_ = 0;
  std::string partial_;
  std::vector<std::string> lines_;
  std::size_t scanned_ = 0;
};

// The numbers n of the fires a replica said returned ("fired n t-K") and tried ("try n").
std::set<long> numbers(const std::vector<std::string>& lines, const std::string& prefix) {
  std::set<long> out;
  for (const auto& l : lines)
    if (l.rfind(prefix, 0) == 0) out.insert(std::atol(l.c_str() + prefix.size()));
  return out;
}

}  // namespace

// clang-format off
TEST_CASE("Two replicas, one session: only the owner writes, and SIGSTOPped past its lease it is taken over, and on SIGCONT its next fire throws SessionMoved with nothing of it stored", "[store][postgres][replicas]") {
  // clang-format on
  const auto uri = gp_test::postgres_uri();
  if (!uri) return;
  const std::string session = gp_test::unique_session("replicas");
  const std::string lease = "500";
  std::cout << "two replicas on session " << session << ", lease " << lease << " ms\n";
  Child a({"replica", *uri, session, lease, "A"});
  REQUIRE(a.wait_for("owner A", milliseconds(20'000)));
  REQUIRE(a.wait_for("fired 5 ", milliseconds(20'000)));
  std::cout << "A owns the session and fires\n";
  Child b({"replica", *uri, session, lease, "B", "20"});
  b.drain(milliseconds(1'200));  // over two lease periods: A renews, so B must still wait
  CHECK(b.lines().empty());
  std::cout << "B waited " << 1'200 << " ms while A held the lease: " << (b.lines().empty() ? "no output" : "WROTE")
            << "\n";
  REQUIRE(::kill(a.pid(), SIGSTOP) == 0);
  const auto stopped_at = steady::now();
  a.drain(milliseconds(50));
  const std::size_t a_lines_at_stop = a.line_count();
  REQUIRE(b.wait_for("owner B", milliseconds(20'000)));
  const auto took = std::chrono::duration_cast<milliseconds>(steady::now() - stopped_at).count();
  std::cout << "A SIGSTOPped; B took the session over " << took << " ms later\n";
  REQUIRE(b.wait_for("done B", milliseconds(20'000)));
  std::cout << "B fired 20 times\n";
  REQUIRE(::kill(a.pid(), SIGCONT) == 0);
  REQUIRE(a.wait_for("moved ", milliseconds(20'000)));
  const int a_status = a.wait();
  CHECK(WIFEXITED(a_status));
  CHECK(WEXITSTATUS(a_status) == 10);
  CHECK(b.wait() == 0);
  for (std::size_t i = a_lines_at_stop; i < a.line_count(); ++i)
    std::cout << "A after SIGCONT: " << a.lines()[i] << "\n";

  const std::set<long> a_returned = numbers(a.lines(), "fired ");
  const std::set<long> a_tried = numbers(a.lines(), "try ");
  const std::set<long> b_returned = numbers(b.lines(), "fired ");
  CHECK(b_returned.size() == 20);
  // The ledger: A's fires that returned, then B's, and nothing else.
  gp::Session reader({.store = gp::open_postgres_store(*uri, {.session = session, .read_only = true})});
  std::set<long> a_stored, b_stored;
  std::map<long, gp::Outcome> a_outcome;
  bool b_started = false, a_after_b = false;
  for (const auto& t : reader.view().transitions()) {
    const std::string by = t.cause.payload.value("by", "");
    const long n = t.cause.payload.value("n", -1L);
    if (by == "B") b_started = true;
    if (by == "A") {
      a_stored.insert(n);
      a_outcome[n] = t.outcome;
      a_after_b = a_after_b || b_started;
    } else {
      b_stored.insert(n);
    }
  }
  CHECK(a_tried.size() == a_returned.size() + 1);  // exactly one try did not return: the one SIGSTOP caught
  const long caught = *a_tried.rbegin();
  CHECK_FALSE(a_returned.contains(caught));
  // Every fire A was told had returned is stored; beyond those, at most the fire SIGSTOP
  // caught mid-call, whose row A wrote while it still owned the session: B found it
  // unreported and graded it stopped. What A wrote after SIGCONT (that fire's result) is
  // not there, and no row of A comes after one of B.
  for (const long n : a_returned) CHECK(a_stored.contains(n));
  // A fire A was told had returned is graded in the ledger, not left for B to find stopped.
  for (const long n : a_returned) CHECK(a_outcome[n] == gp::Outcome::unobservable);
  for (const long n : a_stored) CHECK((a_returned.contains(n) || n == caught));
  if (a_stored.contains(caught)) CHECK(a_outcome[caught] == gp::Outcome::stopped);
  CHECK(b_stored == b_returned);
  CHECK_FALSE(a_after_b);
  const auto v = gp::verify_postgres_ledger(*uri, session);
  CHECK(v.ok);
  CHECK(v.rows > a_returned.size() + b_returned.size());
  std::cout << "ledger: " << a_stored.size() << " fires by A (" << a_returned.size() << " returned"
            << (a_stored.contains(caught) ? ", and fire " + std::to_string(caught) + " caught mid-call, graded stopped"
                                          : std::string())
            << "), then " << b_stored.size() << " by B; chain " << (v.ok ? "verifies" : "BROKEN") << ", " << v.rows
            << " rows, head " << v.head << "\n";
}

TEST_CASE("A new owner takes a SIGKILLed owner's session over within one lease period plus 100 ms",
          "[store][postgres][timing]") {
  const auto uri = gp_test::postgres_uri();
  if (!uri) return;
  const std::string session = gp_test::unique_session("takeover");
  const milliseconds lease{500};
  Child owner({"replica", *uri, session, std::to_string(lease.count()), "A"});
  REQUIRE(owner.wait_for("fired 3 ", milliseconds(20'000)));
  ::kill(owner.pid(), SIGKILL);
  const auto killed_at = steady::now();
  owner.wait();
  const auto store = gp::open_postgres_store(*uri, {.session = session, .lease = lease});
  const auto took = std::chrono::duration_cast<milliseconds>(steady::now() - killed_at);
  INFO("took " << took.count() << " ms");
  CHECK(took < lease + milliseconds(100));
  CHECK(epoch_of(store) == 2);
  CHECK(store->verify().ok);
}

// clang-format off
TEST_CASE("Crash and move: an owner SIGKILLed mid-loop again and again, resumed each time by a new process, never loses a returned fire, never spends an approval twice, never runs a once action twice", "[store][postgres][crash]") {
  // clang-format on
  const auto uri = gp_test::postgres_uri();
  if (!uri) return;
  const long kills = env_or("GROUNDPLANE_POSTGRES_CRASH_KILLS", 8);
  const std::string session = gp_test::unique_session("crash");
  const std::string exec_log = (std::filesystem::temp_directory_path() / (session + ".exec")).string();
  std::mt19937 rng(20261201);
  std::set<std::string> returned;
  std::set<pid_t> pids;
  std::size_t respent = 0;
  for (long k = 0; k < kills; ++k) {
    INFO("kill " << k);
    Child c({"crash", *uri, session, "300", exec_log});
    REQUIRE(c.wait_for("ready", milliseconds(20'000)));
    pids.insert(c.pid());
    // The last process is killed only after one of its fires has returned, so the ledger is
    // always checked against returned fires: under ASan, beside other tests, every process
    // can be killed before its first fire returns (a run returned 7 in 20 kills). The others
    // keep kills at any point, the restore and the first fire included.
    if (k + 1 == kills) REQUIRE(c.wait_for("fired ", milliseconds(20'000)));
    c.drain(milliseconds(5 + static_cast<int>(rng() % 120)));
    ::kill(c.pid(), SIGKILL);
    const int status = c.wait();
    REQUIRE(WIFSIGNALED(status));
    REQUIRE(WTERMSIG(status) == SIGKILL);
    for (const auto& l : c.lines()) {
      if (l.rfind("fired ", 0) == 0) returned.insert(l.substr(6));
      if (l.rfind("error ", 0) == 0) FAIL(l);
      if (l.rfind("respent ", 0) == 0) {
        CHECK(l.substr(l.rfind(' ') + 1) == "APPROVAL_SPENT");
        ++respent;
      }
    }
    const auto v = gp::verify_postgres_ledger(*uri, session);
    INFO(v.problem);
    REQUIRE(v.ok);
  }
  CHECK(pids.size() == static_cast<std::size_t>(kills));  // a different process each time
  gp::Session r({.require_human_approval = true,
                 .store = gp::open_postgres_store(*uri, {.session = session, .read_only = true})});
  std::set<std::string> in_ledger;
  std::map<std::string, int> spent_by_ask, once_runs;
  for (const auto& t : r.view().transitions()) {
    in_ledger.insert(t.id);
    if (!t.cause.ask_id.empty()) ++spent_by_ask[t.cause.ask_id];
    if (t.cause.action.rfind("pay-", 0) == 0 && t.outcome != gp::Outcome::handler_failed) ++once_runs[t.cause.action];
  }
  std::size_t missing = 0;
  for (const auto& tid : returned) missing += in_ledger.count(tid) == 0;
  CHECK(missing == 0);
  for (const auto& [ask, n] : spent_by_ask) {
    INFO(ask);
    CHECK(n == 1);
  }
  for (const auto& [action, n] : once_runs) {
    INFO(action);
    CHECK(n == 1);
  }
  std::map<std::string, int> executed;
  std::ifstream exec(exec_log);
  for (std::string line; std::getline(exec, line);) ++executed[line];
  for (const auto& [action, n] : executed) {
    INFO(action);
    CHECK(n == 1);
  }
  if (kills > 1) CHECK(respent > 0);
  std::filesystem::remove(exec_log);
  const auto v = gp::verify_postgres_ledger(*uri, session);
  std::cout << "crash and move: " << kills << " kills, " << pids.size() << " processes, " << returned.size()
            << " fires returned, " << v.rows << " rows, chain " << (v.ok ? "verifies" : "BROKEN") << "\n";
}

// clang-format off
TEST_CASE("Many sessions: 8 processes with 50 sessions each fire into one database at once, and every chain verifies and every count matches", "[store][postgres][many]") {
  // clang-format on
  const auto uri = gp_test::postgres_uri();
  if (!uri) return;
  const long procs = env_or("GROUNDPLANE_POSTGRES_MANY_PROCS", 8);
  const long sessions = env_or("GROUNDPLANE_POSTGRES_MANY_SESSIONS", 50);
  const long rounds = 2;
  const long fires = env_or("GROUNDPLANE_POSTGRES_MANY_FIRES", 2);
  const std::string prefix = gp_test::unique_session("many");
  const auto started = steady::now();
  std::vector<std::unique_ptr<Child>> children;
  for (long p = 0; p < procs; ++p)
    children.push_back(std::make_unique<Child>(
        std::vector<std::string>{"many", *uri, prefix + "-p" + std::to_string(p) + "-", std::to_string(sessions),
                                 std::to_string(rounds), std::to_string(fires)}));
  for (auto& c : children) {
    const int status = c->wait();
    for (const auto& l : c->lines()) INFO(l);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  const auto ms = std::chrono::duration_cast<milliseconds>(steady::now() - started).count();
  long verified = 0;
  for (long p = 0; p < procs; ++p)
    for (long k = 0; k < sessions; ++k) {
      const std::string name = prefix + "-p" + std::to_string(p) + "-" + std::to_string(k);
      INFO(name);
      const auto v = gp::verify_postgres_ledger(*uri, name);
      CHECK(v.ok);
      gp::Session r({.store = gp::open_postgres_store(*uri, {.session = name, .read_only = true})});
      const auto view = r.view();
      CHECK(view.transitions().size() == static_cast<std::size_t>(rounds * fires));
      std::map<long, long> per_round;
      for (const auto& t : view.transitions()) ++per_round[t.cause.payload.value("round", -1L)];
      CHECK(per_round == std::map<long, long>{{0, fires}, {1, fires}});
      verified += v.ok ? 1 : 0;
    }
  CHECK(verified == procs * sessions);
  std::cout << "many sessions: " << procs << " processes x " << sessions << " sessions x " << rounds * fires
            << " fires in " << ms << " ms; " << verified << " chains verify\n";
}
#endif
