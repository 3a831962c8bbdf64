// gp::FactRegistry — the write-once store of typed facts with provenance.
//
// Thread safety: recording and reading may happen from many threads at once (a shared
// mutex guards the index; facts themselves are immutable). References returned stay
// valid for the registry's lifetime: each fact lives in its own allocation and is
// never moved or erased.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/decimal.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/facts.hpp"

namespace groundplane {

struct FactOptions {
  std::string tool;
  ToolArgs args = {};
};
struct RankingOptions {
  std::string key;
  Direction direction = Direction::higher_is_better;
  std::string tool;
  ToolArgs args = {};
};
struct TableOptions {
  std::optional<std::string> key_column = std::nullopt;
  std::optional<std::size_t> total_rows = std::nullopt;
  std::string tool;
  ToolArgs args = {};
  // The columns' order, where the rows' own order is not the one to show (a
  // nlohmann::json object sorts its keys): these first, as listed, then any others in
  // first-seen order. A listed column no row holds is a column of nulls, so a query that
  // returned no rows still has its columns. A name listed twice: InvalidFact.
  std::vector<std::string> columns = {};
};
struct DomainOptions {
  std::string tool;
  ToolArgs args = {};
  // What a member is called in messages ("region": "not one of the 3 recorded regions");
  // "" for the generic "name".
  std::string label = "";
};

class FactRegistry {
 public:
  // Out of line: a file that only holds a registry does not compile the destructors of
  // every kind of fact (the compiled mode builds them once).
  FactRegistry();
  ~FactRegistry();
  FactRegistry(const FactRegistry&) = delete;  // facts are identified by their registry
  FactRegistry& operator=(const FactRegistry&) = delete;

  // Each record_* validates first (InvalidFact saying what and why), then inserts under
  // the lock; a refused record changes nothing.
  const Fact& record_fact(std::string name, nlohmann::json value, FactOptions options);
  const Ranking& record_ranking(std::string name, Scores scores, RankingOptions options);
  const Table& record_table(std::string name, const nlohmann::json& rows, TableOptions options);
  // The same, with rows whose object key order is kept (columns in the tool's order).
  template <class OrderedJson>
  requires std::is_same_v<OrderedJson, nlohmann::ordered_json>
  const Table& record_table(std::string name, const OrderedJson& rows, TableOptions options) {
    return insert(Table(std::move(name), rows, std::move(options.key_column), options.total_rows,
                        {std::move(options.tool), std::move(options.args)}, options.columns));
  }
  const Domain& record_domain(std::string name, std::vector<Entity> members, DomainOptions options);

  bool contains(std::string_view name) const;

  // Absent: ConfigurationError.
  FactKind kind_of(std::string_view name) const;

  // Absent: UnregisteredFact (listing what is recorded). Of another kind:
  // ConfigurationError saying which record_* records the kind asked for.
  template <class T>
  requires is_fact_type_v<T>
  const T& get(std::string_view name) const {
    std::shared_lock lock(mutex_);
    const Entry& e = entry(name);
    if (const T* fact = std::get_if<T>(&e)) return *fact;
    wrong_kind(name, kind_of_entry(e), fact_kind_of<T>);
  }

  // The fact's name, kind-independent, for callers that visit every fact.
  template <class Visitor>
  decltype(auto) visit(std::string_view name, Visitor&& visitor) const {
    std::shared_lock lock(mutex_);
    const Entry& e = entry(name);
    lock.unlock();  // the entry itself is immutable and never moves
    return std::visit(std::forward<Visitor>(visitor), e);
  }

  // Names in record order.
  std::vector<std::string> names() const;

  std::size_t size() const;

 private:
  using Entry = std::variant<Fact, Ranking, Table, Domain>;

  static FactKind kind_of_entry(const Entry& e) noexcept { return static_cast<FactKind>(e.index()); }

  // Called with the lock held: UnregisteredFact for a name not recorded.
  const Entry& entry(std::string_view name) const;
  [[noreturn]] static void wrong_kind(std::string_view name, FactKind is, FactKind wanted);

  template <class T>
  const T& insert(T&& fact) {
    auto owned = std::make_unique<Entry>(std::in_place_type<T>, std::forward<T>(fact));
    const T& ref = std::get<T>(*owned);
    std::unique_lock lock(mutex_);
    if (const auto it = index_.find(ref.name()); it != index_.end()) {
      const Provenance& existing =
          std::visit([](const auto& f) -> const Provenance& { return f.provenance(); }, *entries_[it->second]);
      throw FactAlreadyRecorded("fact " + detail::quote(ref.name()) + " is already recorded (from " +
                                existing.render() + "); facts are write-once: record a changed value under a new name");
    }
    // Grow first, so the push_back after the index insert cannot throw.
    if (entries_.size() == entries_.capacity()) entries_.reserve(2 * entries_.size() + 8);
    index_.emplace(ref.name(), entries_.size());
    entries_.push_back(std::move(owned));
    return ref;
  }

  mutable std::shared_mutex mutex_;
  std::vector<std::unique_ptr<Entry>> entries_;  // record order; each fact pinned in place
  detail::StringIndex index_;                    // name -> position in entries_
};

// Records each named member of an app's state object as a Fact named after its key,
// with `options` as every fact's provenance — values a step upstream already put in the
// state, adopted as facts. A key the state does not hold (or a state that is not an
// object) is InvalidFact, and then nothing is recorded.
void record_state(FactRegistry& registry, const nlohmann::json& state, const std::vector<std::string>& keys,
                  const FactOptions& options);

}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/registry-inl.hpp"
#endif
