// Fuzz gp::ClaimStream (Boundary::stream()) against Boundary::try_submit_json: the model's
// text cut into chunks chosen by the input, fed to a stream over the fixed registry
// (fixture.hpp) whose checks read top-level fields, JSON Pointers (one through an array
// index, one through an escaped key), numbers as stated, and — in a CheckList and on
// their own — checks that state no reads() and so run only at finish().
//
// Input format:
//   byte 0       the boundary: bit 0 BoundaryOptions::stop_at_first, bit 1 a prose field
//                ("summary", free field "label")
//   byte 1       n = byte & 15: how many chunk sizes follow
//   n bytes      chunk sizes, used in turn and cycled: low 5 bits s (0..31; 0 is an empty
//                chunk), times 16 when bit 7 is set. n = 0 feeds the text as one chunk
//                between two empty ones; a cycle that reads nothing ends with the rest
//                as one chunk.
//   the rest     the model's text
// Missing header bytes count as 0. The same text is then streamed again one byte at a
// time, an empty chunk after each.
//
// Beyond "no crash", for each chunking:
//   (a) finish() equals a second, identical boundary's try_submit_json(whole text):
//       findings, to_json(), accepted(), reask_schema(), prose(), correction();
//   (b) when that verdict is ok, no feed() ever returned rejected;
//   (c) findings() after finish() equals the verdict's findings, and finish() called
//       again returns the same verdict;
//   and feed() never throws, returns state(), the findings so far only grow (rejected
//   exactly when there are some), every one is safe to show a model, and — without
//   stop_at_first, for text that is one JSON value — every one of them is among the
//   verdict's findings; feed() after finish() is a ConfigurationError.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "fixture.hpp"
#include "fuzz_support.hpp"
#include "groundplane/any_check.hpp"
#include "groundplane/boundary.hpp"
#include "groundplane/checks/actions_performed.hpp"
#include "groundplane/checks/aggregate_reconciles.hpp"
#include "groundplane/checks/comparison.hpp"
#include "groundplane/checks/entities_recorded.hpp"
#include "groundplane/checks/field_matches_fact.hpp"
#include "groundplane/checks/ranking_prefix.hpp"
#include "groundplane/checks/row_integrity.hpp"
#include "groundplane/checks/superlative.hpp"
#include "groundplane/claim_stream.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/json_text.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {

// A built-in check that states no reads() (and no schema): a stream runs it at finish().
template <class C>
struct unstated {
  C inner;
  std::vector<std::string> leans_on() const { return inner.leans_on(); }
  void validate(const gp::FactRegistry& reg) const { inner.validate(reg); }
  void verify(const gp::FactRegistry& reg, const json& output, std::vector<gp::Finding>& findings) const {
    inner.verify(reg, output, findings);
  }
  std::string name() const { return "unstated " + inner.name(); }
};
static_assert(!gp::StatesReads<unstated<gp::superlative>>);

auto make_boundary(const gp::FactRegistry& reg, gp::BoundaryOptions options) {
  options.require_output = false;
  gp::CheckList list;
  list.push_back(gp::field_matches_fact{.fact = "budget", .field = "/cost~1unit"});
  list.push_back(unstated<gp::aggregate_reconciles>{{.fact = "orders",
                                                     .field = "/answer/max",
                                                     .op = gp::Aggregate::max,
                                                     .column = "amount",
                                                     .rounding = gp::Rounding::as_stated}});
  list.push_back(gp::superlative{.fact = "stores",
                                 .field = "best_store",
                                 .score_field = "best_sales",
                                 .column = "sales",
                                 .on_missing = gp::OnMissing::skip,
                                 .rank_field = "best_rank"});
  return gp::Boundary(
      reg, fuzz::fixture_fact_names(), std::move(options),
      gp::superlative{.fact = "campaign_ctr", .rounding = gp::Rounding::as_stated},
      gp::superlative{.fact = "latency_ms", .field = "/answer/fastest", .score_field = "/answer/ms"},
      gp::ranking_prefix{.fact = "campaign_ctr", .field = "top", .k = 3, .rounding = gp::Rounding::as_stated},
      gp::aggregate_reconciles{.fact = "orders",
                               .field = "total",
                               .op = gp::Aggregate::sum,
                               .column = "amount",
                               .rounding = gp::Rounding::as_stated},
      gp::aggregate_reconciles{.fact = "orders",
                               .field = "/sums/1",
                               .op = gp::Aggregate::sum,
                               .column = "amount",
                               .rounding = gp::Rounding::as_stated},
      gp::entities_recorded{.facts = {"regions", "campaign_ctr"}, .fields = {"winner", "mentioned"}},
      gp::row_integrity{.fact = "orders",
                        .key_field = "region",
                        .fields = {{"amount", "amount"}, {"status", "status"}},
                        .at = "/rows"},
      gp::comparison{.fact = "campaign_ctr", .rounding = gp::Rounding::as_stated},
      gp::field_matches_fact{.fact = "config", .field = "/answer/mode", .path = "/mode"},
      gp::actions_performed{.fact = "ledger"},
      unstated<gp::superlative>{{.fact = "latency_ms", .field = "fastest", .score_field = "fastest_ms"}},
      std::move(list));
}

