// A check over a Table and a column, and the same check over the Ranking that
// Table::to_ranking derives from that column (recorded under another name), give the
// same verdict: over random tables (integer, string and mixed keys; tied scores; cells
// missing, null or not numbers) and random claims (true answers, wrong ones, near
// misses), for superlative, ranking_prefix and comparison, both Directions and both
// OnMissing policies. Each verdict is also held to an answer computed here the obvious
// way, so the two forms cannot agree by being wrong together.
#include "catch2_compat.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

#include <groundplane/groundplane.hpp>

namespace gp = groundplane;
using nlohmann::json;

namespace {

// splitmix64 with `% n`: the same sequence under every standard library (the
// <random> distributions are not specified bit for bit).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % static_cast<std::uint64_t>(n)); }
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  bool percent(std::size_t p) { return below(100) < p; }
  bool coin() { return (next() & 1U) != 0; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[below(v.size())];
  }
  template <class T>
  void shuffle(std::vector<T>& v) {
    for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[below(i)]);
  }

 private:
  std::uint64_t state_;
};

std::int64_t pow10(int d) {
  std::int64_t p = 1;
  for (int i = 0; i < d; ++i) p *= 10;
  return p;
}

// ---- Numbers the claims state, written as text so their digits are exactly ours ----

// A stated number: its JSON text, and when it is a number its value as scaled / 10^decimals.
struct Num {
  std::string raw;
  std::optional<std::int64_t> scaled;
  int decimals = 0;
  bool is_null() const { return raw == "null"; }
};

Num fixed(std::int64_t scaled, int decimals) {
  const std::int64_t unit = pow10(decimals);
  const std::int64_t mag = scaled < 0 ? -scaled : scaled;
  std::string text = std::to_string(mag / unit);
  if (decimals > 0) {
    std::string frac = std::to_string(mag % unit);
    text += "." + std::string(static_cast<std::size_t>(decimals) - frac.size(), '0') + frac;
  }
  return {(scaled < 0 ? "-" : "") + text, scaled, decimals};
}

Num not_a_number(std::string raw) { return {std::move(raw), std::nullopt, 0}; }

// p / q exactly, when it terminates.
std::optional<Num> exact(std::int64_t p, std::int64_t q) {
  if (q < 0) p = -p, q = -q;
  for (int d = 0; d <= 12; ++d)
    if ((p * pow10(d)) % q == 0) return fixed(p * pow10(d) / q, d);
  return std::nullopt;
}

// p * 10^d / q rounded half away from zero (q > 0).
std::int64_t round_half_away(std::int64_t p, std::int64_t q, int d) {
  const std::int64_t num = p * pow10(d);
  const std::int64_t mag = ((num < 0 ? -num : num) * 2 + q) / (2 * q);
  return num < 0 ? -mag : mag;
}

// A score is n twentieths: small values, many ties, and exact in decimal.
Num score_text(std::int64_t n) { return *exact(n, 20); }

// stated == n / 20, exactly.
bool states_score(const Num& stated, std::int64_t n) {
  return stated.scaled && *stated.scaled * 20 == n * pow10(stated.decimals);
}

// ---- Tables ----

enum class Cell { value, missing, null, text };

struct Row {
  json key;  // a JSON string or integer
  Cell cell = Cell::value;
  std::int64_t n = 0;  // the score in twentieths, when cell == value
};

struct Generated {
  std::vector<Row> rows;
  json json_rows = json::array();
};

// Strings that read as the integer keys next to them ("7", "101"), and names a type or a
// case apart, so a claim can miss by type as well as by name.
const std::vector<std::string> string_keys = {"north", "south", "east",  "west", "harbour",     "hill", "101",  "7",
                                              "0",     "-3",    "North", "a b",  "caf\xC3\xA9", "x1",   "delta"};

bool same_entity(const json& a, const json& b) {
  if (a.is_string() && b.is_string()) return a.get_ref<const std::string&>() == b.get_ref<const std::string&>();
  if (a.is_number_integer() && b.is_number_integer()) return a.get<std::int64_t>() == b.get<std::int64_t>();
  return false;
}

json score_cell(Rng& rng, std::int64_t n) {
  if (n % 20 == 0) {
    if (rng.percent(30)) return json(static_cast<double>(n / 20));  // 2.0: an integer written as a float
    return json(n / 20);
  }
  return json(static_cast<double>(n) / 20.0);
}

Generated generate_table(Rng& rng) {
  Generated g;
  const std::size_t rows = 1 + rng.below(12);
  const std::size_t key_kind = rng.below(3);  // integers, strings, or both
  std::vector<std::int64_t> pool;
  const std::size_t distinct = 1 + rng.below(6);
  for (std::size_t i = 0; i < distinct; ++i) pool.push_back(rng.percent(15) ? 0 : rng.between(-10, 60));
  const std::size_t hole_percent = rng.percent(45) ? 0 : 5 + rng.below(30);
  // About one table in 33 holds a cell that is not a number: no ranking exists, whatever
  // the policy.
  const std::size_t poisoned_row = rng.percent(3) ? rng.below(rows) : rows;
  while (g.rows.size() < rows) {
    const bool integer = key_kind == 0 || (key_kind == 2 && rng.coin());
    // The empty string, rarely: a key a table records and a Ranking refuses.
    const json key =
        integer ? json(rng.between(-3, 120)) : json(rng.percent(1) ? std::string() : rng.pick(string_keys));
    if (std::any_of(g.rows.begin(), g.rows.end(), [&](const Row& r) { return same_entity(r.key, key); })) continue;
    Row row{key, Cell::value, rng.pick(pool)};
    if (g.rows.size() == poisoned_row) row.cell = Cell::text;
    else if (rng.percent(hole_percent)) row.cell = rng.coin() ? Cell::missing : Cell::null;
    json j = {{"id", key}};
    switch (row.cell) {
      case Cell::value:
        j["v"] = score_cell(rng, row.n);
        break;
      case Cell::null:
        j["v"] = nullptr;
        break;
      case Cell::text:
        j["v"] = rng.coin() ? json("n/a") : json(true);
        break;
      case Cell::missing:
        break;
    }
    g.rows.push_back(std::move(row));
    g.json_rows.push_back(std::move(j));
  }
  return g;
}

