// The bodies of mcp/jsonrpc.hpp: included by it in the header-only build, compiled once
// into groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/mcp/jsonrpc.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "groundplane/detail/text/escape.hpp"
#include "groundplane/render.hpp"

namespace groundplane::mcp::detail {

GROUNDPLANE_INLINE nlohmann::ordered_json success(const nlohmann::ordered_json& id, nlohmann::ordered_json result) {
  nlohmann::ordered_json r;
  r["jsonrpc"] = "2.0";
  r["id"] = id;
  r["result"] = std::move(result);
  return r;
}

GROUNDPLANE_INLINE nlohmann::ordered_json error_response(const nlohmann::ordered_json& id, int code,
                                                         std::string message) {
  nlohmann::ordered_json error;
  error["code"] = code;
  error["message"] = std::move(message);
  nlohmann::ordered_json r;
  r["jsonrpc"] = "2.0";
  r["id"] = id;
  r["error"] = std::move(error);
  return r;
}

GROUNDPLANE_INLINE std::string success_text(const nlohmann::ordered_json& id, std::string_view result) {
  std::string out;
  out.reserve(32 + result.size());
  out += R"({"jsonrpc":"2.0","id":)";
  out += dump(id);
  out += R"(,"result":)";
  out += result;
  out += '}';
  return out;
}

GROUNDPLANE_INLINE const nlohmann::ordered_json& empty_object() {
  static const nlohmann::ordered_json e = nlohmann::ordered_json::object();
  return e;
}

GROUNDPLANE_INLINE Written Written::text(std::string text) {
  Written w(nullptr);
  w.text_ = std::move(text);
  w.is_text_ = true;
  return w;
}

GROUNDPLANE_INLINE void append_json(std::string& out, std::string_view s) {
  // One table lookup per byte: 0 copied as it is, 1 one of the three escapes, 2 anything
  // the serializer must write (a control character, a byte of UTF-8).
  static constexpr auto kind = [] {
    std::array<std::uint8_t, 256> k{};
    for (std::size_t c = 0; c < k.size(); ++c) k[c] = c >= ' ' && c <= '~' ? 0 : 2;
    k['"'] = k['\\'] = k['\n'] = 1;
    return k;
  }();
  const std::size_t start = out.size();
  out += '"';
  std::size_t run = 0;  // where the run not yet copied begins
  for (std::size_t i = 0; i < s.size(); ++i) {
    const std::uint8_t k = kind[static_cast<unsigned char>(s[i])];
    if (k == 0) continue;
    if (k == 2) {
      out.resize(start);
      out += dump(nlohmann::ordered_json(s));
      return;
    }
    out.append(s.data() + run, i - run);
    out += s[i] == '\n' ? std::string_view("\\n") : s[i] == '"' ? std::string_view("\\\"") : std::string_view("\\\\");
    run = i + 1;
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

// An invalid message's Incoming: the error response it is answered with.
GROUNDPLANE_INLINE Incoming invalid_message(const nlohmann::ordered_json& id, int code, std::string message) {
  Incoming in;
  in.error = error_response(id, code, std::move(message));
  return in;
}

GROUNDPLANE_INLINE std::string json_type(const nlohmann::ordered_json& j) {
  return std::string(groundplane::detail::type_name(j));
}

GROUNDPLANE_INLINE Incoming read_incoming(const nlohmann::ordered_json& message) {
  using Kind = Incoming::Kind;
  if (message.is_array())
    return invalid_message(nullptr, error_code::invalid_request,
                           "Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them); "
                           "send one message per line");
  if (!message.is_object())
    return invalid_message(nullptr, error_code::invalid_request,
                           "Invalid Request: a JSON-RPC message is an object, got " + json_type(message));

  const auto id_it = message.find("id");
  const bool has_id = id_it != message.end();
  const bool id_ok = has_id && (id_it->is_string() || id_it->is_number_integer());
  const nlohmann::ordered_json id = id_ok ? *id_it : nlohmann::ordered_json(nullptr);

  const auto version = message.find("jsonrpc");
  if (version == message.end() || !version->is_string() || *version != "2.0")
    return invalid_message(id, error_code::invalid_request, "Invalid Request: \"jsonrpc\" must be \"2.0\"");

  const auto method = message.find("method");
  if (method == message.end()) {
    if (message.contains("result") || message.contains("error")) return Incoming{.kind = Kind::response};
    return invalid_message(id, error_code::invalid_request, "Invalid Request: no \"method\"");
  }
  if (!method->is_string())
    return invalid_message(id, error_code::invalid_request,
                           "Invalid Request: \"method\" must be a string, got " + json_type(*method));
  if (has_id && !id_ok)
    return invalid_message(nullptr, error_code::invalid_request,
                           "Invalid Request: \"id\" must be a string or an integer, got " + json_type(*id_it));
  const std::string& name = method->get_ref<const std::string&>();
  if (!has_id) return Incoming{.kind = Kind::notification, .method = name};
  if (name.rfind("notifications/", 0) == 0)
    return invalid_message(
        id, error_code::invalid_request,
        "Invalid Request: " + groundplane::detail::quote(name) + " is a notification and must not carry an id");

  const auto params = message.find("params");
  const bool has_params = params != message.end() && !params->is_null();
  if (has_params && !params->is_object())
    return invalid_message(id, error_code::invalid_params,
                           "Invalid params: params must be an object, got " + json_type(*params));
  return Incoming{.kind = Kind::request,
                  .id = id,
                  .method = name,
                  .params = has_params ? &*params : &empty_object(),
                  .has_params = has_params};
}

}  // namespace groundplane::mcp::detail
