// groundplane's costs beside the baseline a caller would otherwise pay, measured in the
// same process on the same data. Run through bench/run, which builds Release, times
// the compile-time row and prints the one table this binary assembles.
//
// Each row pairs a figure with its baseline; both are Google Benchmark benchmarks
// named "<row>/groundplane" and "<row>/baseline", repeated, and the table shows the
// fastest repetition of each (CPU time), so a busy machine skews both sides alike.
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <groundplane/groundplane.hpp>

namespace gp = groundplane;
using nlohmann::json;

// ---------------------------------------------------------------------------------
// Live heap bytes, counted by a global operator new (usable sizes, so allocator
// rounding is counted as held).

namespace {
std::atomic<std::int64_t> live_bytes{0};

void* counted_alloc(std::size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  live_bytes.fetch_add(static_cast<std::int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
  return p;
}
void counted_free(void* p) noexcept {
  if (p == nullptr) return;
  live_bytes.fetch_sub(static_cast<std::int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
  std::free(p);
}
}  // namespace

void* operator new(std::size_t n) { return counted_alloc(n); }
void* operator new[](std::size_t n) { return counted_alloc(n); }
void operator delete(void* p) noexcept { counted_free(p); }
void operator delete[](void* p) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t) noexcept { counted_free(p); }

namespace {

// ---------------------------------------------------------------------------------
// Data, built once and shared by the benchmarks that read it.

constexpr std::size_t big = 1'000'000;

std::string number_text(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string padded(char prefix, std::size_t i) {
  std::string s(1, prefix);
  const std::string digits = std::to_string(i);
  s.append(7 - std::min<std::size_t>(7, digits.size()), '0');
  return s + digits;
}

// 1M rows × 3 columns as a warehouse tool returns them: a campaign key, a ctr with up
// to six decimals and a spend with two.
struct CampaignRows {
  std::string text;
  json rows;
  std::vector<std::string> keys;
  std::vector<double> ctr, spend;
};

const CampaignRows& campaign_rows() {
  static const CampaignRows data = [] {
    CampaignRows d;
    std::mt19937_64 rng(1);
    d.text.reserve(big * 64);
    d.text += '[';
    for (std::size_t i = 0; i < big; ++i) {
      d.keys.push_back(padded('c', i));
      d.ctr.push_back(static_cast<double>(rng() % 200'000) / 1e6);
      d.spend.push_back(static_cast<double>(rng() % 10'000'000) / 100.0);
      if (i > 0) d.text += ',';
      d.text += R"({"campaign":")" + d.keys.back() + R"(","ctr":)" + number_text(d.ctr.back()) + R"(,"spend":)" +
                number_text(d.spend.back()) + "}";
    }
    d.text += ']';
    d.rows = json::parse(d.text);
    return d;
  }();
  return data;
}

gp::FactRegistry& campaign_registry() {
  static gp::FactRegistry reg;
  static std::once_flag once;
  std::call_once(once, [] {
    reg.record_table("campaign_daily", campaign_rows().rows,
                     {.key_column = "campaign", .tool = "warehouse.query", .args = {{"table", "campaign_daily"}}});
  });
  return reg;
}

// 1M orders: a region (four values) and an amount with two decimals.
struct Orders {
  json rows;
  std::vector<std::string> region;
  std::vector<double> amount;
};

const Orders& orders() {
  static const Orders data = [] {
    Orders d;
    const char* regions[] = {"north", "south", "east", "west"};
    std::mt19937_64 rng(2);
    d.rows = json::array();
    for (std::size_t i = 0; i < big; ++i) {
      d.region.emplace_back(regions[rng() % 4]);
      d.amount.push_back(static_cast<double>(rng() % 10'000'000) / 100.0);
      d.rows.push_back({{"region", d.region.back()}, {"amount", d.amount.back()}});
    }
    return d;
  }();
  return data;
}

gp::FactRegistry& orders_registry() {
  static gp::FactRegistry reg;
  static std::once_flag once;
  std::call_once(once, [] { reg.record_table("orders", orders().rows, {.tool = "warehouse.query"}); });
  return reg;
}

// A ranking of n entities with distinct scores, in a registry of its own.
gp::FactRegistry& ranking_registry(std::size_t n) {
  static std::map<std::size_t, std::unique_ptr<gp::FactRegistry>> regs;
  auto& slot = regs[n];
  if (!slot) {
    slot = std::make_unique<gp::FactRegistry>();
    gp::Scores scores;
    scores.reserve(n);
    std::vector<std::size_t> perm(n);
    for (std::size_t i = 0; i < n; ++i) perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), std::mt19937_64(3));
    for (std::size_t i = 0; i < n; ++i)
      scores.emplace_back(padded('e', i), gp::Decimal(static_cast<double>(perm[i]) / 10000.0));
    slot->record_ranking("ctr", std::move(scores), {.key = "ctr", .tool = "warehouse.query"});
  }
  return *slot;
}

// ---------------------------------------------------------------------------------
// record_table: 1M rows × 3 columns, against nlohmann's parse of the same rows' text.

void record_table_groundplane(benchmark::State& state) {
  const auto& data = campaign_rows();
  for (auto _ : state) {
    auto reg = std::make_unique<gp::FactRegistry>();
    reg->record_table("campaign_daily", data.rows,
                      {.key_column = "campaign", .tool = "warehouse.query", .args = {{"table", "campaign_daily"}}});
    state.PauseTiming();
    reg.reset();
    state.ResumeTiming();
  }
}

void record_table_baseline(benchmark::State& state) {
  const auto& data = campaign_rows();
  for (auto _ : state) {
    auto parsed = std::make_unique<json>(json::parse(data.text));
    benchmark::DoNotOptimize(parsed.get());
    state.PauseTiming();
    parsed.reset();
    state.ResumeTiming();
  }
}

// Bytes the registry holds for the table, per cell: counted around record_table.
void bytes_per_cell(benchmark::State& state, bool numeric_only) {
  const auto& data = campaign_rows();
  json numeric;
  if (numeric_only) {
    numeric = json::array();
    for (std::size_t i = 0; i < big; ++i) numeric.push_back({{"ctr", data.ctr[i]}, {"spend", data.spend[i]}});
  }
  double per_cell = 0;
  for (auto _ : state) {
    const std::int64_t before = live_bytes.load();
    auto reg = std::make_unique<gp::FactRegistry>();
    if (numeric_only) reg->record_table("spend", numeric, {.tool = "warehouse.query"});
    else reg->record_table("campaign_daily", data.rows, {.key_column = "campaign", .tool = "warehouse.query"});
    const std::int64_t held = live_bytes.load() - before;
    per_cell = static_cast<double>(held) / static_cast<double>(big * (numeric_only ? 2 : 3));
  }
  state.counters["bytes"] = per_cell;
}
void bytes_numeric(benchmark::State& state) { bytes_per_cell(state, true); }
void bytes_table(benchmark::State& state) { bytes_per_cell(state, false); }

// ---------------------------------------------------------------------------------
// aggregate_reconciles over 1M rows, with and without where, against a loop over a
// std::vector<double> (and, with where, a std::vector<std::string> of regions).

json stated(const gp::aggregate_reconciles& check, gp::Tolerance& tolerance) {
  // The exact value, as a model would state it (the first digits when it recurs).
  std::vector<gp::Finding> findings;
  check.verify(orders_registry(), {{check.field, "?"}}, findings);
  std::string shown = findings.at(0).supported;
  if (const auto cut = shown.find("\xE2\x80\xA6"); cut != std::string::npos) {
    shown.erase(cut);
    tolerance.relative = gp::Decimal::parse("0.000000001");
  }
  return json(gp::Decimal::parse(shown).to_double());
}

void aggregate_groundplane(benchmark::State& state, gp::Aggregate op, bool where) {
  auto& reg = orders_registry();
  gp::aggregate_reconciles check{.fact = "orders", .field = "v", .op = op, .column = "amount"};
  if (where) check.where = {{"region", "north"}};
  gp::Tolerance tolerance;
  const json output = {{"v", stated(check, tolerance)}};
  check.tolerance = tolerance;
  check.validate(reg);
  for (auto _ : state) {
    std::vector<gp::Finding> findings;
    check.verify(reg, output, findings);
    if (!findings.empty()) state.SkipWithError(findings[0].message().c_str());
    benchmark::DoNotOptimize(findings.data());
  }
}

void aggregate_baseline(benchmark::State& state, gp::Aggregate op, bool where) {
  const auto& d = orders();
  for (auto _ : state) {
    double result = 0;
    if (op == gp::Aggregate::median) {
      std::vector<double> v;
      if (where) {
        for (std::size_t i = 0; i < d.amount.size(); ++i)
          if (d.region[i] == "north") v.push_back(d.amount[i]);
      } else {
        v = d.amount;
      }
      const std::size_t mid = v.size() / 2;
      std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
      result = v[mid];
      if (v.size() % 2 == 0)
        result = (result + *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid))) / 2;
    } else {
      double sum = 0;
      std::size_t n = 0;
      if (where) {
        for (std::size_t i = 0; i < d.amount.size(); ++i)
          if (d.region[i] == "north") {
            sum += d.amount[i];
            ++n;
          }
      } else {
        for (const double x : d.amount) sum += x;
        n = d.amount.size();
      }
      result = op == gp::Aggregate::mean ? sum / static_cast<double>(n) : sum;
    }
    benchmark::DoNotOptimize(result);
  }
}

// ---------------------------------------------------------------------------------
// superlative and ranking_prefix (k = 10): 1M entities against 1k.

void superlative_at(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  auto& reg = ranking_registry(n);
  const auto& r = reg.get<gp::Ranking>("ctr");
  const gp::superlative check{.fact = "ctr"};
  const json output = {{"winner", r.order().front()}, {"score", gp::detail::to_json(r.score_at(0))}};
  for (auto _ : state) {
    std::vector<gp::Finding> findings;
    check.verify(reg, output, findings);
    if (!findings.empty()) state.SkipWithError("unexpected finding");
    benchmark::DoNotOptimize(findings.data());
  }
}

void ranking_prefix_at(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  auto& reg = ranking_registry(n);
  const auto& r = reg.get<gp::Ranking>("ctr");
  const gp::ranking_prefix check{.fact = "ctr", .k = 10};
  json top = json::array();
  for (std::size_t i = 0; i < 10; ++i) top.push_back(r.order()[i]);
  const json output = {{"top", top}};
  for (auto _ : state) {
    std::vector<gp::Finding> findings;
    check.verify(reg, output, findings);
    if (!findings.empty()) state.SkipWithError("unexpected finding");
    benchmark::DoNotOptimize(findings.data());
  }
}

// superlative over a 1M-row Table's column, against the same check over the Ranking of
// the same 1M scores (superlative/1000000): the table derives its ranking once per column
// and keeps it, so a check costs a lookup of that ranking, not a sort per submit.
// The same scores as a std::vector<double>, for a hand-written argmax.
std::vector<double>& ranked_table_scores() {
  static std::vector<double> scores;
  return scores;
}

gp::FactRegistry& ranked_table_registry() {
  static gp::FactRegistry reg;
  static std::once_flag once;
  std::call_once(once, [] {
    const std::size_t n = 1'000'000;
    std::vector<std::size_t> perm(n);
    for (std::size_t i = 0; i < n; ++i) perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), std::mt19937_64(3));
    json rows = json::array();
    for (std::size_t i = 0; i < n; ++i) {
      ranked_table_scores().push_back(static_cast<double>(perm[i]) / 10000.0);
      rows.push_back({{"name", padded('e', i)}, {"ctr", ranked_table_scores().back()}});
    }
    reg.record_table("ctr_rows", rows, {.key_column = "name", .tool = "warehouse.query"});
  });
  return reg;
}