// ---- The ranking, computed here the obvious way ----

struct Entry {
  json key;
  std::int64_t n;
};

struct Expected {
  bool refused = false;  // no ranking: a hole under refuse, a text cell, or nothing left
  // The refusal's type: ConfigurationError, also for a ranked row keyed by the empty
  // string, which the table records but no ranking can name.
  std::type_index refusal = typeid(gp::ConfigurationError);
  std::vector<Entry> order;   // best first; ties in row order
  std::vector<json> skipped;  // keys of the holes, under skip
  gp::Direction direction = gp::Direction::higher_is_better;

  std::size_t size() const { return order.size(); }
  bool better(std::int64_t a, std::int64_t b) const {
    return direction == gp::Direction::higher_is_better ? a > b : a < b;
  }
  std::optional<std::size_t> locate(const json& said) const {
    for (std::size_t i = 0; i < order.size(); ++i)
      if (same_entity(order[i].key, said)) return i;
    return std::nullopt;
  }
  // [first, end) of the block of positions tied with position p.
  std::pair<std::size_t, std::size_t> block(std::size_t p) const {
    std::size_t first = p, end = p + 1;
    while (first > 0 && order[first - 1].n == order[p].n) --first;
    while (end < order.size() && order[end].n == order[p].n) ++end;
    return {first, end};
  }
  std::vector<std::size_t> positions_scoring(std::int64_t n) const {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < order.size(); ++i)
      if (order[i].n == n) out.push_back(i);
    return out;
  }
};

Expected expected_ranking(const Generated& g, gp::Direction direction, gp::OnMissing on_missing) {
  Expected e;
  e.direction = direction;
  for (const auto& row : g.rows) {
    if (row.cell == Cell::text) e.refused = true;
    else if (row.cell == Cell::value) e.order.push_back({row.key, row.n});
    else e.skipped.push_back(row.key);
  }
  if (!e.skipped.empty() && on_missing == gp::OnMissing::refuse) e.refused = true;
  if (e.order.empty()) e.refused = true;
  const auto empty_name = [](const Entry& x) {
    return x.key.is_string() && x.key.get_ref<const std::string&>().empty();
  };
  if (std::any_of(e.order.begin(), e.order.end(), empty_name)) e.refused = true;
  std::stable_sort(e.order.begin(), e.order.end(), [&](const Entry& a, const Entry& b) { return e.better(a.n, b.n); });
  return e;
}

// ---- Claims ----

std::string join(const std::vector<std::string>& parts, const char* open, const char* close) {
  std::string out = open;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i > 0 ? "," : "") + parts[i];
  return out + close;
}

// An output object whose members are already JSON text.
struct Output {
  std::vector<std::pair<std::string, std::string>> members;
  void add(const std::string& name, std::string raw) { members.emplace_back(name, std::move(raw)); }
  std::string text() const {
    std::vector<std::string> parts;
    for (const auto& [name, raw] : members) parts.push_back(json(name).dump() + ":" + raw);
    return join(parts, "{", "}");
  }
};

// What a model may write where an entity belongs when it misnames one: a real key in
// another type ("7" for 7, 7.0; in a mixed table "7" may be a key of its own, and the
// answer computed here says so), a skipped row's key, a name never recorded, or no name.
json misnamed(Rng& rng, const Expected& e, const std::vector<Row>& rows) {
  switch (rng.below(5)) {
    case 0:
    case 1: {
      const json& key = rng.pick(rows).key;
      if (key.is_number_integer())
        return rng.coin() ? json(std::to_string(key.get<std::int64_t>()))
                          : json(static_cast<double>(key.get<std::int64_t>()));
      const std::string& s = key.get_ref<const std::string&>();
      char* end = nullptr;
      const long long v = std::strtoll(s.c_str(), &end, 10);
      if (!s.empty() && *end == '\0') return json(v);
      return json(s + " ");
    }
    case 2:
      if (!e.skipped.empty()) return rng.pick(e.skipped);
      return json("atlantis");
    case 3:
      return rng.coin() ? json(999) : json("atlantis");
    default:
      return rng.coin() ? json(true) : json(nullptr);
  }
}

enum Kind { true_answer, wrong_answer, near_miss };
const char* kind_name(Kind k) { return k == true_answer ? "true" : (k == wrong_answer ? "wrong" : "near miss"); }

// One generated case: the check on the table, the check on the recorded ranking, the
// model's text, and what the answer computed here says.
template <class C>
struct Case {
  C on_table;
  C on_ranking;
  std::string claim;
  Kind kind = near_miss;
  bool expect_ok = false;  // when constructed
  bool expect_construction_refused = false;
  std::string config;  // for a failure message
};

// ---- What was counted ----

struct Tally {
  std::size_t cases = 0;
  std::size_t accepted = 0;                              // both forms accepted
  std::size_t refused = 0;                               // both forms refused the claim
  std::size_t refused_at_construction = 0;               // both forms refused the configuration
  std::size_t with_warnings = 0;                         // skip dropped rows and the table form said so
  std::size_t by_kind[3][2] = {{0, 0}, {0, 0}, {0, 0}};  // [kind][accepted]
  std::size_t details_compared = 0;
  std::size_t details_differing = 0;  // allowed only where the table form names what skip dropped
  std::size_t failures = 0;
  std::vector<std::string> first_failures;

  void fail(std::string what) {
    ++failures;
    if (first_failures.size() < 5) first_failures.push_back(std::move(what));
  }
};

struct Outcome {
  bool constructed = false;
  std::optional<std::type_index> thrown;
  std::string why;
  gp::Verdict verdict;
};

template <class C>
Outcome run(const gp::FactRegistry& reg, const std::string& fact, const C& check, const std::string& text) {
  Outcome out;
  try {
    gp::Boundary b(reg, {fact}, check);
    out.constructed = true;
    out.verdict = b.try_submit_json(text);
  } catch (const std::exception& e) {
    out.thrown = std::type_index(typeid(e));
    out.why = e.what();
  }
  return out;
}

std::string describe_findings(const gp::Verdict& v) {
  std::string out;
  for (const auto& f : v.findings())
    out += "\n    [" + f.check + "] field=" + f.field + " said=" + f.said + " supported=" + f.supported +
           " fact=" + f.fact + " detail=" + f.detail;
  return out.empty() ? " (ok)" : out;
}

