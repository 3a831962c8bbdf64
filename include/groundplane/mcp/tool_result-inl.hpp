// The bodies of mcp/tool_result.hpp: included by it in the header-only build, compiled
// once into groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/mcp/tool_result.hpp"

#include <cstddef>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace groundplane::mcp::detail {

GROUNDPLANE_INLINE nlohmann::ordered_json text_block(std::string text) {
  nlohmann::ordered_json block = object_of(2);
  block["type"] = "text";
  block["text"] = std::move(text);
  return block;
}

GROUNDPLANE_INLINE nlohmann::ordered_json object_of(std::size_t members) {
  nlohmann::ordered_json o = nlohmann::ordered_json::object();
  o.get_ref<nlohmann::ordered_json::object_t&>().reserve(members);
  return o;
}

GROUNDPLANE_INLINE nlohmann::ordered_json tool_result(nlohmann::ordered_json structured, std::string text) {
  nlohmann::ordered_json r = object_of(3);
  r["content"] = nlohmann::ordered_json::array({text_block(std::move(text))});
  r["structuredContent"] = std::move(structured);
  r["isError"] = false;
  return r;
}

GROUNDPLANE_INLINE nlohmann::ordered_json tool_error(std::string message) {
  nlohmann::ordered_json r;
  r["content"] = nlohmann::ordered_json::array({text_block(std::move(message))});
  r["isError"] = true;
  return r;
}

}  // namespace groundplane::mcp::detail
