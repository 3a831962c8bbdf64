// JSON-RPC 2.0 for gp::mcp::Protocol: the error codes, the response objects, a message's
// envelope read and judged before any method runs, and responses written straight to
// text. Nothing here knows an MCP method or a tool.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "groundplane/detail/linkage.hpp"

namespace groundplane::mcp {

// JSON-RPC 2.0 error codes.
namespace error_code {
inline constexpr int parse_error = -32700;
inline constexpr int invalid_request = -32600;
inline constexpr int method_not_found = -32601;
inline constexpr int invalid_params = -32602;
inline constexpr int internal_error = -32603;
}  // namespace error_code

namespace detail {

// A value as every response is written: one line, invalid UTF-8 replaced.
inline std::string dump(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

// {jsonrpc, id, result} and {jsonrpc, id, error: {code, message}}.
nlohmann::ordered_json success(const nlohmann::ordered_json& id, nlohmann::ordered_json result);
nlohmann::ordered_json error_response(const nlohmann::ordered_json& id, int code, std::string message);
// success(id, result) as text, around a result already written as text.
std::string success_text(const nlohmann::ordered_json& id, std::string_view result);

const nlohmann::ordered_json& empty_object();

// What a caller of the protocol takes a response as: the text of a line (handle_line),
// or the JSON value (handle, call_tool), each made as it is taken, never one through
// the other.
enum class Form { text, json };

// A response or a tools/call result: a JSON value, or its text already written. check's
// result, on the path every checked answer takes, is written straight to text: nothing
// is built only to be dumped, and its correction, which it carries twice, is escaped once.
class Written {
 public:
  Written(nlohmann::ordered_json value) : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  static Written text(std::string text);
  bool is_text() const noexcept { return is_text_; }
  // The value, when it was built as one.
  const nlohmann::ordered_json* json() const noexcept { return is_text_ ? nullptr : &value_; }
  std::string take_text() && { return is_text_ ? std::move(text_) : dump(value_); }
  // The value; a result written as text (only ever asked for as text) is read back.
  nlohmann::ordered_json take_json() && { return is_text_ ? nlohmann::ordered_json::parse(text_) : std::move(value_); }

 private:
  nlohmann::ordered_json value_;
  std::string text_;
  bool is_text_ = false;
};

// `s` as a JSON string, appended, byte for byte as nlohmann's serializer writes it. A
// string of printable ASCII and line breaks (a finding's message, a correction, when the
// names in them are ASCII) is copied a run at a time with its three escapes ('"', '\\',
// '\n') written as the serializer writes them; a string holding anything else (another
// control character, UTF-8 to validate) is written by the serializer.
void append_json(std::string& out, std::string_view s);

// One JSON-RPC message as its envelope says: a request to answer, a notification or a
// client's response to drop, or not a valid message (the error to answer it with).
struct Incoming {
  enum class Kind { request, notification, response, invalid };
  Kind kind = Kind::invalid;
  nlohmann::ordered_json id{};                     // a request's id: a string or an integer
  std::string_view method{};                       // a request's or a notification's, in the message
  const nlohmann::ordered_json* params = nullptr;  // a request's params object ({} when it sent none)
  bool has_params = false;                         // whether it sent params
  nlohmann::ordered_json error{};                  // invalid: the error response
};

// Judges the envelope — not a batch, an object, "jsonrpc": "2.0", a string method, an id
// that is a string or an integer, no id on a notification method, params an object —
// in that order, the first failure answered.
Incoming read_incoming(const nlohmann::ordered_json& message);

}  // namespace detail
}  // namespace groundplane::mcp

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/mcp/jsonrpc-inl.hpp"
#endif
