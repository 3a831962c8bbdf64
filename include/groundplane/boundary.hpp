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
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/any_check.hpp"
#include "groundplane/check.hpp"
#include "groundplane/claim_stream.hpp"
#include "groundplane/detail/checks/check_run.hpp"
#include "groundplane/detail/checks/prose.hpp"
#include "groundplane/detail/checks/stated.hpp"
#include "groundplane/detail/json/json_depth.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/text/escape.hpp"
#include "groundplane/detail/text/unique_strings.hpp"
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

// Text that is not a JSON value: what submit() refuses by name. A JSON value (any
// nlohmann::basic_json) is never prose, even though it converts to a string_view.
template <class T>
concept raw_text = !nlohmann::detail::is_basic_json<T>::value &&
                   (std::is_convertible_v<const T&, std::string_view> || std::is_convertible_v<const T&, const char*>);

// False, but only once T is known: a static_assert on it fires when the function holding
// it is instantiated, which for the prose overloads below is when a call picks one.
template <class>
inline constexpr bool prose_is_not_a_claim = false;

// ConfigurationError unless every named fact is recorded.
void require_recorded(const FactRegistry& registry, const std::vector<std::string>& facts);
// ConfigurationError unless a check leans only on facts the boundary names.
void require_named(const std::vector<std::string>& facts, const std::vector<std::string>& leans_on);

nlohmann::json facts_view(const FactRegistry& registry, const std::vector<std::string>& facts);
// The checks run on `output`, or one finding when it is not a JSON object or is nested
// deeper than checks.max_depth.
Verdict checked_output(const nlohmann::json& output, ChecksRun checks);
// The findings about the text itself, then (when it is one JSON value) the checks run on
// what it holds, reading each number with the digits it was written with.
Verdict checked_text(const JsonText& doc, std::string_view text, ChecksRun checks);
// The checks run on a node of doc.value(), reading numbers as checked_text does.
Verdict checked_node(const JsonText& doc, const nlohmann::json& output, ChecksRun checks);
std::string nothing_submitted_message(const std::vector<std::string>& facts, std::size_t checks);

}  // namespace detail

// How a Boundary treats its scope and its checks. (Members may be appended; they are
// written with designated initializers, so their order is part of the API.)
struct BoundaryOptions {
  // false: the scope may end without a submit (a block that made no claim).
  bool require_output = true;
  // true: checks run in order and stop at the first that fails; the verdict holds that
  // check's findings only, and the checks after it are neither passed nor failed.
  bool stop_at_first = false;
  // The output's string field (a name or JSON Pointer) the model writes its answer in as
  // prose: a template whose every number and recorded name is a slot, {field}, bound to a
  // field a check reads (docs/prose.md). Checked after the checks; Verdict::prose()
  // renders it. "" = no prose.
  std::string prose_field = "";
  // Fields a prose slot may insert though no check reads them (names or JSON Pointers):
  // what the model may say unchecked, such as a label it was given.
  std::vector<std::string> free_fields = {};
  // The longest JSON text submit_json, try_submit_json and a stream read, in bytes (1 MiB:
  // more than any model writes as one answer; read into a JSON value, a text can cost some
  // forty times its length). A longer text is one structured_output finding and is not
  // read (a stream stops keeping it); a prose rendering may be at most this much longer
  // than its template.
  std::size_t max_text_bytes = std::size_t{1024} * 1024;
  // Arrays and objects nested deeper than this in the output — written as text or handed
  // to submit() as a value — are one structured_output finding: nothing deeper is read,
  // copied or compared, so no output can overflow a stack.
  std::size_t max_depth = 256;
};

namespace detail {
// ConfigurationError unless the options are well formed (the prose fields, the bounds).
void validate_options(const BoundaryOptions& options);
}  // namespace detail

template <Check... Cs>
class Boundary {
  static_assert(sizeof...(Cs) > 0,
                "gp::Boundary needs at least one check: a boundary that checks nothing accepts anything");

 public:
  // Validates the configuration now (ConfigurationError): every named fact is recorded,
  // every check leans only on named facts, and each check's own validate() passes.
  Boundary(const FactRegistry& registry, std::vector<std::string> facts, Cs... checks)
      : Boundary(registry, std::move(facts), BoundaryOptions{}, std::move(checks)...) {}

