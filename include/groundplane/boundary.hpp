// gp::Boundary — the RAII scope around one block of model output.
//
//   gp::Boundary b(reg, {"campaign_ctr"}, gp::superlative{.fact = "campaign_ctr"});
//   b.submit(model_output);   // throws gp::UnsupportedClaim listing every finding
//
// It names the facts the model may lean on (facts()), runs every check on submit(), and
// refuses to be left unsubmitted: a check that silently never ran is worse than none.
#pragma once

#include <algorithm>
#include <exception>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/check.hpp"
#include "groundplane/detail/escape.hpp"
#include "groundplane/detail/stated.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/facts.hpp"
#include "groundplane/json_text.hpp"
#include "groundplane/registry.hpp"
#include "groundplane/render.hpp"
#include "groundplane/schema.hpp"
#include "groundplane/verdict.hpp"

namespace groundplane {

namespace detail {
template <class J>
concept is_other_json = nlohmann::detail::is_basic_json<J>::value && !std::is_same_v<J, nlohmann::json>;

// T, named so that it depends on a template parameter: what is spelled through it is
// instantiated only when used (submit_json's reader, in a TU that calls it).
template <class T, class...>
struct dependent_type {
  using type = T;
};

// JsonText's findings about the text itself: not one JSON value, a repeated key, a
// number out of range. At most `listed` of each kind, then one counting the rest.
template <class Text>
void text_findings(const Text& doc, std::string_view text, std::vector<Finding>& findings) {
  constexpr std::size_t listed = 8;
  const auto finding = [] {
    Finding f;
    f.check = "structured_output";
    return f;
  };
  if (!doc.ok()) {
    const auto& e = *doc.error();
    Finding f = finding();
    const std::size_t from = e.offset > 20 ? e.offset - 20 : 0;
    f.said = quote(text.substr(from, 60));
    f.detail = "the output is not exactly one JSON value: at byte " + std::to_string(e.offset) + " (0-based) " +
               escape(e.reason, 200) + "; send one JSON object of named fields and nothing else";
    findings.push_back(std::move(f));
    return;
  }
  const auto& dups = doc.duplicate_keys();
  for (std::size_t i = 0; i < dups.size() && i < listed; ++i) {
    Finding f = finding();
    f.field = dups[i].pointer;
    f.said = render(*dups[i].first, render_cap / 2 - 3) + " and " + render(*dups[i].second, render_cap / 2 - 3);
    f.detail = "key " + quote(dups[i].key) + " appears more than once in one object, first as " +
               render(*dups[i].first) + ", then as " + render(*dups[i].second) +
               "; a claim must say one thing, so write the key once";
    findings.push_back(std::move(f));
  }
  if (doc.duplicate_key_count() > listed) {
    Finding f = finding();
    f.detail = "… and " + std::to_string(doc.duplicate_key_count() - listed) + " more repeated key(s)";
    findings.push_back(std::move(f));
  }
  const auto& far = doc.out_of_range();
  for (std::size_t i = 0; i < far.size() && i < listed; ++i) {
    Finding f = finding();
    f.field = far[i].pointer;
    f.said = escape(far[i].text);
    f.detail = "the number at byte " + std::to_string(far[i].offset) + " is out of range: no claim needs more than " +
               std::to_string(JsonTextOptions{}.max_digits) + " significant digits or a power of ten past 10^" +
               std::to_string(JsonTextOptions{}.max_exponent) + " in magnitude";
    findings.push_back(std::move(f));
  }
  if (doc.out_of_range_count() > listed) {
    Finding f = finding();
    f.detail = "… and " + std::to_string(doc.out_of_range_count() - listed) + " more number(s) out of range";
    findings.push_back(std::move(f));
  }
}

}  // namespace detail

template <Check... Cs>
class Boundary {
  static_assert(sizeof...(Cs) > 0,
                "gp::Boundary needs at least one check: a boundary that checks nothing accepts anything");

 public:
  // Validates the configuration now (ConfigurationError): every named fact is recorded,
  // every check leans only on named facts, and each check's own validate() passes.
  Boundary(const FactRegistry& registry, std::vector<std::string> facts, Cs... checks)
      : registry_(registry),
        facts_(std::move(facts)),
        checks_(std::move(checks)...),
        uncaught_at_start_(std::uncaught_exceptions()) {
    for (const auto& name : facts_)
      if (!registry_.contains(name))
        throw ConfigurationError("boundary names fact " + detail::quote(name) + ", which is not recorded");
    std::apply([&](const auto&... c) { (validate_one(c), ...); }, checks_);
  }

