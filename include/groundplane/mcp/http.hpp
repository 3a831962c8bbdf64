// gp::mcp::HttpServer — the MCP server over Streamable HTTP (MCP 2025-11-25), on
// cpp-httplib. Every message is handled by a gp::mcp::Protocol (protocol.hpp), one per
// MCP session, exactly as the stdio transport handles a line; this file is only the
// HTTP: sessions, status codes, the security checks.
//
//   gp::mcp::HttpServer server({.port = 8765});          // checker tools, a registry per session
//   server.bind();                                        // throws ConfigurationError if it cannot
//   server.serve();                                       // until stop() (from any thread)
//
//   gp::Session app(...);
//   gp::mcp::HttpServer agents(app, {.port = 8765});      // the app's own Session, in-process:
//                                                         // whats_here / do_action for every agent
//
// The endpoint is `path` (/mcp):
//   POST    one JSON-RPC message. Without Mcp-Session-Id only initialize is accepted; its
//           answer carries a new Mcp-Session-Id. A request is answered 200 with
//           application/json; a notification or a client's response 202 with no body.
//   DELETE  ends the session named by Mcp-Session-Id (200; 404 if there is none).
//   GET     405: this server never sends a message the client did not ask for (its tool
//           list never changes and nothing it does is long-running), so there is no
//           stream to open. SSE is not needed for JSON responses.
// Refusals, each answered with a JSON-RPC error body (never a dropped connection):
//   403 an Origin that is not this server's own host (or allowed_origins): a web page
//       must not reach a local server through DNS rebinding; and one that is not a
//       serialized origin scheme://host[:port] at all (a path, a user, a bad port)
//   401 token set and Authorization is not "Bearer <token>"
//   400 no session id on a request other than initialize; a batch; text that is not JSON;
//       an MCP-Protocol-Version this server does not speak; a header holding a NUL, CR
//       or LF; a request framed two ways (Content-Length and Transfer-Encoding, or
//       either twice: RFC 9112 6.1), refused before its body is read and the connection
//       closed, so no byte after it is read as a request
//   404 an unknown or expired session id (the client starts a new session)
//   413 a body over max_body_bytes (read no further than the limit, chunked or not; the
//       connection is then closed, so no byte after the body is read as a request)
//   431 a request line and headers over max_header_bytes, or more than max_header_count
//       header lines: counted while read, before any handler or token check; closed
//   408 a request whose line, headers and body took longer than request_timeout; closed
//   429 initialize from a client address holding max_sessions_per_client sessions; a
//       connection from one holding max_connections_per_client connections (answered
//       before anything of it is read, then closed)
//   411 a POST with neither Content-Length nor chunked encoding
//   415 a Content-Type other than application/json
//   503 max_sessions sessions open (Retry-After says when to try again)
//   405 any other method on the endpoint; 404 any other path
// A session idle for longer than idle_timeout is ended; its id is then unknown (404).
#pragma once

#include <httplib.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/detail/text/escape.hpp"
#include "groundplane/errors.hpp"
#include "groundplane/mcp/http_connection.hpp"
#include "groundplane/mcp/protocol.hpp"
#include "groundplane/session.hpp"

namespace groundplane::mcp {

// Member order is API (designated initializers): where, who may connect, limits.
struct HttpOptions {
  std::string host = "127.0.0.1";                             // loopback unless asked otherwise
  int port = 0;                                               // 0: any free port (port() tells)
  bool allow_non_loopback = false;                            // a host that is not loopback must be asked for
  std::string path = "/mcp";                                  // the endpoint
  std::optional<std::string> token{};                         // required as "Authorization: Bearer <token>"
  std::vector<std::string> allowed_origins{};                 // Origins accepted beyond the server's own host
  std::size_t max_body_bytes = std::size_t{8} * 1024 * 1024;  // 413 beyond
  std::size_t max_header_bytes = std::size_t{64} * 1024;      // request line and headers: 431 beyond
  std::size_t max_header_count = 100;                         // header lines: 431 beyond
  std::size_t max_sessions = 1024;                            // 503 beyond
  std::size_t max_sessions_per_client = 256;                  // open sessions one client address may hold: 429 beyond
  std::chrono::seconds idle_timeout{30 * 60};                 // a session unused this long is ended
  std::chrono::seconds read_timeout{10};                      // a connection silent this long is closed
  std::chrono::seconds request_timeout{30};                   // a request's headers and body, whole: 408 beyond
  std::size_t threads = 32;  // connections served at once (one thread each, kept-alive ones too)
  // Connections one client address may hold at once, of the `threads` workers: past it a
  // connection is answered 429 and closed before anything of it is read, so one address's
  // slow or idle connections leave the other workers to everyone else.
  std::size_t max_connections_per_client = 16;
  // The clock sessions age by (idle_timeout): null is std::chrono::steady_clock::now. A
  // test gives one it moves itself instead of sleeping. Connections' timeouts always run
  // on the real clock: they wait on sockets.
  std::function<std::chrono::steady_clock::time_point()> clock = nullptr;
};

// One HTTP request and its answer, as the server's handler sees them (no sockets): what
// HttpServer::handle takes, so tests and the fuzz harness drive the very same code.
struct HttpRequest {
  std::string method;
  std::string path;
  std::vector<std::pair<std::string, std::string>> headers;  // names case-insensitive
  std::string body;
  std::string client{};  // the client's address ("" in-process): whose sessions they are

