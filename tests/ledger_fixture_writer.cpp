// Writes the compatibility fixture for tests/data/ledgers/: an SQLite ledger holding
// every stored row kind, and beside it what the release that wrote it restores from the
// file (the block, the head, the row count, the state), as JSON. Each fixture in that
// directory was written once, by the release its name gives, and is never rewritten:
// every later release must restore and verify it (tests/test_ledger_fixtures.cpp).
//
//   ledger_fixture_writer FILE [KEY_FILE]
//       FILE must not exist; FILE.expected.json is written too. With KEY_FILE (a release
//       with keyed chains), the "shop" session is keyed with the file's bytes, and the key
//       is copied to FILE.key, which the tests read it from.
//
// Only the public API, so the same program builds against every release: what a release
// lacks (a key) is asked for only when given.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include <groundplane/checks/row_integrity.hpp>
#include <groundplane/registry.hpp>
#include <groundplane/session.hpp>
#include <groundplane/store/sqlite.hpp>

namespace gp = groundplane;
using nlohmann::json;

namespace {

std::string shop_key;  // "": unkeyed

// The store options for a session, keyed when a key was given (and the release has keys).
template <class Options = gp::SqliteStoreOptions>
Options store_options(const std::string& session, bool read_only = false) {
  Options o;
  o.session = session;
  o.read_only = read_only;
  if constexpr (requires { o.key = shop_key; }) {
    if (session == "shop") o.key = shop_key;
  } else if (!shop_key.empty()) {
    std::fprintf(stderr, "this release has no keyed chains\n");
    std::exit(2);
  }
  return o;
}

template <class Path = std::filesystem::path>
gp::LedgerVerification verify(const Path& file, const std::string& session) {
  if constexpr (requires { gp::verify_sqlite_ledger(file, session, std::string_view(), std::string_view()); })
    return gp::verify_sqlite_ledger(file, session, std::string_view(), session == "shop" ? shop_key : "");
  else return gp::verify_sqlite_ledger(file, session);
}

gp::HandlerResult ok(const json&) { return {}; }

void declare_shop(gp::Session& s) {
  s.declare("cart.add", {.does = "Add the item to the cart.", .writes = {"cart"}, .handler = ok});
  s.declare("page.view", {.does = "Show the page.", .handler = ok});
  s.declare("card.charge", {.does = "Charge the card.", .handler = ok, .concurrency = gp::Concurrency::once});
  s.declare("order.place",
            {.does = "Place the order.", .handler = ok, .high_effect = true, .reads = {"cart", "/addr/city"}});
  s.declare("mail.send", {.does = "Send the receipt.", .handler = ok, .high_effect = true});
  s.declare("stock.check", {.does = "Check the stock.", .handler = ok, .verify = [](const json&) { return false; }});
  s.declare("refund", {.does = "Refund the order.", .handler = [](const json&) {
                         return gp::HandlerResult{false, "the bank said caf\xe9 is closed"};
                       }});
  s.declare("tour", {.does = "Take the tour."});  // no handler
  s.declare(
      "sync",
      {.does = "Sync the inbox.", .writes = {"synced"}, .handler = ok, .concurrency = gp::Concurrency::single_flight});
  s.declare("coupon", {.does = "Apply the coupon.", .handler = ok, .guard = [](const json&) { return false; }});
  s.declare("export", {.does = "Export the data.", .handler = ok, .enabled_when = [](const json&) { return false; }});
}

// Every row kind and member a session writes, with values that are easy to get wrong:
// text that is not UTF-8, the stored-text marker itself, numbers that are not integers.
// Ends as an app that stops would: a fire awaiting its report, work left open.
void first_run(const std::filesystem::path& file) {
  gp::WorkHandle open_work;  // outlives the session: the app stops with the work open
  gp::Session s(
      {.node = "home",
       .state =
           {{"cart", 0}, {"price", 12.5}, {"ratio", 0.1}, {"big", 1e21}, {"tiny", 5e-7}, {"addr", {{"city", "Lyon"}}}},
       .require_human_approval = true,
       .allow_unmaterialized_fires = true,
       .store = gp::open_sqlite_store(file, store_options("shop"))});
  declare_shop(s);
  s.move_to("cart", "item 7");
  s.fire("page.view", {.payload = {{"note", "caf\xe9"}, {"x", 1.5}, {"m", "\xF4\x8F\xBF\xBF"}}});
  s.fire("made.up");
  s.fire("made.up\xff", {.source = gp::Principal::system, .payload = {{"q", -3}}});
  const auto added = s.fire("cart.add", {.payload = {{"sku", "A-1"}}});
  s.report_state({{"cart", 1}}, added.transition_id);
  s.fire("cart.add");
  s.report_state({{"other", 2}});  // settles the oldest pending fire: not observed
  s.fire("refund");
  s.fire("stock.check");
  s.fire("tour");
  s.fire("coupon");
  s.fire("export");
  s.fire("card.charge");
  s.fire("card.charge");                                   // DUPLICATE_EXECUTION
  s.fire("card.charge", {.source = gp::Principal::user});  // recorded, a repeat; reopens it
  s.report_state({{"cart", 5}});                           // nobody fired it: inferred
  s.move_to("checkout");
  s.fire("order.place");  // APPROVAL_REQUIRED
  const auto placed = s.confirm_ask("order.place", {{"cart", 5}});
  s.approve_ask(placed.id, "ana");
  s.fire("order.place", {.payload = {{"cart", 5}}, .ask_id = placed.id});
  s.fire("order.place", {.payload = {{"cart", 5}}, .ask_id = placed.id});  // APPROVAL_SPENT
  const auto other = s.confirm_ask("order.place", {{"cart", 6}});
  s.approve_ask(other.id, "ana");
  s.fire("order.place", {.payload = {{"cart", 7}}, .ask_id = other.id});  // APPROVAL_MISMATCH
  s.report_state({{"addr", {{"city", "Paris"}}}});
  s.fire("order.place", {.payload = {{"cart", 6}}, .ask_id = other.id});  // APPROVAL_STALE
  const auto declined = s.confirm_ask("mail.send", {{"to", "x"}});
  s.decline_ask(declined.id, "bob");
  s.fire("mail.send", {.payload = {{"to", "x"}}, .ask_id = declined.id});  // APPROVAL_DECLINED
  const auto revoked = s.confirm_ask("mail.send", {{"to", "y"}});
  s.approve_ask(revoked.id, "carl");
  s.revoke_ask(revoked.id, "carl");
  s.fire("mail.send", {.payload = {{"to", "y"}}, .ask_id = revoked.id});  // APPROVAL_REVOKED
  s.confirm_ask("mail.send", {{"to", "z"}});                              // left awaiting
  const auto kept = s.confirm_ask("order.place", {{"cart", 5}});
  s.approve_ask(kept.id, "ana");  // left approved, unspent
  s.grant_standing("mail.send", "dana");
  s.fire("mail.send", {.payload = {{"to", "w"}}});
  s.revoke_standing("mail.send", "dana");
  s.grant_standing("mail.send", "erin");
  s.mark_actions_may_be_stale();
  s.mark_actions_fresh();
  s.mark_actions_may_be_stale();
  const auto viewed = s.fire("page.view");
  s.begin_work("printing the label", viewed.transition_id).done();
  open_work = s.begin_work("reindexing");
  s.fire("sync");                                     // awaits its report when the app stops
  s.fire("sync", {.source = gp::Principal::system});  // PRIOR_FIRE_PENDING
}

// The app starts again on the file: the restart row (the fire and the work it stopped
// in), then more rows after it.
void second_run(const std::filesystem::path& file) {
  gp::Session s({.require_human_approval = true,
                 .allow_unmaterialized_fires = true,  // the policy the first run gave
                 .store = gp::open_sqlite_store(file, store_options("shop"))});
  declare_shop(s);
  s.fire("page.view");
  const auto synced = s.fire("sync");
  s.report_state({{"synced", true}}, synced.transition_id);
  s.fire("card.charge");
}

// A second session in the same file, so that rows can be swapped between sessions.
void other_session(const std::filesystem::path& file) {
  gp::Session s({.node = "inbox", .store = gp::open_sqlite_store(file, store_options("bob"))});
  declare_shop(s);
  s.fire("page.view");
  s.fire("made.up");
  s.fire("made.up", {.source = gp::Principal::user});
  s.fire("tour");  // NOT_MATERIALIZED: this session does not allow fires without a handler
  const auto added = s.fire("cart.add");
  s.report_state({{"cart", 2}}, added.transition_id);
}

// A third session with the rows and members 0.3 added: items (instances), input schemas,
// argument checks, data handed back (kept and over the cap), a fire the app rejected,
// stale keys acknowledged, a report partly the agent's own.
void newer_session(const std::filesystem::path& file) {
  gp::FactRegistry facts;
  facts.record_table("orders", json::parse(R"([{"id": 57, "total": 129.5}, {"id": 58, "total": 74}])"),
                     {.key_column = "id", .tool = "orders.list", .args = {{"customer", "c-9"}}});
  gp::Session s({.node = "orders",
                 .state = {{"orders", {{"57", "open"}, {"58", "open"}}}},
                 .require_human_approval = true,
                 .store = gp::open_sqlite_store(file, {.session = "ana"}),
                 .max_data_bytes = 40,
                 .facts = &facts});
  const auto items = [](const json&) { return std::vector<std::string>{"57", "58", "caf\xe9"}; };
  s.declare("order.cancel", {.does = "Cancel an order.",
                             .writes = {"/orders"},
                             .handler = ok,
                             .high_effect = true,
                             .concurrency = gp::Concurrency::once,
                             .instances = items});
  s.declare("quote", {.does = "Quote a price.", .handler = [](const json& p) {
                        gp::HandlerResult r;
                        r.data = p.value("big", false) ? json{{"text", std::string(100, 'x')}} : json{{"price", 12.5}};
                        return r;
                      }});
  s.declare("refund", {.does = "Refund an order.",
                       .handler = ok,
                       .input = json::parse(R"({"type": "object", "properties": {"order_id": {"type": "integer"},
                                               "amount": {"type": "number"}}, "required": ["order_id", "amount"]})"),
                       .argument_checks = {gp::row_integrity{
                           .fact = "orders", .key_field = "order_id", .fields = {{"amount", "total"}}}}});
  s.declare("ping", {.does = "Ping the shop.", .handler = ok, .input = "none"});
  s.declare("label.print", {.does = "Print the label.", .writes = {"label"}, .handler = ok, .reads = {"/orders"}});

  s.fire("order.cancel");                                             // INSTANCE_REQUIRED
  s.fire("order.cancel", {.instance = "59"});                         // INSTANCE_UNKNOWN
  s.fire("refund", {.payload = {{"order_id", "57"}}});                // PAYLOAD_INVALID
  s.fire("refund", {.payload = {{"order_id", 57}, {"amount", 99}}});  // UNSUPPORTED_ARGUMENT
  s.fire("refund", {.payload = {{"order_id", 57}, {"amount", 129.5}}});
  s.fire("ping", {.payload = json::object()});  // reaches the handler as null
  s.fire("quote", {.payload = {{"sku", "A-1"}}});
  s.fire("quote", {.payload = {{"big", true}}});  // data over the cap: only its size kept
  const auto asked = s.confirm_ask("order.cancel", nullptr, "caf\xe9");
  s.approve_ask(asked.id, "ana");
  s.fire("order.cancel", {.ask_id = asked.id, .instance = "caf\xe9"});
  s.grant_standing("order.cancel", "ana");
  const auto cancelled = s.fire("order.cancel", {.instance = "57"});
  s.report_state({{"orders", {{"57", "cancelled"}}}}, cancelled.transition_id);
  s.fire("order.cancel", {.instance = "57"});  // DUPLICATE_EXECUTION, for that item only
  const auto printing = s.fire("label.print");
  s.reject(printing.transition_id, "PRINTER_JAMMED");  // reopened: it did not happen
  s.report_state({{"orders", {{"58", "held"}}}});      // someone else's change: stale for label.print
  s.acknowledge_stale("label.print");
  const auto printed = s.fire("label.print");
  s.report_state({{"label", "L-1"}, {"orders", {{"58", "shipped"}}}}, printed.transition_id);
}