// The two forms agree, finding by finding; and both agree with the answer computed here.
template <class C>
void judge(const Case<C>& c, const Expected& e, gp::OnMissing on_missing, const Outcome& t, const Outcome& r,
           const std::optional<std::type_index>& derivation_thrown, const Generated& g, Tally& tally) {
  ++tally.cases;
  const auto context = [&] {
    return "table " + g.json_rows.dump() + "\n  config " + c.config + "\n  claim " + c.claim + " (" +
           kind_name(c.kind) +
           ")\n  table form: " + (t.constructed ? describe_findings(t.verdict) : "refused at construction: " + t.why) +
           "\n  ranking form: " +
           (derivation_thrown ? std::string("to_ranking refused")
                              : (r.constructed ? describe_findings(r.verdict) : "refused at construction: " + r.why));
  };
  if (t.constructed != !t.thrown.has_value() || (!derivation_thrown && r.constructed != !r.thrown.has_value())) {
    tally.fail("a submission threw instead of returning a verdict: " + context());
    return;
  }
  // A configuration either form refuses, the other refuses with the same exception type.
  const std::optional<std::type_index> ranking_thrown = derivation_thrown ? derivation_thrown : r.thrown;
  if (t.thrown != ranking_thrown) {
    tally.fail("one form refused the configuration and the other did not (or not alike): " + context());
    return;
  }
  const std::type_index expected_type = e.refused ? e.refusal : std::type_index(typeid(gp::ConfigurationError));
  if (c.expect_construction_refused != t.thrown.has_value() || (t.thrown && *t.thrown != expected_type)) {
    tally.fail("the configuration's refusal is not the one computed here (a refusal expected: " +
               std::string(c.expect_construction_refused ? "yes" : "no") + "): " + context());
    return;
  }
  if (t.thrown) {
    ++tally.refused_at_construction;
    return;
  }
  const gp::Verdict& tv = t.verdict;
  const gp::Verdict& rv = r.verdict;
  if (tv.ok() != rv.ok() || tv.findings().size() != rv.findings().size()) {
    tally.fail("the verdicts differ: " + context());
    return;
  }
  for (std::size_t i = 0; i < tv.findings().size(); ++i) {
    const gp::Finding& a = tv.findings()[i];
    const gp::Finding& b = rv.findings()[i];
    // The fact named is the one each form read: the table, or the ranking recorded from it.
    if (a.check != b.check || a.field != b.field || a.said != b.said || a.supported != b.supported ||
        a.provenance != b.provenance || a.fact != "t" || b.fact != "r") {
      tally.fail("finding " + std::to_string(i) + " differs: " + context());
      return;
    }
    ++tally.details_compared;
    if (a.detail != b.detail) {
      // The one place the table form knows more: a claim about a row skip dropped.
      ++tally.details_differing;
      if (a.detail.find("(skipped under OnMissing::skip)") == std::string::npos ||
          b.detail.find(" is not one of the ") == std::string::npos) {
        tally.fail("finding " + std::to_string(i) + "'s detail differs: " + context());
        return;
      }
    }
  }
  // Skipping is never silent on the table form; the recorded ranking has nothing to skip.
  const bool dropped = on_missing == gp::OnMissing::skip && !e.skipped.empty();
  if (tv.warnings().empty() == dropped || !rv.warnings().empty()) {
    tally.fail("warnings: " + context());
    return;
  }
  if (dropped) ++tally.with_warnings;
  if (tv.ok() != c.expect_ok) {
    tally.fail(std::string("both forms ") + (tv.ok() ? "accepted" : "refused") + " a claim the answer computed here " +
               (c.expect_ok ? "accepts" : "refuses") + ": " + context());
    return;
  }
  ++(tv.ok() ? tally.accepted : tally.refused);
  ++tally.by_kind[c.kind][tv.ok() ? 1 : 0];
}

const char* direction_name(gp::Direction d) { return d == gp::Direction::higher_is_better ? "higher" : "lower"; }
const char* policy_name(gp::OnMissing m) { return m == gp::OnMissing::refuse ? "refuse" : "skip"; }

// Claims judged against each table (each with a configuration of its own): recording a
// table costs about what judging a claim does.
constexpr std::size_t claims_per_table = 2;

// The loop every check shares: a table, a direction and a policy; the ranking derived
// from it and recorded as "r"; cases from `make`; both forms run and judged.
template <class Make>
Tally differential(std::uint64_t seed, std::size_t cases, Make make) {
  Rng rng(seed);
  Tally tally;
  for (std::size_t i = 0; i < cases; i += claims_per_table) {
    const Generated g = generate_table(rng);
    const gp::Direction direction = rng.coin() ? gp::Direction::higher_is_better : gp::Direction::lower_is_better;
    const gp::OnMissing on_missing = rng.percent(35) ? gp::OnMissing::refuse : gp::OnMissing::skip;
    const Expected e = expected_ranking(g, direction, on_missing);

    gp::FactRegistry reg;
    const gp::Table& table =
        reg.record_table("t", g.json_rows, {.key_column = "id", .tool = "db.query", .args = {{"table", "sales"}}});
    std::optional<std::type_index> derivation_thrown;
    try {
      const gp::Ranking ranking = table.to_ranking("v", direction, on_missing);
      // The derivation itself, against the order computed here.
      bool same = ranking.size() == e.size() && ranking.key() == "v" && ranking.direction() == direction &&
                  ranking.provenance() == table.provenance();
      for (std::size_t p = 0; same && p < e.size(); ++p)
        same = same_entity(ranking.order()[p].to_json(), e.order[p].key) &&
               ranking.score_at(p) * gp::Decimal(20) == gp::Decimal(static_cast<long long>(e.order[p].n));
      if (!same) tally.fail("to_ranking's order is not the one computed here: " + g.json_rows.dump());
      reg.record_ranking(
          "r", ranking.scores(),
          {.key = ranking.key(), .direction = ranking.direction(), .tool = "db.query", .args = {{"table", "sales"}}});
    } catch (const std::exception& ex) {
      derivation_thrown = std::type_index(typeid(ex));
    }
    if (e.refused != derivation_thrown.has_value()) {
      tally.fail(std::string("to_ranking ") + (derivation_thrown ? "refused" : "accepted") + " a column the " +
                 "ranking computed here " + (e.refused ? "refuses" : "accepts") + ": " + g.json_rows.dump() + " " +
                 direction_name(direction) + " " + policy_name(on_missing));
      continue;
    }
    for (std::size_t j = 0; j < claims_per_table; ++j) {
      auto c = make(rng, g, e, direction, on_missing);
      c.config += std::string(" direction=") + direction_name(direction) + " on_missing=" + policy_name(on_missing);
      const Outcome t = run(reg, "t", c.on_table, c.claim);
      const Outcome r = derivation_thrown ? Outcome{} : run(reg, "r", c.on_ranking, c.claim);
      judge(c, e, on_missing, t, r, derivation_thrown, g, tally);
    }
  }
  return tally;
}