  // The same, with options before the checks:
  //   gp::Boundary b(reg, {"ctr"}, {.stop_at_first = true}, gp::superlative{.fact = "ctr"});
  Boundary(const FactRegistry& registry, std::vector<std::string> facts, BoundaryOptions options, Cs... checks)
      : registry_(registry),
        facts_(std::move(facts)),
        options_(std::move(options)),
        checks_(std::move(checks)...),
        uncaught_at_start_(std::uncaught_exceptions()) {
    detail::require_recorded(registry_, facts_);
    std::apply([&](const auto&... c) { (validate_one(c), ...); }, checks_);
    detail::validate_options(options_);
    if (!options_.prose_field.empty()) {
      std::apply([&](const auto&... c) { (add_reads(c, prose_read_), ...); }, checks_);
      detail::keep_first_of_each(prose_read_);
      prose_names_ = detail::ProseNames(registry_, facts_);
    }
  }

  Boundary(const Boundary&) = delete;  // one scope, one obligation to submit
  Boundary& operator=(const Boundary&) = delete;

  // What the model may lean on: {name: {kind, provenance: {tool, args}, ...values}}.
  // A ranking comes as its computed order — the model phrases it, it does not choose.
  nlohmann::json facts() const { return detail::facts_view(registry_, facts_); }

  // JSON Schema (2020-12) of the output fields the checks read. strict: the shape
  // strict structured outputs require (docs/schema.md).
  nlohmann::json schema(SchemaOptions options = {}) const {
    SchemaBuilder builder;
    std::apply([&](const auto&... c) { (describe_one(c, builder), ...); }, checks_);
    if (!options_.prose_field.empty()) {
      std::vector<std::string> slots = prose_read_;
      slots.insert(slots.end(), options_.free_fields.begin(), options_.free_fields.end());
      builder.add(options_.prose_field, detail::prose_schema(slots), true);
    }
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
    return with_output(detail::checked_output(output, checks_run()), output);
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
    if (json_text.size() > options_.max_text_bytes) {
      submitted_ = true;
      return with_output(detail::oversized_text(json_text, options_.max_text_bytes), nlohmann::json());
    }
    return try_submit_json(Text::read(json_text, {.max_depth = options_.max_depth}), json_text);
  }

  // The same for text the caller has already read with gp::JsonText (`doc` is
  // JsonText::read(json_text)), so it keeps the value without reading it twice.
  template <class Json>
  Verdict try_submit_json(const BasicJsonText<Json>& doc, std::string_view json_text) {
    return submit_read(doc, json_text, checks_run());
  }

  // A value inside JSON text already read with gp::JsonText — the `output` member of a
  // request, say — checked with the digits it was written with (`output` must be a node
  // of text.value()). The text's own problems (a repeated key, an out-of-range number
  // elsewhere) are the reader's caller's to report. Otherwise as try_submit.
  template <class Json>
  Verdict try_submit(const BasicJsonText<Json>& text, const nlohmann::json& output) {
    submitted_ = true;
    return with_output(detail::checked_node(text, output, checks_run()), output);
  }

  // The model's JSON text as it streams (gp::ClaimStream, docs/streaming.md): feed it the
  // chunks as they arrive; each check runs once the fields it reads have closed, so a
  // wrong first field is rejected before the rest is generated. Its finish() is a submit,
  // equal to try_submit_json of the whole text. The boundary must outlive the stream.
  ClaimStream stream() {
    std::vector<detail::StreamUnit> units;
    std::apply([&](const auto&... c) { (add_units(c, units), ...); }, checks_);
    return ClaimStream(this, &stream_hooks(), std::move(units), options_.stop_at_first,
                       {options_.max_text_bytes, options_.max_depth});
  }

  // Output held in another nlohmann::basic_json flavour (ordered_json, say), measured
  // before it is converted (a conversion copies every level).
  template <class J>
  requires detail::is_other_json<J>
  void submit(const J& output) {
    Verdict verdict = try_submit(output);
    if (!verdict.ok()) throw UnsupportedClaim(verdict.findings());
  }
  template <class J>
  requires detail::is_other_json<J> Verdict try_submit(const J& output) {
    if (detail::nested_deeper_than(output, options_.max_depth)) {
      submitted_ = true;
      return with_output(detail::too_deep_output(detail::render(output), options_.max_depth), nlohmann::json::object());
    }
    return try_submit(nlohmann::json(output));
  }