  std::optional<std::string> header(std::string_view name) const {
    for (const auto& [k, v] : headers)
      if (equal_ignoring_case(k, name)) return v;
    return std::nullopt;
  }
  static bool equal_ignoring_case(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
      if (lower(a[i]) != lower(b[i])) return false;
    }
    return true;
  }
};

struct HttpResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  // JSON (application/json) unless empty
};

namespace detail {

using groundplane::detail::escape;
using groundplane::detail::quote;

// localhost, ::1, or an IPv4 literal in 127.0.0.0/8 — the whole name, not a prefix of
// it: 127.0.0.1.attacker.example is somebody else's host.
inline bool loopback_host(std::string_view host) {
  if (host == "localhost" || host == "::1" || host == "[::1]") return true;
  if (host.substr(0, 4) != "127.") return false;
  int parts = 1, digits = 0;
  for (const char c : host) {
    if (c == '.') {
      if (digits == 0) return false;
      ++parts;
      digits = 0;
    } else if (c >= '0' && c <= '9' && digits < 3) {
      ++digits;
    } else {
      return false;
    }
  }
  return parts == 4 && digits > 0;
}

// Whether an Origin is a serialized origin (RFC 6454 6.2), what a browser sends: a scheme,
// "://", a host (a name or a bracketed IPv6 literal) and perhaps ":" and a port, and
// nothing else — no path, query, fragment, user, blank or empty part.
inline bool serialized_origin(std::string_view origin) {
  const auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  const auto scheme_end = origin.find("://");
  if (scheme_end == std::string_view::npos || scheme_end == 0 || !alpha(origin[0])) return false;
  for (const char c : origin.substr(0, scheme_end))
    if (!alpha(c) && !digit(c) && c != '+' && c != '-' && c != '.') return false;
  std::string_view rest = origin.substr(scheme_end + 3);
  std::size_t host_end = 0;
  if (!rest.empty() && rest.front() == '[') {
    host_end = rest.find(']');
    if (host_end == std::string_view::npos || host_end == 1) return false;
    for (const char c : rest.substr(1, host_end - 1))
      if (!digit(c) && !(c >= 'a' && c <= 'f') && !(c >= 'A' && c <= 'F') && c != ':' && c != '.') return false;
    ++host_end;
  } else {
    while (host_end < rest.size() && (alpha(rest[host_end]) || digit(rest[host_end]) || rest[host_end] == '-' ||
                                      rest[host_end] == '.' || rest[host_end] == '_' || rest[host_end] == '~'))
      ++host_end;
    if (host_end == 0) return false;
  }
  const std::string_view port = rest.substr(host_end);
  if (port.empty()) return true;
  if (port.front() != ':' || port.size() < 2 || port.size() > 6) return false;
  unsigned value = 0;
  for (const char c : port.substr(1)) {
    if (!digit(c)) return false;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  return value <= 65535;
}

// What makes a request's framing ambiguous (RFC 9112 6.1, 6.3), so that a proxy in front
// of the server and the server could read its body, and what follows it, differently:
// both Content-Length and Transfer-Encoding, or either of them twice. Empty when none.
template <class Headers>
std::string ambiguous_framing(const Headers& headers) {
  std::size_t lengths = 0, codings = 0;
  for (const auto& [name, value] : headers) {
    (void)value;
    if (HttpRequest::equal_ignoring_case(name, "Content-Length")) ++lengths;
    else if (HttpRequest::equal_ignoring_case(name, "Transfer-Encoding")) ++codings;
  }
  if (lengths > 0 && codings > 0)
    return "the request has both Content-Length and Transfer-Encoding, which frame its body two ways; send one";
  if (lengths > 1) return "the request has Content-Length twice; send it once";
  if (codings > 1) return "the request has Transfer-Encoding twice; send it once";
  return {};
}

// A header whose name or value holds NUL, CR or LF (RFC 9110 5.5: a recipient must not
// pass one on): its name, for the refusal; nullopt when there is none.
template <class Headers>
std::optional<std::string> header_with_control(const Headers& headers) {
  for (const auto& [name, value] : headers)
    if (name.find_first_of(std::string_view("\0\r\n", 3)) != std::string::npos ||
        value.find_first_of(std::string_view("\0\r\n", 3)) != std::string::npos)
      return std::string(name);
  return std::nullopt;
}

// The host of an Origin ("http://localhost:8765" -> "localhost"); "" when it has none.
inline std::string origin_host(std::string_view origin) {
  const auto scheme = origin.find("://");
  if (scheme == std::string_view::npos) return {};
  std::string_view rest = origin.substr(scheme + 3);
  rest = rest.substr(0, rest.find('/'));
  if (!rest.empty() && rest.front() == '[') {  // an IPv6 literal: only a port may follow it
    const auto close = rest.find(']');
    if (close == std::string_view::npos || (close + 1 < rest.size() && rest[close + 1] != ':')) return {};
    return std::string(rest.substr(0, close + 1));
  }
  return std::string(rest.substr(0, rest.find(':')));
}

// Whether a Content-Type names application/json: its type and subtype in any case
// (RFC 9110 8.3.1), parameters (charset) allowed.
inline bool json_media_type(std::string_view type) {
  type = type.substr(0, type.find(';'));
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };
  while (!type.empty() && blank(type.front())) type.remove_prefix(1);
  while (!type.empty() && blank(type.back())) type.remove_suffix(1);
  return HttpRequest::equal_ignoring_case(type, "application/json");
}

// What the server needs of a message before any session has it: whether it is an
// object, its top-level method and id.
struct Envelope {
  bool object = false;
  std::optional<std::string> method;
  bool has_id = false;
  nlohmann::ordered_json id;  // a string or integer id; null for any other
};

// Reads an Envelope from the parser's events, with no tree, and stops where the nesting
// passes a Protocol's default depth limit (a tree of 8M nested arrays took seconds and
// 600 MB): such a message is answered by a Protocol, which refuses it. A session's
// Protocol reads an accepted message properly afterwards.
class EnvelopeReader {
 public:
  using json = nlohmann::json;
  explicit EnvelopeReader(Envelope& out) : out_(out) {}

