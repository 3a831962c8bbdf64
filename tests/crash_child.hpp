// Shared by the crash tests: runs tests/store_crash_child on a ledger file and SIGKILLs it
// at a chosen moment, returning what it printed before it died.
#pragma once

#include <signal.h>
#include <sys/select.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <sstream>
#include <string>
#include <vector>

#include "catch2_compat.hpp"

#ifdef GROUNDPLANE_CRASH_CHILD
namespace gp_test {

struct ChildRun {
  std::vector<std::string> lines;  // every whole line it printed
  int signal = 0;                  // what ended it (SIGKILL, when the kill came first)
};

// Starts the child (GROUNDPLANE_CRASH_CHILD) on `file` with `args` after it, lets it run
// for `ms` after it says ready, then SIGKILLs it.
inline ChildRun run_and_kill(const std::string& file, int ms, const std::vector<std::string>& args = {}) {
  std::vector<std::string> argv_text{GROUNDPLANE_CRASH_CHILD, file};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  int out[2];
  REQUIRE(::pipe(out) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(out[1], 1);
    ::close(out[0]);
    ::close(out[1]);
    ::execv(GROUNDPLANE_CRASH_CHILD, argv.data());
    std::_Exit(127);
  }
  ::close(out[1]);
  std::string text;
  char buf[65536];
  bool killed = false;
  const auto deadline_after_ready = [&] { return std::chrono::steady_clock::now() + std::chrono::milliseconds(ms); };
  std::chrono::steady_clock::time_point deadline{};
  for (;;) {
    if (!killed && deadline != std::chrono::steady_clock::time_point{} &&
        std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid, SIGKILL);
      killed = true;
    }
    fd_set set;
    FD_ZERO(&set);
    FD_SET(out[0], &set);
    timeval tv{0, 1000};
    if (::select(out[0] + 1, &set, nullptr, nullptr, &tv) <= 0) continue;
    const ssize_t n = ::read(out[0], buf, sizeof buf);
    if (n <= 0) break;  // the child is gone and the pipe drained
    text.append(buf, static_cast<std::size_t>(n));
    if (deadline == std::chrono::steady_clock::time_point{} && text.find("ready\n") != std::string::npos)
      deadline = deadline_after_ready();
  }
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ChildRun run;
  run.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) run.lines.push_back(line);  // a torn last line has no '\n'...
  if (!text.empty() && text.back() != '\n') run.lines.pop_back();             // ... and is not a printed line
  return run;
}

}  // namespace gp_test
#endif
