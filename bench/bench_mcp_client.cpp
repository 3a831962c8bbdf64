// The load generator behind bench/run's MCP rows (tests/integration/bench_check.mjs runs
// it against groundplane-mcp and against the SDK baseline, in the same run, with the
// same request bytes). Written in C++ on cpp-httplib so that the client's own cost per
// call is small: on a 2-core machine a client in Node spent more CPU per call than
// groundplane-mcp did, and both servers' rows then measured the client.
//
//   groundplane_bench_mcp_client http URL --clients C --server-pid PID  OPTIONS
//   groundplane_bench_mcp_client stdio --window W OPTIONS -- COMMAND [ARG...]
//   OPTIONS: --requests FILE --calls N --warmup N [--verify]
//
// FILE is a JSON object {"north": params, "harbour": params}: the `tools/call` params of
// the two `check` calls, sent alternately. Over HTTP each of C clients initializes its own
// MCP session on its own kept-alive connection and sends N calls, one at a time; over
// stdio one session on COMMAND's pipes has W calls in flight and sends N in all. With
// --verify an answer is right when `ok` is true exactly for harbour (the seed's winner);
// without it, when it is a result that is not a tool error. Prints one JSON object:
// calls, seconds, calls_per_s, p50_ms, p99_ms, wrong, client_cpu_us_per_call,
// server_cpu_us_per_call. Exit 1 when a call fails outright, 2 for a bad command line.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <barrier>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

extern char** environ;

namespace {

using nlohmann::json;
using clock_type = std::chrono::steady_clock;

struct Config {
  std::string transport, url, requests_file;
  std::size_t clients = 16, window = 1, calls = 0, warmup = 50;
  long server_pid = 0;
  bool verify = false;
  std::vector<std::string> command;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "groundplane_bench_mcp_client: %s\n"
               "usage: groundplane_bench_mcp_client http URL --clients C --server-pid PID OPTIONS\n"
               "       groundplane_bench_mcp_client stdio --window W OPTIONS -- COMMAND [ARG...]\n"
               "OPTIONS: --requests FILE --calls N --warmup N [--verify]\n",
               why.c_str());
  std::exit(2);
}

std::size_t count_arg(const std::string& flag, const char* text) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v == 0) usage(flag + " takes a positive whole number");
  return static_cast<std::size_t>(v);
}

Config parse(int argc, char** argv) {
  Config c;
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || (args[0] != "http" && args[0] != "stdio")) usage("the first argument is http or stdio");
  c.transport = args[0];
  std::size_t i = 1;
  if (c.transport == "http") {
    if (args.size() < 2) usage("http needs the server's URL");
    c.url = args[1];
    i = 2;
  }
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    const auto value = [&]() -> const char* {
      if (i + 1 >= args.size()) usage(a + " needs a value");
      return args[++i].c_str();
    };
    if (a == "--") {
      c.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    }
    if (a == "--clients") c.clients = count_arg(a, value());
    else if (a == "--window") c.window = count_arg(a, value());
    else if (a == "--calls") c.calls = count_arg(a, value());
    else if (a == "--warmup") c.warmup = count_arg(a, value());
    else if (a == "--server-pid") c.server_pid = static_cast<long>(count_arg(a, value()));
    else if (a == "--requests") c.requests_file = value();
    else if (a == "--verify") c.verify = true;
    else usage("unknown argument " + a);
  }
  if (c.requests_file.empty() || c.calls == 0) usage("--requests and --calls are required");
  if (c.transport == "stdio" && c.command.empty()) usage("stdio needs -- COMMAND");
  if (c.transport == "http" && c.server_pid == 0) usage("http needs --server-pid");
  return c;
}

// The CPU seconds (user + system) a process has used, from /proc/PID/stat.
double process_cpu_seconds(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  const std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos) throw std::runtime_error("no such process: " + std::to_string(pid));
  std::vector<std::string> fields;
  std::size_t at = close + 2;
  while (at < stat.size() && fields.size() < 13) {
    const std::size_t end = stat.find(' ', at);
    fields.push_back(stat.substr(at, end - at));
    at = end == std::string::npos ? stat.size() : end + 1;
  }
  if (fields.size() < 13) throw std::runtime_error("unreadable /proc/" + std::to_string(pid) + "/stat");
  // fields[0] is the state; utime and stime are the 14th and 15th fields of the line.
  const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  return (std::stod(fields[11]) + std::stod(fields[12])) / ticks;
}