void superlative_table_column(benchmark::State& state) {
  auto& reg = ranked_table_registry();
  const gp::superlative check{.fact = "ctr_rows", .column = "ctr"};
  check.validate(reg);  // what a Boundary does once, when it is built
  const gp::Ranking ranking = reg.get<gp::Table>("ctr_rows").to_ranking("ctr");
  const json output = {{"winner", ranking.order().front().to_json()},
                       {"score", gp::detail::to_json(ranking.score_at(0))}};
  for (auto _ : state) {
    std::vector<gp::Finding> findings;
    check.verify(reg, output, findings);
    if (!findings.empty()) state.SkipWithError("unexpected finding");
    benchmark::DoNotOptimize(findings.data());
  }
}

// ---------------------------------------------------------------------------------
// construct + submit: what an app pays per answer over a recorded 1M-row table — a
// gp::Boundary built (its checks validated), one claim submitted and judged, the
// boundary destroyed — against a hand-written loop over the same values. The first
// boundary over a column derives what the checks read from it once (one pass, measured
// by the "first" row); the figure is every boundary after it.

void boundary_aggregate(benchmark::State& state, gp::Aggregate op, bool where, bool first) {
  auto& reg = orders_registry();
  gp::aggregate_reconciles check{.fact = "orders", .field = "v", .op = op};
  if (op != gp::Aggregate::count) check.column = "amount";
  if (where) check.where = {{"region", "north"}};
  gp::Tolerance tolerance;
  const json output = {{"v", stated(check, tolerance)}};
  check.tolerance = tolerance;
  std::unique_ptr<gp::FactRegistry> fresh;
  const auto run = [&](const gp::FactRegistry& r) {
    gp::Boundary b(r, {"orders"}, check);
    const gp::Verdict v = b.try_submit(output);
    if (!v.ok()) state.SkipWithError(v.findings().at(0).message().c_str());
    benchmark::DoNotOptimize(v.ok());
  };
  if (!first) run(reg);  // the column's one pass, before the timed boundaries
  for (auto _ : state) {
    if (first) {  // a table no check has read yet
      state.PauseTiming();
      fresh = std::make_unique<gp::FactRegistry>();
      fresh->record_table("orders", orders().rows, {.tool = "warehouse.query"});
      state.ResumeTiming();
    }
    run(first ? *fresh : reg);
  }
}

