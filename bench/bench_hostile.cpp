// bench/run hostile: groundplane-mcp --http under every attack of tests/hostile at full
// size and all at once, and what a normal client meets meanwhile.
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
// and the normal client, from 127.0.0.1, calls `check` in its own session one call after
// another: its latency alone first, then under attack for S seconds (20 by default). The
// server's peak RSS (VmHWM) is read before it is stopped. Then the 8-thread load figure:
// 8 clients, each its own session and kept-alive connection, N check calls each (20000),
// against a fresh SERVER and, with --baseline, a fresh OLD_SERVER in the same run.
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

// groundplane-mcp --http on a free loopback port, stopped (SIGTERM) when this ends.
class ServerProcess {
 public:
  explicit ServerProcess(const std::string& binary) {
    int err[2];
    if (::pipe(err) != 0) throw std::runtime_error("pipe failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&actions, err[0]);
    std::vector<std::string> args{binary, "--http", "127.0.0.1:0"};
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
    const auto r = http_.Post("/mcp", headers_, rpc(++id_, "tools/call", {{"name", tool}, {"arguments", arguments}}),
                              "application/json");
    if (!r) return 0;
    error = r->status != 200 || r->body.find("\"isError\":true") != std::string::npos;
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

int main(int argc, char** argv) try {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::fprintf(stderr,
                 "usage: groundplane_bench_hostile SERVER [--baseline OLD_SERVER] [--seconds S] [--slow N] "
                 "[--load-calls N]\n");
    return 2;
  }
  std::string server_binary = args[0], baseline;
  int seconds = 20, slow = 1000, load_calls = 20000;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--baseline" && i + 1 < args.size()) baseline = args[++i];
    else if (args[i] == "--seconds") seconds = count_arg(args, i);
    else if (args[i] == "--slow") slow = count_arg(args, i);
    else if (args[i] == "--load-calls") load_calls = count_arg(args, i);
    else throw std::invalid_argument("unknown argument " + args[i]);
  }

  AttackCounts counts;
  Latencies alone, attacked;
  double rss_peak = 0, rss_end = 0;
  {
    const ServerProcess server(server_binary);
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
  std::printf("%-62s %16llu %14s\n",
              ("slow-loris connections opened (" + std::to_string(slow) + " held open at a time)").c_str(),
              static_cast<unsigned long long>(counts.slow_opened.load()), "");
  std::printf("%-62s %16llu %14s\n", "  of them closed by the server",
              static_cast<unsigned long long>(counts.slow_closed_by_server.load()), "");
  std::printf("%-62s %12.1f MiB %14s\n",
              ("header floods: bytes written, " + std::to_string(counts.flood_requests.load()) + " requests").c_str(),
              static_cast<double>(counts.flood_bytes.load()) / (1024.0 * 1024.0), "");
  std::printf("%-62s %10llu / %llu %14s\n", "fact flood: 8 MiB record_fact calls sent / refused",
              static_cast<unsigned long long>(counts.facts_sent.load()),
              static_cast<unsigned long long>(counts.facts_refused.load()), "");
  std::printf("%-62s %16llu %14s\n", "  MCP sessions it opened",
              static_cast<unsigned long long>(counts.fact_sessions.load()), "");
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