double own_cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  const auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

// The two `tools/call` params, serialized once: a request is these bytes and its id.
struct Requests {
  std::string north, harbour;
  const std::string& params(std::size_t i) const { return i % 2 == 0 ? north : harbour; }
  static bool right_winner(std::size_t i) { return i % 2 == 1; }
};

Requests load_requests(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read " + file);
  const json j = json::parse(in);
  return {j.at("north").dump(), j.at("harbour").dump()};
}

std::string request_text(std::size_t id, std::string_view method, std::string_view params) {
  std::string s = R"({"jsonrpc":"2.0","id":)";
  s += std::to_string(id);
  s += R"(,"method":")";
  s += method;
  s += R"(","params":)";
  s += params;
  s += '}';
  return s;
}

constexpr std::string_view initialize_params =
    R"({"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}})";
constexpr std::string_view initialized_notification = R"({"jsonrpc":"2.0","method":"notifications/initialized"})";

// What the client needs of an answer, read from nlohmann's parse events without building
// the answer's tree: the lexer alone is most of the client's cost per call, and the tree
// nearly doubled it. Both servers' answers are read the same way.
struct Answer {
  bool valid = false;  // one JSON object, the whole text
  std::optional<std::uint64_t> id;
  bool has_result = false, is_error = false, has_structured = false;
  std::optional<bool> ok;
};

class AnswerReader {
 public:
  using json_type = json;
  explicit AnswerReader(Answer& out) : out_(out) {}
  bool read_an_object() const { return top_is_object_; }

  bool null() { return true; }
  bool boolean(bool b) {
    if (at({"result", "isError"})) out_.is_error = b;
    if (at({"result", "structuredContent", "ok"})) out_.ok = b;
    return true;
  }
  bool number_integer(json::number_integer_t v) {
    if (at({"id"}) && v >= 0) out_.id = static_cast<std::uint64_t>(v);
    return true;
  }
  bool number_unsigned(json::number_unsigned_t v) {
    if (at({"id"})) out_.id = v;
    return true;
  }
  bool number_float(json::number_float_t, const json::string_t&) { return true; }
  bool string(json::string_t&) { return true; }
  bool binary(json::binary_t&) { return true; }
  bool start_object(std::size_t) {
    if (levels_.empty()) top_is_object_ = true;
    if (at({"result"})) out_.has_result = true;
    if (at({"result", "structuredContent"})) out_.has_structured = true;
    levels_.push_back({true, {}});
    return true;
  }
  bool start_array(std::size_t) {
    levels_.push_back({false, {}});
    return true;
  }
  bool key(json::string_t& k) {
    levels_.back().key = std::move(k);
    return true;
  }
  bool end_object() { return end(); }
  bool end_array() { return end(); }
  template <class Exception>
  bool parse_error(std::size_t, const std::string&, const Exception&) {
    return false;
  }

 private:
  struct Level {
    bool object;
    std::string key;  // the member being read, in an object
  };
  // Whether the value now read sits at this path of member names from the top object.
  bool at(std::initializer_list<std::string_view> path) const {
    if (levels_.size() != path.size()) return false;
    std::size_t i = 0;
    for (const std::string_view name : path) {
      if (!levels_[i].object || levels_[i].key != name) return false;
      ++i;
    }
    return true;
  }
  bool end() {
    levels_.pop_back();
    return true;
  }

  Answer& out_;
  std::vector<Level> levels_;
  bool top_is_object_ = false;
};

Answer read_answer(std::string_view text) {
  Answer a;
  AnswerReader reader(a);
  a.valid = json::sax_parse(text, &reader) && reader.read_an_object();
  return a;
}