// A fourth session with what 0.4 added for restarts and retries: request keys (a retry
// answered with no row, a key reused for another request), idempotency keys, and fires
// the app stopped in — one inside its handler (the file is taken as a kill at that moment
// leaves it), two after their handlers returned — resolved by a probe (yes and no) and by
// a person, and the fire that took the place of one that did not run, with its key.
void restarts_session(const std::filesystem::path& file) {
  namespace fs = std::filesystem;
  const fs::path killed = file.string() + ".killed";
  bool armed = false;
  const auto declare = [&](gp::Session& s, const std::function<std::optional<bool>(const gp::FireContext&)>& probe) {
    s.declare("pay", {.does = "Charge the card.",
                      .handler =
                          [&](const json&) {
                            if (armed) {  // the app is killed while the card is being charged
                              fs::copy_file(file, killed, fs::copy_options::overwrite_existing);
                              if (fs::exists(file.string() + "-wal"))
                                fs::copy_file(file.string() + "-wal", killed.string() + "-wal",
                                              fs::copy_options::overwrite_existing);
                            }
                            return gp::HandlerResult{};
                          },
                      .concurrency = gp::Concurrency::once,
                      .probe = probe});
    s.declare("ship", {.does = "Ship the order.", .writes = {"shipped"}, .handler = ok, .probe = probe});
    s.declare("refund", {.does = "Refund the order.", .handler = ok, .probe = probe});
  };
  {
    gp::Session s({.node = "orders", .store = gp::open_sqlite_store(file, {.session = "cara"})});
    declare(s, nullptr);
    s.fire("refund", {.payload = {{"order", 57}}, .request_key = "refund-57"});
    s.fire("refund", {.payload = {{"order", 57}}, .request_key = "refund-57"});  // a retry: no row
    s.fire("refund", {.payload = {{"order", 58}}, .request_key = "refund-57"});  // REQUEST_KEY_REUSED
    s.fire("ship", {.payload = {{"order", 57}}, .request_key = "ship-57"});      // returns; no report comes
    s.fire("ship", {.payload = {{"order", 58}}});
    armed = true;
    s.fire("pay", {.payload = {{"cents", 1299}}, .request_key = "pay-57"});
  }
  for (const char* suffix : {"", "-wal"}) fs::rename(killed.string() + suffix, file.string() + suffix);
  fs::remove(file.string() + "-shm");
  armed = false;
  gp::Session s({.store = gp::open_sqlite_store(file, {.session = "cara"})});
  declare(s, [](const gp::FireContext& f) -> std::optional<bool> {
    if (f.transition_id == "t-2") return true;   // the carrier has the first parcel
    if (f.transition_id == "t-4") return false;  // the card was never charged
    return std::nullopt;                         // the carrier cannot say about the second
  });
  s.resolve("t-3", false, "dana");  // a person checked: the second parcel never left
  s.fire("pay", {.payload = {{"cents", 1299}}, .request_key = "pay-57"});  // takes t-4's place, and its key
}

