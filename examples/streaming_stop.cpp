// Checks while the model streams: its JSON text is fed to a gp::ClaimStream token by
// token, each check runs as soon as the fields it reads are complete, and generation
// stops at the first wrong claim instead of paying for the rest of the answer. The
// stopped stream's verdict keeps what was already checked and right (accepted()) and asks
// again only for the rest (reask_schema()): a pinned re-ask.
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <groundplane/groundplane.hpp>

namespace gp = groundplane;
using nlohmann::json;

namespace {
// The model's answer as a model emits it: a token at a time (here, cut before each
// quote, space or bracket, roughly as a tokenizer would).
std::vector<std::string> tokens_of(std::string_view text) {
  std::vector<std::string> out;
  std::string token;
  for (const char c : text) {
    if (!token.empty() && (c == '"' || c == ' ' || c == '[' || c == ']' || c == ',')) {
      out.push_back(token);
      token.clear();
    }
    token.push_back(c);
  }
  if (!token.empty()) out.push_back(token);
  return out;
}

std::string keys_of(const json& object) {
  std::string out;
  for (auto it = object.begin(); it != object.end(); ++it) out += (out.empty() ? "" : " ") + it.key();
  return out;
}
}  // namespace

int main() {
  gp::FactRegistry reg;
  reg.record_ranking("campaign_ctr", {{"north", 0.0412}, {"harbour", 0.0455}, {"delta", 0.0301}},
                     {.key = "ctr", .tool = "warehouse.query", .args = {{"table", "campaign_daily"}}});
  gp::Boundary b(reg, {"campaign_ctr"}, gp::ranking_prefix{.fact = "campaign_ctr", .k = 2},  // reads top
                 gp::comparison{.fact = "campaign_ctr",                                      // reads a, b, by
                                .convention = gp::Convention::percentage_points,
                                .rounding = gp::Rounding::as_stated},
                 gp::superlative{.fact = "campaign_ctr"});  // reads winner, score

  // The first answer: the list and the margin are right, the winner is not.
  const std::string answer =
      R"({"top": ["harbour", "north"], "a": "harbour", "b": "north", "by": 0.43, "winner": "north", "score": 0.0412, )"
      R"("summary_for_the_team": "a long paragraph the model would go on to write ..."})";
  const std::vector<std::string> tokens = tokens_of(answer);

  gp::ClaimStream stream = b.stream();
  std::size_t fed = 0;
  std::size_t bytes = 0;
  for (const auto& token : tokens) {
    ++fed;
    bytes += token.size();
    if (stream.feed(token) == gp::StreamState::rejected) break;
  }
  std::cout << "stopped after " << fed << " of " << tokens.size() << " tokens (" << bytes << " of " << answer.size()
            << " bytes)\n";
  for (const auto& f : stream.findings()) std::cout << "  field '" << f.field << "': " << f.detail << "\n";

  const gp::Verdict first = stream.stop();
  std::cout << "kept:       " << first.accepted().dump() << "\n";
  std::cout << "asked for:  " << keys_of(first.reask_schema()["properties"]) << "\n\n";
  std::cout << "the model is told:\n" << first.pinned_correction() << "\n\n";

  // The re-ask: the model answers only the fields asked for; the kept ones stay as they
  // were checked, and the whole object is checked again.
  const json reply = {{"winner", "harbour"}, {"score", 0.0455}};
  json merged = first.accepted();
  merged.update(reply);
  const gp::Verdict second = b.try_submit(merged);
  std::cout << (second.ok() ? "accepted: " : "rejected: ") << merged.dump() << "\n";
  return second.ok() ? 0 : 1;
}
