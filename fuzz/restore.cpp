// A restore over any sequence of stored rows: the fuzz bytes first drive a session that
// writes its rows into a store in memory (fires of every kind, asks and each decision,
// reports, standing grants, work, cursor moves, rejections, restarts), then mutate those
// rows — delete, duplicate, swap, move a row, change its kind or version, set a member of
// its body to a value a session never writes there (another index, 2^64-1, a negative, a
// string, null, an array, an object nested past the format's limit), or replace its body
// with bytes of the input — and restore a session from what is left, read-only and then
// writable.
//
// Invariants:
//   * never a crash, a hang or an exception other than LedgerStoreError;
//   * every refusal names a row the store holds ("row N (kind) ..." with 1 <= N <= rows);
//   * a restored session renders its block and answers did_it_work for every fire it
//     holds, and a writable one goes on writing (a restart row, fires, decisions) into
//     rows that restore again the same way.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <regex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "groundplane/agent_port.hpp"
#include "groundplane/session.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {

// Rows kept in memory as given, with no hashes: a restore of any rows, not of a chain
// (the chain's own tests are the stores'). It vouches for every row it holds.
class UncheckedRows final : public gp::LedgerStore {
 public:
  explicit UncheckedRows(std::vector<gp::StoredRow> rows = {}, bool writable = true)
      : rows_(std::move(rows)), writable_(writable) {}
  const std::string& session() const noexcept override { return name_; }
  gp::LedgerHead append(std::span<const gp::LedgerRow> rows) override {
    if (!writable_) throw gp::LedgerStoreError("read only");
    for (const auto& r : rows)
      rows_.push_back(gp::StoredRow{rows_.size() + 1, r.version, r.kind, gp::canonical_body(r.body), {}});
    return head();
  }
  void read(std::uint64_t from, const std::function<bool(const gp::StoredRow&)>& visit) const override {
    for (const auto& r : rows_)
      if (r.seq >= from && !visit(r)) return;
  }
  void read_verified(const std::function<bool(const gp::StoredRow&)>& visit) const override { read(1, visit); }
  gp::LedgerHead head() const override { return {rows_.size(), rows_.empty() ? "" : "unhashed"}; }
  bool writable() const noexcept override { return writable_; }
  gp::LedgerVerification verify() const noexcept override {
    gp::LedgerVerification v;
    v.ok = true;
    v.rows = rows_.size();
    return v;
  }
  const std::vector<gp::StoredRow>& rows() const noexcept { return rows_; }

 private:
  std::string name_ = "default";
  std::vector<gp::StoredRow> rows_;
  bool writable_;
};

gp::HandlerResult ok(const json&) { return {}; }

void declare(gp::Session& s) {
  s.declare("cart.add", {.does = "Add the item.", .writes = {"cart"}, .handler = ok});
  s.declare("ship", {.does = "Ship it.", .handler = ok, .high_effect = true});
  s.declare("charge", {.does = "Charge the card.", .handler = ok, .concurrency = gp::Concurrency::once});
  s.declare("tour", {.does = "Take the tour."});
}

const char* const actions[] = {"cart.add", "ship", "charge", "tour", "made.up"};

// A session driven by the input, its rows left in `store`.
void write_rows(fuzz::Bytes& in, const std::shared_ptr<UncheckedRows>& store) {
  gp::Session s({.node = "shop", .require_human_approval = true, .store = store});
  declare(s);
  std::vector<gp::WorkHandle> work;
  const std::size_t ops = in.pick(40);
  for (std::size_t i = 0; i < ops; ++i) {
    const std::string ask = "ask-" + std::to_string(in.pick(4) + 1);
    const std::string tid = "t-" + std::to_string(in.pick(6) + 1);
    try {
      switch (in.pick(12)) {
        case 0:
        case 1:
          s.fire(actions[in.pick(5)], {.source = static_cast<gp::Principal>(in.pick(3)),
                                       .payload = in.flag() ? json{{"n", in.pick(3)}} : json(),
                                       .ask_id = in.flag() ? ask : ""});
          break;
        case 2:
          s.confirm_ask(actions[in.pick(3)], json{{"n", in.pick(3)}});
          break;
        case 3:
          s.approve_ask(ask, "ops");
          break;
        case 4:
          if (in.flag()) s.decline_ask(ask, "ops");
          else s.revoke_ask(ask, "ops");
          break;
        case 5:
          s.report_state({{in.flag() ? "cart" : "other", in.pick(5)}}, in.flag() ? tid : "");
          break;
        case 6:
          if (in.flag()) s.grant_standing(actions[in.pick(4)], "ops");
          else s.revoke_standing(actions[in.pick(4)], "ops");
          break;
        case 7:
          work.push_back(s.begin_work("label", in.flag() ? tid : ""));
          break;
        case 8:
          if (!work.empty()) work[in.pick(work.size())].done();
          break;
        case 9:
          s.move_to(in.flag() ? "cart" : "checkout", in.flag() ? "item" : "");
          break;
        case 10:
          s.reject(tid, "declined by the bank");
          break;
        default:
          if (in.flag()) s.mark_actions_may_be_stale();
          else s.acknowledge_stale(actions[in.pick(4)]);
      }
    } catch (const gp::ConfigurationError&) {  // a call this app got wrong: nothing written
    }
  }
  for (auto& w : work) w = gp::WorkHandle();  // left open, as by an app that stops... or closed
}