  bool null() { return scalar(nullptr); }
  bool boolean(bool b) { return scalar(b); }
  bool number_integer(json::number_integer_t v) { return scalar(v); }
  bool number_unsigned(json::number_unsigned_t v) { return scalar(v); }
  bool number_float(json::number_float_t v, const json::string_t&) { return scalar(v); }
  bool string(json::string_t& v) {
    if (at_top_member("method")) out_.method = v;
    return scalar(std::move(v));
  }
  bool binary(json::binary_t&) { return true; }
  bool start_object(std::size_t) { return open(true); }
  bool start_array(std::size_t) { return open(false); }
  bool key(json::string_t& k) {
    if (depth_ == 1) key_ = std::move(k);
    return true;
  }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  template <class Exception>
  bool parse_error(std::size_t, const std::string&, const Exception&) {
    return false;
  }

 private:
  bool at_top_member(std::string_view name) const { return depth_ == 1 && out_.object && key_ == name; }
  template <class V>
  bool scalar(V&& v) {
    if (at_top_member("id")) {
      out_.has_id = true;
      nlohmann::ordered_json j(std::forward<V>(v));
      out_.id = j.is_string() || j.is_number_integer() ? std::move(j) : nlohmann::ordered_json();
    }
    return true;
  }
  bool open(bool is_object) {
    if (at_top_member("id")) {
      out_.has_id = true;
      out_.id = nullptr;
    }
    if (depth_ == 0) out_.object = is_object;
    // Deeper than a Protocol reads at all: stop here, and let the Protocol say so.
    return ++depth_ <= ServerOptions{}.max_depth;
  }
  bool close() {
    --depth_;
    return true;
  }

  Envelope& out_;
  std::size_t depth_ = 0;
  std::string key_;
};

inline Envelope read_envelope(std::string_view text) {
  Envelope e;
  EnvelopeReader reader(e);
  if (!nlohmann::json::sax_parse(text, &reader)) e.object = false;
  return e;
}

// Equal or not, in time that does not depend on where the first difference is.
inline bool same_secret(std::string_view a, std::string_view b) {
  unsigned diff = a.size() == b.size() ? 0u : 1u;
  for (std::size_t i = 0; i < a.size(); ++i)
    diff |=
        static_cast<unsigned>(static_cast<unsigned char>(a[i]) ^ static_cast<unsigned char>(i < b.size() ? b[i] : 0));
  return diff == 0;
}

// 128 random bits as 32 hex digits: an id nobody can guess (visible ASCII, as MCP asks).
inline std::string new_session_id() {
  thread_local std::random_device device;
  static constexpr char hex[] = "0123456789abcdef";
  std::string id;
  for (int word = 0; word < 4; ++word) {
    auto bits = static_cast<std::uint32_t>(device());
    for (int i = 0; i < 8; ++i, bits >>= 4) id.push_back(hex[bits & 0xfu]);
  }
  return id;
}

}  // namespace detail

class HttpServer {
 public:
  // Makes the Protocol of a new MCP session. It may hold whatever the session needs
  // (an app of its own) alive through the shared_ptr's owner.
  using Factory = std::function<std::shared_ptr<Protocol>()>;