void count_where_baseline(benchmark::State& state) {
  const auto& d = orders();
  for (auto _ : state) {
    std::size_t n = 0;
    for (const std::string& region : d.region) n += region == "north" ? 1 : 0;
    benchmark::DoNotOptimize(n);
  }
}

void boundary_superlative(benchmark::State& state) {
  auto& reg = ranked_table_registry();
  const gp::superlative check{.fact = "ctr_rows", .column = "ctr"};
  const gp::Ranking ranking = reg.get<gp::Table>("ctr_rows").to_ranking("ctr");
  const json output = {{"winner", ranking.order().front().to_json()},
                       {"score", gp::detail::to_json(ranking.score_at(0))}};
  for (auto _ : state) {
    gp::Boundary b(reg, {"ctr_rows"}, check);
    const gp::Verdict v = b.try_submit(output);
    if (!v.ok()) state.SkipWithError("unexpected finding");
    benchmark::DoNotOptimize(v.ok());
  }
}

void argmax_baseline(benchmark::State& state) {
  ranked_table_registry();
  const auto& scores = ranked_table_scores();
  for (auto _ : state) benchmark::DoNotOptimize(std::max_element(scores.begin(), scores.end()));
}

// Bytes a table keeps for what the checks derived from one 1M-row column, counted by the
// global operator new around the boundaries that derived them: the amount column's sum,
// extremes and median (every aggregate over it run once), and a column of 1M distinct
// strings indexed as row keys (row_integrity's key_column).
void summary_bytes(benchmark::State& state) {
  std::int64_t numbers = 0, keys = 0;
  for (auto _ : state) {
    gp::FactRegistry reg;
    reg.record_table("orders", orders().rows, {.tool = "warehouse.query"});
    reg.record_table("campaigns", campaign_rows().rows, {.tool = "warehouse.query"});
    std::int64_t before = live_bytes.load();
    for (const auto op :
         {gp::Aggregate::sum, gp::Aggregate::mean, gp::Aggregate::min, gp::Aggregate::max, gp::Aggregate::median}) {
      gp::Boundary b(reg, {"orders"},
                     gp::aggregate_reconciles{.fact = "orders", .field = "v", .op = op, .column = "amount"});
      benchmark::DoNotOptimize(b.try_submit({{"v", 0}}).ok());
    }
    numbers = live_bytes.load() - before;
    before = live_bytes.load();
    {
      gp::Boundary b(
          reg, {"campaigns"},
          gp::row_integrity{
              .fact = "campaigns", .key_field = "campaign", .fields = {{"ctr", "ctr"}}, .key_column = "campaign"});
      benchmark::DoNotOptimize(b.try_submit({{"campaign", "c0000042"}}).ok());
    }
    keys = live_bytes.load() - before;
  }
  state.counters["numbers"] = static_cast<double>(numbers);
  state.counters["keys"] = static_cast<double>(keys);
}

// ---------------------------------------------------------------------------------
// row_integrity: 1M-row table, an output of 1,000 row objects; against a hand-written
// lookup of each key in a hash map and comparison of its two numbers.

json rows_output() {
  const auto& d = campaign_rows();
  json rows = json::array();
  for (std::size_t i = 0; i < 1000; ++i) {
    const std::size_t r = (i * 7919) % big;
    rows.push_back({{"campaign", d.keys[r]}, {"ctr", d.ctr[r]}, {"spend", d.spend[r]}});
  }
  return {{"rows", rows}};
}

void row_integrity_groundplane(benchmark::State& state) {
  auto& reg = campaign_registry();
  const gp::row_integrity check{
      .fact = "campaign_daily", .key_field = "campaign", .fields = {{"ctr", "ctr"}, {"spend", "spend"}}, .at = "/rows"};
  check.validate(reg);
  const json output = rows_output();
  for (auto _ : state) {
    std::vector<gp::Finding> findings;
    check.verify(reg, output, findings);
    if (!findings.empty()) state.SkipWithError(findings[0].message().c_str());
    benchmark::DoNotOptimize(findings.data());
  }
}

void row_integrity_baseline(benchmark::State& state) {
  const auto& d = campaign_rows();
  static const std::unordered_map<std::string, std::size_t> index = [&] {
    std::unordered_map<std::string, std::size_t> m;
    m.reserve(big);
    for (std::size_t i = 0; i < big; ++i) m.emplace(d.keys[i], i);
    return m;
  }();
  const json output = rows_output();
  for (auto _ : state) {
    std::size_t wrong = 0;
    for (const auto& row : output["rows"]) {
      const auto it = index.find(row["campaign"].get_ref<const std::string&>());
      if (it == index.end() || row["ctr"].get<double>() != d.ctr[it->second] ||
          row["spend"].get<double>() != d.spend[it->second])
        ++wrong;
    }
    benchmark::DoNotOptimize(wrong);
  }
}

// ---------------------------------------------------------------------------------
// entities_recorded: a 1M-member domain, 10,000 names; against std::unordered_set.

std::vector<std::string> members() {
  std::vector<std::string> m;
  m.reserve(big);
  for (std::size_t i = 0; i < big; ++i) m.push_back(padded('m', i));
  return m;
}