// An object nested `depth` arrays deep.
json deep_value(std::size_t depth) {
  json v = json::array();
  for (std::size_t i = 1; i < depth; ++i) v = json::array({std::move(v)});
  return v;
}

json odd_value(fuzz::Bytes& in) {
  switch (in.pick(11)) {
    case 0:
      return 0;
    case 1:
      return 1;
    case 2:
      return in.pick(8);
    case 3:
      return std::numeric_limits<std::uint64_t>::max();
    case 4:
      return -1;
    case 5:
      return "t-1";
    case 6:
      return nullptr;
    case 7:
      return json::array({0, std::numeric_limits<std::uint64_t>::max()});
    case 8:
      return json::object();
    case 9:
      return true;
    default:
      return deep_value(in.flag() ? 600 : 5);
  }
}

const char* const kinds[] = {"init", "m",  "ms", "s",  "sa", "g",  "t",   "u",
                             "q",    "qd", "sg", "wo", "wc", "rs", "pol", "zz"};

// Mutates the rows as an editor of the ledger would, row numbers kept in order.
void mutate(fuzz::Bytes& in, std::vector<gp::StoredRow>& rows) {
  const std::size_t edits = in.pick(6);
  for (std::size_t e = 0; e < edits && !rows.empty(); ++e) {
    const std::size_t at = in.pick(rows.size());
    switch (in.pick(8)) {
      case 0:
        rows.erase(rows.begin() + static_cast<std::ptrdiff_t>(at));
        break;
      case 1:
        rows.insert(rows.begin() + static_cast<std::ptrdiff_t>(at), rows[at]);
        break;
      case 2:
        if (at + 1 < rows.size()) std::swap(rows[at], rows[at + 1]);
        break;
      case 3:
        rows[at].kind = kinds[in.pick(std::size(kinds))];
        break;
      case 4:
        rows[at].version = in.flag() ? in.u64() : rows[at].version + 1;
        break;
      case 5: {
        const std::size_t n = in.pick(64);
        std::string bytes;
        for (std::size_t i = 0; i < n; ++i) bytes.push_back(static_cast<char>(in.byte()));
        rows[at].body = std::move(bytes);
        break;
      }
      default: {
        json body = json::parse(rows[at].body, nullptr, false);
        if (!body.is_object() || body.empty()) break;
        auto member = body.begin();
        std::advance(member, static_cast<std::ptrdiff_t>(in.pick(body.size())));
        *member = odd_value(in);
        rows[at].body = gp::canonical_body(body);
      }
    }
  }
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i].seq = i + 1;
}

// A refusal names a row the store holds.
void names_a_row(const gp::LedgerStoreError& e, std::size_t rows) {
  static const std::regex row("row ([0-9]+) \\(");
  std::cmatch m;
  const bool named = std::regex_search(e.what(), m, row);
  FUZZ_CHECK(named, "a refused restore names the row", e.what());
  const auto n = std::stoull(m[1].str());
  FUZZ_CHECK(n >= 1 && n <= rows, "the row a refusal names is one the store holds", e.what());
}

// What a restored session answers: its block, and did_it_work for every fire it holds.
void exercise(gp::Session& s) {
  const auto g = s.ground_truth();
  FUZZ_CHECK(g.text.rfind("FACTS FROM THE APP", 0) == 0, "a restored session renders its block", g.text);
  for (const auto& t : s.transitions()) (void)s.outcome(t.id);
  for (const auto& a : s.asks()) (void)s.outcome(a.id);
  gp::AgentPort port(s);
  (void)port.call("whats_here", json::object());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Bytes in(data, size);
  const auto written = std::make_shared<UncheckedRows>();
  write_rows(in, written);
  std::vector<gp::StoredRow> rows = written->rows();
  mutate(in, rows);

  // Read-only: the stored policy, nothing written, every refusal naming its row.
  try {
    gp::Session s({.store = std::make_shared<UncheckedRows>(rows, false)});
    declare(s);
    exercise(s);
  } catch (const gp::LedgerStoreError& e) {
    names_a_row(e, rows.size());
    return 0;
  }

  // Writable: whatever policy is stored, accepted on purpose; then it goes on, and what it
  // wrote restores again.
  const auto store = std::make_shared<UncheckedRows>(rows, true);
  try {
    gp::Session s({.require_human_approval = true, .store = store, .policy_change = "fuzz"});
    try {
      declare(s);
    } catch (const gp::ConfigurationError&) {  // a rule stored otherwise: the app declares it so
    }
    const std::string ask = s.confirm_ask("ship", json{{"n", 1}}).id;
    s.approve_ask(ask, "ops");
    s.fire("ship", {.payload = json{{"n", 1}}, .ask_id = ask});
    s.fire("charge");
    exercise(s);
  } catch (const gp::LedgerStoreError& e) {
    names_a_row(e, rows.size());
    return 0;
  } catch (const gp::ConfigurationError&) {  // an action the app could not declare: not mounted
  }
  try {
    gp::Session again({.store = std::make_shared<UncheckedRows>(store->rows(), false)});
    exercise(again);
  } catch (const gp::LedgerStoreError& e) {
    FUZZ_CHECK(false, "rows a restored session wrote restore again", e.what());
  }
  return 0;
}