using Bound = decltype(make_boundary(fuzz::fixture_registry(), gp::BoundaryOptions{}));

// One boundary streams, an identical one reads the whole text.
struct Pair {
  Bound streamed;
  Bound whole;
};

Pair& boundaries(unsigned variant) {
  const gp::FactRegistry& reg = fuzz::fixture_registry();
  const auto options = [](unsigned v) {
    gp::BoundaryOptions o;
    o.stop_at_first = (v & 1) != 0;
    if ((v & 2) != 0) {
      o.prose_field = "summary";
      o.free_fields = {"label"};
    }
    return o;
  };
  static Pair p0{make_boundary(reg, options(0)), make_boundary(reg, options(0))};
  static Pair p1{make_boundary(reg, options(1)), make_boundary(reg, options(1))};
  static Pair p2{make_boundary(reg, options(2)), make_boundary(reg, options(2))};
  static Pair p3{make_boundary(reg, options(3)), make_boundary(reg, options(3))};
  switch (variant & 3) {
    case 0:
      return p0;
    case 1:
      return p1;
    case 2:
      return p2;
    default:
      return p3;
  }
}

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// What a failure shows: the chunking, the text, and both verdicts.
std::string report(std::string_view how, std::string_view text, const gp::Verdict* streamed, const gp::Verdict& whole) {
  std::string out = "chunking: " + std::string(how) + "\ntext: " + std::string(text);
  if (streamed != nullptr) out += "\nstream finish(): " + dump(streamed->to_json());
  out += "\ntry_submit_json: " + dump(whole.to_json());
  return out;
}

std::string describe_chunks(const std::vector<std::string_view>& chunks) {
  std::string out;
  for (std::size_t i = 0; i < chunks.size() && out.size() < 400; ++i)
    out += (i > 0 ? "," : "") + std::to_string(chunks[i].size());
  return "sizes [" + out + "]";
}

bool contains(const std::vector<gp::Finding>& all, const gp::Finding& f) {
  return std::find(all.begin(), all.end(), f) != all.end();
}