json names_output() {
  json names = json::array();
  for (std::size_t i = 0; i < 10'000; ++i) names.push_back(padded('m', (i * 104729) % big));
  return {{"names", names}};
}

void entities_groundplane(benchmark::State& state) {
  static gp::FactRegistry reg;
  static std::once_flag once;
  std::call_once(once, [] {
    const auto names = members();
    reg.record_domain("members", std::vector<gp::Entity>(names.begin(), names.end()), {.tool = "crm.list"});
  });
  const gp::entities_recorded check{.facts = {"members"}, .fields = {"names"}};
  const json output = names_output();
  for (auto _ : state) {
    std::vector<gp::Finding> findings;
    check.verify(reg, output, findings);
    if (!findings.empty()) state.SkipWithError("unexpected finding");
    benchmark::DoNotOptimize(findings.data());
  }
}

void entities_baseline(benchmark::State& state) {
  static const std::unordered_set<std::string> set = [] {
    const auto m = members();
    return std::unordered_set<std::string>(m.begin(), m.end());
  }();
  const json output = names_output();
  for (auto _ : state) {
    std::size_t unknown = 0;
    for (const auto& name : output["names"])
      if (!name.is_string() || set.find(name.get_ref<const std::string&>()) == set.end()) ++unknown;
    benchmark::DoNotOptimize(unknown);
  }
}

// ---------------------------------------------------------------------------------
// The seed example end to end (construct the boundary, submit, destroy), accepted
// and rejected; against parsing the model's answer, which the caller pays anyway.

gp::FactRegistry& seed_registry() {
  static gp::FactRegistry reg;
  static std::once_flag once;
  std::call_once(once, [] {
    reg.record_ranking(
        "campaign_ctr", {{"north", 0.0412}, {"harbour", 0.0455}, {"delta", 0.0301}},
        {.key = "ctr", .tool = "warehouse.query", .args = {{"table", "campaign_daily"}, {"window", "7d"}}});
  });
  return reg;
}

void seed_accepted(benchmark::State& state) {
  auto& reg = seed_registry();
  const json answer = {{"winner", "harbour"}, {"score", 0.0455}};
  for (auto _ : state) {
    gp::Boundary b(reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
    b.submit(answer);
  }
}

void seed_rejected(benchmark::State& state) {
  auto& reg = seed_registry();
  const json answer = {{"winner", "north"}, {"score", 0.0412}};
  for (auto _ : state) {
    gp::Boundary b(reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
    try {
      b.submit(answer);
    } catch (const gp::UnsupportedClaim& e) {
      benchmark::DoNotOptimize(e.what());
    }
  }
}

void seed_baseline(benchmark::State& state) {
  const std::string text = R"({"winner": "harbour", "score": 0.0455})";
  for (auto _ : state) {
    json answer = json::parse(text);
    benchmark::DoNotOptimize(answer);
  }
}

// ---------------------------------------------------------------------------------
// Session::fire, against appending a row to a vector under a mutex; ground_truth()
// with 20 attempts shown, over 1M-row ledgers against 1k-row ones.

void fire_groundplane(benchmark::State& state) {
  gp::Session s;
  s.declare("cart.add",
            {.does = "adds the item to the cart", .handler = [](const json&) { return gp::HandlerResult{}; }});
  for (auto _ : state) {
    const auto r = s.fire("cart.add");
    benchmark::DoNotOptimize(r.ok);
  }
  state.counters["fires_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

// The compile-cost issue's workload: fires alternating a declared action and an id the
// model invented (a transition, then a refusal), as the TypeScript library it names was
// measured on.
void fire_alternating(benchmark::State& state) {
  gp::Session s;
  s.declare("cart.add",
            {.does = "adds the item to the cart", .handler = [](const json&) { return gp::HandlerResult{}; }});
  bool real = true;
  for (auto _ : state) {
    const auto r = s.fire(real ? "cart.add" : "made.up");
    benchmark::DoNotOptimize(r.ok);
    real = !real;
  }
}

// A fire whose action declares a 10-key input schema and one argument check against a
// 1M-row table (the refund whose order and amount must be a recorded order's), against
// the same fire of an action that declares neither: what typed input and argument checks
// add to a fire (the payload's copy is both sides' cost).
const json& refund_payload() {
  static const json payload = [] {
    json p = json::object();
    for (int k = 0; k < 8; ++k) p["note" + std::to_string(k)] = "n";
    p["order_id"] = 777'777;
    p["amount"] = 777.5;
    return p;
  }();
  return payload;
}

void fire_refund(benchmark::State& state, bool typed_and_checked) {
  static const gp::FactRegistry& facts = []() -> const gp::FactRegistry& {
    static gp::FactRegistry reg;
    json rows = json::array();
    for (int i = 0; i < 1'000'000; ++i) rows.push_back({{"id", i}, {"total", i % 1000 + 0.5}});
    reg.record_table("orders", rows, {.key_column = "id", .tool = "orders.list"});
    return reg;
  }();
  json properties = json::object();
  for (int k = 0; k < 8; ++k) properties["note" + std::to_string(k)] = {{"type", "string"}, {"maxLength", 64}};
  properties["order_id"] = {{"type", "integer"}, {"minimum", 0}};
  properties["amount"] = {{"type", "number"}, {"exclusiveMinimum", 0}};
  gp::Session s({.facts = &facts});
  gp::ActionSpec spec{.does = "refunds the order", .handler = [](const json&) { return gp::HandlerResult{}; }};
  if (typed_and_checked) {
    spec.input = {{"type", "object"},
                  {"properties", properties},
                  {"required", {"order_id", "amount"}},
                  {"additionalProperties", false}};
    spec.argument_checks = {
        gp::row_integrity{.fact = "orders", .key_field = "order_id", .fields = {{"amount", "total"}}}};
  }
  s.declare("orders.refund", std::move(spec));
  const json& payload = refund_payload();
  for (auto _ : state) {
    const auto r = s.fire("orders.refund", {.payload = payload});
    if (!r.ok) state.SkipWithError(("the refund was refused: " + r.reason).c_str());
    benchmark::DoNotOptimize(r.ok);
  }
}

void fire_baseline(benchmark::State& state) {
  struct Row {
    std::string id;
    std::uint64_t version;
    std::string action;
  };
  std::mutex m;
  std::vector<Row> rows;
  std::uint64_t version = 0;
  for (auto _ : state) {
    std::lock_guard lock(m);
    rows.push_back(Row{"t-" + std::to_string(rows.size() + 1), version++, "cart.add"});
    benchmark::DoNotOptimize(rows.back());
  }
}

// A fire of an action over 100,000 items naming the last one, against a plain fire in
// the same kind of session: the selector is asked once (the state does not change) and
// each fire's membership check is one hash lookup.
void fire_items(benchmark::State& state, bool items) {
  gp::Session s;
  gp::ActionSpec spec{.does = "archives the row", .handler = [](const json&) { return gp::HandlerResult{}; }};
  if (items) {
    spec.instances = [](const json&) {
      std::vector<std::string> ids;
      ids.reserve(100'000);
      for (int i = 0; i < 100'000; ++i) ids.push_back("r-" + std::to_string(i));
      return ids;
    };
  }
  s.declare("row.archive", std::move(spec));
  const gp::FireOptions options{.instance = items ? "r-99999" : ""};
  s.fire("row.archive", options);  // the selector is asked here, once: the state never changes below
  for (auto _ : state) {
    const auto r = s.fire("row.archive", options);
    if (!r.ok) state.SkipWithError(("the fire was refused: " + r.reason).c_str());
    benchmark::DoNotOptimize(r.ok);
  }
}

// whats_here over a session of 1M rows (fires and the reports that settle them) and
// 1,000 actions each reading and writing its own keys, with a cursor near the end (every
// action asked which of its keys moved) against the same look without one.
gp::Session& moving_world() {
  static const std::unique_ptr<gp::Session> s = [] {
    auto session = std::make_unique<gp::Session>(gp::SessionOptions{.node = "board"});
    for (int a = 0; a < 1000; ++a) {
      const std::string key = "/items/" + std::to_string(a);
      session->declare("item." + std::to_string(a) + ".edit",
                       {.does = "edits the item",
                        .writes = {key},
                        .handler = [](const json&) { return gp::HandlerResult{}; },
                        .reads = {key + "/price", "/settings"}});
    }
    for (int i = 0; i < 500'000; ++i) {  // a fire and its report: two rows, the version moves once
      const std::string a = std::to_string(i % 1000);
      session->fire("item." + a + ".edit");
      session->report_state({{"items", {{a, {{"price", i}}}}}});
    }
    session->report_state({{"settings", {{"theme", "dark"}}}});  // another's change: every action stale
    return session;
  }();
  return *s;
}

void whats_here_moving(benchmark::State& state, bool with_cursor) {
  gp::AgentPort port(moving_world());
  const std::uint64_t since = moving_world().version() - 10;
  for (auto _ : state) {
    const auto out = with_cursor ? port.whats_here(since) : port.whats_here();
    benchmark::DoNotOptimize(out.json().size());
  }
}

const gp::Session& ledger_of(std::size_t n) {
  static std::map<std::size_t, std::unique_ptr<gp::Session>> sessions;
  auto& slot = sessions[n];
  if (!slot) {
    slot = std::make_unique<gp::Session>(gp::SessionOptions{.node = "checkout"});
    slot->declare("cart.add", {.does = "adds the item", .handler = [](const json&) { return gp::HandlerResult{}; }});
    for (std::size_t i = 0; i < n; ++i) {
      if (i % 10 == 9) slot->fire("cart.remove");  // a refusal now and then: both ledgers
      else slot->fire("cart.add");
    }
  }
  return *slot;
}

void ground_truth_at(benchmark::State& state) {
  const auto& s = ledger_of(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    const auto g = s.ground_truth();
    benchmark::DoNotOptimize(g.text.data());
  }
}

// ---------------------------------------------------------------------------------
// An action's input schema judging a megabyte of hostile payload (gp::JsonSchema), against
// parsing the same text with nlohmann, which an agent port pays anyway. The payload holds
// each shape that would make a naive validator slow: a duplicate hidden at the end of
// 30,000 distinct tags (uniqueItems), 15,000 keys an object does not allow, 200 long
// strings against maxLength, 25,000 near-multiples of 0.01 (multipleOf, exactly), and
// 1,400 branches nested past the depth bound.

const gp::JsonSchema& hostile_schema() {
  static const gp::JsonSchema schema(json::parse(R"({
    "type": "object",
    "properties": {
      "tags": {"type": "array", "uniqueItems": true, "items": {"anyOf": [{"type": "string"}, {"type": "number"}]}},
      "meta": {"type": "object", "additionalProperties": false, "propertyNames": {"maxLength": 8}},
      "notes": {"type": "array", "items": {"type": "string", "maxLength": 100}},
      "prices": {"type": "array", "items": {"type": "number", "multipleOf": 0.01, "minimum": 0}},
      "tree": {"$ref": "#/$defs/tree"}
    },
    "$defs": {"tree": {"type": "array", "items": {"$ref": "#/$defs/tree"}}}
  })"));
  return schema;
}

const std::string& hostile_text() {
  static const std::string text = [] {
    json tags = json::array();
    for (int i = 0; tags.size() < 30000; ++i) tags.push_back(i % 3 == 0 ? json(i * 0.5) : json(std::to_string(i)));
    tags.push_back(0.0);
    json meta = json::object();
    for (int i = 0; i < 15000; ++i) meta["k" + std::to_string(i)] = i;
    json notes = json::array();
    for (int i = 0; i < 200; ++i) notes.push_back(std::string(1000, 'x'));
    json prices = json::array();
    for (int i = 0; i < 25000; ++i) prices.push_back(i * 0.01 + 1e-9);
    json tree = json::array();
    for (int n = 0; n < 1400; ++n) {
      json branch = json::array();
      json* at = &branch;
      for (int d = 0; d < 70; ++d) at = &at->emplace_back(json::array());
      tree.push_back(branch);
    }
    return json{{"tags", tags}, {"meta", meta}, {"notes", notes}, {"prices", prices}, {"tree", tree}}.dump();
  }();
  return text;
}

void hostile_payload_groundplane(benchmark::State& state) {
  const json payload = json::parse(hostile_text());
  const gp::JsonSchema& schema = hostile_schema();
  for (auto _ : state) {
    const auto issues = schema.validate(payload);
    benchmark::DoNotOptimize(issues.data());
  }
  state.counters["bytes"] = static_cast<double>(hostile_text().size());
}

void hostile_payload_baseline(benchmark::State& state) {
  const std::string& text = hostile_text();
  for (auto _ : state) {
    const json payload = json::parse(text);
    benchmark::DoNotOptimize(payload.size());
  }
}

// ---------------------------------------------------------------------------------
// A streamed answer: the campaign example's six fields and a dozen notes (about 1 KB,
// pretty-printed as a model writes it), fed to a ClaimStream in chunks of `chunk` bytes
// and finished, against try_submit_json of the same text. The same boundary serves both.

struct StreamedAnswer {
  gp::FactRegistry reg;
  std::string text;
  StreamedAnswer() {
    reg.record_ranking("campaign_ctr", {{"north", 0.0412}, {"harbour", 0.0455}, {"delta", 0.0301}},
                       {.key = "ctr", .tool = "warehouse.query"});
    json out = {{"winner", "harbour"}, {"score", 0.0455}, {"top", {"harbour", "north"}},
                {"a", "harbour"},      {"b", "north"},    {"by", 0.43}};
    json notes = json::array();
    for (int i = 0; i < 12; ++i)
      notes.push_back("campaign note " + std::to_string(i) + ": the click-through rate moved by 0.0" +
                      std::to_string(i) + " over the week");
    out["notes"] = std::move(notes);
    text = out.dump(2);
  }
  auto boundary() const {
    return gp::Boundary(reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"},
                        gp::ranking_prefix{.fact = "campaign_ctr", .k = 2},
                        gp::comparison{.fact = "campaign_ctr",
                                       .convention = gp::Convention::percentage_points,
                                       .rounding = gp::Rounding::as_stated});
  }
};

void stream_answer(benchmark::State& state) {
  const StreamedAnswer answer;
  auto b = answer.boundary();
  const auto chunk = static_cast<std::size_t>(state.range(0));
  const std::string_view text = answer.text;
  for (auto _ : state) {
    gp::ClaimStream s = b.stream();
    for (std::size_t at = 0; at < text.size(); at += chunk) s.feed(text.substr(at, chunk));
    const gp::Verdict v = s.finish();
    if (!v.ok()) state.SkipWithError("the streamed answer was rejected");
  }
}

void stream_answer_whole(benchmark::State& state) {
  const StreamedAnswer answer;
  auto b = answer.boundary();
  for (auto _ : state) {
    const gp::Verdict v = b.try_submit_json(answer.text);
    if (!v.ok()) state.SkipWithError("the answer was rejected");
  }
}

// ---------------------------------------------------------------------------------
// The table.

struct Result {
  double ns = 0;  // fastest repetition, CPU time per iteration
  std::map<std::string, double> counters;
};
std::map<std::string, Result> results;

class Collector : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& run : runs) {
      if (run.run_type != Run::RT_Iteration) continue;
      const std::string name = run.run_name.function_name + (run.run_name.args.empty() ? "" : "/" + run.run_name.args);
      if (run.error_occurred) {
        std::fprintf(stderr, "  %s FAILED: %s\n", name.c_str(), run.error_message.c_str());
        continue;
      }
      const double ns = run.GetAdjustedCPUTime() * 1e9 / benchmark::GetTimeUnitMultiplier(run.time_unit);
      auto [it, added] = results.try_emplace(name);
      if (added || ns < it->second.ns) it->second.ns = ns;
      for (const auto& [k, c] : run.counters) it->second.counters[k] = c.value;
      std::fprintf(stderr, "  %-50s %14.0f ns\n", name.c_str(), ns);
    }
  }
};

std::string human_time(double ns) {
  char buf[32];
  if (ns < 1e3) std::snprintf(buf, sizeof buf, "%.0f ns", ns);
  else if (ns < 1e6) std::snprintf(buf, sizeof buf, "%.2f µs", ns / 1e3);
  else if (ns < 1e9) std::snprintf(buf, sizeof buf, "%.2f ms", ns / 1e6);
  else std::snprintf(buf, sizeof buf, "%.2f s", ns / 1e9);
  return buf;
}

std::string fixed(double v, int decimals) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

struct Row {
  std::string what, figure, baseline, ratio, goal, met;
};

// 0.17×, or for a figure far below its baseline its first digits (0.0028×).
std::string ratio_text(double ratio) {
  if (ratio >= 0.01 || ratio <= 0) return fixed(ratio, 2) + "×";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g×", ratio);
  return buf;
}

// Bytes a pinned re-ask hands the model (the correction and Verdict::reask_schema())
// against a re-ask with the whole schema and the correction: the campaign example
// answered in six fields, three of them wrong (the comparison's a, b and margin).
Row pinned_reask_bytes() {
  gp::FactRegistry reg;
  reg.record_ranking(
      "campaign_ctr", {{"north", 0.0412}, {"harbour", 0.0455}, {"delta", 0.0301}},
      {.key = "ctr", .tool = "warehouse.query", .args = {{"table", "campaign_daily"}, {"window", "7d"}}});
  gp::Boundary b(reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"},
                 gp::ranking_prefix{.fact = "campaign_ctr", .k = 2},
                 gp::comparison{.fact = "campaign_ctr",
                                .convention = gp::Convention::percentage_points,
                                .rounding = gp::Rounding::as_stated});
  const gp::Verdict v = b.try_submit({{"winner", "harbour"},
                                      {"score", 0.0455},
                                      {"top", {"harbour", "north"}},
                                      {"a", "north"},
                                      {"b", "harbour"},
                                      {"by", 10.44}});
  const std::size_t pinned = v.pinned_correction().size() + v.reask_schema().dump().size();
  const std::size_t full = v.correction().size() + b.schema().dump().size();
  const double ratio = static_cast<double>(pinned) / static_cast<double>(full);
  return {"pinned re-ask: correction + reask_schema(), 3 of 6 fields wrong",
          std::to_string(pinned) + " B",
          std::to_string(full) + " B (correction + whole schema)",
          fixed(ratio, 2) + "×",
          "≤ 0.5× the whole schema",
          ratio <= 0.5 ? "yes" : "NO"};
}

void print_table(const std::vector<Row>& rows) {
  const char* head[] = {"measurement", "groundplane", "baseline", "ratio", "goal", "met"};
  std::size_t w[6] = {};
  const auto width = [](const std::string& s) {  // display columns: µ and … are one each
    std::size_t n = 0;
    for (const unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
  };
  for (int i = 0; i < 6; ++i) w[i] = width(head[i]);
  for (const auto& r : rows) {
    const std::string* f[] = {&r.what, &r.figure, &r.baseline, &r.ratio, &r.goal, &r.met};
    for (int i = 0; i < 6; ++i) w[i] = std::max(w[i], width(*f[i]));
  }
  const auto line = [&](const std::string* f[6]) {
    std::string out = "|";
    for (int i = 0; i < 6; ++i) out += " " + *f[i] + std::string(w[i] - width(*f[i]), ' ') + " |";
    std::printf("%s\n", out.c_str());
  };
  std::string h[6];
  for (int i = 0; i < 6; ++i) h[i] = head[i];
  const std::string* hp[] = {&h[0], &h[1], &h[2], &h[3], &h[4], &h[5]};
  line(hp);
  std::string sep = "|";
  for (int i = 0; i < 6; ++i) sep += std::string(w[i] + 2, '-') + "|";
  std::printf("%s\n", sep.c_str());
  for (const auto& r : rows) {
    const std::string* f[] = {&r.what, &r.figure, &r.baseline, &r.ratio, &r.goal, &r.met};
    line(f);
  }
}

// A timed row: figure over baseline, met when the ratio is at most `limit` (0: no goal).
Row timed(const std::string& what, const std::string& figure, const std::string& baseline,
          const std::string& baseline_label, double limit, const std::string& goal) {
  const auto f = results.find(figure);
  const auto b = results.find(baseline);
  if (f == results.end() || b == results.end()) return {what, "n/a", "n/a", "", goal, "not run"};
  const double ratio = f->second.ns / b->second.ns;
  Row r{what, human_time(f->second.ns), human_time(b->second.ns) + " " + baseline_label, ratio_text(ratio), goal, ""};
  if (limit > 0) r.met = ratio <= limit ? "yes" : "NO";
  return r;
}

void report() {
  std::vector<Row> rows;
  rows.push_back(timed("record_table 1M rows × 3 columns", "record_table/groundplane", "record_table/baseline",
                       "(nlohmann parse)", 0.5, "≤ 0.5× nlohmann's parse"));
  for (const char* which : {"numeric", "table"}) {
    const auto it = results.find(std::string("bytes_") + which);
    if (it == results.end()) continue;
    const double bytes = it->second.counters["bytes"];
    const bool numeric = std::string(which) == "numeric";
    rows.push_back({numeric ? "bytes held per numeric cell (1M × 2 numbers)"
                            : "bytes held per cell, whole table (1M × 3: key, 2 numbers)",
                    fixed(bytes, 1) + " B", "8 B (a double)", fixed(bytes / 8, 2) + "×",
                    numeric ? "≤ 32 B per numeric cell" : "", numeric ? (bytes <= 32 ? "yes" : "NO") : ""});
  }
  for (const char* op : {"sum", "mean", "median"})
    for (const char* where : {"", "_where"}) {
      const std::string id = std::string("aggregate_") + op + where;
      const bool goal = std::string(op) == "sum" && std::string(where).empty();
      rows.push_back(timed(
          std::string("aggregate_reconciles ") + op + " over 1M rows" +
              (std::string(where).empty() ? "" : " where region = 'north'"),
          id + "/groundplane", id + "/baseline",
          std::string(where).empty() ? "(loop over vector<double>)" : "(loop over vector<string> + vector<double>)",
          goal ? 3.0 : 0, goal ? "≤ 3× the double loop" : ""));
    }
  // construct + submit over a 1M-row table, after the first boundary over the column.
  rows.push_back(timed("construct + submit, 1M rows, sum", "boundary_sum/groundplane", "aggregate_sum/baseline",
                       "(loop over vector<double>)", 0.6, "≤ 0.6× the double loop"));
  rows.push_back(timed("construct + submit, 1M rows, sum: the first boundary over the column",
                       "boundary_sum_first/groundplane", "aggregate_sum/baseline", "(loop over vector<double>)", 0,
                       ""));
  rows.push_back(timed("construct + submit, 1M rows, mean", "boundary_mean/groundplane", "aggregate_mean/baseline",
                       "(loop over vector<double>)", 0, ""));
  rows.push_back(timed("construct + submit, 1M rows, median", "boundary_median/groundplane",
                       "aggregate_median/baseline", "(copy + nth_element of vector<double>)", 0, ""));
  rows.push_back(timed("construct + submit, 1M rows, count where region = 'north'", "boundary_count_where/groundplane",
                       "count_where/baseline", "(loop over vector<string>)", 0, ""));
  rows.push_back(timed("construct + submit, 1M-row table, superlative on a column", "boundary_superlative/groundplane",
                       "argmax/baseline", "(max_element over vector<double>)", 0, ""));
  if (const auto it = results.find("summary_bytes"); it != results.end()) {
    rows.push_back({"bytes a table keeps for a 1M-row column's sum, extremes and median",
                    fixed(it->second.counters["numbers"], 0) + " B", "8,000,000 B (the column as doubles)",
                    ratio_text(it->second.counters["numbers"] / 8e6), "", ""});
    rows.push_back({"bytes a table keeps for a 1M-row column's key index (1M distinct strings)",
                    fixed(it->second.counters["keys"] / 1e6, 2) + " MB", "8,000,000 B (the column as doubles)",
                    ratio_text(it->second.counters["keys"] / 8e6), "", ""});
  }
  rows.push_back(timed("superlative on 1M entities", "superlative/1000000", "superlative/1000", "(1k entities)", 1.5,
                       "≤ 1.5× the 1k time"));
  rows.push_back(pinned_reask_bytes());
  rows.push_back(timed("ClaimStream fed 1-byte chunks, a 1 KB answer, 3 checks", "stream/1", "stream/whole",
                       "(try_submit_json)", 2.0, "≤ 2× try_submit_json"));
  rows.push_back(timed("ClaimStream fed 64-byte chunks, the same answer", "stream/64", "stream/whole",
                       "(try_submit_json)", 1.2, "≤ 1.2× try_submit_json"));
  rows.push_back(timed("superlative over a 1M-row table's column", "superlative/table_column", "superlative/1000000",
                       "(a recorded Ranking of 1M)", 2.0, "≤ 2× the recorded Ranking"));
  rows.push_back(timed("ranking_prefix k=10 on 1M entities", "ranking_prefix/1000000", "ranking_prefix/1000",
                       "(1k entities)", 1.5, "≤ 1.5× the 1k time"));
  rows.push_back(timed("row_integrity 1M-row table, 1,000 output rows", "row_integrity/groundplane",
                       "row_integrity/baseline", "(hash map + double compare)", 0, ""));
  rows.push_back(timed("entities_recorded 1M members, 10,000 names", "entities_recorded/groundplane",
                       "entities_recorded/baseline", "(unordered_set lookups)", 0, ""));
  rows.push_back(
      timed("campaign example end to end, accepted", "seed/accepted", "seed/baseline", "(parsing the answer)", 0, ""));
  rows.push_back(
      timed("campaign example end to end, rejected", "seed/rejected", "seed/baseline", "(parsing the answer)", 0, ""));
  {
    Row r = timed("Session::fire", "fire/groundplane", "fire/baseline", "(vector append under a mutex)", 0,
                  "≥ 1,000,000 fires/s");
    if (const auto it = results.find("fire/groundplane"); it != results.end()) {
      const double per_s = 1e9 / it->second.ns;
      r.figure += " (" + fixed(per_s / 1e6, 2) + "M fires/s)";
      r.met = per_s >= 1e6 ? "yes" : "NO";
    }
    rows.push_back(r);
  }
  {
    Row r = timed("Session::fire, a declared and an invented id alternating", "fire/alternating", "fire/baseline",
                  "(vector append under a mutex)", 0, "≥ 4,000,000 fires/s");
    if (const auto it = results.find("fire/alternating"); it != results.end()) {
      const double per_s = 1e9 / it->second.ns;
      r.figure += " (" + fixed(per_s / 1e6, 2) + "M fires/s)";
      r.met = per_s >= 4e6 ? "yes" : "NO";
    }
    rows.push_back(r);
  }
  rows.push_back(timed("Session::fire, a 10-key input schema and one argument check on a 1M-row table",
                       "fire/typed_checked", "fire/same_payload", "(the same fire, neither declared)", 3.0,
                       "≤ 3× a plain fire"));
  {
    Row r = timed("a 1 MB hostile payload judged (JsonSchema::validate)", "hostile_payload/groundplane",
                  "hostile_payload/baseline", "(nlohmann parse of it)", 0, "< 50 ms");
    if (const auto it = results.find("hostile_payload/groundplane"); it != results.end()) {
      r.figure += " (" + fixed(it->second.counters["bytes"] / 1e6, 2) + " MB)";
      r.met = it->second.ns < 50e6 ? "yes" : "NO";
    }
    rows.push_back(r);
  }
  rows.push_back(timed("Session::fire of an action over 100,000 items", "fire/instance_100k", "fire/no_instances",
                       "(a plain fire)", 2.0, "≤ 2× a plain fire"));
  rows.push_back(timed("whats_here with since_version, 1M rows, 1,000 actions all stale", "whats_here/since_version",
                       "whats_here/plain", "(the same look without one: over the session)", 2.0,
                       "≤ 2× whats_here without one"));
  rows.push_back(timed("ground_truth() 20 shown rows, 1M-row ledger", "ground_truth/1000000", "ground_truth/1000",
                       "(1k-row ledger)", 2.0, "≤ 2× the 1k time"));
  print_table(rows);
}

}  // namespace

// Repetitions: the fastest of several is the least disturbed by whatever else the
// machine is doing.
#define GP_BENCH(fn, name) BENCHMARK(fn)->Name(name)->Unit(benchmark::kNanosecond)->Repetitions(5)

GP_BENCH(record_table_groundplane, "record_table/groundplane")->Iterations(1);
GP_BENCH(record_table_baseline, "record_table/baseline")->Iterations(1);
BENCHMARK(bytes_numeric)->Name("bytes_numeric")->Iterations(1);
BENCHMARK(bytes_table)->Name("bytes_table")->Iterations(1);

#define GP_AGGREGATE(op, tag)                                                    \
  BENCHMARK_CAPTURE(aggregate_groundplane, tag, gp::Aggregate::op, false)        \
      ->Name("aggregate_" #op "/groundplane")                                    \
      ->Unit(benchmark::kNanosecond)                                             \
      ->Repetitions(5);                                                          \
  BENCHMARK_CAPTURE(aggregate_baseline, tag, gp::Aggregate::op, false)           \
      ->Name("aggregate_" #op "/baseline")                                       \
      ->Unit(benchmark::kNanosecond)                                             \
      ->Repetitions(5);                                                          \
  BENCHMARK_CAPTURE(aggregate_groundplane, tag##_where, gp::Aggregate::op, true) \
      ->Name("aggregate_" #op "_where/groundplane")                              \
      ->Unit(benchmark::kNanosecond)                                             \
      ->Repetitions(5);                                                          \
  BENCHMARK_CAPTURE(aggregate_baseline, tag##_where, gp::Aggregate::op, true)    \
      ->Name("aggregate_" #op "_where/baseline")                                 \
      ->Unit(benchmark::kNanosecond)                                             \
      ->Repetitions(5)
GP_AGGREGATE(sum, sum);
GP_AGGREGATE(mean, mean);
GP_AGGREGATE(median, median);

#define GP_BOUNDARY(op, tag, where, first, name)                              \
  BENCHMARK_CAPTURE(boundary_aggregate, tag, gp::Aggregate::op, where, first) \
      ->Name(name)                                                            \
      ->Unit(benchmark::kNanosecond)                                          \
      ->Repetitions(5)
GP_BOUNDARY(sum, sum, false, false, "boundary_sum/groundplane");
GP_BOUNDARY(sum, sum_first, false, true, "boundary_sum_first/groundplane")->Iterations(1);
GP_BOUNDARY(mean, mean, false, false, "boundary_mean/groundplane");
GP_BOUNDARY(median, median, false, false, "boundary_median/groundplane");
GP_BOUNDARY(count, count_where, true, false, "boundary_count_where/groundplane");
GP_BENCH(count_where_baseline, "count_where/baseline");
GP_BENCH(boundary_superlative, "boundary_superlative/groundplane");
GP_BENCH(argmax_baseline, "argmax/baseline");
BENCHMARK(summary_bytes)->Name("summary_bytes")->Iterations(1);

BENCHMARK(superlative_at)->Name("superlative")->Arg(1000)->Arg(1'000'000)->Unit(benchmark::kNanosecond)->Repetitions(5);
BENCHMARK(superlative_table_column)->Name("superlative/table_column")->Unit(benchmark::kNanosecond)->Repetitions(5);
BENCHMARK(ranking_prefix_at)
    ->Name("ranking_prefix")
    ->Arg(1000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kNanosecond)
    ->Repetitions(5);
GP_BENCH(row_integrity_groundplane, "row_integrity/groundplane");
GP_BENCH(row_integrity_baseline, "row_integrity/baseline");
GP_BENCH(entities_groundplane, "entities_recorded/groundplane");
GP_BENCH(entities_baseline, "entities_recorded/baseline");
GP_BENCH(seed_accepted, "seed/accepted");
GP_BENCH(seed_rejected, "seed/rejected");
GP_BENCH(seed_baseline, "seed/baseline");
GP_BENCH(fire_groundplane, "fire/groundplane");
GP_BENCH(fire_alternating, "fire/alternating");
GP_BENCH(fire_baseline, "fire/baseline");
BENCHMARK_CAPTURE(fire_refund, typed, true)->Name("fire/typed_checked")->Unit(benchmark::kNanosecond)->Repetitions(5);
BENCHMARK_CAPTURE(fire_refund, plain, false)->Name("fire/same_payload")->Unit(benchmark::kNanosecond)->Repetitions(5);
BENCHMARK_CAPTURE(fire_items, items, true)->Name("fire/instance_100k")->Unit(benchmark::kNanosecond)->Repetitions(5);
BENCHMARK_CAPTURE(fire_items, plain, false)->Name("fire/no_instances")->Unit(benchmark::kNanosecond)->Repetitions(5);
BENCHMARK_CAPTURE(whats_here_moving, since, true)
    ->Name("whats_here/since_version")
    ->Unit(benchmark::kNanosecond)
    ->Repetitions(5);
BENCHMARK_CAPTURE(whats_here_moving, plain, false)
    ->Name("whats_here/plain")
    ->Unit(benchmark::kNanosecond)
    ->Repetitions(5);
BENCHMARK(stream_answer)->Name("stream")->Arg(1)->Arg(64)->Unit(benchmark::kNanosecond)->Repetitions(5);
GP_BENCH(stream_answer_whole, "stream/whole");
GP_BENCH(hostile_payload_groundplane, "hostile_payload/groundplane");
GP_BENCH(hostile_payload_baseline, "hostile_payload/baseline");
BENCHMARK(ground_truth_at)
    ->Name("ground_truth")
    ->Arg(1000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kNanosecond)
    ->Repetitions(5);

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  Collector collector;
  benchmark::RunSpecifiedBenchmarks(&collector);
  benchmark::Shutdown();
  report();
  return 0;
}