// Whether the answer to call i is wrong (see the top of the file).
bool wrong_answer(const Answer& a, std::size_t i, bool verify) {
  if (!a.valid || !a.has_result || a.is_error) return true;
  if (!verify) return false;
  return !a.has_structured || !a.ok || *a.ok != Requests::right_winner(i);
}

struct Outcome {
  std::vector<double> latencies_ms;
  std::size_t wrong = 0;
  double seconds = 0, client_cpu = 0, server_cpu = 0;
};

// ---- Streamable HTTP: one thread, connection and MCP session per client.

struct HttpTarget {
  std::string scheme_host_port, path;
};

HttpTarget split_url(const std::string& url) {
  const std::size_t scheme = url.find("://");
  const std::size_t path = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  if (scheme == std::string::npos || path == std::string::npos) usage("not an http URL with a path: " + url);
  return {url.substr(0, path), url.substr(path)};
}

class HttpSession {
 public:
  explicit HttpSession(const HttpTarget& target) : target_(target), client_(target.scheme_host_port) {
    client_.set_keep_alive(true);
    client_.set_tcp_nodelay(true);
    client_.set_read_timeout(60, 0);
    headers_ = {{"Accept", "application/json, text/event-stream"}};
    const httplib::Result init = post(request_text(0, "initialize", initialize_params));
    if (!init || init->status != 200) throw std::runtime_error("initialize failed: " + describe(init));
    const std::string session = init->get_header_value("Mcp-Session-Id");
    if (session.empty()) throw std::runtime_error("initialize answered without an Mcp-Session-Id");
    headers_.emplace("Mcp-Session-Id", session);
    headers_.emplace("MCP-Protocol-Version", "2025-11-25");
    const httplib::Result note = post(std::string(initialized_notification));
    if (!note || note->status != 202) throw std::runtime_error("notifications/initialized: " + describe(note));
  }

  // The JSON-RPC answer to one call.
  Answer call(std::size_t id, const std::string& params) {
    const httplib::Result r = post(request_text(id, "tools/call", params));
    if (!r || r->status != 200) throw std::runtime_error("tools/call failed: " + describe(r));
    Answer answer = read_answer(r->body);
    if (answer.id != id) throw std::runtime_error("an answer to another request: " + describe(r));
    return answer;
  }

  void close() { (void)client_.Delete(target_.path, headers_); }

 private:
  httplib::Result post(const std::string& body) {
    return client_.Post(target_.path, headers_, body, "application/json");
  }
  static std::string describe(const httplib::Result& r) {
    if (!r) return "no response (" + httplib::to_string(r.error()) + ")";
    return "HTTP " + std::to_string(r->status) + ": " + r->body.substr(0, 300);
  }

  HttpTarget target_;
  httplib::Client client_;
  httplib::Headers headers_;
};

