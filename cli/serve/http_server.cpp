#include "http_server.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <functional>
#include <new>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/socket.h>
#include <set>
#include <thread>

#include <httplib.h>

#include "../common.h"
#include "api_error.h"
#include "metrics.h"
#include "work_queue.h"

namespace swe::serve {

namespace {

// Error bodies: OpenAI's shape everywhere except TEI's /embed, which has its own.
enum class Style { kOpenAI, kTei };

void SendJson(httplib::Response& res, int status, const std::string& json_text) {
  res.status = status;
  // With "; charset=utf-8" cpp-httplib does not gzip the answer for clients that accept it (Node's
  // fetch, the openai client): compressing thousands of floats costs more CPU than encoding them.
  res.set_content(json_text + "\n", "application/json; charset=utf-8");
}

void SendJson(httplib::Response& res, int status, const Json& body) { SendJson(res, status, DumpJson(body)); }

void SendError(httplib::Response& res, Style style, int status, const std::string& message) {
  if (style == Style::kTei) {
    const char* type = status == 429 ? "Overloaded" : status >= 500 ? "Backend" : "Validation";
    SendJson(res, status, {{"error", message}, {"error_type", type}});
    return;
  }
  const char* type = status == 429 ? "rate_limit_error" : status >= 500 ? "server_error" : "invalid_request_error";
  SendJson(res, status, {{"error", {{"message", message}, {"type", type}, {"param", nullptr}, {"code", status}}}});
}

const std::set<std::string> kRoutes = {"/v1/embeddings", "/embed", "/search", "/index/add", "/index/remove",
                                       "/health", "/metrics"};

constexpr size_t kMaxHeaders = 100;

std::string RouteLabel(const std::string& path) { return kRoutes.count(path) ? path : "other"; }

std::string StatusMessage(int status) {
  switch (status) {
    case 400: return "bad request";
    case 404: return "no such route";
    case 405: return "method not allowed";
    case 413: return "the request body is too large";
    case 414: return "the request line is too long";
    default: return "HTTP status " + std::to_string(status);
  }
}

}  // namespace

int Serve(Service& service, const ServerOptions& options) {
  // Signals go to one thread that waits for them (before any other thread exists, so all inherit the
  // mask); it stops the server from outside a signal handler.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);  // a client that hangs up is a failed write, not the end of the server

  httplib::Server server;
  Metrics metrics;
  WorkQueue queue(options.threads, options.queue);
  const size_t connections = options.connections;
  server.new_task_queue = [connections] { return new httplib::ThreadPool(connections); };
  // TCP_NODELAY on the listening socket is inherited by accepted ones: without it the library's
  // separate writes of headers and body meet delayed ACKs and every answer waits 40 ms.
  int listen_socket = -1;
  server.set_socket_options([&listen_socket](int sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    listen_socket = sock;
  });
  server.set_payload_max_length(service.limits().max_body_bytes);
  server.set_read_timeout(options.timeout_seconds);
  server.set_write_timeout(options.timeout_seconds);
  server.set_keep_alive_timeout(options.idle_seconds);
  // The library's default of 5 requests per connection stays: it also bounds how many read timeouts
  // (each answered 400) a client that trickles bytes can take before it is dropped.
  server.set_logger([&metrics](const httplib::Request& req, const httplib::Response& res) {
    metrics.CountResponse(RouteLabel(req.path), res.status);
  });
  // Statuses the library sets itself (404, 413, a malformed request) get a JSON body too.
  server.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    SendError(res, Style::kOpenAI, res.status, StatusMessage(res.status));
    return httplib::Server::HandlerResponse::Handled;
  }));

  // cpp-httplib bounds each header line (8 KB) but not their number: refuse floods once read.
  server.set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
    if (req.headers.size() <= kMaxHeaders) return httplib::Server::HandlerResponse::Unhandled;
    SendError(res, Style::kOpenAI, 431, "more than " + std::to_string(kMaxHeaders) + " header fields");
    return httplib::Server::HandlerResponse::Handled;
  });

  auto post = [&](const char* path, Style style, std::function<std::string(const Json&)> answer) {
    server.Post(path, [&, path, style, answer](const httplib::Request& req, httplib::Response& res) {
      const auto start = std::chrono::steady_clock::now();
      try {
        WorkQueue::Turn turn = queue.Enter();
        if (!turn) {
          metrics.CountRejected();
          throw ApiError(429, "the server is busy: retry later");
        }
        SendJson(res, 200, answer(ParseJson(req.body, service.limits().max_json_values())));
      } catch (const ApiError& e) {
        SendError(res, style, e.status(), e.what());
      } catch (const std::bad_alloc&) {
        SendError(res, style, 503, "out of memory");
      } catch (const std::exception& e) {
        SendError(res, style, 500, e.what());
      }
      if (res.status == 429) res.set_header("Retry-After", "1");
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      metrics.ObserveLatency(path, took.count());
    });
  };
  post("/v1/embeddings", Style::kOpenAI, [&](const Json& body) { return service.Embeddings(body); });
  post("/embed", Style::kTei, [&](const Json& body) { return service.Embed(body); });
  post("/search", Style::kOpenAI, [&](const Json& body) { return DumpJson(service.Search(body)); });
  post("/index/add", Style::kOpenAI, [&](const Json& body) { return DumpJson(service.AddDocuments(body)); });
  post("/index/remove", Style::kOpenAI, [&](const Json& body) { return DumpJson(service.RemoveDocuments(body)); });
  server.Get("/health", [&](const httplib::Request&, httplib::Response& res) { SendJson(res, 200, service.Health()); });
  server.Get("/metrics", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(metrics.Render({queue.waiting(), queue.active(), service.index_size()}),
                    "text/plain; version=0.0.4");
  });

  int port = options.port;
  const bool bound = port == 0 ? (port = server.bind_to_any_port(options.host)) > 0
                               : server.bind_to_port(options.host, port);
  if (!bound) {
    pthread_sigmask(SIG_UNBLOCK, &stop_signals, nullptr);
    throw cli::CliError(1, "cannot listen on " + options.host + ":" + std::to_string(options.port));
  }
  std::atomic<bool> stopped_by_signal{false};
  std::thread stopper([&] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    if (!stopped_by_signal.exchange(true) && server.is_running()) {
      std::fprintf(stderr, "swe serve: stopping (finishing the requests in flight)\n");
    }
    server.stop();
  });
  // The library listens with a backlog of 5 (CPPHTTPLIB_LISTEN_BACKLOG, fixed in Debian's compiled
  // library): more clients connecting at once were reset. listen() again only raises the backlog.
  if (listen_socket >= 0) ::listen(listen_socket, SOMAXCONN);
  std::fprintf(stderr, "swe serve: listening on http://%s:%d\n", options.host.c_str(), port);
  const bool ok = server.listen_after_bind();
  if (!stopped_by_signal.exchange(true)) pthread_kill(stopper.native_handle(), SIGTERM);  // wakes the stopper
  stopper.join();
  if (!ok) throw cli::CliError(1, "the server failed while listening");
  std::fprintf(stderr, "swe serve: stopped\n");
  return 0;
}

}  // namespace swe::serve
