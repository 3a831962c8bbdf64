// The numbers a model stated, as it wrote them.
//
// A check reads a number from the model's output with gp::stated_number(node), never
// with Decimal::from_json directly. Given a nlohmann::json, both agree. While
// Boundary::try_submit_json runs the checks, the output came as text and a number node
// may carry the digits it was written with (gp::JsonText): stated_number("0.50") then
// has two decimals, not the one of the double 0.5; "12345678901234567890.25" and
// "1e400" are exact; a number past JsonText's bound is no number at all (nullopt, as a
// non-finite one is). The text is reached through a thread-local pointer set for the
// duration of those checks, so the Check concept stays a function of a json.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "groundplane/decimal.hpp"

namespace groundplane {
namespace detail {

// The text a number node of the model's output was written with.
struct StatedText {
  std::string_view text;
  bool out_of_range = false;
};

struct StatedNumbers {
  const void* doc = nullptr;
  bool (*lookup)(const void* doc, const nlohmann::json& node, StatedText& out) = nullptr;
};

// Per thread, set only by StatedNumbersScope for the duration of one submission's checks.
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables)
inline thread_local const StatedNumbers* stated_numbers = nullptr;

// The number node's text, when the output came as text and the node kept one.
inline std::optional<StatedText> stated_text(const nlohmann::json& node) {
  const StatedNumbers* s = stated_numbers;
  if (s == nullptr || !(node.is_number_float() || node.is_null())) return std::nullopt;  // null: out of range
  StatedText out;
  if (!s->lookup(s->doc, node, out)) return std::nullopt;
  return out;
}

// The stated numbers of a document with number_text(node) (a JsonText, a stream's reader),
// which must outlive what is returned.
template <class Doc>
StatedNumbers stated_numbers_of(const Doc& doc) {
  return {&doc, [](const void* d, const nlohmann::json& node, StatedText& out) {
            const auto* t = static_cast<const Doc*>(d)->number_text(node);
            if (t == nullptr) return false;
            out = {t->text, t->out_of_range};
            return true;
          }};
}

// Sets the stated numbers for one scope (RAII), restoring what was there.
class StatedNumbersScope {
 public:
  explicit StatedNumbersScope(const StatedNumbers* numbers) noexcept : saved_(stated_numbers) {
    stated_numbers = numbers;
  }
  ~StatedNumbersScope() { stated_numbers = saved_; }
  StatedNumbersScope(const StatedNumbersScope&) = delete;
  StatedNumbersScope& operator=(const StatedNumbersScope&) = delete;

 private:
  const StatedNumbers* saved_;
};

}  // namespace detail

// A number the model stated, exactly as written when its output came as text; nullopt
// for a non-number, a non-finite double, or a number out of JsonText's range.
inline std::optional<Decimal> stated_number(const nlohmann::json& said) {
  if (const auto text = detail::stated_text(said)) {
    if (text->out_of_range) return std::nullopt;
    try {
      return Decimal::parse(text->text);
    } catch (const InvalidNumber&) {  // JsonText's bound lies inside parse's; defensive
      return std::nullopt;
    }
  }
  return Decimal::from_json(said);
}

}  // namespace groundplane