// The table form states the column and maybe the direction (unset reads as
// higher_is_better); the ranking form states neither or the recorded direction, and an
// on_missing it ignores.
template <class C>
void pair_forms(Rng& rng, C& on_table, C& on_ranking, gp::Direction direction, gp::OnMissing on_missing) {
  on_table.fact = "t";
  on_table.column = "v";
  on_table.direction =
      direction == gp::Direction::higher_is_better && rng.coin() ? std::nullopt : std::optional(direction);
  on_table.on_missing = on_missing;
  on_ranking.fact = "r";
  on_ranking.column = "";
  on_ranking.direction = rng.coin() ? std::nullopt : std::optional(direction);
  on_ranking.on_missing = rng.coin() ? gp::OnMissing::refuse : gp::OnMissing::skip;
}

void require_meaningful(const Tally& t, std::size_t cases) {
  CAPTURE(t.cases, t.accepted, t.refused, t.refused_at_construction, t.with_warnings, t.details_compared,
          t.details_differing, t.failures);
  CAPTURE(t.by_kind[true_answer][1], t.by_kind[true_answer][0], t.by_kind[wrong_answer][1], t.by_kind[wrong_answer][0],
          t.by_kind[near_miss][1], t.by_kind[near_miss][0]);
  for (const auto& f : t.first_failures) UNSCOPED_INFO(f);
  REQUIRE(t.failures == 0);
  REQUIRE(t.cases == cases);
  // Not vacuous: accepted claims, refused claims and refused configurations, each in numbers.
  REQUIRE(t.accepted > cases / 8);
  REQUIRE(t.refused > cases / 5);
  REQUIRE(t.refused_at_construction > cases / 20);
  REQUIRE(t.with_warnings > cases / 20);
  // Every true answer accepted and every deliberately wrong one refused, many times over.
  REQUIRE(t.by_kind[true_answer][0] == 0);
  REQUIRE(t.by_kind[wrong_answer][1] == 0);
  REQUIRE(t.by_kind[true_answer][1] > cases / 10);
  REQUIRE(t.by_kind[wrong_answer][0] > cases / 10);
  REQUIRE(t.by_kind[near_miss][0] > cases / 20);
  REQUIRE(t.by_kind[near_miss][1] > 0);
  REQUIRE(t.details_compared > cases / 4);
}

// 3 x 3,400 cases (1,700 tables each): over 10,000 in all, a few seconds at -O0.
constexpr std::size_t cases_per_check = 3400;

// ---- superlative ----

struct WinnerClaim {
  std::optional<json> winner;  // absent when nullopt
  std::optional<Num> score;
  std::optional<Num> rank;
};

bool superlative_ok(const Expected& e, const gp::superlative& s, const WinnerClaim& w) {
  const std::int64_t lead = s.pick == gp::Pick::best ? e.order.front().n : e.order.back().n;
  const std::vector<std::size_t> leaders = e.positions_scoring(lead);
  if (!w.winner) return false;
  if (w.winner->is_array()) {
    // Exactly the tied leaders, each once, in any order.
    if (w.winner->size() != leaders.size()) return false;
    std::vector<std::size_t> got;
    for (const auto& name : *w.winner) {
      const auto p = e.locate(name);
      if (!p) return false;
      got.push_back(*p);
    }
    std::sort(got.begin(), got.end());
    if (got != leaders) return false;
  } else {
    const auto p = e.locate(*w.winner);
    if (!p || e.order[*p].n != lead) return false;
    if (leaders.size() > 1 && s.ties == gp::Ties::reject) return false;
  }
  if (!s.score_field.empty() && w.score && !w.score->is_null() && !states_score(*w.score, lead)) return false;
  if (!s.rank_field.empty() && w.rank && !w.rank->is_null()) {
    // Competition rank counted from the top: 1 + how many score strictly better.
    const std::int64_t rank = 1 + static_cast<std::int64_t>(leaders.front());
    if (!w.rank->scaled || *w.rank->scaled != rank * pow10(w.rank->decimals)) return false;
  }
  return true;
}