  // Each MCP session gets its own Protocol from `factory`.
  HttpServer(Factory factory, HttpOptions options)
      : options_(std::move(options)),
        factory_(std::move(factory)),
        http_({.max_header_bytes = options_.max_header_bytes,
               .max_header_count = options_.max_header_count,
               .read_timeout = options_.read_timeout,
               .request_timeout = options_.request_timeout,
               .max_connections_per_client = options_.max_connections_per_client},
              connections_full(options_)) {
    validate();
  }
  // The checker tools; each MCP session has its own registry.
  explicit HttpServer(HttpOptions options = {}, const ServerOptions& server = {})
      : HttpServer([server = pooled(server)] { return std::make_shared<Protocol>(server); }, std::move(options)) {}
  // An app serving its own Session: every MCP session has its own registry and drives the
  // same app through whats_here / do_action (the app must outlive the server).
  HttpServer(Session& app, HttpOptions options, const ServerOptions& server = {})
      : HttpServer([&app, server = pooled(server)] { return std::make_shared<Protocol>(app, server); },
                   std::move(options)) {}

  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;
  ~HttpServer() { stop(); }

  // Binds host:port and returns the port (useful with port 0). ConfigurationError when the
  // address cannot be bound.
  int bind() {
    setup();
    if (options_.port == 0) {
      bound_port_ = http_.bind_to_any_port(options_.host);
      if (bound_port_ < 0)
        throw ConfigurationError("cannot listen on " + detail::quote(options_.host) + ": no free port");
    } else {
      if (!http_.bind_to_port(options_.host, options_.port))
        throw ConfigurationError("cannot listen on " + detail::quote(options_.host) + " port " +
                                 std::to_string(options_.port) + " (in use, or not an address of this machine)");
      bound_port_ = options_.port;
    }
    // httplib listens with a queue of CPPHTTPLIB_LISTEN_BACKLOG (5 unless set, and fixed
    // in a compiled httplib): a burst of clients connecting at once overflows it, and the
    // kernel resets some of them. Listening again on the bound socket sets the queue to
    // the system's maximum.
    if (listening_socket_ != INVALID_SOCKET) ::listen(listening_socket_, SOMAXCONN);
    return bound_port_;
  }

  // Serves until stop(); binds first if bind() was not called. Returns false if the
  // listening socket failed.
  bool serve() {
    if (bound_port_ < 0) bind();
    serving_ = true;
    const bool ok = stop_asked_ || http_.listen_after_bind();
    serving_ = false;
    return ok;
  }

  // Stops accepting and returns from serve() once the requests in flight are answered,
  // or makes a serve() not yet listening return at once. Safe from any thread (not from a
  // signal handler: see groundplane-mcp's main).
  void stop() {
    stop_asked_ = true;
    // A serve() that has not seen the request is starting httplib's loop, which stops
    // only once it runs: wait for it.
    while (serving_ && !http_.is_running()) std::this_thread::yield();
    if (http_.is_running()) http_.stop();
  }

  int port() const noexcept { return bound_port_; }
  const HttpOptions& options() const noexcept { return options_; }
  std::size_t session_count() {
    const std::lock_guard lock(sessions_mutex_);
    return sessions_.size();
  }

  // One request through the handler the sockets use.
  HttpResponse handle(const HttpRequest& request) {
    return guarded([&] { return handle_checked(request); });
  }

 private:
  // The sessions' options with a pool for their totals (FactPool's defaults), unless given one.
  static ServerOptions pooled(ServerOptions server) {
    if (!server.pool) server.pool = std::make_shared<FactPool>();
    return server;
  }

  struct Entry {
    std::string client;  // the address that opened it
    std::shared_ptr<Protocol> protocol;
    std::mutex mutex;  // one message at a time per session, as Protocol requires
    std::chrono::steady_clock::time_point last_used;
  };

  // `respond()`, or a 500 saying what escaped it (nothing a client sends should).
  template <class Respond>
  static HttpResponse guarded(Respond&& respond) {
    try {
      return respond();
    } catch (const std::bad_alloc&) {
      return refuse(500, nullptr, error_code::internal_error, "Internal error: out of memory");
    } catch (const std::exception& e) {
      return refuse(500, nullptr, error_code::internal_error, "Internal error: " + detail::escape(e.what(), 300));
    }
  }

  void validate() const {
    if (!factory_) throw ConfigurationError("HttpServer needs a factory for its sessions' protocols");
    if (!detail::loopback_host(options_.host) && !options_.allow_non_loopback)
      throw ConfigurationError(
          "HttpServer: " + detail::quote(options_.host) +
          " is not a loopback address; serving beyond this machine must be asked for "
          "(HttpOptions::allow_non_loopback; groundplane-mcp --allow-non-loopback) and should carry a token");
    if (options_.port < 0 || options_.port > 65535)
      throw ConfigurationError("HttpServer: port " + std::to_string(options_.port) + " is not a TCP port");
    if (options_.max_sessions == 0 || options_.max_sessions_per_client == 0 || options_.max_body_bytes == 0 ||
        options_.threads == 0 || options_.max_connections_per_client == 0 || options_.max_header_bytes == 0 ||
        options_.max_header_count == 0)
      throw ConfigurationError(
          "HttpServer: max_sessions, max_sessions_per_client, max_body_bytes, max_header_bytes, max_header_count, "
          "threads and max_connections_per_client must be positive");
    if (options_.read_timeout.count() <= 0 || options_.request_timeout.count() <= 0)
      throw ConfigurationError("HttpServer: read_timeout and request_timeout must be positive");
    if (options_.token && options_.token->empty()) throw ConfigurationError("HttpServer: the token is empty");
  }