  Boundary(const Boundary&) = delete;  // one scope, one obligation to submit
  Boundary& operator=(const Boundary&) = delete;

  // What the model may lean on: {name: {kind, provenance: {tool, args}, ...values}}.
  // A ranking comes as its computed order — the model phrases it, it does not choose.
  nlohmann::json facts() const {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& name : facts_)
      out[name] = registry_.visit(name, [](const auto& fact) { return detail::fact_view(fact); });
    return out;
  }

  // JSON Schema (2020-12) of the output fields the checks read. strict: the shape
  // strict structured outputs require (docs/schema.md).
  nlohmann::json schema(SchemaOptions options = {}) const {
    SchemaBuilder builder;
    std::apply([&](const auto&... c) { (describe_one(c, builder), ...); }, checks_);
    if (options.strict) return detail::strict_schema(builder.schema());
    return builder.schema();
  }

  // Runs every check; throws UnsupportedClaim listing every finding. May be called again
  // (a re-ask inside the scope); any call counts as submitted.
  void submit(const nlohmann::json& output) {
    Verdict verdict = try_submit(output);
    if (!verdict.ok()) throw UnsupportedClaim(verdict.findings());
  }

  // The same checks; an unsupported claim is reported, never thrown.
  Verdict try_submit(const nlohmann::json& output) {
    submitted_ = true;
    std::vector<Finding> findings;
    if (!output.is_object()) {
      Finding f;
      f.check = "structured_output";
      f.said = detail::render(output);
      f.detail = "expected a JSON object of named fields, got " + std::string(detail::type_name(output)) +
                 "; prose is not a claim that can be checked";
      findings.push_back(std::move(f));
      return Verdict(std::move(findings));
    }
    std::apply([&](const auto&... c) { (verify_one(c, output, findings), ...); }, checks_);
    return Verdict(std::move(findings));
  }

  // The model's JSON text, read exactly as written (gp::JsonText): numbers keep their
  // digits (Rounding::as_stated judges "0.50" at two decimals; 1e400 is exact), a repeated
  // key is a finding, and text that is not one JSON value is a finding naming the byte
  // offset — never an exception. Otherwise as submit().
  void submit_json(std::string_view json_text) {
    Verdict verdict = try_submit_json(json_text);
    if (!verdict.ok()) throw UnsupportedClaim(verdict.findings());
  }

  Verdict try_submit_json(std::string_view json_text) {
    using Text = typename detail::dependent_type<JsonText, Cs...>::type;
    return try_submit_json(Text::read(json_text), json_text);
  }

  // The same for text the caller has already read with gp::JsonText (`doc` is
  // JsonText::read(json_text)), so it keeps the value without reading it twice.
  template <class Json>
  Verdict try_submit_json(const BasicJsonText<Json>& doc, std::string_view json_text) {
    submitted_ = true;
    std::vector<Finding> findings;
    detail::text_findings(doc, json_text, findings);
    if (!doc.ok()) return Verdict(std::move(findings));
    Verdict checked = try_submit(doc, doc.value());
    for (const auto& f : checked.findings()) findings.push_back(f);
    return Verdict(std::move(findings));
  }

  // A value inside JSON text already read with gp::JsonText — the `output` member of a
  // request, say — checked with the digits it was written with (`output` must be a node
  // of text.value()). The text's own problems (a repeated key, an out-of-range number
  // elsewhere) are the reader's caller's to report. Otherwise as try_submit.
  template <class Json>
  Verdict try_submit(const BasicJsonText<Json>& text, const nlohmann::json& output) {
    using Text = BasicJsonText<Json>;
    const detail::StatedNumbers numbers{&text, [](const void* d, const nlohmann::json& node, detail::StatedText& out) {
                                          const NumberText* t = static_cast<const Text*>(d)->number_text(node);
                                          if (t == nullptr) return false;
                                          out = {t->text, t->out_of_range};
                                          return true;
                                        }};
    const detail::StatedNumbersScope scope(&numbers);
    return try_submit(output);
  }

  // Output held in another nlohmann::basic_json flavour (ordered_json, say).
  template <class J>
  requires detail::is_other_json<J>
  void submit(const J& output) { submit(nlohmann::json(output)); }
  template <class J>
  requires detail::is_other_json<J> Verdict try_submit(const J& output) { return try_submit(nlohmann::json(output)); }

  // Prose does not compile: the model emits structured fields.
  void submit(const char*) = delete;
  void submit(std::string_view) = delete;
  void submit(const std::string&) = delete;
  Verdict try_submit(const char*) = delete;
  Verdict try_submit(std::string_view) = delete;
  Verdict try_submit(const std::string&) = delete;