Case<gp::superlative> make_superlative(Rng& rng, const Generated& g, const Expected& e, gp::Direction direction,
                                       gp::OnMissing on_missing) {
  Case<gp::superlative> c;
  gp::superlative s;
  s.pick = rng.coin() ? gp::Pick::best : gp::Pick::worst;
  s.ties = rng.coin() ? gp::Ties::reject : gp::Ties::accept_any;
  s.score_field = rng.percent(90) ? "score" : "";
  s.rank_field = rng.coin() ? "rank" : "";
  c.on_table = s;
  c.on_ranking = s;
  pair_forms(rng, c.on_table, c.on_ranking, direction, on_missing);
  c.config = std::string("superlative pick=") + (s.pick == gp::Pick::best ? "best" : "worst") +
             " ties=" + (s.ties == gp::Ties::reject ? "reject" : "accept_any") + " score_field=" + s.score_field +
             " rank_field=" + s.rank_field;

  WinnerClaim w;
  if (e.refused) {
    c.expect_construction_refused = true;
    w.winner = rng.pick(g.rows).key;
  } else {
    const std::int64_t lead = s.pick == gp::Pick::best ? e.order.front().n : e.order.back().n;
    const std::vector<std::size_t> leaders = e.positions_scoring(lead);
    const std::int64_t rank = 1 + static_cast<std::int64_t>(leaders.front());
    std::vector<std::size_t> others;
    for (std::size_t p = 0; p < e.size(); ++p)
      if (e.order[p].n != lead) others.push_back(p);
    // The answer computed here: the leader, or a tie named whole unless any member will do.
    const auto true_winner = [&]() -> json {
      if (leaders.size() > 1 && (s.ties == gp::Ties::reject || rng.percent(30))) {
        std::vector<std::size_t> all = leaders;
        rng.shuffle(all);
        json names = json::array();
        for (std::size_t p : all) names.push_back(e.order[p].key);
        return names;
      }
      return e.order[rng.pick(leaders)].key;
    };
    const auto maybe_score_and_rank = [&] {
      if (rng.percent(60)) w.score = score_text(lead);
      if (rng.coin()) w.rank = rng.percent(80) ? fixed(rank, 0) : fixed(rank * 10, 1);
    };
    const std::size_t k = rng.below(100);
    if (k < 30) {
      c.kind = true_answer;
      w.winner = true_winner();
      maybe_score_and_rank();
    } else if (k < 45) {
      c.kind = wrong_answer;  // a runner-up, or a name never ranked
      w.winner = others.empty() ? json("atlantis") : e.order[rng.pick(others)].key;
      if (rng.coin()) w.score = score_text(others.empty() ? lead + 1 : e.order[rng.pick(others)].n);
    } else if (k < 60) {
      c.kind = near_miss;  // a tie named in part, or with a stranger, or twice
      json names = json::array();
      for (std::size_t p : leaders) names.push_back(e.order[p].key);
      switch (rng.below(4)) {
        case 0:
          w.winner = e.order[rng.pick(leaders)].key;
          break;
        case 1:
          if (names.size() > 1) names.erase(names.begin() + static_cast<std::ptrdiff_t>(rng.below(names.size())));
          else if (!others.empty()) names.push_back(e.order[rng.pick(others)].key);
          w.winner = names;
          break;
        case 2:
          names.push_back(others.empty() ? json("atlantis") : e.order[rng.pick(others)].key);
          w.winner = names;
          break;
        default:
          names.push_back(names[0]);
          w.winner = names;
          break;
      }
      maybe_score_and_rank();
    } else if (k < 72) {
      c.kind = near_miss;  // the right winner, someone else's score (or no number)
      w.winner = true_winner();
      if (rng.percent(15)) w.score = rng.coin() ? not_a_number("\"x\"") : not_a_number("null");
      else w.score = score_text(others.empty() ? lead - 1 : e.order[rng.pick(others)].n);
    } else if (k < 82) {
      c.kind = near_miss;  // the right winner, a rank off by one (or not a number)
      w.winner = true_winner();
      w.rank = rng.percent(15) ? not_a_number("\"1\"") : fixed(rank + (rng.coin() ? 1 : -1), 0);
    } else if (k < 94) {
      c.kind = near_miss;  // a leader's key in another type, a skipped row, a stranger
      w.winner = misnamed(rng, e, g.rows);
    } else {
      c.kind = wrong_answer;  // no winner at all
      if (rng.coin()) w.score = score_text(lead);
    }
    c.expect_ok = superlative_ok(e, c.on_table, w);
  }
  Output out;
  if (w.winner) out.add("winner", w.winner->dump());
  if (w.score) out.add("score", w.score->raw);
  if (w.rank) out.add("rank", w.rank->raw);
  c.claim = out.text();
  return c;
}

// ---- ranking_prefix ----

struct Place {
  std::optional<json> name;  // nullopt: an object without a name
  bool as_object = false;
  std::optional<Num> score;  // objects only
};

std::string place_text(const Place& p) {
  if (!p.as_object) return p.name->dump();
  Output o;
  if (p.name) o.add("name", p.name->dump());
  if (p.score) o.add("score", p.score->raw);
  return o.text();
}

bool prefix_ok(const Expected& e, const gp::ranking_prefix& rp, const std::optional<std::vector<Place>>& list) {
  if (!list || rp.k > e.size()) return false;  // a k past the ranking is refused at construction
  const std::size_t n = list->size(), size = e.size();
  if (rp.k > 0 && n != rp.k) return false;
  if (rp.k == 0 && (n == 0 || n > size)) return false;
  const std::size_t cut = std::max(rp.k, std::min(n, size));
  // A cut that splits a block of tied scores has no top-k under Ties::reject.
  if (rp.ties == gp::Ties::reject && cut > 0 && e.block(cut - 1).second > cut) return false;
  const std::size_t reach = cut == 0 ? 0 : e.block(cut - 1).second;  // the last block the cut reaches, whole
  std::vector<bool> seen(size, false);
  for (std::size_t i = 0; i < n; ++i) {
    const Place& p = (*list)[i];
    if (!p.name) return false;
    const auto pos = e.locate(*p.name);
    if (!pos || seen[*pos]) return false;
    seen[*pos] = true;
    // In order: place i holds an entity scoring what place i scores. As a set: it lies
    // within the blocks the cut reaches.
    if (rp.ordered && e.order[*pos].n != e.order[i].n) return false;
    if (!rp.ordered && *pos >= reach) return false;
    if (p.score && !states_score(*p.score, e.order[*pos].n)) return false;
  }
  if (!rp.ordered && n == cut) {
    // Every entity ahead of a block cut at k is listed.
    const auto [first, end] = e.block(cut - 1);
    const std::size_t must = end <= cut ? cut : first;
    for (std::size_t q = 0; q < must; ++q)
      if (!seen[q]) return false;
  }
  return true;
}

