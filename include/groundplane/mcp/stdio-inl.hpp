// The bodies of mcp/stdio.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/mcp/stdio.hpp"

#include <exception>
#include <istream>
#include <optional>
#include <ostream>
#include <streambuf>
#include <string>

#include "groundplane/detail/text/escape.hpp"
#include "groundplane/mcp/line_reader.hpp"

namespace groundplane::mcp {

GROUNDPLANE_INLINE void Server::serve(std::istream& in, std::ostream& out) {
  std::streambuf* buf = in.rdbuf();
  if (!buf) return;
  std::string line;
  detail::LineReader reader;
  bool unflushed = false;
  const auto flush = [&] {
    if (!unflushed) return;
    out.flush();
    unflushed = false;
  };
  const auto closed = [&] {
    if (out) return false;
    protocol_.log("the output stream closed; stopping");
    return true;
  };
  for (;;) {
    const detail::LineRead r = reader.next(*buf, line, protocol_.options().max_line_bytes, flush);
    if (closed()) return;
    if (r.end == detail::LineEnd::eof) break;
    std::optional<std::string> reply;
    if (r.too_long) {
      protocol_.note("skipped a " + std::to_string(r.bytes) + "-byte line: over the " +
                     std::to_string(protocol_.options().max_line_bytes) + "-byte limit");
      reply = detail::dump(Protocol::error_response(
          nullptr, error_code::invalid_request,
          "Invalid Request: the message is " + std::to_string(r.bytes) + " bytes, over this server's limit of " +
              std::to_string(protocol_.options().max_line_bytes) + "; it was skipped"));
    } else {
      try {
        reply = protocol_.handle_line(line, r.end == detail::LineEnd::eof_after_text);
      } catch (const std::exception& e) {  // out of memory while parsing, say: answer, carry on
        protocol_.log("internal error: " + groundplane::detail::escape(e.what(), 300));
        reply = detail::dump(Protocol::error_response(nullptr, error_code::internal_error,
                                                      "Internal error: " + groundplane::detail::escape(e.what(), 300)));
      } catch (...) {
        protocol_.log("internal error: a non-standard exception");
        reply = detail::dump(
            Protocol::error_response(nullptr, error_code::internal_error, "Internal error: a non-standard exception"));
      }
    }
    if (reply) {
      out << *reply << '\n';
      unflushed = true;
      if (closed()) return;
    }
    if (r.end != detail::LineEnd::newline) break;
  }
  flush();
  if (closed()) return;
  protocol_.note("input ended; exiting");
}

}  // namespace groundplane::mcp
