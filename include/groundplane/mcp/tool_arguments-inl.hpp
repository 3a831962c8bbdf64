// The bodies of mcp/tool_arguments.hpp: included by it in the header-only build, compiled
// once into groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/mcp/tool_arguments.hpp"

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "groundplane/detail/text/escape.hpp"
#include "groundplane/render.hpp"

namespace groundplane::mcp::detail {

GROUNDPLANE_INLINE Arguments::Arguments(std::string_view tool, const nlohmann::ordered_json& args,
                                        std::initializer_list<std::string_view> known,
                                        std::optional<std::string_view> inline_name)
    : tool_(tool), args_(args), inline_name_(inline_name) {
  for (auto it = args_.begin(); it != args_.end(); ++it) {
    if (inline_name_ && it.key() == "kind") continue;
    bool ok = false;
    for (auto k : known) ok = ok || it.key() == k;
    if (ok) continue;
    std::string list;
    for (auto k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    fail(std::string(tool_) + " has no argument " + groundplane::detail::quote(it.key()) + "; its arguments are " +
         (list.empty() ? std::string("none") : list));
  }
}

GROUNDPLANE_INLINE const nlohmann::ordered_json* Arguments::find(std::string_view key) const {
  const auto it = args_.find(key);
  return it == args_.end() || it->is_null() ? nullptr : &*it;
}

GROUNDPLANE_INLINE const nlohmann::ordered_json& Arguments::required(std::string_view key,
                                                                     std::string_view what) const {
  const auto* v = find(key);
  if (!v) fail(std::string(tool_) + " needs " + groundplane::detail::quote(key) + " (" + std::string(what) + ")");
  return *v;
}

GROUNDPLANE_INLINE std::string Arguments::string(std::string_view key) const {
  if (inline_name_ && key == "name") return std::string(*inline_name_);
  const auto& v = required(key, "a string");
  if (!v.is_string()) wrong(key, "a string", v);
  return v.get<std::string>();
}

GROUNDPLANE_INLINE std::optional<std::string> Arguments::optional_string(std::string_view key) const {
  const auto* v = find(key);
  if (!v) return std::nullopt;
  if (!v->is_string()) wrong(key, "a string", *v);
  return v->get<std::string>();
}

GROUNDPLANE_INLINE nlohmann::ordered_json Arguments::call_args() const {
  const auto* v = find("args");
  if (!v) return nlohmann::ordered_json::object();
  if (!v->is_object()) wrong("args", "an object of the producing call's arguments", *v);
  return *v;
}

GROUNDPLANE_INLINE void Arguments::wrong(std::string_view key, std::string_view expected,
                                         const nlohmann::ordered_json& got) const {
  fail(std::string(tool_) + ": " + groundplane::detail::quote(key) + " must be " + std::string(expected) + ", got " +
       std::string(groundplane::detail::type_name(got)));
}

GROUNDPLANE_INLINE void Arguments::fail(const std::string& message) {
  throw BadArguments("invalid arguments: " + message);
}

}  // namespace groundplane::mcp::detail
