// Runtime composition: gp::AnyCheck holds any Check behind one type, and gp::CheckList
// holds a list of them chosen at run time (from configuration, say: check_from_json.hpp).
// Both are themselves Checks, so a Boundary takes them like any other:
//
//   gp::CheckList checks;
//   checks.push_back(gp::superlative{.fact = "campaign_ctr"});
//   checks.push_back(my_custom_check{...});
//   gp::Boundary b(reg, {"campaign_ctr"}, checks);
//
// This is the one place with virtual dispatch: a Boundary<Cs...> built from concrete
// checks calls them directly. An AnyCheck shares an immutable copy of the check it was
// given, so copying one is cheap and copies never interfere.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/check.hpp"
#include "groundplane/detail/text/unique_strings.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/finding.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/schema.hpp"

namespace groundplane {

class AnyCheck;

class AnyCheck {
 public:
  // Any Check, by value (implicit, so a CheckList takes checks as they are written).
  template <class C>
  requires(!std::same_as<std::remove_cvref_t<C>, AnyCheck> && Check<std::remove_cvref_t<C>>) AnyCheck(C&& check)
      : self_(std::make_shared<const Model<std::remove_cvref_t<C>>>(std::forward<C>(check))) {}

  std::vector<std::string> leans_on() const { return self_->leans_on(); }
  void validate(const FactRegistry& registry) const { self_->validate(registry); }
  void verify(const FactRegistry& registry, const nlohmann::json& output, std::vector<Finding>& findings) const {
    self_->verify(registry, output, findings);
  }
  // Forwards to the held check's describe(); nothing when it has none.
  void describe(const FactRegistry& registry, SchemaBuilder& schema) const { self_->describe(registry, schema); }

  // The held check's reads(); nullopt when it states none.
  std::optional<std::vector<std::string>> reads() const { return self_->reads(); }

  // The held check's name() (superlative(fact='campaign_ctr', field='winner')), or its
  // `check_name` when it has none, or "custom check".
  std::string name() const { return self_->name(); }
  // The held check's `check_name` ("superlative"), or "custom check" when it has none.
  std::string_view kind() const noexcept { return self_->kind(); }
  // The held check's warnings(); none when it states none.
  std::vector<std::string> warnings(const FactRegistry& registry) const { return self_->warnings(registry); }

  // The held check when it is a C, else nullptr (like std::function::target). Needs no
  // RTTI: each type has its own tag.
  template <class C>
  const C* target() const noexcept {
    return static_cast<const C*>(self_->target(tag<C>()));
  }

 private:
  struct Concept {
    virtual ~Concept() = default;
    virtual std::vector<std::string> leans_on() const = 0;
    virtual void validate(const FactRegistry&) const = 0;
    virtual void verify(const FactRegistry&, const nlohmann::json&, std::vector<Finding>&) const = 0;
    virtual void describe(const FactRegistry&, SchemaBuilder&) const = 0;
    virtual std::optional<std::vector<std::string>> reads() const = 0;
    virtual std::string name() const = 0;
    virtual std::string_view kind() const noexcept = 0;
    virtual std::vector<std::string> warnings(const FactRegistry&) const = 0;
    virtual const void* target(const void* tag) const noexcept = 0;
  };

  template <class C>
  static const void* tag() noexcept {
    static constexpr char unique = 0;
    return &unique;
  }

  template <class C>
  struct Model final : Concept {
    template <class A>
    explicit Model(A&& c) : check(std::forward<A>(c)) {}
    std::vector<std::string> leans_on() const override { return check.leans_on(); }
    void validate(const FactRegistry& registry) const override { check.validate(registry); }
    void verify(const FactRegistry& registry, const nlohmann::json& output,
                std::vector<Finding>& findings) const override {
      check.verify(registry, output, findings);
    }
    void describe(const FactRegistry& registry, SchemaBuilder& schema) const override {
      if constexpr (DescribesSchema<C>) check.describe(registry, schema);
    }
    std::optional<std::vector<std::string>> reads() const override { return detail::reads_of(check); }
    std::string name() const override { return detail::check_name_of(check); }
    std::string_view kind() const noexcept override {
      if constexpr (detail::has_check_name<C>) return C::check_name;
      else return "custom check";
    }
    std::vector<std::string> warnings(const FactRegistry& registry) const override {
      if constexpr (StatesWarnings<C>) return check.warnings(registry);
      else return {};
    }
    const void* target(const void* t) const noexcept override { return t == tag<C>() ? &check : nullptr; }
    C check;
  };

  std::shared_ptr<const Concept> self_;
};

static_assert(Check<AnyCheck>);
static_assert(DescribesSchema<AnyCheck>);

// Checks chosen at run time, run in the order they were added. An empty list is a
// ConfigurationError when validated: a boundary that checks nothing accepts anything.
class CheckList {
 public:
  using value_type = AnyCheck;
  using const_iterator = std::vector<AnyCheck>::const_iterator;
  using iterator = const_iterator;  // the checks are fixed once added

  CheckList() = default;
  CheckList(std::initializer_list<AnyCheck> checks) : checks_(checks) {}
  explicit CheckList(std::vector<AnyCheck> checks) : checks_(std::move(checks)) {}

  void push_back(AnyCheck check) { checks_.push_back(std::move(check)); }
  std::size_t size() const noexcept { return checks_.size(); }
  bool empty() const noexcept { return checks_.empty(); }
  const AnyCheck& operator[](std::size_t i) const { return checks_[i]; }
  const_iterator begin() const noexcept { return checks_.begin(); }
  const_iterator end() const noexcept { return checks_.end(); }

  // Every fact any check leans on, each once, in first-use order.
  std::vector<std::string> leans_on() const {
    std::vector<std::string> out;
    for (const auto& c : checks_)
      for (auto& name : c.leans_on()) out.push_back(std::move(name));
    detail::keep_first_of_each(out);  // once, not a search per name: a list may hold thousands
    return out;
  }

  void validate(const FactRegistry& registry) const {
    if (checks_.empty())
      throw ConfigurationError("the CheckList is empty: a boundary that checks nothing accepts anything");
    for (const auto& c : checks_) c.validate(registry);
  }

  void verify(const FactRegistry& registry, const nlohmann::json& output, std::vector<Finding>& findings) const {
    for (const auto& c : checks_) c.verify(registry, output, findings);
  }

  void describe(const FactRegistry& registry, SchemaBuilder& schema) const {
    for (const auto& c : checks_) c.describe(registry, schema);
  }

  // Every field any check reads; nullopt when one of them states none.
  std::optional<std::vector<std::string>> reads() const {
    std::vector<std::string> out;
    for (const auto& c : checks_) {
      auto fields = c.reads();
      if (!fields) return std::nullopt;
      for (auto& f : *fields) out.push_back(std::move(f));
    }
    detail::keep_first_of_each(out);
    return out;
  }

  // Every check's warnings, in order. (A Boundary runs a CheckList's checks one by one,
  // naming each in its verdict.)
  std::vector<std::string> warnings(const FactRegistry& registry) const {
    std::vector<std::string> out;
    for (const auto& c : checks_)
      for (auto& w : c.warnings(registry)) out.push_back(std::move(w));
    return out;
  }

  // The checks' names, joined: what a CheckList held in an AnyCheck is called.
  std::string name() const {
    std::string out = "checks[";
    for (std::size_t i = 0; i < checks_.size(); ++i) out += (i > 0 ? ", " : "") + checks_[i].name();
    return out + "]";
  }

 private:
  std::vector<AnyCheck> checks_;
};

static_assert(Check<CheckList>);

}  // namespace groundplane
