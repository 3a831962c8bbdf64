// JSON text read as it arrives, a chunk at a time, into exactly the gp::JsonText that
// JsonText::read would make of the whole: the same value, number lexemes, repeated keys
// and out-of-range numbers (it drives JsonText's own SAX handler, in the order nlohmann's
// parser would). Each byte is read once; a token cut between chunks carries its state.
//
// It accepts only what JsonText accepts alike. Anything else — a syntax error, invalid
// UTF-8, a lone surrogate escape, nesting past the bound, a byte-order mark done wrong —
// makes it stop reading (failed()): the caller then reads the whole text with
// JsonText::read, whose error names the offset and reason. So the error path needs no
// second implementation of nlohmann's messages, and the reader never guesses.
//
// As values close it reports their JSON Pointer tokens (to a depth the caller chooses),
// which is what lets a stream run a check as soon as the fields it reads are complete.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/json_text-inl.hpp"
#include "groundplane/json_text.hpp"

namespace groundplane::detail {

class JsonPushReader {
 public:
  // Told of each value that closes at a depth at most watch_depth: `path` holds `depth`
  // reference tokens (a key, or an array index in decimal). The root closes at depth 0.
  struct Observer {
    void* context = nullptr;
    void (*closed)(void* context, const std::string* path, std::size_t depth) = nullptr;
    std::size_t watch_depth = 0;
  };

  explicit JsonPushReader(const Observer& observer, const JsonTextOptions& options = {});
  JsonPushReader(const JsonPushReader&) = delete;
  JsonPushReader& operator=(const JsonPushReader&) = delete;

  // Reads the next bytes of the text.
  void read(std::string_view bytes);
  // The text has ended: completes a number or literal left open at the end.
  void end();

  // The whole value has been read, and nothing but whitespace after it (after end()).
  bool complete() const noexcept { return lex_ == Lex::done; }
  // The reader stopped: the text is not one JSON value JsonText reads alike.
  bool failed() const noexcept { return lex_ == Lex::failed; }

  // Every byte given so far.
  const std::string& text() const noexcept { return text_; }
  // The document so far (whole once complete()).
  const JsonText& document() const noexcept { return doc_; }
  // The lexeme of a number node, including one in an array still open (whose lexemes
  // JsonText binds only when the array closes); nullptr as JsonText::number_text.
  const NumberText* number_text(const nlohmann::json& node) const;

 private:
  enum class Lex : unsigned char {
    bom,           // after 0xEF at the start: BB BF must follow
    value,         // a value must come
    value_or_end,  // after '[': a value or ']'
    key_or_end,    // after '{': a key or '}'
    key,           // after ',' in an object
    colon,         // after a key
    after_value,   // ',' or a closing bracket, or (at the root) the end
    string,
    escape,   // after '\' in a string
    unicode,  // inside \uXXXX
    number,
    literal,
    done,
    failed,
  };

  void step(char c);
  // step()'s work in each state (key and key_or_end share one); inline, as step() runs
  // once per byte.
  inline void step_string(char c);
  inline void step_utf8_sequence(char c);
  inline void step_escape(char c);
  inline void step_unicode(char c);
  inline void step_number(char c);
  inline void step_literal(char c);
  inline void step_bom(char c);
  inline void step_value(char c);
  inline void step_value_or_end(char c);
  inline void step_key(char c);
  inline void step_colon(char c);
  inline void step_after_value(char c);
  inline void step_done(char c);
  void begin_value(char c);
  void after_value();
  void close_container(char c);
  void finish_string();
  bool finish_escape_unit();
  void finish_number();
  void finish_literal();
  void closed(std::size_t depth);
  void fail() noexcept { lex_ = Lex::failed; }
  void set_path_token(std::string token);

  Observer observer_;
  JsonTextOptions options_;
  std::string text_;
  JsonText doc_;
  std::vector<JsonNumberSubstitute> substitutes_;
  JsonTextReader<nlohmann::json> reader_;

  Lex lex_ = Lex::value;
  std::size_t offset_ = 0;          // of the next byte, in the whole text
  std::vector<char> open_;          // '{' or '[' per open container
  std::vector<std::size_t> items_;  // per open array: items so far
  std::vector<std::string> path_;   // per open container at most watch_depth deep: the current token
  bool in_key_ = false;             // the string being read is a key
  std::string token_;               // the string, number or literal being read
  std::size_t token_offset_ = 0;    // where a number began
  char utf8_[4] = {};               // a multi-byte UTF-8 sequence being read
  std::size_t utf8_have_ = 0;
  std::size_t utf8_need_ = 0;
  char32_t unit_ = 0;  // a \uXXXX being read
  std::size_t unit_digits_ = 0;
  char32_t high_surrogate_ = 0;      // a \uD800-\uDBFF waiting for its low half
  bool want_low_ = false;            // after a high surrogate: '\' 'u' must follow
  std::size_t literal_matched_ = 0;  // bytes of "true"/"false"/"null" matched
  const char* literal_ = nullptr;
};

}  // namespace groundplane::detail

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/detail/json/json_push_reader-inl.hpp"
#endif
