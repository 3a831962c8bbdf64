// bench/run hostile: groundplane-mcp --http --session under every attack of tests/hostile
// at full size and all at once, and what a normal client meets meanwhile.
//
//   groundplane_bench_hostile SERVER [--baseline OLD_SERVER] [--seconds S] [--slow N]
//                             [--load-calls N]
//
// Each attacker comes from its own loopback address, as clients on other machines would:
//   127.0.0.2  N slow-loris connections (1000 by default): the start of a request, then a
//              byte a second; each one the server closes is opened again a second later
//   127.0.0.3  4 header floods, each pushing up to 100 MiB of header lines into one
//              request, again and again as the server cuts them off
//   127.0.0.4  a fact flood: 4 connections calling record_fact with 8 MiB values,
//              opening a new MCP session whenever one is refused
//   127.0.0.5  a check flood: 4 connections calling check with as many checks as a call
//              may carry (1000), each over a field of its own, and with 20 times that
//   127.0.0.6  a prose flood: 4 connections calling check with a 7.4 MB prose field of
//              numbers written outside any slot
//   127.0.0.7  a do_action flood: 4 connections, each its own MCP session, firing the
//              demo app's checkout.place-order with 7 MiB inputs it refuses
//   127.0.0.8  smuggling: requests framed by both Content-Length and Transfer-Encoding,
//              a second request hidden after the body, on a kept-alive connection
// and the normal client, from 127.0.0.1, calls `check` in its own session one call after
// another: its latency alone first, then under attack for S seconds (60 by default: long
// enough, on two cores, for the fact flood to fill --max-total-fact-bytes). The
// server's peak RSS (VmHWM) is read before it is stopped. Before the attack, on servers of
// their own: one call of 20,000 checks (refused at the cap; and answered by a server
// started with --max-checks 20000), and 40 refused 7 MiB do_action inputs in one session
// (the server's RSS after). Then the 8-thread load figure: 8 clients, each its own session
// and kept-alive connection, N check calls each (20000), against a fresh SERVER and, with
// --baseline, a fresh OLD_SERVER in the same run.
// Prints one table; exits 1 when a harness step fails (not when a goal is missed).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

extern char** environ;  // NOLINT(readability-redundant-declaration): posix_spawn's environment

