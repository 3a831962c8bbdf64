// Fuzz gp::mcp recording of arbitrary CallToolResults. The input is JSON: either a
// result, or {"call": <tools/call params>, "result": <result>}. Each record_* is tried on
// it with several option sets. Beyond "no crash":
//   * a record either succeeds or throws gp::InvalidFact (FactAlreadyRecorded included),
//     never anything else, and the message is safe to show (escaped, capped);
//   * a refused record leaves the registry exactly as it was: same names, same facts;
//   * a record that succeeds adds exactly that one fact, whose provenance is the call;
//   * recording under a name already taken is always refused.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/facts.hpp"
#include "groundplane/mcp/record.hpp"
#include "groundplane/registry.hpp"

namespace gp = groundplane;
using ojson = nlohmann::ordered_json;

namespace {

std::string shown(const ojson& j) { return j.dump(-1, ' ', false, ojson::error_handler_t::replace); }

// Everything the registry holds, as text: names in order and each fact's full view.
std::string snapshot(const gp::FactRegistry& reg) {
  ojson all = ojson::array();
  for (const auto& name : reg.names()) {
    ojson view = reg.visit(name, [](const auto& f) {
      ojson v = ojson(gp::detail::fact_view(f));
      v["provenance"]["args"] = f.provenance().args;  // with the caller's key order
      return v;
    });
    all.push_back({{"name", name}, {"view", std::move(view)}});
  }
  return shown(all);
}

gp::Provenance provenance_of(const gp::FactRegistry& reg, const std::string& name) {
  return reg.visit(name, [](const auto& f) { return f.provenance(); });
}

using Record = std::function<void(gp::FactRegistry&, const std::string& name, const gp::mcp::ToolCall&, const ojson&)>;

const std::vector<Record>& recorders() {
  namespace mcp = gp::mcp;
  static const std::vector<Record> all = {
      [](auto& r, const auto& n, const auto& c, const auto& x) { mcp::record_fact(r, n, c, x); },
      [](auto& r, const auto& n, const auto& c, const auto& x) { mcp::record_fact(r, n, c, x, {.at = "value"}); },
      [](auto& r, const auto& n, const auto& c, const auto& x) { mcp::record_fact(r, n, c, x, {.at = "/data/0"}); },
      [](auto& r, const auto& n, const auto& c, const auto& x) { mcp::record_ranking(r, n, c, x, {.key = "ctr"}); },
      [](auto& r, const auto& n, const auto& c, const auto& x) {
        mcp::record_ranking(
            r, n, c, x, {.key = "ctr", .direction = gp::Direction::lower_is_better, .rows = "rows", .entity = "name"});
      },
      [](auto& r, const auto& n, const auto& c, const auto& x) {
        mcp::record_ranking(r, n, c, x, {.key = "ctr", .rows = "/data", .entity = "name", .score = "score"});
      },
      [](auto& r, const auto& n, const auto& c, const auto& x) { mcp::record_table(r, n, c, x); },
      [](auto& r, const auto& n, const auto& c, const auto& x) {
        mcp::record_table(r, n, c, x, {.key_column = "name", .rows = "rows", .total_rows_at = "total"});
      },
      [](auto& r, const auto& n, const auto& c, const auto& x) {
        mcp::record_table(r, n, c, x, {.key_column = "id", .total_rows = 3, .rows = "/data"});
      },
      [](auto& r, const auto& n, const auto& c, const auto& x) { mcp::record_domain(r, n, c, x); },
      [](auto& r, const auto& n, const auto& c, const auto& x) {
        mcp::record_domain(r, n, c, x, {.members = "rows", .column = "name"});
      },
      [](auto& r, const auto& n, const auto& c, const auto& x) {
        mcp::record_domain(r, n, c, x, {.members = "/data"});
      },
  };
  return all;
}

// Tries one record; true when it was recorded.
bool attempt(gp::FactRegistry& reg, const Record& record, const std::string& name, const gp::mcp::ToolCall& call,
             const ojson& result) {
  const std::string before = snapshot(reg);
  const std::size_t size_before = reg.size();
  const bool taken = reg.contains(name);
  try {
    record(reg, name, call, result);
  } catch (const gp::InvalidFact& e) {
    fuzz::check_error_message(e, "a refused record's InvalidFact");
    FUZZ_CHECK(snapshot(reg) == before, "a refused record leaves the registry unchanged",
               std::string(e.what()) + "\nresult: " + shown(result));
    return false;
  } catch (const std::exception& e) {
    fuzz::violated(__FILE__, __LINE__, "an mcp record_* threw something other than gp::InvalidFact",
                   std::string(e.what()) + "\nresult: " + shown(result));
  }
  FUZZ_CHECK(!taken, "recording under a name already taken is refused", name);
  FUZZ_CHECK(reg.size() == size_before + 1 && reg.names().back() == name, "a record adds exactly its one fact, last",
             shown(result));
  FUZZ_CHECK(provenance_of(reg, name) == call.provenance(), "a recorded fact's provenance is the call",
             shown(call.arguments));
  const std::string after = snapshot(reg);
  FUZZ_CHECK(after.compare(0, before.size() - 1, before, 0, before.size() - 1) == 0,
             "a record leaves the facts already recorded as they were", after);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const ojson input = fuzz::parse_json<ojson>(text);
  if (input.is_discarded()) return 0;

  gp::mcp::ToolCall call{.name = "warehouse.query", .arguments = {{"table", "campaign_daily"}, {"window", "7d"}}};
  const ojson* result = &input;
  if (input.is_object() && input.contains("call") && input.contains("result")) {
    try {
      call = gp::mcp::ToolCall::from_params(input["call"]);
    } catch (const gp::InvalidFact& e) {
      fuzz::check_error_message(e, "ToolCall::from_params's InvalidFact");
      return 0;
    } catch (const std::exception& e) {
      fuzz::violated(__FILE__, __LINE__, "ToolCall::from_params threw something other than gp::InvalidFact", e.what());
    }
    result = &input["result"];
  }

  try {
    (void)gp::mcp::payload(*result);
  } catch (const gp::InvalidFact& e) {
    fuzz::check_error_message(e, "mcp::payload's InvalidFact");
  } catch (const std::exception& e) {
    fuzz::violated(__FILE__, __LINE__, "mcp::payload threw something other than gp::InvalidFact", e.what());
  }

  gp::FactRegistry reg;
  reg.record_fact("taken", 1, {.tool = "seed.tool"});
  const auto& all = recorders();
  for (std::size_t i = 0; i < all.size(); ++i) {
    attempt(reg, all[i], "taken", call, *result);  // always refused: write-once
    attempt(reg, all[i], "fact_" + std::to_string(i), call, *result);
    attempt(reg, all[i], "fact_" + std::to_string(i), call, *result);  // second time: refused
  }
  return 0;
}