Outcome run_http(const Config& c, const Requests& requests) {
  const HttpTarget target = split_url(c.url);
  Outcome out;
  std::vector<std::vector<double>> latencies(c.clients);
  std::vector<std::size_t> wrong(c.clients, 0);
  std::vector<std::string> failures(c.clients);
  clock_type::time_point t0;
  double cpu0 = 0, server0 = 0;
  // Every client warmed up before the clock starts; the clock reads on the completion step.
  std::string clock_failure;
  std::barrier warmed(static_cast<std::ptrdiff_t>(c.clients), [&]() noexcept {
    try {
      server0 = process_cpu_seconds(c.server_pid);
    } catch (const std::exception& e) {
      clock_failure = e.what();
    }
    cpu0 = own_cpu_seconds();
    t0 = clock_type::now();
  });
  // Sessions are opened one at a time: Debian's compiled cpp-httplib listens with a
  // backlog of 5, and 16 or more connections made in the same instant then see resets
  // (ECONNRESET on the first read) in about one run in three. The warm-up is not measured.
  std::mutex opening;
  std::vector<std::thread> threads;
  for (std::size_t k = 0; k < c.clients; ++k) {
    threads.emplace_back([&, k] {
      bool arrived = false;
      try {
        std::unique_lock<std::mutex> one_at_a_time(opening);
        HttpSession session(target);
        one_at_a_time.unlock();
        std::size_t id = 1;
        for (std::size_t i = 0; i < c.warmup; ++i, ++id) (void)session.call(id, requests.params(i + k));
        arrived = true;
        warmed.arrive_and_wait();
        latencies[k].reserve(c.calls);
        for (std::size_t i = 0; i < c.calls; ++i, ++id) {
          const auto start = clock_type::now();
          const Answer answer = session.call(id, requests.params(i + k));
          latencies[k].push_back(std::chrono::duration<double, std::milli>(clock_type::now() - start).count());
          if (wrong_answer(answer, i + k, c.verify)) ++wrong[k];
        }
        session.close();
      } catch (const std::exception& e) {
        failures[k] = e.what();
        if (!arrived) warmed.arrive_and_drop();
      }
    });
  }
  for (auto& t : threads) t.join();
  // The last answer is in when the last thread ends; the DELETEs after it are a few µs.
  out.seconds = std::chrono::duration<double>(clock_type::now() - t0).count();
  out.client_cpu = own_cpu_seconds() - cpu0;
  out.server_cpu = process_cpu_seconds(c.server_pid) - server0;
  if (!clock_failure.empty()) throw std::runtime_error(clock_failure);
  for (std::size_t k = 0; k < c.clients; ++k) {
    if (!failures[k].empty()) throw std::runtime_error("client " + std::to_string(k) + ": " + failures[k]);
    out.latencies_ms.insert(out.latencies_ms.end(), latencies[k].begin(), latencies[k].end());
    out.wrong += wrong[k];
  }
  return out;
}

// ---- stdio: the server is this process's child; newline-delimited JSON on its pipes.