namespace {

using clock_type = std::chrono::steady_clock;
using ojson = nlohmann::ordered_json;

// --- the server ---------------------------------------------------------------------------

// groundplane-mcp --http on a free loopback port (and `extra` arguments), stopped
// (SIGTERM) when this ends.
class ServerProcess {
 public:
  explicit ServerProcess(const std::string& binary, const std::vector<std::string>& extra = {}) {
    int err[2];
    if (::pipe(err) != 0) throw std::runtime_error("pipe failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&actions, err[0]);
    std::vector<std::string> args{binary, "--http", "127.0.0.1:0"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, binary.c_str(), &actions, nullptr, argv.data(), environ) != 0)
      throw std::runtime_error("cannot start " + binary);
    posix_spawn_file_actions_destroy(&actions);
    ::close(err[1]);
    // Its first line names the URL; the rest of its stderr is drained so it never blocks.
    std::string seen;
    char c = 0;
    while (seen.find('\n') == std::string::npos && ::read(err[0], &c, 1) == 1) seen.push_back(c);
    const auto at = seen.find("http://127.0.0.1:");
    if (at == std::string::npos) throw std::runtime_error(binary + " did not serve: " + seen);
    port_ = std::stoi(seen.substr(at + 17));
    drain_ = std::thread([fd = err[0]] {
      char buf[4096];
      while (::read(fd, buf, sizeof buf) > 0) {
      }
      ::close(fd);
    });
  }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;
  ~ServerProcess() {
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    drain_.join();
  }
  int port() const { return port_; }
  // A /proc/PID/status figure in MiB (VmRSS now, VmHWM the peak).
  double status_mib(const std::string& field) const {
    std::ifstream in("/proc/" + std::to_string(pid_) + "/status");
    std::string line;
    while (std::getline(in, line))
      if (line.rfind(field + ":", 0) == 0) return std::stod(line.substr(field.size() + 1)) / 1024.0;
    return -1;
  }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::thread drain_;
};

// --- a normal client ------------------------------------------------------------------------

std::string rpc(int id, const std::string& method, const ojson& params) {
  return ojson{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump();
}

// One MCP session on one kept-alive connection from `from`.
class McpClient {
 public:
  McpClient(int port, const std::string& from) : http_("127.0.0.1", port) {
    http_.set_keep_alive(true);
    http_.set_tcp_nodelay(true);  // one small request at a time: Nagle would add ~40 ms to each
    http_.set_read_timeout(30, 0);
    http_.set_write_timeout(30, 0);
    if (from != "127.0.0.1") http_.set_interface(from);  // an address: httplib binds to it
  }
  // initialize; false when refused.
  bool open() {
    headers_.clear();
    const auto r = http_.Post("/mcp",
                              rpc(1, "initialize",
                                  {{"protocolVersion", "2025-11-25"},
                                   {"capabilities", ojson::object()},
                                   {"clientInfo", {{"name", "bench"}, {"version", "1"}}}}),
                              "application/json");
    if (!r || r->status != 200) return false;
    headers_.emplace("Mcp-Session-Id", r->get_header_value("Mcp-Session-Id"));
    return true;
  }
  // A tools/call: 0 when no answer came, else the HTTP status; `error` set from the result.
  int call(const std::string& tool, const ojson& arguments, bool& error) {
    return post(rpc(++id_, "tools/call", {{"name", tool}, {"arguments", arguments}}), error);
  }
  // The same for a message already written (a large one is built once, sent many times).
  int post(const std::string& message, bool& error, std::string* body = nullptr) {
    const auto r = http_.Post("/mcp", headers_, message, "application/json");
    if (!r) return 0;
    error = r->status != 200 || r->body.find("\"isError\":true") != std::string::npos;
    if (body != nullptr) *body = r->body;
    return r->status;
  }

 private:
  httplib::Client http_;
  httplib::Headers headers_;
  int id_ = 1;
};

const ojson ranking{{"name", "campaign_ctr"},
                    {"scores", {{"north", 0.0412}, {"harbour", 0.0455}, {"delta", 0.0301}}},
                    {"key", "ctr"},
                    {"tool", "warehouse.query"}};
const ojson right_claim{{"facts", ojson::array({"campaign_ctr"})},
                        {"checks", ojson::array({{{"check", "superlative"}, {"fact", "campaign_ctr"}}})},
                        {"output", {{"winner", "harbour"}}}};

struct Latencies {
  std::vector<double> ms;
  std::size_t failed = 0;
  double percentile(double p) {
    if (ms.empty()) return -1;
    std::sort(ms.begin(), ms.end());
    return ms[std::min(ms.size() - 1, static_cast<std::size_t>(p * static_cast<double>(ms.size())))];
  }
};

// The normal client's check calls for `seconds`, one after another.
Latencies normal_client(McpClient& client, double seconds) {
  Latencies l;
  const auto until = clock_type::now() + std::chrono::duration<double>(seconds);
  while (clock_type::now() < until) {
    bool error = false;
    const auto t0 = clock_type::now();
    const int status = client.call("check", right_claim, error);
    l.ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t0).count());
    if (status != 200 || error) ++l.failed;
  }
  return l;
}

// --- the attackers ------------------------------------------------------------------------

int connect_from(const char* from, int port, bool nonblocking) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | (nonblocking ? SOCK_NONBLOCK : 0), 0);
  sockaddr_in source{};
  source.sin_family = AF_INET;
  ::inet_pton(AF_INET, from, &source.sin_addr);
  ::bind(fd, reinterpret_cast<sockaddr*>(&source), sizeof source);  // NOLINT(*-reinterpret-cast)
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<std::uint16_t>(port));
  ::inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  const int r = ::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to);  // NOLINT(*-reinterpret-cast)
  if (r != 0 && errno != EINPROGRESS) {
    ::close(fd);
    return -1;
  }
  return fd;
}

struct AttackCounts {
  std::atomic<std::uint64_t> slow_opened{0}, slow_closed_by_server{0};
  std::atomic<std::uint64_t> flood_bytes{0}, flood_requests{0};
  std::atomic<std::uint64_t> facts_sent{0}, facts_refused{0}, fact_sessions{0};
  std::atomic<std::uint64_t> checks_answered{0}, checks_refused{0}, checks_failed{0};
  std::atomic<std::uint64_t> prose_answered{0}, prose_failed{0};
  std::atomic<std::uint64_t> actions_refused{0}, actions_failed{0};
  // A smuggling attempt ends one of five ways; only `smuggled_served` is the attack working.
  std::atomic<std::uint64_t> smuggled_sent{0}, smuggled_400{0}, smuggled_400_open{0}, smuggled_limited{0},
      smuggled_unanswered{0}, smuggled_served{0};
};

