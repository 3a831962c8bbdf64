// The bodies of json_text.hpp: the SAX handler and BasicJsonText::read. Included by it in
// the header-only build; groundplane::compiled instantiates them once for nlohmann::json.
#pragma once

#include "groundplane/json_text.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/text/escape.hpp"

namespace groundplane {
namespace detail {

// The SAX handler building a JsonText (nlohmann's SAX concept; no virtual dispatch).
template <class Json>
struct JsonTextReader {
  using json = Json;
  using number_integer_t = typename json::number_integer_t;
  using number_unsigned_t = typename json::number_unsigned_t;
  using number_float_t = typename json::number_float_t;
  using string_t = typename json::string_t;
  using binary_t = typename json::binary_t;

  struct Frame {
    json* node = nullptr;
    bool array = false;
    std::string key;                                        // object: the key being read
    std::vector<std::pair<std::size_t, NumberText>> texts;  // array: lexemes by index, bound at the end
  };

  // An empty document for a reader to fill (the stream's, which reads text as it comes).
  static BasicJsonText<Json> empty_document() { return BasicJsonText<Json>(); }

  BasicJsonText<Json>& doc;
  const JsonTextOptions& options;
  std::string_view original;
  const std::vector<JsonNumberSubstitute>& substitutes;
  std::vector<Frame> frames;
  json* target = nullptr;  // where an object's next value goes
  std::size_t numbers = 0;
  std::size_t next_substitute = 0;
  bool too_deep = false;

  // The JSON Pointer of the value being placed (with_last) or of the innermost container.
  std::string pointer(bool with_last) const {
    std::string out;
    const std::size_t count = with_last ? frames.size() : (frames.empty() ? 0 : frames.size() - 1);
    for (std::size_t i = 0; i < count; ++i) {
      out += '/';
      if (frames[i].array) out += std::to_string(frames[i].node->size() - 1);
      else out += pointer_token(frames[i].key);
    }
    return out;
  }

  json* place(json v) {
    if (frames.empty()) {
      *doc.value_ = std::move(v);
      return doc.value_.get();
    }
    Frame& f = frames.back();
    if (f.array) {
      auto& a = f.node->template get_ref<typename json::array_t&>();
      a.push_back(std::move(v));
      return &a.back();
    }
    *target = std::move(v);
    return target;
  }

  void keep_text(json* at, NumberText text) {
    if (frames.empty()) doc.root_text_ = std::move(text);
    else if (frames.back().array) frames.back().texts.emplace_back(frames.back().node->size() - 1, std::move(text));
    else doc.texts_.emplace(at, std::move(text));
  }

  bool number(json v, const string_t* lexeme) {
    const std::size_t ordinal = numbers++;
    if (next_substitute < substitutes.size() && substitutes[next_substitute].ordinal == ordinal) {
      const auto& sub = substitutes[next_substitute++];
      const std::string_view written = original.substr(sub.offset, sub.length);
      NumberText text;
      if (sub.out_of_range) {
        text.text = json_excerpt(written);
        text.out_of_range = true;
        ++doc.out_of_range_count_;
        json* at = place(json(nullptr));
        if (doc.out_of_range_.size() < options.max_listed)
          doc.out_of_range_.push_back({pointer(true), sub.offset, text.text});
        keep_text(at, std::move(text));
      } else {
        text.text = std::string(written);
        const double inf = std::numeric_limits<double>::infinity();
        json* at = place(json(sub.negative ? -inf : inf));
        keep_text(at, std::move(text));
      }
      return true;
    }
    json* at = place(std::move(v));
    if (lexeme) keep_text(at, NumberText{*lexeme, false});
    return true;
  }

  bool null() { return place(json(nullptr)), true; }
  bool boolean(bool b) { return place(json(b)), true; }
  bool number_integer(number_integer_t v) { return number(json(v), nullptr); }
  bool number_unsigned(number_unsigned_t v) { return number(json(v), nullptr); }
  bool number_float(number_float_t v, const string_t& s) { return number(json(v), &s); }
  bool string(string_t& s) { return place(json(std::move(s))), true; }
  bool binary(binary_t&) { return false; }  // JSON text has none

  bool open(json v, bool array) {
    if (frames.size() >= options.max_depth) {
      too_deep = true;
      return false;
    }
    json* at = place(std::move(v));
    frames.push_back({at, array, {}, {}});
    return true;
  }
  bool start_object(std::size_t) { return open(json::object(), false); }
  bool start_array(std::size_t) { return open(json::array(), true); }

