// The bridge between the two halves: a model's claim "I did X" checked against the app's
// ledger, not just informed by it.
//
//   gp::record_ledger(registry, "ledger", session);      // a Table fact, one row per attempt
//   gp::Boundary b(registry, {"ledger"}, gp::actions_performed{.fact = "ledger"});
//   b.submit({{"performed", {"checkout.place-order"}}});  // UnsupportedClaim if that row is
//                                                          // not "DID happen"
//
// A refused fire, a fire the app has not reported on, one whose effect was not observed,
// and an action with no attempt at all are each a finding; the finding quotes the
// ledger's own line for the action, so the correction a model reads is the record.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/check.hpp"
#include "groundplane/detail/checks/field.hpp"
#include "groundplane/detail/json/json_pointer.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/text/escape.hpp"
#include "groundplane/facts.hpp"
#include "groundplane/finding.hpp"
#include "groundplane/ground_truth.hpp"
#include "groundplane/ledger_fact.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/render.hpp"
#include "groundplane/schema.hpp"

namespace groundplane {

struct actions_performed;

namespace detail {

// What actions_performed found of one claimed action, before a word of it is written:
// plain data, so an action that DID happen costs no string, and action_finding words the rest.
struct ActionClaim {
  enum class Kind {
    performed,       // a ledger row of it DID happen
    missing_field,   // the output does not say which actions were performed
    wrong_shape,     // the field holds neither an action id nor an array
    not_an_id,       // an item that is not a string
    partial_ledger,  // the ledger holds only the newest attempts, and none of them shows it
    never_named,     // no row of the ledger names it
    not_happened,    // its rows say it did not happen
    more,            // the unsupported items of an array past max_listed, counted
  };
  Kind kind = Kind::performed;
  const nlohmann::json* said = nullptr;  // the claim judged
  bool in_array = false;                 // an item of the field's array: the one at `item`
  std::size_t item = 0;
  std::size_t attempts = 0;  // not_happened: the action's rows
  std::string_view latest;   // not_happened: the latest row's line (the table's own text)
  std::size_t unlisted = 0;  // more: how many
};

}  // namespace detail

// Every action the output claims it performed (`field`: an action id, or an array of
// them) must have a ledger row that DID happen. The ledger is read once per submit; of an
// array, at most max_listed unsupported items are findings, then one counts the rest.
struct actions_performed {
  std::string fact;  // a Table written by record_ledger
  std::string field = "performed";

  static constexpr const char* check_name = "actions_performed";
  static constexpr std::size_t max_listed = 8;  // unsupported items of one array that are findings

  std::vector<std::string> leans_on() const { return {fact}; }

  // The output fields it reads (Boundary::stream runs it once they have closed; prose
  // slots over them count as checked).
  std::vector<std::string> reads() const { return {field}; }

  // actions_performed(fact='ledger', field='performed')
  std::string name() const;

  void validate(const FactRegistry& registry) const;

  // The claimable actions: those with a row that DID happen.
  void describe(const FactRegistry& registry, SchemaBuilder& schema) const;

  void verify(const FactRegistry& registry, const nlohmann::json& output, std::vector<Finding>& findings) const;

 private:
  static bool happened(const std::optional<std::string_view>& outcome);

  // What the ledger says of one action id: whether a row of it DID happen, how many rows
  // it has, and the latest row's line.
  struct Record {
    bool happened = false;
    std::size_t attempts = 0;
    std::string_view latest;
  };
  struct Ledger {
    // An action id (the table's own text, never copied) -> its record.
    std::unordered_map<std::string_view, std::size_t> index;
    std::vector<Record> records;
    const Record* find(std::string_view id) const {
      const auto it = index.find(id);
      return it == index.end() ? nullptr : &records[it->second];
    }
  };
  static Ledger read_ledger(const Table& t);

  // Whether `claim` is supported; what it is found to be when it is not, by classify.
  static bool supported(const Ledger& ledger, const nlohmann::json& claim);
  static detail::ActionClaim classify(const Table& t, const Ledger& ledger, const nlohmann::json& claim);

  // The items of an array: the first max_listed unsupported worded, the rest counted.
  void verify_items(const Table& t, const Ledger& ledger, const nlohmann::json& said,
                    std::vector<Finding>& findings) const;
};

static_assert(Check<actions_performed>);

namespace detail {

// The finding for a claimed action the ledger does not show DID happen.
Finding action_finding(const actions_performed& check, const Table& t, const ActionClaim& claim);

}  // namespace detail

}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/checks/actions_performed-inl.hpp"
#endif
