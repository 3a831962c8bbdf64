// The HTTP transport's connections (internals of groundplane/mcp/http.hpp): each one
// read through limits enforced while its bytes arrive, and how many one client address
// may hold at once. HttpServer is the public side; nothing here knows MCP.
#pragma once

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace groundplane::mcp::detail {

// Live connections by client address, each at most `limit`. A Slot is one connection's
// place, given back when the Slot ends.
class ClientConnections {
 public:
  explicit ClientConnections(std::size_t limit) : limit_(limit) {}

  class Slot {
   public:
    Slot(ClientConnections& owner, std::string address) : owner_(&owner), address_(std::move(address)) {}
    Slot(Slot&& other) noexcept : owner_(std::exchange(other.owner_, nullptr)), address_(std::move(other.address_)) {}
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    Slot& operator=(Slot&&) = delete;
    ~Slot() {
      if (owner_ != nullptr) owner_->give_back(address_);
    }

   private:
    ClientConnections* owner_;
    std::string address_;
  };

  // A place for one more connection from `address`; none when it holds `limit` already.
  std::optional<Slot> take(const std::string& address) {
    const std::lock_guard lock(mutex_);
    auto& held = held_[address];
    if (held >= limit_) return std::nullopt;
    ++held;
    return std::optional<Slot>(std::in_place, *this, address);
  }

 private:
  void give_back(const std::string& address) {
    const std::lock_guard lock(mutex_);
    const auto it = held_.find(address);
    if (it != held_.end() && --it->second == 0) held_.erase(it);
  }

  std::size_t limit_;
  std::mutex mutex_;
  std::map<std::string, std::size_t, std::less<>> held_;
};

// One connection as httplib's request parser reads it: buffered across requests (so bytes
// a client pipelined after one request are the next, not lost with a per-request
// buffer), with the request line and headers counted while they are read (a flood of
// them is cut off there, before any handler or token check sees the request), and a
// deadline for a whole request's headers and body, however slowly its bytes trickle in.
class GuardedConnection final : public httplib::Stream {
 public:
  struct Limits {
    std::size_t max_header_bytes;
    std::size_t max_header_count;
    std::chrono::milliseconds read_timeout;
    std::chrono::milliseconds request_timeout;
    std::size_t max_connections_per_client;
  };
  // Why reading stopped, for the error handler's answer.
  enum class Stop { none, headers_too_large, deadline };

  GuardedConnection(socket_t sock, const Limits& limits) : sock_(sock), limits_(limits) {}

  // The connection being served on this thread, for the handlers httplib calls on it.
  static GuardedConnection*& current() {
    // One per thread, set and cleared by the loop that serves the connection.
    thread_local GuardedConnection* connection = nullptr;  // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)
    return connection;
  }

  // A request begins: its headers are counted afresh and its deadline set.
  void begin_request() {
    in_headers_ = true;
    header_bytes_ = header_lines_ = line_bytes_ = 0;
    previous_ = '\0';
    deadline_ = std::chrono::steady_clock::now() + limits_.request_timeout;
  }
  bool has_buffered() const noexcept { return at_ < held_.size(); }
  Stop stopped() const noexcept { return stop_; }
  // Set by a handler that left bytes of its request unread: the connection ends after
  // the response, since what follows is not the start of a request.
  void close_after() noexcept { close_after_ = true; }
  bool must_close() const noexcept { return close_after_ || stop_ != Stop::none; }

  bool is_readable() const override { return has_buffered() || wait(POLLIN, limits_.read_timeout); }
  bool is_writable() const override { return wait(POLLOUT, limits_.read_timeout); }

  ssize_t read(char* ptr, std::size_t size) override {
    if (stop_ != Stop::none) return -1;
    if (!has_buffered() && !fill()) return -1;
    const std::size_t n = std::min(size, held_.size() - at_);
    if (in_headers_ && !count_headers(n)) {
      stop_ = Stop::headers_too_large;
      return -1;
    }
    std::memcpy(ptr, held_.data() + at_, n);
    at_ += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, std::size_t size) override {
    std::size_t done = 0;
    while (done < size) {
      if (!wait(POLLOUT, limits_.read_timeout)) return -1;
      const auto n = ::send(sock_, ptr + done, size - done, MSG_NOSIGNAL);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) return -1;
      done += static_cast<std::size_t>(n);
    }
    return static_cast<ssize_t>(size);
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override { address_of(::getpeername, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { address_of(::getsockname, ip, port); }
  socket_t socket() const override { return sock_; }

 private:
  // Whether the socket is ready for `events` within `timeout`.
  bool wait(short events, std::chrono::milliseconds timeout) const {
    pollfd p{sock_, events, 0};
    int r = 0;
    do r = ::poll(&p, 1, static_cast<int>(timeout.count()));
    while (r < 0 && errno == EINTR);
    return r > 0;
  }
  // Reads what the socket has, waiting no longer than the read timeout or the request's
  // deadline, whichever comes first.
  bool fill() {
    held_.resize(block);
    at_ = 0;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      held_.clear();
      stop_ = Stop::deadline;
      return false;
    }
    // Whichever ends first ends the wait, and says why (the clock is not asked again: a
    // wait cut to whole milliseconds may end a moment before the deadline it waited for).
    const bool deadline_first = left < limits_.read_timeout;
    if (!wait(POLLIN, deadline_first ? left : limits_.read_timeout)) {
      held_.clear();
      if (deadline_first) stop_ = Stop::deadline;
      return false;
    }
    ssize_t n = 0;
    do n = ::recv(sock_, held_.data(), held_.size(), 0);
    while (n < 0 && errno == EINTR);
    held_.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    return n > 0;
  }
  // Counts the next `n` held bytes into the request's head; false past a limit. The
  // head ends at its first empty line ("\r\n" alone, as httplib reads it).
  bool count_headers(std::size_t n) {
    for (std::size_t i = 0; i < n && in_headers_; ++i) {
      const char c = held_[at_ + i];
      if (++header_bytes_ > limits_.max_header_bytes) return false;
      ++line_bytes_;
      if (c == '\n') {
        if (line_bytes_ == 2 && previous_ == '\r' && header_lines_ > 0) in_headers_ = false;
        else if (++header_lines_ > limits_.max_header_count + 1) return false;  // + the request line
        line_bytes_ = 0;
      }
      previous_ = c;
    }
    return true;
  }
  template <class Name>
  void address_of(Name name, std::string& ip, int& port) const {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    ip.clear();
    port = -1;
    // The sockets API hands every address family through sockaddr*: the casts are its contract.
    if (name(sock_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return;  // NOLINT(*-reinterpret-cast)
    std::array<char, INET6_ADDRSTRLEN> text{};
    if (addr.ss_family == AF_INET) {
      const auto* a = reinterpret_cast<const sockaddr_in*>(&addr);  // NOLINT(*-reinterpret-cast)
      ::inet_ntop(AF_INET, &a->sin_addr, text.data(), text.size());
      port = ntohs(a->sin_port);
    } else if (addr.ss_family == AF_INET6) {
      const auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);  // NOLINT(*-reinterpret-cast)
      ::inet_ntop(AF_INET6, &a->sin6_addr, text.data(), text.size());
      port = ntohs(a->sin6_port);
    }
    ip = text.data();
  }

  static constexpr std::size_t block = std::size_t{16} * 1024;
  socket_t sock_;
  Limits limits_;
  std::string held_;  // read from the socket, not yet taken, from at_
  std::size_t at_ = 0;
  bool in_headers_ = false;
  std::size_t header_bytes_ = 0, header_lines_ = 0, line_bytes_ = 0;
  char previous_ = '\0';
  std::chrono::steady_clock::time_point deadline_{};
  Stop stop_ = Stop::none;
  bool close_after_ = false;
};

// httplib's server with its connection loop replaced: each connection is read through a
// GuardedConnection, and closed once a request leaves it in a state no further request
// can be read from (a body not read to its end, headers over the limit, a deadline).
class GuardedHttplibServer final : public httplib::Server {
 public:
  // `over_limit`: the whole HTTP response a connection past its address's limit is sent.
  GuardedHttplibServer(const GuardedConnection::Limits& limits, std::string over_limit)
      : limits_(limits), clients_(limits.max_connections_per_client), over_limit_(std::move(over_limit)) {}

 private:
  bool process_and_close_socket(socket_t sock) override {
    GuardedConnection connection(sock, limits_);
    std::string remote_ip, local_ip;
    int remote_port = -1, local_port = -1;
    connection.get_remote_ip_and_port(remote_ip, remote_port);
    const auto slot = clients_.take(remote_ip);
    if (!slot) {
      refuse_and_close(sock);
      return true;
    }
    GuardedConnection::current() = &connection;
    connection.get_local_ip_and_port(local_ip, local_port);
    const auto setup = [&](httplib::Request& req) {
      req.remote_addr = remote_ip;
      req.remote_port = remote_port;
      req.local_addr = local_ip;
      req.local_port = local_port;
    };
    bool ok = true;
    for (std::size_t count = keep_alive_max_count_; count > 0 && svr_sock_ != INVALID_SOCKET; --count) {
      if (!connection.has_buffered() && !idle_until_readable(sock)) break;
      connection.begin_request();
      bool closed = false;
      ok = process_request(connection, count == 1, closed, setup);
      if (!ok || closed || connection.must_close()) break;
    }
    GuardedConnection::current() = nullptr;
    if (connection.must_close()) linger_and_close(sock, connection.stopped() != GuardedConnection::Stop::none);
    else ::close(sock);  // the client closed, or kept it idle too long: nothing of it is unread
    return ok;
  }

  // Waits for the next request's first byte for the keep-alive timeout, in slices, so
  // that stop() is not held up by a connection kept alive.
  bool idle_until_readable(socket_t sock) const {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(keep_alive_timeout_sec_);
    while (svr_sock_ != INVALID_SOCKET && std::chrono::steady_clock::now() < until) {
      pollfd p{sock, POLLIN, 0};
      const int r = ::poll(&p, 1, 100);
      if (r > 0) return true;
      if (r < 0 && errno != EINTR) return false;
    }
    return false;
  }

  // Closes after the response has left: the write side first, then what the client is
  // still sending is read and dropped for a while (closing with it unread would reset the
  // connection, and the client could lose the response it was sent: a client that writes
  // a whole body before it reads, as most do, gets its 413). Not long after a flood of
  // headers or a missed deadline: that client is not one to wait for.
  static void linger_and_close(socket_t sock, bool briefly) {
    ::shutdown(sock, SHUT_WR);
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(briefly ? 100 : 1000);
    const std::size_t most = briefly ? std::size_t{64} * 1024 : std::size_t{256} * 1024 * 1024;
    std::array<char, std::size_t{64} * 1024> sink{};
    std::size_t dropped = 0;
    while (dropped < most && std::chrono::steady_clock::now() < until) {
      pollfd p{sock, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) break;  // it stopped sending
      const auto n = ::recv(sock, sink.data(), sink.size(), 0);
      if (n <= 0) break;
      dropped += static_cast<std::size_t>(n);
    }
    ::close(sock);
  }

  // Answers a connection past its address's limit without waiting on it: the response
  // fits the socket's send buffer, what the client already sent is dropped (closing with
  // it unread would reset the connection before the client read the answer), and
  // nothing else is waited for. A worker is held for microseconds, however slow the client.
  void refuse_and_close(socket_t sock) const {
    (void)::send(sock, over_limit_.data(), over_limit_.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    ::shutdown(sock, SHUT_WR);
    std::array<char, std::size_t{16} * 1024> sink{};
    for (int i = 0; i < 4 && ::recv(sock, sink.data(), sink.size(), MSG_DONTWAIT) > 0; ++i) {
    }
    ::close(sock);
  }

  GuardedConnection::Limits limits_;
  ClientConnections clients_;
  std::string over_limit_;
};

}  // namespace groundplane::mcp::detail