  bool submitted() const noexcept { return submitted_; }
  const std::vector<std::string>& fact_names() const noexcept { return facts_; }

  // Leaving the scope without submit() throws NothingSubmitted — unless an exception is
  // already unwinding through this scope, which must not be replaced by ours (and must
  // not terminate the program).
  ~Boundary() noexcept(false) {
    if (submitted_ || std::uncaught_exceptions() > uncaught_at_start_) return;
    throw NothingSubmitted({nothing_submitted_finding()});
  }

 private:
  template <class C>
  void validate_one(const C& check) const {
    for (const auto& name : check.leans_on())
      if (std::find(facts_.begin(), facts_.end(), name) == facts_.end())
        throw ConfigurationError("a check leans on fact " + detail::quote(name) +
                                 ", which this boundary does not name; add it to the boundary's facts");
    check.validate(registry_);
  }

  // One check's findings, at most max_per_field for each output field (its first
  // pointer token), then one counting the rest: what(), correction() and an MCP reply
  // stay bounded whatever the model sent, for user-written checks too.
  static constexpr std::size_t max_per_field = 8;

  template <class C>
  void verify_one(const C& check, const nlohmann::json& output, std::vector<Finding>& findings) const {
    const std::size_t before = findings.size();
    check.verify(registry_, output, findings);
    if (findings.size() - before <= max_per_field + 1) return;
    const auto root = [](const std::string& field) {
      if (field.empty() || field[0] != '/') return field;
      const std::size_t end = field.find('/', 1);
      return field.substr(0, end);
    };
    // A group of at most max_per_field + 1 is kept whole: a check that already lists
    // eight and counts the rest in one (ranking_prefix, entities_recorded) passes as is.
    std::vector<std::pair<std::string, std::size_t>> sizes;
    for (std::size_t i = before; i < findings.size(); ++i) {
      const std::string r = root(findings[i].field);
      auto it = std::find_if(sizes.begin(), sizes.end(), [&](const auto& p) { return p.first == r; });
      if (it == sizes.end()) sizes.emplace_back(r, 1);
      else ++it->second;
    }
    const auto keeps_whole = [&](const std::string& r) {
      const auto it = std::find_if(sizes.begin(), sizes.end(), [&](const auto& p) { return p.first == r; });
      return it->second <= max_per_field + 1;
    };
    std::vector<std::pair<std::string, std::size_t>> seen;     // field root -> findings kept
    std::vector<std::pair<std::size_t, std::size_t>> dropped;  // (index of the group's last kept, count)
    std::size_t out = before;
    for (std::size_t i = before; i < findings.size(); ++i) {
      const std::string r = root(findings[i].field);
      auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& p) { return p.first == r; });
      if (it == seen.end()) {
        seen.emplace_back(r, 0);
        dropped.emplace_back(0, 0);
        it = seen.end() - 1;
      }
      const std::size_t group = static_cast<std::size_t>(it - seen.begin());
      if (it->second == max_per_field && !keeps_whole(r)) {
        ++dropped[group].second;
        continue;
      }
      ++it->second;
      if (out != i) findings[out] = std::move(findings[i]);
      dropped[group].first = out;
      ++out;
    }
    findings.resize(out);
    for (std::size_t g = 0; g < seen.size(); ++g) {
      if (dropped[g].second == 0) continue;
      Finding f = findings[dropped[g].first];
      f.field = seen[g].first;
      f.said = std::to_string(dropped[g].second) + " more";
      f.supported.clear();
      f.detail = "... and " + std::to_string(dropped[g].second) + " more unsupported claim(s) about " +
                 detail::quote(seen[g].first) + " (the first " + std::to_string(max_per_field) + " are listed)";
      findings.push_back(std::move(f));
    }
  }

  template <class C>
  void describe_one(const C& check, SchemaBuilder& builder) const {
    if constexpr (DescribesSchema<C>) check.describe(registry_, builder);
  }

  Finding nothing_submitted_finding() const {
    Finding f;
    f.check = "boundary";
    if (facts_.size() == 1) {
      f.fact = facts_.front();
      f.provenance = registry_.visit(f.fact, [](const auto& fact) { return fact.provenance().render(); });
    }
    f.detail = "the boundary was left without submit(); its " + std::to_string(sizeof...(Cs)) +
               " check(s) never ran, and a check that silently never ran is worse than none";
    return f;
  }

  const FactRegistry& registry_;
  std::vector<std::string> facts_;
  std::tuple<Cs...> checks_;
  int uncaught_at_start_;
  bool submitted_ = false;
};

}  // namespace groundplane
