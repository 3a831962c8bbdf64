// Fuzz prose with checked slots (BoundaryOptions::prose_field) on templates built from the
// input: recorded names written in look-alike letters (fullwidth, mathematical, circled,
// other scripts' letters that read as Latin ones, case changed, a zero-width space or a
// soft hyphen inside), words that are no name, slots and braces that are none, numbers of
// any form, and signs, digits and points written against a numeric slot.
//
// Input format:
//   byte 0      bit 0: the rest of the input is the template as it stands (any bytes);
//               otherwise it is built token by token:
//   each token  a kind byte, then the bytes that choose its letters' disguises; tokens
//               are separated by one space (what is written against a slot is one token).
//
// Beyond "no crash":
//   * try_submit and try_submit_json never throw, and agree;
//   * the prose's findings are at most nine, and every finding is safe to show a model;
//   * a recorded name, however it is disguised, is a finding quoting it exactly (checked
//     when the findings are not capped), and a word that is no name never is;
//   * a sign, point or digit glued before the numeric slot, or a digit or a point and a
//     digit glued after it, is a finding quoting it; a full stop after it is not;
//   * an accepted template renders exactly: each slot as its value, "{{" and "}}" single,
//     escaped as every rendered string is.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "groundplane/boundary.hpp"
#include "groundplane/checks/superlative.hpp"
#include "groundplane/detail/text/escape.hpp"
#include "groundplane/detail/text/unicode.hpp"
#include "groundplane/registry.hpp"

namespace gp = groundplane;
using nlohmann::json;

