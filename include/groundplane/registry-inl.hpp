// The bodies of registry.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/registry.hpp"

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

GROUNDPLANE_INLINE const Domain& FactRegistry::record_domain(std::string name, std::vector<std::string> members,
                                                             DomainOptions options) {
  return insert(Domain(std::move(name), std::move(members), {std::move(options.tool), std::move(options.args)}));
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
    std::string msg = "no fact named " + detail::quote(name) + " is recorded";
    msg += entries_.empty() ? " (the registry is empty)" : " (" + std::to_string(entries_.size()) + " facts are)";
    throw ConfigurationError(msg);
  }
  return *entries_[it->second];
}

}  // namespace groundplane
