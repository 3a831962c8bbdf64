// Reading an MCP tool's arguments for gp::mcp::Protocol's tools: each argument by name,
// with messages that say which argument was wrong and what it should have been. A
// tool's arguments of the wrong shape are a developer's mistake (BadArguments, a
// ConfigurationError), answered as a tool error.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "groundplane/detail/linkage.hpp"
#include "groundplane/errors.hpp"

namespace groundplane::mcp::detail {

// A tool's arguments were not the shape its inputSchema documents.
class BadArguments : public ConfigurationError {
 public:
  using ConfigurationError::ConfigurationError;
};

// One call's arguments, checked against the names the tool takes.
class Arguments {
 public:
  // `known`: the arguments the tool takes; any other is refused. `inline_name`: the
  // arguments are an inline fact definition (check's `facts`, --facts FILE), whose name
  // is its key and whose "kind" member chose the tool.
  Arguments(std::string_view tool, const nlohmann::ordered_json& args, std::initializer_list<std::string_view> known,
            std::optional<std::string_view> inline_name = std::nullopt);

  // The argument, or nullptr when it is absent or null.
  const nlohmann::ordered_json* find(std::string_view key) const;
  // The argument; BadArguments naming it and `what` it should be when it is absent.
  const nlohmann::ordered_json& required(std::string_view key, std::string_view what) const;
  std::string string(std::string_view key) const;
  std::optional<std::string> optional_string(std::string_view key) const;
  // The call's own arguments (`args`): an object, {} when absent.
  nlohmann::ordered_json call_args() const;

  [[noreturn]] void wrong(std::string_view key, std::string_view expected, const nlohmann::ordered_json& got) const;
  [[noreturn]] static void fail(const std::string& message);

 private:
  std::string_view tool_;
  const nlohmann::ordered_json& args_;
  std::optional<std::string_view> inline_name_;
};

}  // namespace groundplane::mcp::detail

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/mcp/tool_arguments-inl.hpp"
#endif
