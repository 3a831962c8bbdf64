// What the ordering checks (superlative, ranking_prefix, comparison) share: the ranking
// a check reads — a Ranking fact, or a Table fact read by a column — how a value the
// model wrote fails to name one of its entities, and how a score it quoted is judged.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/decimal.hpp"
#include "groundplane/detail/checks/stated.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/entity.hpp"
#include "groundplane/facts.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/render.hpp"
#include "groundplane/tolerance.hpp"

namespace groundplane::detail {

// The ranking a check runs against, and the rows OnMissing::skip left out of it.
struct RankingSource {
  const Ranking* ranking = nullptr;
  const std::vector<Entity>* skipped = nullptr;  // nullptr for a Ranking fact
};

// A Ranking fact as recorded (a `column` is then a ConfigurationError, and so is a
// `direction` that disagrees with the recorded one; `on_missing` has nothing to skip),
// or a Table fact's `column` ranked by `direction` (higher_is_better when unset) under
// `on_missing` (Table::ranking_by). ConfigurationError naming `check` otherwise.
RankingSource ranking_source(const FactRegistry& registry, const std::string& fact, const std::string& column,
                             const std::optional<Direction>& direction, OnMissing on_missing, std::string_view check);

// The warning a check carries when its ranking skipped rows; none otherwise.
std::vector<std::string> skipped_rows_warning(const RankingSource& source, std::string_view check_name,
                                              const std::string& column);

// Why a JSON value that names no entity may have meant one: "; '101' is text, and the
// recorded entity 101 is an integer (write it as 101)". `names(json)` answers whether a
// value names an entity. "" when no value of another type would have named one.
template <class Names>
std::string entity_type_hint(const nlohmann::json& said, Names&& names) {
  const auto canonical_integer = [](const std::string& s) {
    if (s.empty() || s.size() > 20) return false;
    std::size_t i = s[0] == '-' ? 1 : 0;
    if (i == s.size() || (s[i] == '0' && s.size() > i + 1) || (s == "-0")) return false;
    for (; i < s.size(); ++i)
      if (s[i] < '0' || s[i] > '9') return false;
    return true;
  };
  if (said.is_string()) {
    const auto& s = said.get_ref<const std::string&>();
    if (!canonical_integer(s)) return "";
    nlohmann::json as_number;
    if (s[0] == '-') {
      std::int64_t v = 0;
      if (std::from_chars(s.data(), s.data() + s.size(), v).ec != std::errc()) return "";
      as_number = v;
    } else {
      std::uint64_t v = 0;
      if (std::from_chars(s.data(), s.data() + s.size(), v).ec != std::errc()) return "";
      as_number = v;
    }
    if (!names(as_number)) return "";
    return "; " + quote(s) + " is text, and the recorded entity " + s + " is an integer (write it as " + s + ")";
  }
  if (said.is_number_integer() || said.is_number_unsigned()) {
    const std::string digits = said.dump();
    if (!names(nlohmann::json(digits))) return "";
    return "; " + digits + " is an integer, and the recorded entity " + quote(digits) + " is text (write it as " +
           quote(digits) + ")";
  }
  if (said.is_number_float()) {
    const double d = said.get<double>();
    if (!(d >= -9.2e18 && d <= 9.2e18) || d != static_cast<double>(static_cast<long long>(d))) return "";
    const nlohmann::json as_integer = static_cast<long long>(d);
    if (!names(as_integer)) return "";
    return "; an entity id is an integer: " + as_integer.dump() + " is recorded, and a number written with a " +
           "fraction part or an exponent is not an id";
  }
  return "";
}

// A value the model gave where an entity belongs, as a message shows it: like render(),
// except that a double with no fraction keeps its ".0" (101.0), so it never reads as
// the integer id it failed to be.
inline std::string render_claim(const nlohmann::json& said) {
  std::string out = render(said);
  if (said.is_number_float() && !stated_text(said) && out.find_first_of(".e") == std::string::npos &&
      out.find("inf") == std::string::npos && out.find("nan") == std::string::npos)
    out += ".0";
  return out;
}

// "expected an entity (a string or an integer), got a boolean" — with "a number with a
// fraction part or an exponent" for 101.0.
std::string not_an_entity(const nlohmann::json& said);

// 'ctr', or 'p95_ms' (lower is better): the direction decides which end is the top.
std::string key_phrase(const Ranking& ranking);

// A score the model quoted for an entity, judged against the recorded one: what was
// stated and how it compares, before any finding is worded.
struct StatedScore {
  std::optional<Decimal> value;  // the number stated; nullopt when it is not a number
  NumberMatch match;             // the value against the recorded score

  bool holds() const { return value && match.ok; }
};

// `said` against `recorded` under a check's tolerance and rounding. A score that holds
// costs no text (only a wrong one carries NumberMatch's hint).
StatedScore classify_score(const nlohmann::json& said, const Decimal& recorded, const Tolerance& tolerance,
                           Rounding rounding);

}  // namespace groundplane::detail

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/detail/checks/ranked-inl.hpp"
#endif
