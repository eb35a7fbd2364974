// `swe serve`'s HTTP side (cpp-httplib): routes, error bodies, limits, the work queue, metrics, and
// SIGTERM/SIGINT, which stop accepting connections, finish the requests in flight and return.
#pragma once

#include <cstddef>
#include <string>

#include "service.h"

namespace swe::serve {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;              // 0: any free port (printed)
  size_t threads = 1;           // requests computed at once
  size_t queue = 32;            // requests waiting for a thread; more are answered 429
  size_t connections = 64;      // connections served at once (the others wait to be accepted)
  int timeout_seconds = 5;      // per read or write of a connection: slower clients are dropped
  int idle_seconds = 5;         // a keep-alive connection with no new request is closed
};

// Serves until SIGTERM or SIGINT; returns 0 after draining, or throws cli::CliError when it cannot
// listen. Prints "swe serve: listening on http://HOST:PORT" on stderr once it accepts connections.
int Serve(Service& service, const ServerOptions& options);

}  // namespace swe::serve