Case<gp::ranking_prefix> make_ranking_prefix(Rng& rng, const Generated& g, const Expected& e, gp::Direction direction,
                                             gp::OnMissing on_missing) {
  Case<gp::ranking_prefix> c;
  gp::ranking_prefix rp;
  rp.ties = rng.coin() ? gp::Ties::reject : gp::Ties::accept_any;
  rp.ordered = rng.coin();
  std::optional<std::vector<Place>> list = std::vector<Place>{};
  const std::size_t size = e.size();

  if (e.refused) {
    c.expect_construction_refused = true;
    rp.k = rng.below(4);
    list->push_back({rng.pick(g.rows).key, false, std::nullopt});
  } else {
    const std::size_t kind = rng.below(100);
    // How long the list is: a cut inside a tie on purpose for the tie near miss.
    std::size_t m = 1 + rng.below(size);
    if (kind >= 88) {
      std::vector<std::size_t> inside;
      for (std::size_t p = 0; p + 1 < size; ++p)
        if (e.order[p].n == e.order[p + 1].n) inside.push_back(p + 1);
      if (!inside.empty()) m = rng.pick(inside);
    }
    rp.k = rng.percent(25) ? 0 : m;
    // The first m places, each tie block in an order of its own; a block the cut splits
    // filled with any of its members.
    std::vector<std::size_t> truth;
    for (std::size_t p = 0; p < m;) {
      const auto [first, end] = e.block(p);
      std::vector<std::size_t> members;
      for (std::size_t q = first; q < end; ++q) members.push_back(q);
      rng.shuffle(members);
      for (std::size_t q = 0; q < members.size() && truth.size() < m; ++q) truth.push_back(members[q]);
      p = end;
    }
    if (!rp.ordered) rng.shuffle(truth);
    const bool objects = rng.percent(30);
    for (std::size_t p : truth) {
      Place place{e.order[p].key, objects, std::nullopt};
      if (objects && rng.percent(70)) place.score = score_text(e.order[p].n);
      list->push_back(std::move(place));
    }
    const auto place_at = [&] { return rng.below(list->size()); };
    // Positions the list does not hold.
    std::vector<std::size_t> unlisted;
    for (std::size_t p = 0; p < size; ++p)
      if (std::find(truth.begin(), truth.end(), p) == truth.end()) unlisted.push_back(p);

    if (kind < 30) {
      c.kind = true_answer;
    } else if (kind < 42) {
      c.kind = near_miss;  // two places of different scores swapped: wrong in order, right as a set
      std::vector<std::pair<std::size_t, std::size_t>> pairs;
      for (std::size_t i = 0; i < list->size(); ++i)
        for (std::size_t j = i + 1; j < list->size(); ++j)
          if (e.order[truth[i]].n != e.order[truth[j]].n) pairs.emplace_back(i, j);
      if (!pairs.empty()) {
        const auto [i, j] = rng.pick(pairs);
        std::swap((*list)[i], (*list)[j]);
      }
    } else if (kind < 56) {
      c.kind = wrong_answer;  // an entity from outside the top m (or a stranger) in a place
      std::vector<std::size_t> outside;
      for (std::size_t p : unlisted)
        if (p >= e.block(m - 1).second) outside.push_back(p);
      (*list)[place_at()].name = outside.empty() ? json("atlantis") : e.order[rng.pick(outside)].key;
    } else if (kind < 64) {
      c.kind = wrong_answer;  // one entity twice
      if (list->size() > 1) {
        const std::size_t i = place_at();
        std::size_t j = place_at();
        if (j == i) j = (i + 1) % list->size();
        (*list)[j].name = (*list)[i].name;
      } else {
        list->push_back(list->front());
        if (rp.k > 0) rp.k = 2;
      }
    } else if (kind < 72) {
      c.kind = near_miss;  // one place too many or too few
      if (rng.coin() && !unlisted.empty()) list->push_back({e.order[rng.pick(unlisted)].key, false, std::nullopt});
      else if (!list->empty()) list->pop_back();
    } else if (kind < 80) {
      c.kind = near_miss;  // a quoted score that is another entity's, or no number
      Place& p = (*list)[place_at()];
      p.as_object = true;
      const std::int64_t own = e.order[*e.locate(*p.name)].n;
      std::vector<std::int64_t> scores;
      for (const auto& entry : e.order)
        if (entry.n != own) scores.push_back(entry.n);
      if (rng.percent(20)) p.score = rng.coin() ? not_a_number("\"x\"") : not_a_number("null");
      else p.score = score_text(scores.empty() ? own + 1 : rng.pick(scores));
    } else if (kind < 88) {
      c.kind = near_miss;  // a name in another type, a skipped row, a stranger, an object without a name
      Place& p = (*list)[place_at()];
      if (rng.percent(15)) {
        p.as_object = true;
        p.name = std::nullopt;
        p.score = score_text(0);
      } else {
        p.name = misnamed(rng, e, g.rows);
      }
    } else if (kind < 96) {
      c.kind = near_miss;  // the cut inside a tie (when the table has one), filled with any tied member
    } else {
      c.kind = wrong_answer;  // no list, an empty one, or not a list
      if (rng.coin()) list = std::nullopt;
      else list->clear();
    }
    // A k past the ranking is refused when the boundary is built, by both forms.
    if (rng.percent(3)) rp.k = size + 1 + rng.below(2);
    c.expect_construction_refused = rp.k > size;
    c.expect_ok = prefix_ok(e, rp, list);
    if (c.kind == true_answer && !c.expect_ok) c.kind = near_miss;  // a cut inside a tie has no true top-k
  }
  c.on_table = rp;
  c.on_ranking = rp;
  pair_forms(rng, c.on_table, c.on_ranking, direction, on_missing);
  c.config = "ranking_prefix k=" + std::to_string(rp.k) +
             " ties=" + (rp.ties == gp::Ties::reject ? "reject" : "accept_any") +
             " ordered=" + (rp.ordered ? "true" : "false");
  Output out;
  if (list) {
    std::vector<std::string> parts;
    for (const auto& p : *list) parts.push_back(place_text(p));
    if (!list->empty() || rng.coin()) out.add("top", join(parts, "[", "]"));
    else out.add("top", "\"none\"");
  }
  c.claim = out.text();
  return c;
}

// ---- comparison ----

// The convention's value of x against y (twentieths), as p / q; nullopt against a zero.
std::optional<std::pair<std::int64_t, std::int64_t>> convention_value(gp::Convention conv, std::int64_t x,
                                                                      std::int64_t y) {
  switch (conv) {
    case gp::Convention::percent_change:
      if (y == 0) return std::nullopt;
      return std::pair{(x - y) * 100, y};
    case gp::Convention::percentage_points:
      return std::pair{(x - y) * 100, std::int64_t{20}};
    case gp::Convention::ratio:
      if (y == 0) return std::nullopt;
      return std::pair{x, y};
    case gp::Convention::difference:
      return std::pair{x - y, std::int64_t{20}};
  }
  return std::nullopt;
}

