#include "http_server.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include "../common.h"
#include "api_error.h"
#include "http_parser.h"
#include "metrics.h"
#include "work_queue.h"

namespace swe::serve {

namespace {

using Clock = std::chrono::steady_clock;

// Error bodies: OpenAI's shape everywhere except TEI's /embed, which has its own.
enum class Style { kOpenAI, kTei };

struct Response {
  int status = 200;
  const char* content_type = "application/json";
  std::string body;
  const char* extra_headers = "";  // whole lines ("Retry-After: 1\r\n")
};

const char* Reason(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 417: return "Expectation Failed";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Error";
  }
}

void SetJson(Response* res, int status, std::string json_text) {
  res->status = status;
  res->content_type = "application/json";
  res->body = std::move(json_text);
  res->body += '\n';
}

Response ErrorResponse(Style style, int status, const std::string& message) {
  Response res;
  if (style == Style::kTei) {
    const char* type = status == 429 ? "Overloaded" : status >= 500 ? "Backend" : "Validation";
    SetJson(&res, status, DumpJson(Json{{"error", message}, {"error_type", type}}));
  } else {
    const char* type = status == 429 ? "rate_limit_error" : status >= 500 ? "server_error" : "invalid_request_error";
    SetJson(&res, status,
            DumpJson(Json{{"error", {{"message", message}, {"type", type}, {"param", nullptr}, {"code", status}}}}));
  }
  if (status == 429) res.extra_headers = "Retry-After: 1\r\n";
  return res;
}

// A POST route's answer from the parsed body (JSON text), or ApiError.
using Answer = std::function<std::string(const Json&)>;

struct Route {
  const char* path;
  Style style;
  Answer post;                      // POST routes
  std::function<Response()> get;    // GET routes
};

// How waiting for bytes ended.
enum class Wait { kReady, kTimeout, kStopped, kFailed };

// Waits until `fd` is ready for `events` or `deadline` passes; with `stop_fd` >= 0, also until it is
// readable (the server is stopping).
Wait WaitFor(int fd, short events, Clock::time_point deadline, int stop_fd) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return Wait::kTimeout;
    pollfd fds[2] = {{fd, events, 0}, {stop_fd, POLLIN, 0}};
    const int n = ::poll(fds, stop_fd >= 0 ? 2 : 1, static_cast<int>(std::min<long long>(left, 1 << 30)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Wait::kFailed;
    if (n == 0) continue;  // the deadline is checked above
    if (stop_fd >= 0 && (fds[1].revents & POLLIN)) return Wait::kStopped;
    return Wait::kReady;
  }
}

class Server {
 public:
  Server(Service& service, const ServerOptions& options)
      : service_(service), options_(options), queue_(options.threads, options.queue) {
    limits_.max_body = service.limits().max_body_bytes;
  }
  int Run();

 private:
  void Routes();
  void Worker();
  void ServeConnection(int fd);
  // Reads more of the connection into in_ (from the socket); how waiting ended.
  Wait ReadMore(int fd, std::string* in, Clock::time_point deadline, bool stoppable);
  bool WriteAll(int fd, const std::string& head, const std::string& body);
  bool Send(int fd, const Response& res, bool close);
  // After an answer sent before the request was read whole: reads and drops the rest, then returns.
  void Linger(int fd);
  Response Handle(HttpRequest& request, std::string* route_label);
  Response Post(const Route& route, const HttpRequest& request);