namespace {

std::string utf8(char32_t cp) {
  std::string out;
  gp::detail::append_utf8(out, cp);
  return out;
}

// Letters of other scripts whose UTS #39 skeleton is one Latin small letter (found with
// ICU's spoof checker), by that letter; 0 ends a list.
constexpr char32_t script_alikes[26][3] = {
    {0x0430, 0x03B1, 0}, {0, 0, 0},      {0x0441, 0x03F2, 0}, {0x0501, 0, 0},      {0x0435, 0x04BD, 0},
    {0x0584, 0, 0},      {0x0261, 0, 0}, {0x04BB, 0x0570, 0}, {0x0456, 0x0131, 0}, {0x0458, 0x03F3, 0},
    {0, 0, 0},           {0, 0, 0},      {0, 0, 0},           {0x0578, 0, 0},      {0x043E, 0x03BF, 0},
    {0x0440, 0x03C1, 0}, {0x051B, 0, 0}, {0x0433, 0, 0},      {0x0455, 0, 0},      {0, 0, 0},
    {0x03C5, 0x057D, 0}, {0x03BD, 0, 0}, {0x0461, 0x051D, 0}, {0x0445, 0, 0},      {0x0443, 0, 0},
    {0x1D22, 0, 0},
};

// A lower-case ASCII letter as one of the forms a reader sees as it: itself, its capital,
// fullwidth, mathematical bold or sans-serif (small or capital), circled, or a letter of
// another script; sometimes followed by an invisible character.
std::string disguise(char letter, fuzz::Bytes& in) {
  const auto i = static_cast<char32_t>(letter - 'a');
  const std::uint8_t choice = in.byte();
  std::string out;
  switch (choice % 10) {
    case 0:
      out = std::string(1, letter);
      break;
    case 1:
      out = std::string(1, static_cast<char>(letter - 32));
      break;
    case 2:
      out = utf8(0xFF41 + i);  // fullwidth small
      break;
    case 3:
      out = utf8(0xFF21 + i);  // fullwidth capital
      break;
    case 4:
      out = utf8(0x1D41A + i);  // mathematical bold small
      break;
    case 5:
      out = utf8(0x1D400 + i);  // mathematical bold capital
      break;
    case 6:
      out = utf8(0x1D5BA + i);  // mathematical sans-serif small
      break;
    case 7:
      out = utf8(0x24D0 + i);  // circled small
      break;
    default: {
      const char32_t* alikes = script_alikes[i];
      const std::size_t n = alikes[0] == 0 ? 0 : alikes[1] == 0 ? 1 : 2;
      out = n == 0 ? std::string(1, letter) : utf8(alikes[(choice / 10) % n]);
      break;
    }
  }
  if ((choice & 0x80) != 0 && (choice & 0x40) != 0) out += (choice & 0x20) != 0 ? "\xE2\x80\x8B" : "\xC2\xAD";
  return out;
}

struct Template {
  std::string text;
  std::string rendered;                  // what an accepted template renders as
  std::vector<std::string> names;        // each recorded name written, as written
  std::vector<std::string> glued;        // each "against the slot" case written, as a finding quotes it
  std::vector<std::string> not_against;  // what must not be such a finding
};

const char* const recorded[] = {"north", "harbour", "delta", "west bay"};
const char* const fillers[] = {"led", "the", "week", "with", "ahead", "of", "at", "market", "bayou", "northern"};

Template build(fuzz::Bytes& in) {
  Template t;
  bool first = true;
  while (!in.empty() && t.text.size() < 4000) {
    const std::uint8_t kind = in.byte();
    std::string written;
    std::string rendered;
    switch (kind % 12) {
      case 0:
      case 1: {  // a recorded name, each letter disguised
        for (const char c : std::string_view(recorded[in.pick(4)]))
          written += c == ' ' ? std::string(" ") : disguise(c, in);
        t.names.push_back(written);
        rendered = written;
        break;
      }
      case 2:
      case 3:  // a word that is no name, disguised as well
        for (const char c : std::string_view(fillers[in.pick(10)])) written += disguise(c, in);
        rendered = written;
        break;
      case 4:
        written = "{winner}";
        rendered = "harbour";
        break;
      case 5:
        written = "{score}";
        rendered = "0.0455";
        break;
      case 6: {  // a sign, point or digit glued before the numeric slot
        static const char* const before[] = {"-", "+", ".", "7", "l", "\xE2\x88\x92", "\xEF\xBC\x8D"};
        const std::string b = before[in.pick(7)];
        written = b + "{score}";
        rendered = b + "0.0455";
        t.glued.push_back(written);
        break;
      }
      case 7: {  // after it: a digit, a point and a digit, or a full stop that ends a sentence
        static const char* const after[] = {"5", ".5", ".", "l"};
        const std::size_t which = in.pick(4);
        written = std::string("{score}") + after[which];
        rendered = std::string("0.0455") + after[which];
        if (which == 2) t.not_against.push_back(written);
        else t.glued.push_back(written);
        break;
      }
      case 8: {  // braces that are no slot, and literal ones
        static const char* const braces[] = {"{{", "}}", "{ winner}", "{}", "}", "{"};
        static const char* const shown[] = {"{", "}", "", "", "", ""};
        const std::size_t which = in.pick(6);
        written = braces[which];
        rendered = shown[which];
        break;
      }
      case 9: {  // a number of another form
        static const char* const numbers[] = {"3", "\xD9\xA3", "\xC2\xB2", "\xE2\x91\xA0", "\xEF\xBC\x91"};
        written = numbers[in.pick(5)];
        rendered = written;
        break;
      }
      case 10:
        written = "{missing}";
        break;
      default:
        written = "{note}";
        rendered = "B2";
        break;
    }
    if (!first) {
      t.text += ' ';
      t.rendered += ' ';
    }
    t.text += written;
    t.rendered += rendered;
    first = false;
  }
  return t;
}

const gp::FactRegistry& registry() {
  static gp::FactRegistry reg;
  static const bool recorded_once = [] {
    reg.record_ranking("ctr", {{"north", 0.0412}, {"harbour", 0.0455}, {"delta", 0.0301}},
                       {.key = "ctr", .tool = "warehouse.query"});
    reg.record_domain("areas", {"west bay"}, {.tool = "crm.list"});
    return true;
  }();
  (void)recorded_once;
  return reg;
}

bool among(const std::vector<gp::Finding>& findings, const std::string& said) {
  return std::any_of(findings.begin(), findings.end(), [&](const gp::Finding& f) { return f.said == said; });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Bytes in(data, size);
  const bool raw = (in.byte() & 1) != 0;
  Template t;
  if (raw) t.text = std::string(in.rest());
  else t = build(in);

  const json output = {{"winner", "harbour"}, {"score", 0.0455}, {"note", "B2"}, {"summary", t.text}};
  gp::Boundary b(registry(), {"ctr", "areas"}, {.prose_field = "summary", .free_fields = {"note"}},
                 gp::superlative{.fact = "ctr"});
  gp::Verdict v;
  try {
    v = b.try_submit(output);
  } catch (const std::exception& e) {
    FUZZ_CHECK(false, std::string("try_submit threw: ") + e.what(), t.text);
  }
  fuzz::check_verdict(v);
  std::vector<gp::Finding> prose;
  for (const auto& f : v.findings())
    if (f.check == "prose") prose.push_back(f);
  FUZZ_CHECK(prose.size() <= 9, "at most nine prose findings", t.text);
  // The same answer as text is judged alike (a template with invalid UTF-8 is no JSON text).
  if (const std::string text = output.dump(-1, ' ', false, json::error_handler_t::ignore);
      json::accept(text) && json::parse(text) == output) {
    const gp::Verdict as_text = b.try_submit_json(text);
    FUZZ_CHECK(as_text.findings() == v.findings(), "try_submit_json and try_submit agree", t.text);
  }
  if (raw) return 0;

  const bool listed_all = prose.size() <= 8;  // no count of the rest: every finding is there
  if (listed_all) {
    for (const std::string& name : t.names)
      FUZZ_CHECK(among(prose, gp::detail::quote(name)), "a disguised recorded name is a finding quoting it",
                 name + "\n in: " + t.text);
    for (const std::string& glued : t.glued)
      FUZZ_CHECK(among(prose, gp::detail::quote(glued)), "a sign, point or digit against the slot is a finding",
                 glued + "\n in: " + t.text);
  }
  for (const auto& f : prose) {
    if (f.detail.find("a name recorded in") != std::string::npos) {
      const bool written = std::any_of(t.names.begin(), t.names.end(),
                                       [&](const std::string& n) { return gp::detail::quote(n) == f.said; });
      FUZZ_CHECK(written, "only a recorded name is found as one", f.said + "\n in: " + t.text);
    }
    for (const std::string& fine : t.not_against)
      FUZZ_CHECK(f.said != gp::detail::quote(fine), "a full stop after a slot is prose", t.text);
  }
  // Rendered through the one escaping routine (an invisible character shows as \u{...}).
  if (v.ok())
    FUZZ_CHECK(v.prose() == gp::detail::escape(t.rendered, 8 * t.rendered.size() + 8),
               "an accepted template renders each slot as its value", v.prose());
  return 0;
}