// The value written the way a model would: exact when it terminates, else rounded.
Num written(Rng& rng, std::pair<std::int64_t, std::int64_t> v) {
  if (v.second < 0) v = {-v.first, -v.second};
  if (const auto e = exact(v.first, v.second)) return *e;
  const int d = static_cast<int>(1 + rng.below(6));
  return fixed(round_half_away(v.first, v.second, d), d);
}

struct PairClaim {
  std::optional<json> a, b;
  std::optional<Num> by;
};

bool comparison_ok(const Expected& e, const gp::comparison& cmp, const PairClaim& claim) {
  if (!claim.a || !claim.b) return false;
  const auto a = e.locate(*claim.a);
  const auto b = e.locate(*claim.b);
  if (!a || !b || *a == *b) return false;
  const std::int64_t na = e.order[*a].n, nb = e.order[*b].n;
  if (!e.better(na, nb)) return false;  // reversed, or tied
  if (cmp.value_field.empty()) return true;
  if (!claim.by || !claim.by->scaled) return false;
  const auto truth = cmp.order == gp::ComparisonOrder::a_minus_b ? convention_value(cmp.convention, na, nb)
                                                                 : convention_value(cmp.convention, nb, na);
  if (!truth) return false;
  auto [p, q] = *truth;
  if (q < 0) p = -p, q = -q;
  const std::int64_t s = *claim.by->scaled;
  const int d = claim.by->decimals;
  if (cmp.rounding == gp::Rounding::exact) return s * q == p * pow10(d);
  return s == round_half_away(p, q, d);  // the truth rounded to the decimals written
}

Case<gp::comparison> make_comparison(Rng& rng, const Generated& g, const Expected& e, gp::Direction direction,
                                     gp::OnMissing on_missing) {
  Case<gp::comparison> c;
  gp::comparison cmp;
  static const std::vector<gp::Convention> conventions = {gp::Convention::percent_change,
                                                          gp::Convention::percentage_points, gp::Convention::ratio,
                                                          gp::Convention::difference};
  cmp.convention = rng.pick(conventions);
  cmp.order = rng.coin() ? gp::ComparisonOrder::a_minus_b : gp::ComparisonOrder::b_minus_a;
  cmp.rounding = rng.coin() ? gp::Rounding::exact : gp::Rounding::as_stated;
  cmp.value_field = rng.percent(85) ? "by" : "";
  c.on_table = cmp;
  c.on_ranking = cmp;
  pair_forms(rng, c.on_table, c.on_ranking, direction, on_missing);
  c.config = std::string("comparison convention=") + std::string(gp::to_string(cmp.convention)) +
             " order=" + std::string(gp::to_string(cmp.order)) +
             " rounding=" + std::string(gp::to_string(cmp.rounding)) + " value_field=" + cmp.value_field;

  PairClaim claim;
  if (e.refused) {
    c.expect_construction_refused = true;
    claim.a = rng.pick(g.rows).key;
    claim.b = rng.pick(g.rows).key;
    claim.by = fixed(1, 0);
  } else {
    std::vector<std::pair<std::size_t, std::size_t>> beats, ties;  // (a, b): a beat b / a tied b
    for (std::size_t i = 0; i < e.size(); ++i)
      for (std::size_t j = 0; j < e.size(); ++j) {
        if (e.better(e.order[i].n, e.order[j].n)) beats.emplace_back(i, j);
        else if (i != j && e.order[i].n == e.order[j].n) ties.emplace_back(i, j);
      }
    // The value in the configured order for the pair (a, b), or for the pair the other way.
    const auto value_for = [&](std::size_t a, std::size_t b, bool flipped) {
      const bool a_first = (cmp.order == gp::ComparisonOrder::a_minus_b) != flipped;
      return a_first ? convention_value(cmp.convention, e.order[a].n, e.order[b].n)
                     : convention_value(cmp.convention, e.order[b].n, e.order[a].n);
    };
    const auto set_pair = [&](std::size_t a, std::size_t b) {
      claim.a = e.order[a].key;
      claim.b = e.order[b].key;
    };
    const std::size_t kind = rng.below(100);
    if (beats.empty()) {
      // One entity, or all tied: no true comparison exists.
      c.kind = wrong_answer;
      if (!ties.empty() && rng.coin()) {
        const auto tied = rng.pick(ties);
        set_pair(tied.first, tied.second);
      } else {
        set_pair(0, 0);
      }
      claim.by = fixed(0, 0);
    } else {
      const auto [a, b] = rng.pick(beats);
      set_pair(a, b);
      const auto truth = value_for(a, b, false);
      claim.by = truth ? written(rng, *truth) : fixed(100, 0);
      if (kind < 30) {
        c.kind = true_answer;  // unless it had no value or was rounded under exact: judged below
      } else if (kind < 42) {
        c.kind = wrong_answer;  // reversed: the loser named first, with the winner's margin
        set_pair(b, a);
      } else if (kind < 50) {
        c.kind = wrong_answer;  // a tie, or one entity against itself
        if (!ties.empty() && rng.coin()) {
          const auto tied = rng.pick(ties);
          set_pair(tied.first, tied.second);
        } else {
          set_pair(a, a);
        }
      } else if (kind < 62) {
        c.kind = near_miss;  // the right size with the wrong sign
        if (claim.by->scaled) claim.by = fixed(-*claim.by->scaled, claim.by->decimals);
      } else if (kind < 72) {
        c.kind = near_miss;  // a wrong number: one unit of its last digit or one score step off
        if (claim.by->scaled) {
          const std::int64_t step = rng.coin() ? 1 : pow10(claim.by->decimals);
          claim.by = fixed(*claim.by->scaled + (rng.coin() ? step : -step), claim.by->decimals);
        }
      } else if (kind < 80) {
        c.kind = near_miss;  // the value of the other order, or of another convention
        if (rng.coin()) {
          if (const auto other = value_for(a, b, true)) claim.by = written(rng, *other);
        } else {
          const gp::Convention conv = rng.pick(conventions);
          const bool a_first = cmp.order == gp::ComparisonOrder::a_minus_b;
          if (const auto other = convention_value(conv, e.order[a_first ? a : b].n, e.order[a_first ? b : a].n))
            claim.by = written(rng, *other);
        }
      } else if (kind < 90) {
        c.kind = near_miss;  // one side misnamed: another type, a skipped row, a stranger
        const json name = misnamed(rng, e, g.rows);
        (rng.coin() ? claim.a : claim.b) = name;
      } else {
        c.kind = wrong_answer;  // no number, or no side
        switch (rng.below(3)) {
          case 0:
            claim.by = not_a_number(rng.coin() ? "\"12\"" : "true");
            break;
          case 1:
            claim.by = std::nullopt;
            break;
          default:
            (rng.coin() ? claim.a : claim.b) = std::nullopt;
            break;
        }
        // Without a value field, a missing or unreadable number is no claim at all.
        if (cmp.value_field.empty() && claim.a && claim.b) c.kind = near_miss;
      }
    }
    c.expect_ok = comparison_ok(e, cmp, claim);
    if (c.kind == true_answer && !c.expect_ok) c.kind = near_miss;  // no value, or rounded under exact
  }
  Output out;
  if (claim.a) out.add("a", claim.a->dump());
  if (claim.b) out.add("b", claim.b->dump());
  if (claim.by) out.add("by", claim.by->raw);
  c.claim = out.text();
  return c;
}

}  // namespace