  bool key(string_t& k) {
    Frame& f = frames.back();
    auto& object = f.node->template get_ref<typename json::object_t&>();
    const auto it = object.find(k);
    if (it != object.end()) {
      ++doc.duplicate_count_;
      target = doc.repeats_.emplace_back(std::make_unique<nlohmann::json>()).get();
      if (doc.duplicates_.size() < options.max_listed)
        doc.duplicates_.push_back({pointer(false), k, &it->second, target});
    } else {
      target = &object[k];
    }
    f.key = std::move(k);
    return true;
  }
  bool end_object() {
    frames.pop_back();
    return true;
  }
  bool end_array() {
    Frame& f = frames.back();
    auto& a = f.node->template get_ref<typename json::array_t&>();
    for (auto& [index, text] : f.texts) doc.texts_.emplace(&a[index], std::move(text));
    frames.pop_back();
    return true;
  }

  template <class Exception>
  bool parse_error(std::size_t position, const std::string&, const Exception& e) {
    std::string reason = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 4: syntax error ..."
    if (const auto col = reason.find(", column "); col != std::string::npos) {
      if (const auto colon = reason.find(": ", col); colon != std::string::npos) reason.erase(0, colon + 2);
    } else if (const auto bracket = reason.find("] "); bracket != std::string::npos) {
      reason.erase(0, bracket + 2);
    }
    // "…; last read: '<what it read>'" quotes the model's own text, as long as it wrote it
    // (a string never closed): keep its first bytes, cut on a character boundary.
    if (const auto last = reason.find("last read: '"); last != std::string::npos) {
      const std::size_t from = last + 12;
      constexpr std::size_t keep = detail::render_cap / 2;
      if (reason.size() > from + keep + 1) {
        std::size_t cut = from + keep;
        while (cut > from && (static_cast<unsigned char>(reason[cut]) & 0xC0U) == 0x80U) --cut;
        reason.replace(cut, std::string::npos, "...'");
      }
    }
    // nlohmann counts the byte it stopped on as read.
    const std::size_t offset = position == 0 ? 0 : position - 1;
    doc.error_ = JsonTextError{offset < original.size() ? offset : original.size(), std::move(reason)};
    return false;
  }
};

}  // namespace detail

template <class Json>
BasicJsonText<Json> BasicJsonText<Json>::read(std::string_view text, const JsonTextOptions& options) {
  BasicJsonText doc;
  const detail::JsonPrescan scan = detail::json_prescan(text, options);
  std::string rewritten;
  std::string_view input = text;
  if (!scan.substitutes.empty()) {
    rewritten = detail::blank_substitutes(text, scan);
    input = rewritten;
  }
  detail::JsonTextReader<Json> reader{doc, options, text, scan.substitutes, {}, nullptr, 0, 0, false};
  reader.frames.reserve(8);  // one allocation for the usual depths, not one per doubling
  bool ok = false;
  try {
    // nlohmann's parser itself, not Json::sax_parse: that one chooses the input format at
    // run time, so it also compiles the CBOR, MessagePack, UBJSON and BSON readers into
    // every translation unit that reads JSON text (about a tenth of the umbrella's cost).
    using Adapter = decltype(nlohmann::detail::input_adapter(input.begin(), input.end()));
    ok = nlohmann::detail::parser<Json, Adapter>(nlohmann::detail::input_adapter(input.begin(), input.end()))
             .sax_parse(&reader, true);
  } catch (const typename Json::exception& e) {  // defensive: sax_parse reports through parse_error
    doc.error_ = JsonTextError{0, e.what()};
  }
  if (!ok && !doc.error_) {
    if (reader.too_deep)
      doc.error_ = JsonTextError{scan.too_deep_at.value_or(0),
                                 "nesting deeper than " + std::to_string(options.max_depth) + " arrays/objects"};
    else doc.error_ = JsonTextError{0, "not JSON text"};
  }
  // nlohmann's lexer takes a NUL byte for the end of its input: what follows one would
  // never be read, so `{...}\0{...}` passed as its first value. JSON text holds no NUL
  // outside a string (and a string holds none unescaped): one is always an error, at its
  // offset, named for what it is.
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    if (!doc.error_) {
      doc.error_ = JsonTextError{nul, "syntax error while parsing value - unexpected NUL byte; expected end of input"};
    } else if (doc.error_->offset == nul) {
      if (const auto at = doc.error_->reason.find("unexpected end of input"); at != std::string::npos)
        doc.error_->reason.replace(at, 23, "unexpected NUL byte");
    }
  }
  if (doc.error_) {
    BasicJsonText failed;
    failed.error_ = std::move(doc.error_);
    return failed;
  }
  return doc;
}

}  // namespace groundplane
