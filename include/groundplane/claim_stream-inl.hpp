// The bodies of claim_stream.hpp: included by it in the header-only build, compiled once
// into groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/claim_stream.hpp"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/checks/field.hpp"
#include "groundplane/detail/checks/stated.hpp"
#include "groundplane/detail/json/json_push_reader.hpp"
#include "groundplane/errors.hpp"

namespace groundplane {
namespace detail {

struct ClaimStreamState {
  // A check waiting for the fields it reads: each field's pointer tokens, and how many
  // have not closed yet.
  struct Waiting {
    std::vector<std::vector<std::string>> fields;
    std::vector<bool> closed;
    std::size_t open = 0;
    bool states_reads = false;
  };

  ClaimStreamState(void* b, const StreamHooks* h, std::vector<StreamUnit> u, bool first, StreamLimits l)
      : boundary(b),
        hooks(h),
        units(std::move(u)),
        stop_at_first(first),
        limits(l),
        early(units.size()),
        reader(JsonPushReader::Observer{this, &ClaimStreamState::on_closed, watch_depth_of(units)},
               JsonTextOptions{.max_depth = l.max_depth}) {
    waiting.reserve(units.size());
    for (const auto& unit : units) {
      Waiting w;
      w.states_reads = unit.reads.has_value();
      if (unit.reads)
        for (const auto& field : *unit.reads)
          w.fields.push_back(field.empty() || field[0] != '/'
                                 ? std::vector<std::string>{field}
                                 : pointer_tokens(field).value_or(std::vector<std::string>{}));
      w.closed.assign(w.fields.size(), false);
      w.open = w.fields.size();
      waiting.push_back(std::move(w));
    }
  }

  // How deep the fields the checks read lie: closes below that concern no check.
  static std::size_t watch_depth_of(const std::vector<StreamUnit>& units) {
    std::size_t depth = 1;  // the top-level fields, for stop()
    for (const auto& unit : units)
      if (unit.reads)
        for (const auto& field : *unit.reads)
          depth = std::max(depth, field.empty() || field[0] != '/'
                                      ? std::size_t{1}
                                      : pointer_tokens(field).value_or(std::vector<std::string>{}).size());
    return depth;
  }

  // A value closed at `path`: every field at or under it is complete (or, for a closed
  // object, known absent); a check whose fields are all complete runs now.
  static void on_closed(void* context, const std::string* path, std::size_t depth) {
    auto& self = *static_cast<ClaimStreamState*>(context);
    if (!self.reader.document().value().is_object()) return;  // checks read an object; finish() says so
    for (std::size_t k = 0; k < self.units.size(); ++k) {
      Waiting& w = self.waiting[k];
      if (!w.states_reads || self.early[k]) continue;
      for (std::size_t i = 0; i < w.fields.size(); ++i) {
        const auto& tokens = w.fields[i];
        if (w.closed[i] || depth > tokens.size() || !std::equal(path, path + depth, tokens.begin())) continue;
        w.closed[i] = true;
        --w.open;
      }
      // A check that reads nothing has nothing to wait for but the whole object.
      if (w.open == 0 && (depth == 0 || !w.fields.empty())) self.run_early(k);
    }
    if (depth == 1) self.complete_fields.push_back(path[0]);
  }

  void run_early(std::size_t k) {
    const StatedNumbers numbers = stated_numbers_of(reader);
    const StatedNumbersScope scope(&numbers);
    CheckRun one;
    units[k].run(boundary, units[k].check, reader.document().value(), one);
    findings.insert(findings.end(), one.findings.begin(), one.findings.end());
    early[k] = std::move(one);
  }

  // The final run: what ran early is replayed, the rest runs now, in the boundary's order.
  static void replay_or_run(const void* context, const nlohmann::json& output, CheckRun& run) {
    const auto& self = *static_cast<const ClaimStreamState*>(context);
    for (std::size_t k = 0; k < self.units.size() && !run.stopped; ++k) {
      if (self.early[k]) run.replay(*self.early[k]);
      else self.units[k].run(self.boundary, self.units[k].check, output, run);
    }
    if (!run.stopped) self.hooks->prose(self.boundary, output, run);
  }