TEST_CASE("superlative over a table column and over the recorded to_ranking give the same verdict on random claims") {
  const Tally t = differential(0x5eed0001, cases_per_check, make_superlative);
  require_meaningful(t, cases_per_check);
}

TEST_CASE(
    "ranking_prefix over a table column and over the recorded to_ranking give the same verdict on random claims") {
  const Tally t = differential(0x5eed0002, cases_per_check, make_ranking_prefix);
  require_meaningful(t, cases_per_check);
}

TEST_CASE("comparison over a table column and over the recorded to_ranking give the same verdict on random claims") {
  const Tally t = differential(0x5eed0003, cases_per_check, make_comparison);
  require_meaningful(t, cases_per_check);
}

namespace {
// Store sales by integer id; store 103 has no sales recorded.
const json store_rows = json::parse(R"([
    {"store": 101, "sales": 250},
    {"store": 102, "sales": 300},
    {"store": 103, "sales": null},
    {"store": 104, "sales": 120}
  ])");

// The table as "q", and its column ranked under `on_missing` recorded as "q_sales".
void record_stores(gp::FactRegistry& reg, gp::OnMissing on_missing) {
  const gp::Table& q = reg.record_table("q", store_rows, {.key_column = "store", .tool = "db"});
  const gp::Ranking r = q.to_ranking("sales", gp::Direction::higher_is_better, on_missing);
  reg.record_ranking("q_sales", r.scores(), {.key = r.key(), .direction = r.direction(), .tool = "db"});
}
}  // namespace

TEST_CASE("a deliberately wrong winner is refused alike over the table and over its recorded to_ranking") {
  gp::FactRegistry reg;
  record_stores(reg, gp::OnMissing::skip);
  gp::Boundary on_table(reg, {"q"}, gp::superlative{.fact = "q", .column = "sales", .on_missing = gp::OnMissing::skip});
  gp::Boundary on_ranking(reg, {"q_sales"}, gp::superlative{.fact = "q_sales"});
  const gp::Verdict t = on_table.try_submit({{"winner", 101}});
  const gp::Verdict r = on_ranking.try_submit({{"winner", 101}});
  REQUIRE(t.findings().size() == 1);
  REQUIRE(r.findings().size() == 1);
  CHECK(t.findings()[0].supported == "102");
  CHECK(r.findings()[0].supported == "102");
  CHECK(t.findings()[0].detail == "computed argmax on 'sales' is 102 (300); 101 ranked #2 at 250");
  CHECK(r.findings()[0].detail == t.findings()[0].detail);
  // Only the table form skipped a row, and it says so.
  CHECK(t.warnings().size() == 1);
  CHECK(r.warnings().empty());
  CHECK(on_table.try_submit({{"winner", 102}, {"score", 300}}).ok());
  CHECK(on_ranking.try_submit({{"winner", 102}, {"score", 300}}).ok());
}

TEST_CASE("a comparison naming a skipped row is refused by both forms and only the table form can say it was skipped") {
  gp::FactRegistry reg;
  record_stores(reg, gp::OnMissing::skip);
  gp::Boundary on_table(
      reg, {"q"},
      gp::comparison{
          .fact = "q", .column = "sales", .convention = gp::Convention::difference, .on_missing = gp::OnMissing::skip});
  gp::Boundary on_ranking(reg, {"q_sales"},
                          gp::comparison{.fact = "q_sales", .convention = gp::Convention::difference});
  const json claim = {{"a", 102}, {"b", 103}, {"by", 50}};
  const gp::Verdict t = on_table.try_submit(claim);
  const gp::Verdict r = on_ranking.try_submit(claim);
  REQUIRE(t.findings().size() == 1);
  REQUIRE(r.findings().size() == 1);
  CHECK(t.findings()[0].field == "b");
  CHECK(r.findings()[0].field == "b");
  CHECK(t.findings()[0].detail ==
        "103's row has no value in 'sales' (skipped under OnMissing::skip), so nothing can be said of it");
  CHECK_THAT(r.findings()[0].detail, Catch::StartsWith("103 is not one of the 3 entities ranked on 'sales'"));
  CHECK(on_table.try_submit({{"a", 102}, {"b", 101}, {"by", 50}}).ok());
  CHECK(on_ranking.try_submit({{"a", 102}, {"b", 101}, {"by", 50}}).ok());
}

TEST_CASE("a hole under OnMissing::refuse makes to_ranking and every check over the column refuse alike") {
  gp::FactRegistry reg;
  const gp::Table& q = reg.record_table("q", store_rows, {.key_column = "store", .tool = "db"});
  CHECK_THROWS_AS(q.to_ranking("sales", gp::Direction::lower_is_better, gp::OnMissing::refuse), gp::ConfigurationError);
  CHECK_THROWS_AS(gp::Boundary(reg, {"q"}, gp::superlative{.fact = "q", .column = "sales"}), gp::ConfigurationError);
  CHECK_THROWS_AS(gp::Boundary(reg, {"q"}, gp::ranking_prefix{.fact = "q", .k = 2, .column = "sales"}),
                  gp::ConfigurationError);
  CHECK_THROWS_AS(gp::Boundary(reg, {"q"}, gp::comparison{.fact = "q", .column = "sales"}), gp::ConfigurationError);
}