  // Prose does not compile: the model emits structured fields. `= delete("why")` needs
  // C++26, so the refusal is a template taking any prose by reference: its deduced
  // parameter is an exact match, chosen over the conversion to nlohmann::json as the
  // deleted overloads were, and picking it fails on the message. A braced value
  // ({{"winner", "north"}}) deduces nothing and stays JSON.
  template <detail::raw_text Text>
  void submit(const Text&) {
    static_assert(detail::prose_is_not_a_claim<Text>,
                  "submit takes a JSON object; for the model's raw text use submit_json(text)");
  }
  template <detail::raw_text Text>
  Verdict try_submit(const Text&) {
    static_assert(detail::prose_is_not_a_claim<Text>,
                  "try_submit takes a JSON object; for the model's raw text use try_submit_json(text)");
    std::terminate();  // never reached: the assertion fails wherever this is instantiated
  }

  bool submitted() const noexcept { return submitted_; }
  const std::vector<std::string>& fact_names() const noexcept { return facts_; }
  const BoundaryOptions& options() const noexcept { return options_; }

  // Leaving the scope without submit() throws NothingSubmitted (a ConfigurationError) —
  // unless BoundaryOptions::require_output is false, or an exception is already
  // unwinding through this scope, which must not be replaced by ours (and must not
  // terminate the program).
  ~Boundary() noexcept(false) {
    if (submitted_ || !options_.require_output || std::uncaught_exceptions() > uncaught_at_start_) return;
    throw NothingSubmitted(detail::nothing_submitted_message(facts_, sizeof...(Cs)));
  }

 private:
  template <class C>
  void validate_one(const C& check) const {
    detail::require_named(facts_, check.leans_on());
    check.validate(registry_);
  }

  detail::ChecksRun checks_run() const {
    return {this,
            [](const void* self, const nlohmann::json& output, detail::CheckRun& run) {
              const Boundary& b = *static_cast<const Boundary*>(self);
              std::apply([&](const auto&... c) { (b.run_one(c, output, run), ...); }, b.checks_);
              if (!b.options_.prose_field.empty() && !run.stopped) b.run_prose(output, run);
            },
            options_.stop_at_first, options_.max_depth};
  }

  // Runs one check and records its result: the per-check step of every submission. A
  // CheckList's checks run (and are named) one by one.
  template <class C>
  void run_one(const C& check, const nlohmann::json& output, detail::CheckRun& run) const {
    if (run.stopped) return;
    if constexpr (std::is_same_v<C, CheckList>) {
      for (const auto& c : check) run_one(c, output, run);
    } else {
      const std::size_t before = run.findings.size();
      check.verify(registry_, output, run.findings);
      std::vector<std::string> warnings;
      if constexpr (StatesWarnings<C>) warnings = check.warnings(registry_);
      if (run.findings.size() > before) note_reads(check, run.read_by_failed);
      run.record(detail::check_name_of(check), before, std::move(warnings));
    }
  }

  // A submit of text read with gp::JsonText, its checks run through `checks`.
  template <class Json>
  Verdict submit_read(const BasicJsonText<Json>& doc, std::string_view json_text, const detail::ChecksRun& checks) {
    submitted_ = true;
    Verdict verdict = detail::checked_text(doc, json_text, checks);
    return doc.ok() ? with_output(std::move(verdict), doc.value()) : with_output(std::move(verdict), nlohmann::json());
  }

  // Each check as a stream runs it (a CheckList's one by one), with the fields it reads.
  template <class C>
  void add_units(const C& check, std::vector<detail::StreamUnit>& units) const {
    if constexpr (std::is_same_v<C, CheckList>) {
      for (const auto& c : check) add_units(c, units);
    } else {
      units.push_back({&check,
                       [](const void* b, const void* c, const nlohmann::json& output, detail::CheckRun& run) {
                         static_cast<const Boundary*>(b)->run_one(*static_cast<const C*>(c), output, run);
                       },
                       detail::reads_of(check)});
    }
  }

