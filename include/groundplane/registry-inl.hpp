// The bodies of registry.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/registry.hpp"

#include "groundplane/detail/text/wording.hpp"

namespace groundplane {

GROUNDPLANE_INLINE FactRegistry::FactRegistry() = default;
GROUNDPLANE_INLINE FactRegistry::~FactRegistry() = default;

GROUNDPLANE_INLINE const Fact& FactRegistry::record_fact(std::string name, nlohmann::json value, FactOptions options) {
  return insert(Fact(std::move(name), std::move(value), {std::move(options.tool), std::move(options.args)}));
}

GROUNDPLANE_INLINE const Ranking& FactRegistry::record_ranking(std::string name, Scores scores,
                                                               RankingOptions options) {
  return insert(Ranking(std::move(name), std::move(scores), std::move(options.key), options.direction,
                        {std::move(options.tool), std::move(options.args)}));
}

GROUNDPLANE_INLINE const Table& FactRegistry::record_table(std::string name, const nlohmann::json& rows,
                                                           TableOptions options) {
  return insert(Table(std::move(name), rows, std::move(options.key_column), options.total_rows,
                      {std::move(options.tool), std::move(options.args)}, options.columns));
}

GROUNDPLANE_INLINE const Domain& FactRegistry::record_domain(std::string name, std::vector<Entity> members,
                                                             DomainOptions options) {
  return insert(Domain(std::move(name), std::move(members), {std::move(options.tool), std::move(options.args)},
                       std::move(options.label)));
}

GROUNDPLANE_INLINE bool FactRegistry::contains(std::string_view name) const {
  std::shared_lock lock(mutex_);
  return index_.find(name) != index_.end();
}

GROUNDPLANE_INLINE FactKind FactRegistry::kind_of(std::string_view name) const {
  std::shared_lock lock(mutex_);
  return kind_of_entry(entry(name));
}

GROUNDPLANE_INLINE std::vector<std::string> FactRegistry::names() const {
  std::shared_lock lock(mutex_);
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const auto& e : entries_) out.push_back(std::visit([](const auto& f) { return f.name(); }, *e));
  return out;
}

GROUNDPLANE_INLINE std::size_t FactRegistry::size() const {
  std::shared_lock lock(mutex_);
  return entries_.size();
}

GROUNDPLANE_INLINE const FactRegistry::Entry& FactRegistry::entry(std::string_view name) const {
  const auto it = index_.find(name);
  if (it == index_.end()) {
    std::vector<std::string> known;
    known.reserve(entries_.size());
    for (const auto& e : entries_) known.push_back(std::visit([](const auto& f) { return f.name(); }, *e));
    throw UnregisteredFact(std::string(name), std::move(known));
  }
  return *entries_[it->second];
}

[[noreturn]] GROUNDPLANE_INLINE void FactRegistry::wrong_kind(std::string_view name, FactKind is, FactKind wanted) {
  const auto recorder = [](FactKind k) -> std::string_view {
    switch (k) {
      case FactKind::fact:
        return "record_fact";
      case FactKind::ranking:
        return "record_ranking";
      case FactKind::table:
        return "record_table";
      case FactKind::domain:
        return "record_domain";
    }
    return "record_fact";
  };
  throw ConfigurationError("fact " + detail::quote(name) + " is a " + std::string(to_string(is)) + ", not a " +
                           std::string(to_string(wanted)) + "; a " + std::string(to_string(wanted)) +
                           " is recorded with " + std::string(recorder(wanted)) + " (this one was recorded with " +
                           std::string(recorder(is)) + ")");
}

GROUNDPLANE_INLINE void record_state(FactRegistry& registry, const nlohmann::json& state,
                                     const std::vector<std::string>& keys, const FactOptions& options) {
  for (const auto& key : keys) {
    if (!state.is_object())
      throw InvalidFact("record_state: the state must be a JSON object of named values, got " +
                        std::string(detail::type_name(state)));
    if (!state.contains(key))
      throw InvalidFact("record_state: the state has no key " + detail::quote(key) + " to record" +
                        (state.empty() ? std::string(" (it is empty)")
                                       : "; its keys: " + detail::names_listed(std::vector<std::string>([&] {
                                           std::vector<std::string> k;
                                           for (auto it = state.begin(); it != state.end(); ++it) k.push_back(it.key());
                                           return k;
                                         }()))));
    if (registry.contains(key))
      throw FactAlreadyRecorded("record_state: fact " + detail::quote(key) +
                                " is already recorded; facts are write-once, so nothing from the state was recorded");
  }
  for (const auto& key : keys) registry.record_fact(key, state.at(key), options);
}

}  // namespace groundplane