  void setup() {
    if (set_up_) return;
    set_up_ = true;
    set_up_connections();
    set_up_routes();
    set_up_refusals();
  }

  // The listening socket, the thread pool, and what a connection may take: body size,
  // timeouts, keep-alive.
  void set_up_connections() {
    // The listening socket is this server's alone: SO_REUSEADDR (a port in TIME_WAIT can
    // be bound again) and never httplib's default SO_REUSEPORT, with which a second
    // server on the same port bound too and took a share of its connections.
    http_.set_socket_options([this](socket_t sock) {
      int yes = 1;
      ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
      listening_socket_ = sock;
    });
    const std::size_t threads = options_.threads;
    // httplib's hook takes ownership of the raw pointer it is handed.
    http_.new_task_queue = [threads] {
      return new httplib::ThreadPool(threads);  // NOLINT(cppcoreguidelines-owning-memory)
    };
    // httplib refuses a longer body itself (413) before reading it; handle() checks too.
    http_.set_payload_max_length(options_.max_body_bytes);
    // One small response per request: without TCP_NODELAY Nagle and delayed ACKs add ~40 ms.
    http_.set_tcp_nodelay(true);
    http_.set_read_timeout(static_cast<time_t>(options_.read_timeout.count()), 0);
    http_.set_write_timeout(static_cast<time_t>(options_.read_timeout.count()), 0);
    http_.set_keep_alive_timeout(static_cast<time_t>(options_.read_timeout.count()));
    // Clients pool connections and do not all honour "max": closing one after a few
    // requests breaks the next request they send on it.
    http_.set_keep_alive_max_count(100000);
  }

  // A response onto httplib's. A body left unread is not the next request: `close` closes
  // the connection after it.
  static void send_response(const HttpResponse& out, httplib::Response& res, bool close) {
    res.status = out.status;
    for (const auto& [k, v] : out.headers) res.set_header(k, v);
    if (close) res.set_header("Connection", "close");
    if (!out.body.empty()) res.set_content(out.body, "application/json");
  }