// N connections from 127.0.0.2, each sending a byte a second and opened again a second
// after the server closes it.
void slow_loris(int port, int count, const std::atomic<bool>& stop, AttackCounts& counts) {
  struct Slow {
    int fd = -1;
    bool started = false;  // the request's start sent
  };
  std::vector<Slow> held(static_cast<std::size_t>(count));
  const std::string start = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
  while (!stop) {
    const auto tick = clock_type::now();
    for (Slow& s : held) {
      if (s.fd < 0) {
        s = {connect_from("127.0.0.2", port, true), false};
        if (s.fd >= 0) ++counts.slow_opened;
        continue;  // its first bytes go at the next tick, once connected
      }
      char buf[4096];
      const auto n = ::recv(s.fd, buf, sizeof buf, MSG_DONTWAIT);
      bool closed = n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
      if (!closed) {
        const std::string_view bytes = s.started ? std::string_view("a") : std::string_view(start);
        const auto sent = ::send(s.fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        closed = sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK;
        s.started = s.started || sent > 0;
      }
      if (closed) {
        ::close(s.fd);
        s.fd = -1;
        ++counts.slow_closed_by_server;
      }
    }
    std::this_thread::sleep_until(tick + std::chrono::seconds(1));
  }
  for (const Slow& s : held)
    if (s.fd >= 0) ::close(s.fd);
}

// One header flood from 127.0.0.3: a request whose header lines never end, up to `bytes`
// per request, sent again each time the server cuts it off, until stopped.
void header_flood(int port, std::size_t bytes, const std::atomic<bool>& stop, AttackCounts& counts) {
  std::string lines;
  for (int i = 0; lines.size() < std::size_t{64} * 1024; ++i) lines += "X-Flood-" + std::to_string(i) + ": v\r\n";
  while (!stop) {
    const int fd = connect_from("127.0.0.3", port, false);
    if (fd < 0) continue;
    timeval tv{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    ++counts.flood_requests;
    const std::string head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    std::size_t sent = 0;
    if (::send(fd, head.data(), head.size(), MSG_NOSIGNAL) > 0)
      while (!stop && sent < bytes) {
        const auto n = ::send(fd, lines.data(), lines.size(), MSG_NOSIGNAL);
        if (n <= 0) break;  // cut off
        sent += static_cast<std::size_t>(n);
      }
    counts.flood_bytes += sent;
    ::close(fd);
  }
}

// A fact flood from 127.0.0.4: record_fact with `value_bytes` of value, a new session
// whenever one is refused, until stopped.
void fact_flood(int port, std::size_t value_bytes, const std::atomic<bool>& stop, AttackCounts& counts) {
  McpClient client(port, "127.0.0.4");
  const std::string value(value_bytes, 'v');
  std::uint64_t n = 0;
  bool open = false;
  while (!stop) {
    if (!open) {
      open = client.open();
      if (open) ++counts.fact_sessions;
      else {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        continue;
      }
    }
    bool error = false;
    const int status = client.call(
        "record_fact",
        {{"name", "flood_" + std::to_string(reinterpret_cast<std::uintptr_t>(&client)) + "_" + std::to_string(++n)},
         {"value", value},
         {"tool", "t"}},
        error);
    ++counts.facts_sent;
    if (error || status != 200) {
      ++counts.facts_refused;
      open = false;  // a new session, as an attacker past its session's limit would
    }
  }
}

// A tools/call message written once: the floods send the same bytes again and again.
std::string tool_call(const std::string& tool, const ojson& arguments) {
  return rpc(7, "tools/call", {{"name", tool}, {"arguments", arguments}});
}

// `n` superlative checks over the ranking, each reading a field of its own, and an
// output that gets every one of them wrong: the most work one check call can ask for.
std::string check_flood_call(std::size_t n) {
  std::string checks, output;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string field = "\"w" + std::to_string(i) + "\"";
    checks += (i ? "," : "") + std::string(R"({"check":"superlative","fact":"campaign_ctr","field":)") + field + "}";
    output += (i ? "," : "") + field + R"(:"north")";
  }
  return R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"check","arguments":{"facts":["campaign_ctr"],"checks":[)" +
         checks + R"(],"output":{)" + output + "}}}}";
}

// A session of its own from `from`, with the ranking recorded; null when refused.
std::unique_ptr<McpClient> ranked_session(int port, const std::string& from) {
  auto c = std::make_unique<McpClient>(port, from);
  bool error = false;
  if (!c->open() || c->call("record_ranking", ranking, error) != 200 || error) return nullptr;
  return c;
}

// A check flood from 127.0.0.5: check calls at the cap (answered, each as costly as a
// call may be) and at twenty times it (refused unbuilt), one after another.
void check_flood(int port, const std::atomic<bool>& stop, AttackCounts& counts) {
  const std::string at_cap = check_flood_call(1000), over = check_flood_call(20000);
  std::unique_ptr<McpClient> c;
  for (std::uint64_t n = 0; !stop; ++n) {
    if (!c && !(c = ranked_session(port, "127.0.0.5"))) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    bool error = false;
    const bool refusing = n % 2 == 1;
    const int status = c->post(refusing ? over : at_cap, error);
    if (status != 200) {
      ++counts.checks_failed;
      c.reset();
    } else if (error != refusing) {
      ++counts.checks_failed;  // an answer where a refusal was due, or the reverse
    } else {
      ++(refusing ? counts.checks_refused : counts.checks_answered);
    }
  }
}

// A prose flood from 127.0.0.6: check calls whose prose field is 7.4 MB of numbers
// written outside any slot, each a finding.
void prose_flood(int port, const std::atomic<bool>& stop, AttackCounts& counts) {
  std::string prose;
  for (int i = 0; prose.size() < 7'400'000; ++i) prose += std::to_string(i) + " ";
  const std::string call = tool_call("check", {{"facts", {"campaign_ctr"}},
                                               {"checks", {{{"check", "superlative"}, {"fact", "campaign_ctr"}}}},
                                               {"output", {{"winner", "harbour"}, {"summary", prose}}},
                                               {"prose_field", "summary"}});
  std::unique_ptr<McpClient> c;
  while (!stop) {
    if (!c && !(c = ranked_session(port, "127.0.0.6"))) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    bool error = false;
    std::string body;
    if (c->post(call, error, &body) != 200 || error) {
      ++counts.prose_failed;
      c.reset();
    } else {
      ++counts.prose_answered;  // ok: false, the numbers outside slots its findings
    }
  }
}

// A do_action flood from 127.0.0.7: the demo app's high-effect action fired with a 7 MiB
// input, refused APPROVAL_REQUIRED every time; each call's input differs, so no ask is
// found twice.
void action_flood(int port, const std::atomic<bool>& stop, AttackCounts& counts) {
  const std::string head =
      R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"do_action","arguments":{"action":"checkout.place-order","input":{"note":")";
  std::string call = head + std::string(std::size_t{7} * 1024 * 1024, 'x') + "\"}}}}";
  McpClient c(port, "127.0.0.7");
  bool open = false;
  for (std::uint64_t n = 0; !stop; ++n) {
    if (!open && !(open = c.open())) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    const std::string mark = std::to_string(n);
    call.replace(head.size(), mark.size(), mark);
    bool error = false;
    std::string body;
    if (c.post(call, error, &body) != 200 || error || body.find("APPROVAL_REQUIRED") == std::string::npos) {
      ++counts.actions_failed;
      open = false;
    } else {
      ++counts.actions_refused;
    }
  }
}

// Smuggling from 127.0.0.8: a request framed by both Content-Length and
// Transfer-Encoding, its chunked body ending early and a second request after it, on a
// connection the client would keep alive. Each attempt is counted by how it ended:
//   400 and closed   one 400, then the server closed the connection (RFC 9112 §6.1)
//   400, left open   one 400, and the connection still open at the 2 s receive timeout
//   refused          one answer from a limit met first (429 per client, 503 sessions)
//   no answer        nothing within 2 s, or the connection closed without a word
//   served           any second response, or a first that is not a refusal: the attack
void smuggler(int port, const std::atomic<bool>& stop, AttackCounts& counts) {
  const std::string hidden =
      "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " +
      std::to_string(rpc(1, "ping", ojson::object()).size()) + "\r\n\r\n" + rpc(1, "ping", ojson::object());
  const std::string body = "0\r\n\r\n" + hidden;
  const std::string request =
      "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\nTransfer-Encoding: chunked\r\n\r\n" + body;
  while (!stop) {
    const int fd = connect_from("127.0.0.8", port, false);
    if (fd < 0) continue;
    timeval tv{2, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ++counts.smuggled_sent;
    std::string answer;
    bool closed = false;  // the server ended the connection (not our receive timeout)
    if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) > 0) {
      char buf[4096];
      for (;;) {
        const auto n = ::recv(fd, buf, sizeof buf, 0);
        if (n > 0) {
          answer.append(buf, static_cast<std::size_t>(n));
          continue;
        }
        closed = n == 0 || errno == ECONNRESET;
        break;
      }
    }
    ::close(fd);
    std::size_t responses = 0;
    for (auto at = answer.find("HTTP/1.1 "); at != std::string::npos; at = answer.find("HTTP/1.1 ", at + 1))
      ++responses;
    const auto first_is = [&](std::string_view status) { return answer.rfind(status, 0) == 0; };
    if (responses == 0) ++counts.smuggled_unanswered;
    else if (responses > 1) ++counts.smuggled_served;
    else if (first_is("HTTP/1.1 400")) ++(closed ? counts.smuggled_400 : counts.smuggled_400_open);
    else if (first_is("HTTP/1.1 429") || first_is("HTTP/1.1 503")) ++counts.smuggled_limited;
    else ++counts.smuggled_served;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// One call of `checks` checks on a fresh server started with `extra`: seconds, and
// whether it was answered (not refused).
std::pair<double, bool> one_check_call(const std::string& binary, const std::vector<std::string>& extra,
                                       std::size_t checks) {
  const ServerProcess server(binary, extra);
  auto c = ranked_session(server.port(), "127.0.0.1");
  if (!c) throw std::runtime_error("the check-call client could not start its session");
  const std::string call = check_flood_call(checks);
  bool error = false;
  const auto t0 = clock_type::now();
  if (c->post(call, error) != 200) throw std::runtime_error("the check call got no answer");
  return {std::chrono::duration<double>(clock_type::now() - t0).count(), !error};
}

// 40 refused 7 MiB do_action inputs in one session of a fresh --session server: its RSS
// after them (MiB), and how many were refused as they should be.
std::pair<double, int> forty_refused_inputs(const std::string& binary) {
  const ServerProcess server(binary, {"--session"});
  McpClient c(server.port(), "127.0.0.1");
  if (!c.open()) throw std::runtime_error("the do_action client could not start its session");
  const std::string head =
      R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"do_action","arguments":{"action":"checkout.place-order","input":{"note":")";
  std::string call = head + std::string(std::size_t{7} * 1024 * 1024, 'x') + "\"}}}}";
  int refused = 0;
  for (int i = 0; i < 40; ++i) {
    const std::string mark = std::to_string(i);
    call.replace(head.size(), mark.size(), mark);
    bool error = false;
    std::string body;
    if (c.post(call, error, &body) == 200 && !error && body.find("APPROVAL_REQUIRED") != std::string::npos) ++refused;
  }
  return {server.status_mib("VmRSS"), refused};
}

// --- the 8-thread load figure ----------------------------------------------------------------

struct Load {
  double calls_per_s = 0, p99_ms = 0;
  std::size_t failed = 0;
};

Load load(const std::string& binary, int threads, int calls) {
  const ServerProcess server(binary);
  std::vector<Latencies> each(static_cast<std::size_t>(threads));
  std::vector<std::thread> running;
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  for (int t = 0; t < threads; ++t)
    running.emplace_back([&, t] {
      McpClient c(server.port(), "127.0.0.1");
      bool error = false;
      auto& mine = each[static_cast<std::size_t>(t)];
      if (!c.open() || c.call("record_ranking", ranking, error) != 200 || error) mine.failed = 1;
      ++ready;
      while (!go) std::this_thread::yield();
      for (int i = 0; i < calls && mine.failed == 0; ++i) {
        const auto t0 = clock_type::now();
        const int status = c.call("check", right_claim, error);
        mine.ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t0).count());
        if (status != 200 || error) ++mine.failed;
      }
    });
  while (ready < threads) std::this_thread::yield();
  const auto t0 = clock_type::now();
  go = true;
  for (auto& r : running) r.join();
  const double seconds = std::chrono::duration<double>(clock_type::now() - t0).count();
  Latencies all;
  for (auto& l : each) {
    all.ms.insert(all.ms.end(), l.ms.begin(), l.ms.end());
    all.failed += l.failed;
  }
  return {static_cast<double>(all.ms.size()) / seconds, all.percentile(0.99), all.failed};
}

int count_arg(const std::vector<std::string>& args, std::size_t& i) {
  if (i + 1 >= args.size()) throw std::invalid_argument(args[i] + " needs a value");
  return std::stoi(args[++i]);
}

}  // namespace

// One row of the table: a count, or two counts "a / b", and the goal ("" for none).
void count_row(const char* what, const std::atomic<std::uint64_t>& n, const char* goal) {
  std::printf("%-62s %16llu %14s\n", what, static_cast<unsigned long long>(n.load()), goal);
}
void pair_row(const char* what, const std::atomic<std::uint64_t>& a, const std::atomic<std::uint64_t>& b,
              const char* goal) {
  std::printf("%-62s %10llu / %llu %14s\n", what, static_cast<unsigned long long>(a.load()),
              static_cast<unsigned long long>(b.load()), goal);
}

int main(int argc, char** argv) try {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::fprintf(stderr,
                 "usage: groundplane_bench_hostile SERVER [--baseline OLD_SERVER] [--seconds S] [--slow N] "
                 "[--load-calls N]\n");
    return 2;
  }
  std::string server_binary = args[0], baseline;
  int seconds = 60, slow = 1000, load_calls = 20000;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--baseline" && i + 1 < args.size()) baseline = args[++i];
    else if (args[i] == "--seconds") seconds = count_arg(args, i);
    else if (args[i] == "--slow") slow = count_arg(args, i);
    else if (args[i] == "--load-calls") load_calls = count_arg(args, i);
    else throw std::invalid_argument("unknown argument " + args[i]);
  }

  // One call of 20,000 checks: refused at the default cap, answered with the cap raised.
  const auto [refused_seconds, refused_answered] = one_check_call(server_binary, {}, 20000);
  const auto [answered_seconds, answered] = one_check_call(server_binary, {"--max-checks", "20000"}, 20000);
  const auto [forty_rss, forty_refused] = forty_refused_inputs(server_binary);

  AttackCounts counts;
  Latencies alone, attacked;
  double rss_peak = 0, rss_end = 0;
  {
    const ServerProcess server(server_binary, {"--session"});
    McpClient normal(server.port(), "127.0.0.1");
    bool error = false;
    if (!normal.open() || normal.call("record_ranking", ranking, error) != 200 || error)
      throw std::runtime_error("the normal client could not start its session");
    alone = normal_client(normal, 2.0);

    std::atomic<bool> stop{false};
    std::vector<std::thread> attackers;
    attackers.emplace_back([&] { slow_loris(server.port(), slow, stop, counts); });
    for (int i = 0; i < 4; ++i)
      attackers.emplace_back([&] { header_flood(server.port(), std::size_t{100} * 1024 * 1024, stop, counts); });
    for (int i = 0; i < 4; ++i)
      attackers.emplace_back([&] { fact_flood(server.port(), std::size_t{8} * 1024 * 1024 - 4096, stop, counts); });
    for (int i = 0; i < 4; ++i) {
      attackers.emplace_back([&] { check_flood(server.port(), stop, counts); });
      attackers.emplace_back([&] { prose_flood(server.port(), stop, counts); });
      attackers.emplace_back([&] { action_flood(server.port(), stop, counts); });
    }
    attackers.emplace_back([&] { smuggler(server.port(), stop, counts); });
    std::this_thread::sleep_for(std::chrono::seconds(3));  // every attack under way
    attacked = normal_client(normal, seconds);
    rss_end = server.status_mib("VmRSS");
    rss_peak = server.status_mib("VmHWM");
    stop = true;
    for (auto& a : attackers) a.join();
  }

  const Load now = load(server_binary, 8, load_calls);
  std::optional<Load> before;
  if (!baseline.empty()) before = load(baseline, 8, load_calls);

  std::printf("%-62s %16s %14s\n", "MCP HTTP server under attack", "measured", "goal");
  std::printf("%-62s %10.2f / %.2f ms %14s\n", "normal client's check p50 / p99, alone", alone.percentile(0.5),
              alone.percentile(0.99), "");
  std::printf(
      "%-62s %10.2f / %.2f ms %14s\n",
      ("normal client's check p50 / p99, under attack (" + std::to_string(attacked.ms.size()) + " calls)").c_str(),
      attacked.percentile(0.5), attacked.percentile(0.99), "p99 < 50 ms");
  std::printf("%-62s %13.2f ms %14s\n", "  its slowest call", attacked.percentile(1.0), "");
  std::printf("%-62s %16zu %14s\n", "  its calls that failed", alone.failed + attacked.failed, "0");
  std::printf("%-62s %12.1f MiB %14s\n", "server RSS, peak over the whole run (VmHWM)", rss_peak, "< 512 MiB");
  std::printf("%-62s %12.1f MiB %14s\n", "server RSS at the end of the attack", rss_end, "");
  count_row(("slow-loris connections opened (" + std::to_string(slow) + " held open at a time)").c_str(),
            counts.slow_opened, "");
  count_row("  of them closed by the server", counts.slow_closed_by_server, "");
  std::printf("%-62s %12.1f MiB %14s\n",
              ("header floods: bytes written, " + std::to_string(counts.flood_requests.load()) + " requests").c_str(),
              static_cast<double>(counts.flood_bytes.load()) / (1024.0 * 1024.0), "");
  pair_row("fact flood: 8 MiB record_fact calls sent / refused", counts.facts_sent, counts.facts_refused, "");
  count_row("  MCP sessions it opened", counts.fact_sessions, "");
  pair_row("check flood: calls of 1000 checks answered / of 20000 refused", counts.checks_answered,
           counts.checks_refused, "");
  count_row("  calls answered otherwise than due", counts.checks_failed, "0");
  pair_row("prose flood: 7.4 MB prose checks answered / failed", counts.prose_answered, counts.prose_failed, "");
  pair_row("do_action flood: 7 MiB inputs refused / answered otherwise", counts.actions_refused, counts.actions_failed,
           "");
  count_row("smuggling (Content-Length + chunked): attempts", counts.smuggled_sent, "");
  count_row("  answered 400 and closed", counts.smuggled_400, "");
  count_row("  answered 400, the connection left open", counts.smuggled_400_open, "0");
  count_row("  refused by a limit first (429, 503)", counts.smuggled_limited, "");
  count_row("  no answer within 2 s", counts.smuggled_unanswered, "");
  count_row("  served (a second response, or the request run)", counts.smuggled_served, "0");
  std::printf(
      "%-62s %13.3f s %14s\n",
      (std::string("one call of 20000 checks, default cap: ") + (refused_answered ? "answered" : "refused")).c_str(),
      refused_seconds, "< 0.5 s");
  std::printf("%-62s %13.3f s %14s\n",
              (std::string("  with --max-checks 20000: ") + (answered ? "answered" : "refused")).c_str(),
              answered_seconds, "< 2 s");
  std::printf(
      "%-62s %12.1f MiB %14s\n",
      ("40 refused 7 MiB do_action inputs (" + std::to_string(forty_refused) + " refused): server RSS after").c_str(),
      forty_rss, "< 256 MiB");
  std::printf("%-62s %12.0f/s %14s\n",
              ("8 clients, " + std::to_string(load_calls) + " check calls each: calls/s").c_str(), now.calls_per_s,
              ">= 25000");
  std::printf("%-62s %13.3f ms %14s\n", "  p99", now.p99_ms, "< 1 ms");
  std::printf("%-62s %16zu %14s\n", "  failed", now.failed, "0");
  if (before) {
    std::printf("%-62s %12.0f/s %14s\n", "  baseline server (--baseline): calls/s", before->calls_per_s, "");
    std::printf("%-62s %13.3f ms %14s\n", "  baseline p99", before->p99_ms, "");
    std::printf("%-62s %15.2fx %14s\n", "  calls/s against the baseline", now.calls_per_s / before->calls_per_s,
                ">= 0.90x");
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "groundplane_bench_hostile: %s\n", e.what());
  return 1;
}