  // The text has passed max_text_bytes with `chunk`: what try_submit_json says of it is
  // a finding now, and nothing more of the text is kept.
  void overflow(std::string_view chunk) {
    head = reader.text().substr(0, 60);
    if (head.size() < 60) head.append(chunk.substr(0, 60 - head.size()));
    oversized = true;
    for (auto& f : oversized_text(head, limits.max_text_bytes).findings()) findings.push_back(std::move(f));
  }

  void* boundary;
  const StreamHooks* hooks;
  std::vector<StreamUnit> units;
  bool stop_at_first;
  StreamLimits limits;
  bool oversized = false;  // past limits.max_text_bytes: nothing more is read
  std::string head;        // then, the text's first 60 bytes
  std::vector<Waiting> waiting;
  std::vector<std::optional<CheckRun>> early;  // per unit: what it found when it ran early
  std::vector<Finding> findings;
  std::vector<std::string> complete_fields;  // top-level fields closed so far
  std::optional<Verdict> verdict;
  JsonPushReader reader;
};

}  // namespace detail

GROUNDPLANE_INLINE ClaimStream::ClaimStream(void* boundary, const detail::StreamHooks* hooks,
                                            std::vector<detail::StreamUnit> units, bool stop_at_first,
                                            detail::StreamLimits limits)
    : state_(std::make_unique<detail::ClaimStreamState>(boundary, hooks, std::move(units), stop_at_first, limits)) {}

GROUNDPLANE_INLINE ClaimStream::ClaimStream(ClaimStream&&) noexcept = default;
GROUNDPLANE_INLINE ClaimStream& ClaimStream::operator=(ClaimStream&&) noexcept = default;
GROUNDPLANE_INLINE ClaimStream::~ClaimStream() = default;

GROUNDPLANE_INLINE detail::ClaimStreamState& ClaimStream::live() const {
  if (!state_)
    throw ConfigurationError(
        "ClaimStream used after it was moved from: it holds no text and no boundary; use the stream it was moved "
        "to, or assign it Boundary::stream()");
  return *state_;
}

GROUNDPLANE_INLINE StreamState ClaimStream::feed(std::string_view chunk) {
  detail::ClaimStreamState& s = live();
  if (s.verdict) throw ConfigurationError("ClaimStream::feed after finish(): the text has ended; start another stream");
  if (s.oversized) return state();
  if (chunk.size() > s.limits.max_text_bytes - s.reader.text().size()) {
    s.overflow(chunk);
    return state();
  }
  s.reader.read(chunk);
  return state();
}

GROUNDPLANE_INLINE StreamState ClaimStream::state() const {
  return live().findings.empty() ? StreamState::undecided : StreamState::rejected;
}

GROUNDPLANE_INLINE const std::vector<Finding>& ClaimStream::findings() const { return live().findings; }

GROUNDPLANE_INLINE Verdict ClaimStream::finish() {
  detail::ClaimStreamState& s = live();
  if (s.verdict) return *s.verdict;
  if (s.oversized) {
    Verdict v = s.hooks->submit_oversized(s.boundary, s.head);
    s.findings = v.findings();
    s.verdict = v;
    return v;
  }
  s.reader.end();
  Verdict v = s.reader.complete() ? s.hooks->submit_read(s.boundary, s.reader.document(), s.reader.text(),
                                                         detail::ChecksRun{&s, &detail::ClaimStreamState::replay_or_run,
                                                                           s.stop_at_first, s.limits.max_depth})
                                  : s.hooks->submit_text(s.boundary, s.reader.text());
  s.findings = v.findings();
  s.verdict = v;
  return v;
}

GROUNDPLANE_INLINE Verdict ClaimStream::stop() {
  detail::ClaimStreamState& s = live();
  if (s.verdict) return *s.verdict;
  if (s.oversized) return finish();  // the whole answer is refused, not a part of it
  if (s.findings.empty()) return finish();
  detail::CheckRun run;
  run.stop_at_first = s.stop_at_first;
  for (std::size_t k = 0; k < s.units.size() && !run.stopped; ++k)
    if (s.early[k]) run.replay(*s.early[k]);
  nlohmann::json partial = nlohmann::json::object();
  const nlohmann::json& so_far = s.reader.document().value();
  for (const auto& field : s.complete_fields)
    if (const auto it = so_far.find(field); it != so_far.end()) partial[field] = *it;
  Verdict v = s.hooks->submit_partial(s.boundary, std::move(run), partial);
  s.findings = v.findings();
  s.verdict = v;
  return v;
}

}  // namespace groundplane