class Child {
 public:
  explicit Child(const std::vector<std::string>& command) {
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    std::vector<char*> argv;
    for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));  // NOLINT: spawn's signature
    argv.push_back(nullptr);
    const int rc = ::posix_spawnp(&pid_, argv[0], &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(in[0]);
    ::close(out[1]);
    to_ = in[1];
    from_ = out[0];
    if (rc != 0) throw std::runtime_error("cannot start " + command[0] + ": " + std::strerror(rc));
    ::fcntl(to_, F_SETFL, ::fcntl(to_, F_GETFL) | O_NONBLOCK);  // exchange() writes what fits
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (to_ >= 0) ::close(to_);
    if (from_ >= 0) ::close(from_);
    if (pid_ > 0) {
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
  }

  long pid() const { return pid_; }

  // Writes what it can of `pending` (erasing what was written) and reads what the server
  // wrote, both as the pipes allow, until one read brings in at least one complete line;
  // on_line gets each. Writing and reading together: a client that only wrote while the
  // server's answers filled its stdout would leave both waiting on each other.
  template <class F>
  void exchange(std::string& pending, F&& on_line) {
    for (;;) {
      pollfd fds[2] = {{from_, POLLIN, 0}, {to_, POLLOUT, 0}};
      const int ready = ::poll(fds, pending.empty() ? 1 : 2, 60'000);
      if (ready < 0 && errno == EINTR) continue;
      if (ready < 0) throw std::runtime_error(std::string("poll failed: ") + std::strerror(errno));
      if (ready == 0) throw std::runtime_error("the server wrote nothing for 60 s");
      if (!pending.empty() && fds[1].revents != 0) {
        const ssize_t n = ::write(to_, pending.data(), pending.size());
        if (n < 0 && errno != EAGAIN && errno != EINTR) throw std::runtime_error("the server's stdin closed");
        if (n > 0) pending.erase(0, static_cast<std::size_t>(n));
      }
      if (fds[0].revents == 0) continue;
      char chunk[65536];
      const ssize_t n = ::read(from_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw std::runtime_error("the server's stdout closed");
      buffer_.append(chunk, static_cast<std::size_t>(n));
      std::size_t start = 0, nl = 0;
      bool any = false;
      while ((nl = buffer_.find('\n', start)) != std::string::npos) {
        if (nl > start) {
          on_line(std::string_view(buffer_).substr(start, nl - start));
          any = true;
        }
        start = nl + 1;
      }
      buffer_.erase(0, start);
      if (any) return;
    }
  }

  void end_input() {
    ::close(to_);
    to_ = -1;
  }

 private:
  pid_t pid_ = 0;
  int to_ = -1, from_ = -1;
  std::string buffer_;
};

// n calls with `window` outstanding; ids from first_id, each answered exactly once.
// Latencies and wrong answers recorded when asked.
void drive_stdio(Child& child, const Requests& requests, std::size_t n, std::size_t window, std::size_t first_id,
                 bool verify, Outcome* record, std::string& pending) {
  std::vector<clock_type::time_point> sent_at(n);
  std::vector<char> answered_already(n, 0);
  std::size_t sent = 0, answered = 0;
  while (answered < n) {
    for (; sent < n && sent - answered < window; ++sent) {
      sent_at[sent] = clock_type::now();
      pending += request_text(first_id + sent, "tools/call", requests.params(sent));
      pending += '\n';
    }
    child.exchange(pending, [&](std::string_view line) {
      const Answer answer = read_answer(line);
      if (!answer.valid || !answer.id)
        throw std::runtime_error("an answer that is not a JSON-RPC response: " + std::string(line.substr(0, 300)));
      const std::uint64_t id = *answer.id;
      if (id < first_id || id - first_id >= sent) throw std::runtime_error("an answer to no outstanding request");
      const std::size_t i = id - first_id;
      if (answered_already[i] != 0) throw std::runtime_error("request " + std::to_string(id) + " answered twice");
      answered_already[i] = 1;
      if (record) {
        record->latencies_ms.push_back(
            std::chrono::duration<double, std::milli>(clock_type::now() - sent_at[i]).count());
        if (wrong_answer(answer, i, verify)) ++record->wrong;
      }
      ++answered;
    });
  }
}

Outcome run_stdio(const Config& c, const Requests& requests) {
  Child child(c.command);
  std::string pending = request_text(0, "initialize", initialize_params) + '\n';
  bool initialized = false;
  while (!initialized) child.exchange(pending, [&](std::string_view) { initialized = true; });
  pending += std::string(initialized_notification) + '\n';
  drive_stdio(child, requests, c.warmup, c.window, 1, false, nullptr, pending);
  Outcome out;
  out.latencies_ms.reserve(c.calls);
  const double server0 = process_cpu_seconds(child.pid());
  const double cpu0 = own_cpu_seconds();
  const auto t0 = clock_type::now();
  drive_stdio(child, requests, c.calls, c.window, 1 + c.warmup, c.verify, &out, pending);
  out.seconds = std::chrono::duration<double>(clock_type::now() - t0).count();
  out.client_cpu = own_cpu_seconds() - cpu0;
  out.server_cpu = process_cpu_seconds(child.pid()) - server0;
  child.end_input();
  return out;
}

// Nearest rank: the smallest latency at or above which p% of the calls fall.
double percentile(const std::vector<double>& sorted, double p) {
  const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size() - 1, rank == 0 ? 0 : rank - 1)];
}

}  // namespace

int main(int argc, char** argv) {
  const Config c = parse(argc, argv);
  ::signal(SIGPIPE, SIG_IGN);  // a server that dies mid-run is an error message, not a silent exit
  try {
    const Requests requests = load_requests(c.requests_file);
    Outcome out = c.transport == "http" ? run_http(c, requests) : run_stdio(c, requests);
    std::sort(out.latencies_ms.begin(), out.latencies_ms.end());
    const auto calls = static_cast<double>(out.latencies_ms.size());
    const json row = {{"calls", out.latencies_ms.size()},
                      {"seconds", out.seconds},
                      {"calls_per_s", calls / out.seconds},
                      {"p50_ms", percentile(out.latencies_ms, 50)},
                      {"p99_ms", percentile(out.latencies_ms, 99)},
                      {"wrong", out.wrong},
                      {"client_cpu_us_per_call", out.client_cpu * 1e6 / calls},
                      {"server_cpu_us_per_call", out.server_cpu * 1e6 / calls}};
    std::printf("%s\n", row.dump().c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "groundplane_bench_mcp_client: %s\n", e.what());
    return 1;
  }
}