  Service& service_;
  ServerOptions options_;
  HttpLimits limits_;
  Metrics metrics_;
  WorkQueue queue_;
  std::vector<Route> routes_;
  int stop_pipe_[2] = {-1, -1};  // written once when stopping: its read end wakes every wait
  std::atomic<bool> stopping_{false};
  // Connections accepted and waiting for a connection thread; `free_` threads wait for one.
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<int> accepted_;
  size_t free_ = 0;
};

void Server::Routes() {
  auto post = [&](const char* path, Style style, Answer answer) { routes_.push_back({path, style, std::move(answer), {}}); };
  auto get = [&](const char* path, std::function<Response()> answer) {
    routes_.push_back({path, Style::kOpenAI, {}, std::move(answer)});
  };
  post("/v1/embeddings", Style::kOpenAI, [this](const Json& body) { return service_.Embeddings(body); });
  post("/embed", Style::kTei, [this](const Json& body) { return service_.Embed(body); });
  post("/search", Style::kOpenAI, [this](const Json& body) { return DumpJson(service_.Search(body)); });
  post("/index/add", Style::kOpenAI, [this](const Json& body) { return DumpJson(service_.AddDocuments(body)); });
  post("/index/remove", Style::kOpenAI, [this](const Json& body) { return DumpJson(service_.RemoveDocuments(body)); });
  get("/health", [this] {
    Response res;
    SetJson(&res, 200, DumpJson(service_.Health()));
    return res;
  });
  get("/metrics", [this] {
    Response res;
    res.content_type = "text/plain; version=0.0.4";
    res.body = metrics_.Render({queue_.waiting(), queue_.active(), service_.index_size(), service_.texts_embedded()});
    return res;
  });
}

Response Server::Post(const Route& route, const HttpRequest& request) {
  const auto start = Clock::now();
  Response res;
  try {
    WorkQueue::Turn turn = queue_.Enter();
    if (!turn) {
      metrics_.CountRejected();
      throw ApiError(429, "the server is busy: retry later");
    }
    SetJson(&res, 200, route.post(ParseJson(request.body, service_.limits().max_json_values())));
  } catch (const ApiError& e) {
    res = ErrorResponse(route.style, e.status(), e.what());
  } catch (const std::bad_alloc&) {
    res = ErrorResponse(route.style, 503, "out of memory");
  } catch (const std::exception& e) {
    res = ErrorResponse(route.style, 500, e.what());
  }
  metrics_.ObserveLatency(route.path, std::chrono::duration<double>(Clock::now() - start).count());
  return res;
}

Response Server::Handle(HttpRequest& request, std::string* route_label) {
  for (const Route& route : routes_) {
    if (request.path != route.path) continue;
    *route_label = route.path;
    const char* method = route.post ? "POST" : "GET";
    if (request.method != method) {
      Response res = ErrorResponse(route.style, 405, request.method + " is not allowed on " + route.path + " (" +
                                                          method + " is)");
      res.extra_headers = route.post ? "Allow: POST\r\n" : "Allow: GET\r\n";
      return res;
    }
    return route.post ? Post(route, request) : route.get();
  }
  *route_label = "other";
  return ErrorResponse(Style::kOpenAI, 404, "no such route: " + request.path);
}

Wait Server::ReadMore(int fd, std::string* in, Clock::time_point deadline, bool stoppable) {
  char buffer[64 * 1024];
  for (;;) {
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n > 0) {
      in->append(buffer, static_cast<size_t>(n));
      return Wait::kReady;
    }
    if (n == 0) return Wait::kFailed;  // the client closed
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return Wait::kFailed;
    const Wait waited = WaitFor(fd, POLLIN, deadline, stoppable ? stop_pipe_[0] : -1);
    if (waited != Wait::kReady) return waited;
  }
}

bool Server::WriteAll(int fd, const std::string& head, const std::string& body) {
  iovec parts[2] = {{const_cast<char*>(head.data()), head.size()}, {const_cast<char*>(body.data()), body.size()}};
  iovec* next = parts;
  int count = body.empty() ? 1 : 2;
  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(options_.timeout_seconds);
  while (count > 0) {
    const ssize_t n = ::writev(fd, next, count);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (WaitFor(fd, POLLOUT, deadline, -1) != Wait::kReady) return false;
      continue;
    }
    if (n < 0) return false;
    size_t done = static_cast<size_t>(n);
    while (count > 0 && done >= next->iov_len) {
      done -= next->iov_len;
      ++next;
      --count;
    }
    if (count > 0) {
      next->iov_base = static_cast<char*>(next->iov_base) + done;
      next->iov_len -= done;
    }
  }
  return true;
}

void Server::Linger(int fd) {
  // A client that sends its whole body before it reads (Node's fetch, curl) reads the answer only if
  // the rest of what it sends is read: discarded here, bounded in bytes and time, then closed.
  ::shutdown(fd, SHUT_WR);
  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(options_.timeout_seconds);
  char buffer[64 * 1024];
  for (size_t discarded = 0; discarded < (64u << 20);) {
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n > 0) {
      discarded += static_cast<size_t>(n);
      continue;
    }
    if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return;
    if (errno != EINTR && WaitFor(fd, POLLIN, deadline, -1) != Wait::kReady) return;
  }
}

bool Server::Send(int fd, const Response& res, bool close) {
  // A kept connection says how long it stays open idle: clients (Node's fetch) stop reusing it before
  // then, instead of sending a request as the server closes it.
  char keep[64];
  std::snprintf(keep, sizeof keep, "Keep-Alive: timeout=%d\r\n", options_.idle_seconds);
  char head[512];
  const int n = std::snprintf(head, sizeof head, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s%s\r\n",
                              res.status, Reason(res.status), res.content_type, res.body.size(), res.extra_headers,
                              close ? "Connection: close\r\n" : keep);
  return WriteAll(fd, std::string(head, static_cast<size_t>(n)), res.body);
}