  // Every request to handle(), a POST through post_from_socket; one framed two ways to
  // none of them.
  void set_up_routes() {
    const auto adapt = [this](const httplib::Request& req, httplib::Response& res) {
      HttpRequest in = request_of(req);
      in.body = req.body;
      send_response(handle(in), res, false);
    };
    // A POST's headers are judged before its body is read, and the body is read only up to
    // the limit: httplib itself holds a chunked body, or one sent with no length, whole
    // before it checks its size.
    http_.Post(".*",
               [this](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& read_body) {
                 bool body_read = false;
                 const HttpResponse out = guarded([&] { return post_from_socket(req, res, read_body, body_read); });
                 if (!body_read)
                   if (auto* connection = detail::GuardedConnection::current()) connection->close_after();
                 send_response(out, res, !body_read);
               });
    // A request framed two ways is refused before httplib reads its body either way, and
    // the connection closed after the answer (RFC 9112 6.1): a proxy in front may have
    // read the bytes after it as another request, or as this one's body.
    http_.set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
      const std::string framing = detail::ambiguous_framing(req.headers);
      if (framing.empty()) return httplib::Server::HandlerResponse::Unhandled;
      if (auto* connection = detail::GuardedConnection::current()) connection->close_after();
      res.status = 400;
      res.set_header("Connection", "close");
      res.set_content(
          detail::dump(Protocol::error_response(nullptr, error_code::invalid_request, "Bad Request: " + framing)),
          "application/json");
      return httplib::Server::HandlerResponse::Handled;
    });
    // Every other method and path reaches handle(), which answers what is not the endpoint.
    http_.Get(".*", adapt);
    http_.Delete(".*", adapt);
    http_.Put(".*", adapt);
    http_.Patch(".*", adapt);
    http_.Options(".*", adapt);
  }

  // What httplib refuses before a handler runs (413 for a body too long, 400 for a
  // malformed request line) still gets a JSON-RPC body saying why.
  void set_up_refusals() {
    http_.set_error_handler([this](const httplib::Request&, httplib::Response& res) {
      if (!res.body.empty()) return;
      // A request httplib refused could not be read to its end: nothing after it is a request.
      auto* connection = detail::GuardedConnection::current();
      if (connection) connection->close_after();
      const auto stop = connection ? connection->stopped() : detail::GuardedConnection::Stop::none;
      if (stop == detail::GuardedConnection::Stop::headers_too_large) res.status = 431;
      if (stop == detail::GuardedConnection::Stop::deadline) res.status = 408;
      std::string why = res.status == 413   ? "the body is over this server's limit"
                        : res.status == 431 ? "the request line and headers are over this server's limit of " +
                                                  std::to_string(options_.max_header_count) + " header lines and " +
                                                  std::to_string(options_.max_header_bytes) + " bytes"
                        : res.status == 408 ? "the request was not sent within this server's " +
                                                  std::to_string(options_.request_timeout.count()) + " seconds"
                                            : "the HTTP request was refused";
      res.set_content(
          detail::dump(Protocol::error_response(nullptr, error_code::invalid_request, "Invalid Request: " + why)),
          "application/json");
    });
  }

  // A POST off a socket: its headers judged as handle() judges them, then its body read
  // no further than the limit, then post(). body_read: whether the connection can carry
  // another request (no body bytes were left unread).
  HttpResponse post_from_socket(const httplib::Request& req, const httplib::Response& res,
                                const httplib::ContentReader& read_body, bool& body_read) {
    HttpRequest in = request_of(req);
    if (auto refused = refuse_before_body(in)) return std::move(*refused);
    const bool chunked = HttpRequest::equal_ignoring_case(req.get_header_value("Transfer-Encoding"), "chunked");
    if (!chunked && !req.has_header("Content-Length"))
      return refuse(411, nullptr, error_code::invalid_request,
                    "Length Required: send the message with a Content-Length (or chunked)");
    // A length over the limit is refused unread (httplib would read it all to skip it).
    if (!chunked) {
      const std::string length = req.get_header_value("Content-Length");
      if (length.empty() || length.find_first_not_of("0123456789") != std::string::npos)
        return refuse(400, nullptr, error_code::invalid_request, "Bad Request: Content-Length is not a number");
      if (length.size() > 19 || std::stoull(length) > options_.max_body_bytes) return body_too_long(std::nullopt);
    }
    bool over = false;
    const bool read = read_body([&](const char* data, std::size_t n) {
      if (n > options_.max_body_bytes - in.body.size()) {
        over = true;
        return false;
      }
      in.body.append(data, n);
      return true;
    });
    if (over || res.status == 413) return body_too_long(std::nullopt);  // 413: httplib saw Content-Length
    if (!read) return refuse(400, nullptr, error_code::invalid_request, "Bad Request: the body could not be read");
    body_read = true;
    return post(in);
  }

  static HttpRequest request_of(const httplib::Request& req) {
    HttpRequest in{req.method, req.path, {}, {}, req.remote_addr};
    for (const auto& [k, v] : req.headers) in.headers.emplace_back(k, v);
    return in;
  }

  static HttpResponse refuse(int status, const nlohmann::ordered_json& id, int code, std::string message) {
    HttpResponse r;
    r.status = status;
    r.body = detail::dump(Protocol::error_response(id, code, std::move(message)));
    return r;
  }

  bool origin_allowed(const std::string& origin) const {
    for (const auto& allowed : options_.allowed_origins)
      if (allowed == origin) return true;
    // Only a serialized origin names a host: "http://127.0.0.1:8765/x" or
    // "http://127.0.0.1:x" is not one a browser sends, whatever host it seems to name.
    if (!detail::serialized_origin(origin)) return false;
    const std::string host = detail::origin_host(origin);
    if (host.empty()) return false;
    if (host == options_.host || (options_.host == "::1" && host == "[::1]")) return true;
    // A loopback server is reached as localhost, 127.0.0.1 or [::1] alike.
    return detail::loopback_host(options_.host) && detail::loopback_host(host);
  }

  // What refuses a request from its headers alone, before any body is read: another
  // path, a foreign Origin, a missing or wrong token, a protocol version this server does
  // not speak, and for a POST a media type other than JSON.
  std::optional<HttpResponse> refuse_before_body(const HttpRequest& request) const {
    if (const auto named = detail::header_with_control(request.headers))
      return refuse(400, nullptr, error_code::invalid_request,
                    "Bad Request: the header " + detail::quote(*named, 80) +
                        " holds a NUL, CR or LF byte, which no header may hold");
    if (const std::string framing = detail::ambiguous_framing(request.headers); !framing.empty())
      return refuse(400, nullptr, error_code::invalid_request, "Bad Request: " + framing);
    if (request.path != options_.path)
      return refuse(404, nullptr, error_code::invalid_request,
                    "Not found: the MCP endpoint is " + detail::quote(options_.path));
    if (const auto origin = request.header("Origin"); origin && !origin_allowed(*origin))
      return refuse(403, nullptr, error_code::invalid_request,
                    "Forbidden: Origin " + detail::quote(*origin, 120) +
                        (detail::serialized_origin(*origin) ? " is not this server's own host"
                                                            : " is not a serialized origin (scheme://host[:port])"));
    if (options_.token) {
      const auto auth = request.header("Authorization");
      constexpr std::string_view bearer = "Bearer ";
      const bool ok = auth && auth->size() > bearer.size() &&
                      HttpRequest::equal_ignoring_case(std::string_view(*auth).substr(0, bearer.size()), bearer) &&
                      detail::same_secret(std::string_view(*auth).substr(bearer.size()), *options_.token);
      if (!ok) {
        auto r =
            refuse(401, nullptr, error_code::invalid_request,
                   auth ? "Unauthorized: the bearer token is wrong" : "Unauthorized: this server needs a bearer token");
        r.headers.emplace_back("WWW-Authenticate", "Bearer");
        return r;
      }
    }
    if (const auto v = request.header("MCP-Protocol-Version"); v) {
      bool known = false;
      for (auto supported : protocol_versions) known = known || *v == supported;
      if (!known)
        return refuse(400, nullptr, error_code::invalid_request,
                      "Bad Request: MCP-Protocol-Version " + detail::quote(*v, 40) + " is not one this server speaks");
    }
    if (request.method == "POST") return refuse_post_headers(request);
    return std::nullopt;
  }

  HttpResponse handle_checked(const HttpRequest& request) {
    if (auto refused = refuse_before_body(request)) return std::move(*refused);
    if (request.method == "POST") {
      if (request.body.size() > options_.max_body_bytes) return body_too_long(request.body.size());
      return post(request);
    }
    if (request.method == "DELETE") return end_session(request);
    auto r = refuse(
        405, nullptr, error_code::invalid_request,
        request.method == "GET"
            ? std::string("Method not allowed: this server sends nothing unasked, so there is no event "
                          "stream to GET; POST each message")
            : "Method not allowed: " + detail::quote(request.method, 40) + "; POST a message or DELETE a session");
    r.headers.emplace_back("Allow", "POST, DELETE");
    return r;
  }

  // What refuses a POST from its headers alone, before its body is read.
  static std::optional<HttpResponse> refuse_post_headers(const HttpRequest& request) {
    if (const auto type = request.header("Content-Type"); type && !detail::json_media_type(*type))
      return refuse(415, nullptr, error_code::invalid_request,
                    "Unsupported media type " + detail::quote(*type, 80) + ": send application/json");
    return std::nullopt;
  }

  // 413; `bytes` when the body's length is known (it was not read past the limit otherwise).
  HttpResponse body_too_long(std::optional<std::size_t> bytes) const {
    const std::string length = bytes ? std::to_string(*bytes) : "more than " + std::to_string(options_.max_body_bytes);
    return refuse(413, nullptr, error_code::invalid_request,
                  "Invalid Request: the body is " + length + " bytes, over this server's limit of " +
                      std::to_string(options_.max_body_bytes));
  }

  // A POST whose headers passed: its body, then its session.
  HttpResponse post(const HttpRequest& request) {
    const auto id = request.header("Mcp-Session-Id");
    if (!id) return open_session(request);

    std::shared_ptr<Entry> entry = find(*id);
    if (!entry)
      return refuse(404, nullptr, error_code::invalid_request,
                    "Not found: session " + detail::quote(*id, 80) + " is unknown or has ended; initialize a new one");
    std::optional<std::string> reply;
    {
      const std::lock_guard lock(entry->mutex);
      reply = entry->protocol->handle_line(request.body);
      entry->last_used = now();
    }
    return answer(std::move(reply));
  }

  // A reply as HTTP: 202 for nothing to answer; 400 for a message that could not be read
  // as a request at all (the id is null); 200 otherwise.
  static HttpResponse answer(std::optional<std::string> reply) {
    HttpResponse r;
    if (!reply) {
      r.status = 202;
      return r;
    }
    // The protocol answers an unreadable message with a null id: a bad request.
    r.status = reply->rfind(R"({"jsonrpc":"2.0","id":null,"error")", 0) == 0 ? 400 : 200;
    r.body = std::move(*reply);
    return r;
  }

  HttpResponse open_session(const HttpRequest& request) {
    // Only initialize opens a session; anything else without an id is refused unread
    // by any registry (a record made in no session would be lost at once).
    const detail::Envelope peek = detail::read_envelope(request.body);
    if (!peek.object) return answer(Protocol(factory_options()).handle_line(request.body));  // it says why
    if (peek.method != "initialize") {
      if (!peek.has_id) return answer(std::nullopt);  // a notification before any session: nothing to say
      return refuse(400, peek.id, error_code::invalid_request,
                    "Bad Request: no Mcp-Session-Id; send initialize first and then its Mcp-Session-Id header");
    }
    std::shared_ptr<Entry> entry = std::make_shared<Entry>();
    entry->client = request.client;
    {
      const std::lock_guard lock(sessions_mutex_);
      expire_idle();
      if (sessions_.size() >= options_.max_sessions) return sessions_full(peek.id);
      if (client_full(request.client)) return client_sessions_full(peek.id);
    }
    entry->protocol = factory_();
    auto reply = entry->protocol->handle_line(request.body);
    HttpResponse r = answer(std::move(reply));
    if (entry->protocol->protocol_version().empty()) return r;  // initialize was refused: no session
    entry->last_used = now();
    std::string id = detail::new_session_id();
    {
      const std::lock_guard lock(sessions_mutex_);
      if (sessions_.size() >= options_.max_sessions) return sessions_full(peek.id);  // taken meanwhile
      if (client_full(request.client)) return client_sessions_full(peek.id);
      ++per_client_[request.client];
      sessions_.emplace(id, std::move(entry));
    }
    r.headers.emplace_back("Mcp-Session-Id", std::move(id));
    return r;
  }

  HttpResponse sessions_full(const nlohmann::ordered_json& id) const {
    auto r = refuse(503, id, error_code::internal_error,
                    "Service unavailable: " + std::to_string(options_.max_sessions) +
                        " sessions are open, this server's limit; end one with DELETE or try again later");
    r.headers.emplace_back("Retry-After", std::to_string(std::max<long long>(1, options_.idle_timeout.count() / 10)));
    return r;
  }

  // The response, whole, to a connection from an address that holds
  // max_connections_per_client already: sent before anything of the request is read.
  static std::string connections_full(const HttpOptions& options) {
    const std::string body = detail::dump(Protocol::error_response(
        nullptr, error_code::invalid_request,
        "Too many requests: this client address holds " + std::to_string(options.max_connections_per_client) +
            " connections, this server's limit per client (--max-connections-per-client); close one or try again "
            "later"));
    return "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\nContent-Type: application/json\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
  }

  // Under sessions_mutex_: whether `client` holds as many sessions as it may.
  bool client_full(const std::string& client) const {
    const auto it = per_client_.find(client);
    return it != per_client_.end() && it->second >= options_.max_sessions_per_client;
  }

  HttpResponse client_sessions_full(const nlohmann::ordered_json& id) const {
    auto r = refuse(429, id, error_code::internal_error,
                    "Too many requests: this client address holds " + std::to_string(options_.max_sessions_per_client) +
                        " open sessions, this server's limit per client (--max-sessions-per-client); end one with "
                        "DELETE or try again later");
    r.headers.emplace_back("Retry-After", std::to_string(std::max<long long>(1, options_.idle_timeout.count() / 10)));
    return r;
  }

  // Under sessions_mutex_: ends a session and frees its client's slot.
  std::map<std::string, std::shared_ptr<Entry>, std::less<>>::iterator erase_session(
      std::map<std::string, std::shared_ptr<Entry>, std::less<>>::iterator it) {
    const auto client = per_client_.find(it->second->client);
    if (client != per_client_.end() && --client->second == 0) per_client_.erase(client);
    return sessions_.erase(it);
  }

  HttpResponse end_session(const HttpRequest& request) {
    const auto id = request.header("Mcp-Session-Id");
    if (!id) return refuse(400, nullptr, error_code::invalid_request, "Bad Request: DELETE needs an Mcp-Session-Id");
    const std::lock_guard lock(sessions_mutex_);
    const auto it = sessions_.find(*id);
    if (it != sessions_.end()) erase_session(it);
    if (it == sessions_.end())
      return refuse(404, nullptr, error_code::invalid_request,
                    "Not found: session " + detail::quote(*id, 80) + " is unknown or has ended");
    HttpResponse r;
    r.status = 200;
    return r;
  }

  std::shared_ptr<Entry> find(const std::string& id) {
    const std::lock_guard lock(sessions_mutex_);
    expire_idle();
    const auto it = sessions_.find(id);
    return it == sessions_.end() ? nullptr : it->second;
  }

  // Under sessions_mutex_. A sweep at most once a second keeps this off the hot path.
  void expire_idle() {
    const auto at = now();
    if (at - last_sweep_ < std::chrono::seconds(1) && sessions_.size() < options_.max_sessions) return;
    last_sweep_ = at;
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      // A session serving a message right now is in use, whatever its timestamp says.
      std::unique_lock busy(it->second->mutex, std::try_to_lock);
      if (busy.owns_lock() && at - it->second->last_used > options_.idle_timeout) {
        busy.unlock();
        it = erase_session(it);
      } else ++it;
    }
  }

  std::chrono::steady_clock::time_point now() const {
    return options_.clock ? options_.clock() : std::chrono::steady_clock::now();
  }

  ServerOptions factory_options() const {
    return ServerOptions{.log = [](std::string_view) {}};
  }

  HttpOptions options_;
  Factory factory_;
  detail::GuardedHttplibServer http_;
  socket_t listening_socket_ = INVALID_SOCKET;  // httplib's, once bind() made it
  bool set_up_ = false;
  int bound_port_ = -1;
  std::atomic<bool> serving_{false}, stop_asked_{false};
  std::mutex sessions_mutex_;
  std::map<std::string, std::shared_ptr<Entry>, std::less<>> sessions_;
  std::map<std::string, std::size_t, std::less<>> per_client_;  // open sessions by client address
  std::chrono::steady_clock::time_point last_sweep_{};
};

}  // namespace groundplane::mcp