// What this release restores from the file alone, for every session in it.
json restored(const std::filesystem::path& file, const std::string& session) {
  const auto v = verify(file, session);
  const gp::Session s({.store = gp::open_sqlite_store(file, store_options(session, true))});
  const auto g = s.ground_truth();
  json asks = json::array();
  for (const auto& a : s.asks()) asks.push_back({{"id", a.id}, {"state", static_cast<int>(a.state)}});
  json keys = json::array();  // each transition's idempotency key ("" before 0.4)
  for (const auto& t : s.transitions()) keys.push_back(t.idempotency_key);
  json in_doubt = json::array();
  for (const auto& d : s.in_doubt_fires()) in_doubt.push_back(d.transition_id);
  return {{"verified", v.ok},
          {"rows", v.rows},
          {"head", v.head},
          {"block", g.text},
          {"version", g.version},
          {"node", s.node()},
          {"focus", s.focus()},
          {"state", s.state()},
          {"transitions", s.transitions().size()},
          {"gap_rows", s.gap_rows().size()},
          {"asks", asks},
          {"idempotency_keys", keys},
          {"in_doubt", in_doubt}};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: ledger_fixture_writer FILE [KEY_FILE]\n");
    return 2;
  }
  const std::filesystem::path file = argv[1];
  if (std::filesystem::exists(file)) {
    std::fprintf(stderr, "%s exists: a fixture is written once\n", file.c_str());
    return 2;
  }
  if (argc == 3) {
    std::ifstream in(argv[2], std::ios::binary);
    shop_key.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    std::ofstream(file.string() + ".key", std::ios::binary) << shop_key;
  }
  first_run(file);
  second_run(file);
  other_session(file);
  newer_session(file);
  restarts_session(file);
  json expected{{"shop", restored(file, "shop")},
                {"bob", restored(file, "bob")},
                {"ana", restored(file, "ana")},
                {"cara", restored(file, "cara")}};
  if (!shop_key.empty()) expected["shop"]["keyed"] = true;
  std::ofstream(file.string() + ".expected.json")
      << expected.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  return 0;
}