// One connection: requests one after the other (pipelined ones included: the bytes after a request
// stay in `in` for the next), each answered in order, until the client closes, a request asks to, the
// connection idles past --idle-timeout, a request's head takes longer than --timeout, a read of its body
// waits longer than --timeout, or the server stops.
void Server::ServeConnection(int fd) {
  HttpParser parser(limits_);
  std::string in;
  size_t start = 0;  // bytes of `in` already parsed
  for (;;) {
    parser.Reset();
    const Clock::time_point idle_deadline = Clock::now() + std::chrono::seconds(options_.idle_seconds);
    Clock::time_point head_deadline{};
    bool continue_sent = false;
    HttpParser::Result result;
    for (;;) {
      size_t used = 0;
      result = parser.Parse(std::string_view(in).substr(start), &used);
      start += used;
      if (start == in.size() || start > (1u << 16)) {  // keep the buffer small
        in.erase(0, start);
        start = 0;
      }
      if (result != HttpParser::Result::kMore) break;
      if (parser.awaiting_body() && parser.request().expect_continue && !continue_sent) {
        continue_sent = true;
        if (!WriteAll(fd, "HTTP/1.1 100 Continue\r\n\r\n", "")) return;
      }
      const bool fresh = parser.idle() && start == in.size();  // no byte of this request yet
      if (!fresh && head_deadline == Clock::time_point{}) {
        head_deadline = Clock::now() + std::chrono::seconds(options_.timeout_seconds);
      }
      const Clock::time_point deadline = fresh ? idle_deadline
                                         : parser.head_done() ? Clock::now() + std::chrono::seconds(options_.timeout_seconds)
                                                                  : head_deadline;
      const Wait waited = ReadMore(fd, &in, deadline, fresh);
      if (waited == Wait::kReady) continue;
      if (waited == Wait::kTimeout && !fresh) {
        metrics_.CountResponse("other", 408);
        Send(fd, ErrorResponse(Style::kOpenAI, 408, "the request was not received in time"), true);
      }
      return;  // closed, idle, stopping or failed
    }
    if (result == HttpParser::Result::kFailed) {
      metrics_.CountResponse("other", parser.status());
      if (Send(fd, ErrorResponse(Style::kOpenAI, parser.status(), parser.message()), true)) Linger(fd);
      return;
    }
    HttpRequest& request = parser.request();
    std::string route;
    Response res = Handle(request, &route);
    metrics_.CountResponse(route, res.status);
    const bool close = !request.keep_alive || stopping_.load();
    if (!Send(fd, res, close) || close) return;
  }
}

void Server::Worker() {
  for (;;) {
    int fd;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ++free_;
      changed_.notify_all();
      changed_.wait(lock, [&] { return !accepted_.empty() || stopping_.load(); });
      if (accepted_.empty()) return;
      fd = accepted_.front();
      accepted_.pop_front();
      --free_;
    }
    ServeConnection(fd);
    ::close(fd);
  }
}

int Server::Run() {
  // Signals go to one thread that waits for them (before any other thread exists, so all inherit the
  // mask); it stops the server from outside a signal handler.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);  // a client that hangs up is a failed write, not the end of the server

  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(options_.port);
  int listener = -1;
  if (::getaddrinfo(options_.host.c_str(), port.c_str(), &hints, &found) == 0) {
    for (addrinfo* a = found; a && listener < 0; a = a->ai_next) {
      listener = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
      if (listener < 0) continue;
      int yes = 1;
      ::setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
      if (::bind(listener, a->ai_addr, a->ai_addrlen) != 0 || ::listen(listener, SOMAXCONN) != 0) {
        ::close(listener);
        listener = -1;
      }
    }
    ::freeaddrinfo(found);
  }
  if (listener < 0) {
    pthread_sigmask(SIG_UNBLOCK, &stop_signals, nullptr);
    throw cli::CliError(1, "cannot listen on " + options_.host + ":" + port);
  }
  sockaddr_storage bound{};
  socklen_t bound_size = sizeof bound;
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&bound), &bound_size);
  const int actual_port = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                                            : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  if (::pipe2(stop_pipe_, O_CLOEXEC) != 0) throw cli::CliError(1, "cannot create a pipe");
  Routes();
  std::thread stopper([&] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    if (!stopping_.exchange(true)) std::fprintf(stderr, "swe serve: stopping (finishing the requests in flight)\n");
    const char byte = 1;
    while (::write(stop_pipe_[1], &byte, 1) < 0 && errno == EINTR) {
    }
    std::lock_guard<std::mutex> lock(mutex_);
    changed_.notify_all();
  });
  std::vector<std::thread> workers;
  for (size_t i = 0; i < options_.connections; ++i) workers.emplace_back([this] { Worker(); });
  std::fprintf(stderr, "swe serve: listening on http://%s:%d\n", options_.host.c_str(), actual_port);
  while (!stopping_.load()) {
    {  // accept only when a connection thread is free: the others wait in the listen backlog
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return free_ > accepted_.size() || stopping_.load(); });
    }
    if (WaitFor(listener, POLLIN, Clock::now() + std::chrono::hours(24), stop_pipe_[0]) != Wait::kReady) continue;
    const int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    int yes = 1;  // answers go out at once: no wait for delayed ACKs
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    std::lock_guard<std::mutex> lock(mutex_);
    accepted_.push_back(fd);
    changed_.notify_all();
  }
  ::close(listener);
  for (std::thread& worker : workers) worker.join();
  for (int fd : accepted_) ::close(fd);  // accepted but not yet served
  stopper.join();
  ::close(stop_pipe_[0]);
  ::close(stop_pipe_[1]);
  std::fprintf(stderr, "swe serve: stopped\n");
  return 0;
}

}  // namespace

int Serve(Service& service, const ServerOptions& options) {
  Server server(service, options);
  return server.Run();
}

}  // namespace swe::serve
