// The checker tools of gp::mcp::Protocol, over a FactRegistry: record_fact,
// record_ranking, record_table and record_domain (a tool result becomes a write-once
// fact whose provenance is the call that produced it), list_facts, and check (a model's
// structured answer against the facts, through a Boundary of check_from_json specs).
//
// A claim the facts do not support is a normal result (ok: false and the correction); a
// developer's mistake — arguments of the wrong shape, an invalid record, a misconfigured
// check — is thrown (BadArguments or the library's own error) and answered by the
// protocol as a tool error.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "groundplane/detail/linkage.hpp"
#include "groundplane/facts.hpp"
#include "groundplane/mcp/jsonrpc.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/verdict.hpp"

namespace groundplane::mcp::detail {

// Each record_* tool's arguments read and recorded into `into`; the fact. `inline_name`:
// the arguments are an inline definition named by its key (see Arguments).
const Fact& record_fact(const nlohmann::ordered_json& args, FactRegistry& into,
                        std::optional<std::string_view> inline_name = std::nullopt);
const Ranking& record_ranking(const nlohmann::ordered_json& args, FactRegistry& into,
                              std::optional<std::string_view> inline_name = std::nullopt);
const Table& record_table(const nlohmann::ordered_json& args, FactRegistry& into,
                          std::optional<std::string_view> inline_name = std::nullopt);
const Domain& record_domain(const nlohmann::ordered_json& args, FactRegistry& into,
                            std::optional<std::string_view> inline_name = std::nullopt);

// Fact definitions {name: {kind: "fact"|"ranking"|"table"|"domain", ...the matching
// record_* arguments but name}} recorded into `into`; `where` starts every error message.
// A bad definition is BadArguments naming the fact; the ones before it stay recorded.
void record_definitions(const nlohmann::ordered_json& definitions, FactRegistry& into, const std::string& where);

// How many things a fact holds: entities, rows, members; 1 for a scalar.
inline std::size_t size_of(const Fact&) { return 1; }
inline std::size_t size_of(const Ranking& r) { return r.size(); }
inline std::size_t size_of(const Table& t) { return t.row_count(); }
inline std::size_t size_of(const Domain& d) { return d.members().size(); }

// A record_* tool's result: {recorded, kind, provenance, size}.
nlohmann::ordered_json recorded(const std::string& name, FactKind kind, const Provenance& provenance, std::size_t size);
template <class FactT>
nlohmann::ordered_json recorded(const FactT& fact) {
  return recorded(fact.name(), fact_kind_of<FactT>, fact.provenance(), size_of(fact));
}

// list_facts: one page of `page_size` facts (0: all) in record order, from the cursor.
nlohmann::ordered_json list_facts(const nlohmann::ordered_json& args, const FactRegistry& registry,
                                  std::size_t page_size);

// What one check call may carry (ServerOptions): the output's nesting, and the checks.
struct CheckLimits {
  std::size_t max_depth = 256;
  std::size_t max_checks = 1000;  // more is BadArguments naming the limit and --max-checks
};

// check over `registry` (or the call's inline facts). `output_text`: the output's bytes
// as the request wrote them, read exactly (API: submit_json); empty when the call came as
// a JSON value, whose output is then taken as it is. Its cost is linear in its checks.
Written check(const nlohmann::ordered_json& args, const FactRegistry& registry, std::string_view output_text,
              CheckLimits limits, Form form);

// check's CallToolResult: {content: [{type: "text", text}], structuredContent: {ok,
// findings: [{check, field, said, supported, fact, provenance, detail, message}],
// correction, passed, failed, warnings}, isError: false}, the text the correction or "accepted". As JSON, the
// verdict's strings as they are; as text, member for member the same.
nlohmann::ordered_json check_result_json(const Verdict& verdict);
std::string check_result_text(const Verdict& verdict);

}  // namespace groundplane::mcp::detail

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/mcp/checker_tools-inl.hpp"
#endif
