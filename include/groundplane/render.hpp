// Rendering data values for messages: strings single-quoted and escaped, numbers in
// Decimal form, objects and arrays as compact JSON, every value capped at
// detail::render_cap characters. Built on the one escaping routine (detail/text/escape.hpp).
#pragma once

#include <string>
#include <string_view>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "groundplane/decimal.hpp"
#include "groundplane/detail/checks/stated.hpp"
#include "groundplane/detail/linkage.hpp"
#include "groundplane/detail/text/escape.hpp"

namespace groundplane::detail {

// Character by character, so a long number is cut like any other value.
void put_ascii(BoundedWriter& w, std::string_view text);

template <class BasicJson>
void render_into(BoundedWriter& w, const BasicJson& v, bool nested);

// d's text with the decimals the model wrote: its "0.50" is two decimals, shown as such
// (not in exponent form, and not past 20 added zeros).
inline std::string with_written_decimals(const Decimal& d) {
  std::string shown = d.to_string();
  if (shown.find('e') != std::string::npos) return shown;
  const std::size_t point = shown.find('.');
  const int have = point == std::string::npos ? 0 : static_cast<int>(shown.size() - point - 1);
  if (d.decimals() > have && d.decimals() - have <= 20) {
    if (point == std::string::npos) shown += '.';
    shown.append(static_cast<std::size_t>(d.decimals() - have), '0');
  }
  return shown;
}

// A number the model wrote as text shows its exact value in Decimal form (1e+400,
// 12345678901234567890.25), not the double's, with the decimals it was written with
// (0.50); one out of range shows its first digits (ASCII only: JsonText checked the
// shape).
inline void render_stated_number(BoundedWriter& w, const nlohmann::json& v, const StatedText& stated) {
  if (stated.out_of_range) {
    put_ascii(w, stated.text);
    w.put(" (out of range)", 15);
  } else if (const auto d = stated_number(v)) {
    put_ascii(w, with_written_decimals(*d));
  }
}

// Single-quoted at the top; inside compact JSON a string keeps JSON's double quotes, with
// the same escapes.
inline void render_string(BoundedWriter& w, std::string_view s, bool nested) {
  if (!nested) return quote_into(w, s);
  if (!w.put("\"", 1)) return;
  escape_into(w, s, '"');
  w.put("\"", 1);
}

template <class BasicJson>
inline void render_number(BoundedWriter& w, const BasicJson& v) {
  if (const auto d = Decimal::from_json(v)) {
    put_ascii(w, d->to_string());
  } else {  // a non-finite double built in code; JSON text cannot carry one
    const double x = v.template get<double>();
    put_ascii(w, x != x ? "nan" : (x < 0 ? "-inf" : "inf"));
  }
}

// As compact JSON, stopping where the value is cut.
template <class BasicJson>
inline void render_array(BoundedWriter& w, const BasicJson& v) {
  if (!w.put("[", 1)) return;
  bool first = true;
  for (const auto& e : v) {
    if (!first && !w.put(",", 1)) return;
    first = false;
    render_into(w, e, true);
    if (w.truncated()) return;
  }
  w.put("]", 1);
}

template <class BasicJson>
inline void render_object(BoundedWriter& w, const BasicJson& v) {
  if (!w.put("{", 1)) return;
  bool first = true;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!first && !w.put(",", 1)) return;
    first = false;
    if (!w.put("\"", 1)) return;
    escape_into(w, it.key(), '"');
    if (!w.put("\":", 2)) return;
    render_into(w, it.value(), true);
    if (w.truncated()) return;
  }
  w.put("}", 1);
}

template <class BasicJson>
void render_into(BoundedWriter& w, const BasicJson& v, bool nested) {
  if constexpr (std::is_same_v<BasicJson, nlohmann::json>) {
    if (const auto stated = stated_text(v)) return render_stated_number(w, v, *stated);
  }
  if (v.is_string()) render_string(w, v.template get_ref<const typename BasicJson::string_t&>(), nested);
  else if (v.is_number()) render_number(w, v);
  else if (v.is_boolean()) w.put(v.template get<bool>() ? "true" : "false", v.template get<bool>() ? 4 : 5);
  else if (v.is_null()) w.put("null", 4);
  else if (v.is_array()) render_array(w, v);
  else if (v.is_object()) render_object(w, v);
  else w.put("(binary)", 8);  // never produced by parsing JSON text
}

// One value as a message shows it: 'harbour', 0.0455, true, null, {"a":1}.
template <class BasicJson>
std::string render(const BasicJson& v, std::size_t cap = render_cap) {
  BoundedWriter w(cap);
  render_into(w, v, false);
  return std::move(w).finish();
}

std::string render(const Decimal& d, std::size_t cap = render_cap);

// What kind of JSON value a model gave, for "expected a number, got a string".
template <class BasicJson>
std::string_view type_name(const BasicJson& v) {
  if constexpr (std::is_same_v<BasicJson, nlohmann::json>) {
    if (const auto stated = stated_text(v)) return stated->out_of_range ? "a number out of range" : "a number";
  }
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_null()) return "null";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  if (v.is_number_float()) {
    const double d = v.template get<double>();
    if (d != d || d - d != 0) return "a non-finite number";
  }
  if (v.is_number()) return "a number";
  return "binary data";
}

}  // namespace groundplane::detail

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/render-inl.hpp"
#endif
