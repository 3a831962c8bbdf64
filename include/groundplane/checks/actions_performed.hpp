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
#include "groundplane/registry.hpp"
#include "groundplane/render.hpp"
#include "groundplane/schema.hpp"

namespace groundplane {

// Declared here, not included: session.hpp reaches the checks (an action's argument
// checks), so this header includes it only in its bodies.
class Session;

// Records the session's attempts, oldest first in block order, as a Table fact with the
// columns, in this order, `action` (the id; the constant "(an action this app does not have)" for an id
// that was not declared when its row was minted), `principal`, `outcome` (the block's
// line for the row) and `version`. Provenance: session.ledger(version=V). The registry is
// write-once: record each turn's ledger under a new name (FactAlreadyRecorded otherwise).
const Table& record_ledger(FactRegistry& registry, std::string name, const Session& session);

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
    std::unordered_map<std::string, std::size_t> index;  // an action id -> its record
    std::vector<Record> records;
    const Record* find(const std::string& id) const {
      const auto it = index.find(id);
      return it == index.end() ? nullptr : &records[it->second];
    }
  };
  static Ledger read_ledger(const Table& t);

  // Whether `claim` is supported; a finding for it is made by finding_for.
  static bool supported(const Ledger& ledger, const nlohmann::json& claim);
  Finding finding_for(const Table& t, const Ledger& ledger, const std::string& where,
                      const nlohmann::json& claim) const;
};

static_assert(Check<actions_performed>);

}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/checks/actions_performed-inl.hpp"
#endif