void stream_and_compare(Bound& b, const std::vector<std::string_view>& chunks, std::string_view text,
                        const gp::Verdict& whole, bool stop_at_first, std::string_view how) {
  gp::ClaimStream stream = b.stream();
  bool rejected_seen = false;
  std::size_t seen = 0;
  std::vector<gp::Finding> early;
  for (const std::string_view chunk : chunks) {
    gp::StreamState state = gp::StreamState::undecided;
    try {
      state = stream.feed(chunk);
    } catch (const std::exception& e) {
      fuzz::violated(__FILE__, __LINE__, std::string("feed() threw: ") + e.what(), report(how, text, nullptr, whole));
    }
    FUZZ_CHECK(state == stream.state(), "feed() returns state()", report(how, text, nullptr, whole));
    const auto& now = stream.findings();
    FUZZ_CHECK(now.size() >= seen && std::equal(early.begin(), early.end(), now.begin()),
               "the findings so far only grow", report(how, text, nullptr, whole));
    FUZZ_CHECK((state == gp::StreamState::rejected) == !now.empty(), "rejected exactly when a finding exists",
               report(how, text, nullptr, whole));
    for (std::size_t i = seen; i < now.size(); ++i) {
      fuzz::check_finding(now[i]);
      early.push_back(now[i]);
    }
    seen = now.size();
    if (state == gp::StreamState::rejected) rejected_seen = true;
  }

  gp::Verdict verdict;
  try {
    verdict = stream.finish();
  } catch (const std::exception& e) {
    fuzz::violated(__FILE__, __LINE__, std::string("finish() threw: ") + e.what(), report(how, text, nullptr, whole));
  }
  fuzz::check_verdict(verdict);

  // (b) rejected is never reported for a text the whole-text verdict accepts.
  FUZZ_CHECK(!(whole.ok() && rejected_seen), "feed() returned rejected for a text try_submit_json accepts",
             report(how, text, &verdict, whole));

  // (a) finish() is try_submit_json of the whole text.
  FUZZ_CHECK(verdict.findings() == whole.findings(), "finish() has try_submit_json's findings, in its order",
             report(how, text, &verdict, whole));
  FUZZ_CHECK(verdict.to_json() == whole.to_json(), "finish().to_json() equals try_submit_json's",
             report(how, text, &verdict, whole));
  FUZZ_CHECK(verdict.accepted() == whole.accepted(), "finish().accepted() equals try_submit_json's",
             report(how, text, &verdict, whole) + "\naccepted: " + dump(verdict.accepted()) +
                 "\nvs: " + dump(whole.accepted()));
  FUZZ_CHECK(verdict.reask_schema() == whole.reask_schema(), "finish().reask_schema() equals try_submit_json's",
             report(how, text, &verdict, whole) + "\nreask_schema: " + dump(verdict.reask_schema()) +
                 "\nvs: " + dump(whole.reask_schema()));
  FUZZ_CHECK(verdict.prose() == whole.prose() && verdict.correction() == whole.correction(),
             "finish()'s prose and correction equal try_submit_json's", report(how, text, &verdict, whole));

  // (c) after finish() the findings are the verdict's; finish() again is the same verdict.
  FUZZ_CHECK(stream.findings() == verdict.findings(), "findings() after finish() are the verdict's",
             report(how, text, &verdict, whole));
  // Checks that ran early on one JSON value run on the same value at the end (text that
  // turns out not to be one is a single finding about the text, and rightly rejected).
  if (!stop_at_first && !early.empty() && gp::JsonText::read(text).ok())
    for (const auto& f : early)
      FUZZ_CHECK(contains(verdict.findings(), f), "a finding reported while streaming is among the verdict's",
                 report(how, text, &verdict, whole) + "\nstreamed finding: " + f.message());
  const gp::Verdict again = stream.finish();
  FUZZ_CHECK(again.to_json() == verdict.to_json() && again.findings() == verdict.findings(),
             "finish() called again returns the same verdict", report(how, text, &verdict, whole));
  bool threw = false;
  try {
    stream.feed("x");
  } catch (const gp::ConfigurationError&) {
    threw = true;
  } catch (const std::exception& e) {
    fuzz::violated(__FILE__, __LINE__, std::string("feed() after finish() threw another error: ") + e.what(), "");
  }
  FUZZ_CHECK(threw, "feed() after finish() is a ConfigurationError", report(how, text, &verdict, whole));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Bytes in(data, size);
  const unsigned variant = in.byte() & 3;
  const std::size_t n = in.byte() & 15;
  std::vector<std::size_t> sizes;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t b = in.byte();
    sizes.push_back(static_cast<std::size_t>(b & 31) * ((b & 0x80) != 0 ? 16 : 1));
  }
  const std::string_view text = in.rest();
  Pair& pair = boundaries(variant);
  const bool stop_at_first = (variant & 1) != 0;

  gp::Verdict whole;
  try {
    whole = pair.whole.try_submit_json(text);
  } catch (const std::exception& e) {
    fuzz::violated(__FILE__, __LINE__, std::string("try_submit_json threw: ") + e.what(), text);
  }
  fuzz::check_verdict(whole);

  // The input's chunking.
  std::vector<std::string_view> chunks;
  if (sizes.empty()) {
    chunks = {text.substr(0, 0), text, text.substr(text.size())};
  } else {
    std::size_t at = 0;
    while (at < text.size()) {
      const std::size_t cycle_start = at;
      for (const std::size_t s : sizes) {
        const std::size_t take = std::min(s, text.size() - at);
        chunks.push_back(text.substr(at, take));
        at += take;
      }
      if (at == cycle_start) {  // a cycle of empty chunks: the rest at once
        chunks.push_back(text.substr(at));
        at = text.size();
      }
    }
    chunks.push_back(text.substr(text.size()));
  }
  stream_and_compare(pair.streamed, chunks, text, whole, stop_at_first, describe_chunks(chunks));

  // One byte at a time, an empty chunk after each.
  chunks.clear();
  for (std::size_t i = 0; i < text.size(); ++i) {
    chunks.push_back(text.substr(i, 1));
    chunks.push_back(text.substr(i + 1, 0));
  }
  stream_and_compare(pair.streamed, chunks, text, whole, stop_at_first, "one byte at a time");
  return 0;
}