  static const detail::StreamHooks& stream_hooks() {
    static constexpr detail::StreamHooks hooks{
        [](void* b, std::string_view text) { return static_cast<Boundary*>(b)->try_submit_json(text); },
        [](void* b, const JsonText& doc, std::string_view text, const detail::ChecksRun& checks) {
          return static_cast<Boundary*>(b)->submit_read(doc, text, checks);
        },
        [](void* b, std::string_view head) {
          Boundary& self = *static_cast<Boundary*>(b);
          self.submitted_ = true;
          return self.with_output(detail::oversized_text(head, self.options_.max_text_bytes), nlohmann::json());
        },
        [](void* b, detail::CheckRun run, const nlohmann::json& partial) {
          Boundary& self = *static_cast<Boundary*>(b);
          self.submitted_ = true;
          const nlohmann::json schema = self.schema();
          if (const auto p = schema.find("properties"); p != schema.end() && p->is_object())
            for (auto it = p->begin(); it != p->end(); ++it)
              if (!partial.contains(it.key())) run.read_by_failed.push_back(it.key());  // not written yet
          return self.with_output(std::move(run).verdict(), partial);
        },
        [](const void* b, const nlohmann::json& output, detail::CheckRun& run) {
          const Boundary& self = *static_cast<const Boundary*>(b);
          if (!self.options_.prose_field.empty()) self.run_prose(output, run);
        }};
    return hooks;
  }

  // After the checks: the prose field's template, its slots over the fields they read.
  void run_prose(const nlohmann::json& output, detail::CheckRun& run) const {
    const std::size_t before = run.findings.size();
    const detail::ProseRules rules{options_.prose_field, &options_.free_fields, &prose_read_, &*prose_names_,
                                   options_.max_text_bytes};
    run.prose = detail::check_prose(output, rules, run.findings);
    run.record("prose(field=" + detail::quote(options_.prose_field) + ")", before, {});
  }

  // The fields a check states it reads (a CheckList's, check by check), for prose slots;
  // appended (the constructor makes them unique once).
  template <class C>
  static void add_reads(const C& check, std::vector<std::string>& fields) {
    if constexpr (std::is_same_v<C, CheckList>) {
      for (const auto& c : check) add_reads(c, fields);
    } else if (auto read = detail::reads_of(check)) {
      for (auto& f : *read) fields.push_back(std::move(f));
    }
  }

  // The top-level fields a check reads (as it states them, else as it describes them in
  // the schema): a failed check's fields are re-asked together (a wrong winner takes its
  // score with it). Appended: the run's verdict makes them unique once.
  template <class C>
  void note_reads(const C& check, std::vector<std::string>& fields) const {
    if (auto read = detail::reads_of(check)) {
      for (const auto& f : *read) {
        std::string top = detail::BoundaryVerdict::top_level(f);
        if (!top.empty()) fields.push_back(std::move(top));
      }
      return;
    }
    if constexpr (DescribesSchema<C>) {
      SchemaBuilder builder;
      check.describe(registry_, builder);
      const nlohmann::json described = builder.schema();
      if (const auto p = described.find("properties"); p != described.end() && p->is_object())
        for (auto it = p->begin(); it != p->end(); ++it) fields.push_back(it.key());
    }
  }

  // accepted() and reask_schema() of a verdict on `output` (the schema is built only
  // for a verdict that is not ok).
  Verdict with_output(Verdict verdict, const nlohmann::json& output) const {
    detail::BoundaryVerdict::attach_output(verdict, output, [&] { return schema(); });
    return verdict;
  }

  template <class C>
  void describe_one(const C& check, SchemaBuilder& builder) const {
    if constexpr (DescribesSchema<C>) check.describe(registry_, builder);
  }

  const FactRegistry& registry_;
  std::vector<std::string> facts_;
  BoundaryOptions options_;
  std::tuple<Cs...> checks_;
  std::vector<std::string> prose_read_;            // what the checks read, when there is prose
  std::optional<detail::ProseNames> prose_names_;  // the names prose must slot, when there is prose
  int uncaught_at_start_ = 0;
  bool submitted_ = false;
};

}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/boundary-inl.hpp"
#endif
