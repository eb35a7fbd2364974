// swe serve: embeddings (OpenAI's and TEI's APIs) and search over HTTP; the server is in serve/.
#include <cstdio>
#include <string>

#include "commands.h"
#include "common.h"
#include "serve/http_server.h"
#include "serve/service.h"
#include "swe/util/args.h"

namespace swe::cli {

namespace {

constexpr const char* kServeUsage =
    "usage: swe serve MODEL [--index FILE] [--host 127.0.0.1] [--port 8080] [--threads N] [options]\n"
    "\n"
    "Serves the model over HTTP until SIGTERM or SIGINT, which finish the requests in flight and exit 0.\n"
    "  POST /v1/embeddings   OpenAI's embeddings API (input, model, encoding_format float|base64, dimensions)\n"
    "  POST /embed           text-embeddings-inference's API (inputs, normalize, truncate, truncation_direction)\n"
    "  POST /search          {\"query\", \"k\", \"min_score\", \"candidates\"} on the --index\n"
    "  POST /index/add       {\"documents\": [{\"id\", \"text\", \"metadata\"}]}, saved to the file before the answer\n"
    "  POST /index/remove    {\"ids\": [...]}, saved likewise\n"
    "  GET  /health, GET /metrics (Prometheus text)\n"
    "Errors are JSON with a 4xx/5xx status; 429 when the work queue is full. docs/SERVE.md has the details.\n"
    "\n"
    "options:\n"
    "  --index FILE           an index to search and change (created by the first add when missing)\n"
    "  --host HOST            address to listen on (default 127.0.0.1: this machine only)\n"
    "  --port N               port (default 8080; 0: any free port)\n"
    "  --threads N            requests computed at once (default 1)\n"
    "  --queue N              requests that may wait for a thread; more get 429 (default 32)\n"
    "  --connections N        connections served at once (default 64)\n"
    "  --max-body-bytes N     largest request body (default 8388608; larger: 413)\n"
    "  --max-inputs N         texts or documents per request (default 2048)\n"
    "  --max-text-bytes N     bytes of one text (default 65536)\n"
    "  --timeout SECONDS      a read or write slower than this drops the connection (default 5)\n"
    "  --idle-timeout SECONDS an idle keep-alive connection is closed after this (default 5)\n";

}  // namespace

int RunServe(const Args& args) {
  const std::string command = "swe serve";
  util::ParsedArgs parsed = util::ParseArgs(
      args,
      {{"index", 0, 1}, {"host", 0, 1}, {"port", 0, 1}, {"threads", 0, 1}, {"queue", 0, 1}, {"connections", 0, 1},
       {"max-body-bytes", 0, 1}, {"max-inputs", 0, 1}, {"max-text-bytes", 0, 1}, {"timeout", 0, 1},
       {"idle-timeout", 0, 1}},
      command);
  if (parsed.help) {
    std::fputs(kServeUsage, stdout);
    return 0;
  }
  if (parsed.positional.size() != 1) throw util::UsageError("expected one MODEL", command);
  auto count = [&](const char* name, uint64_t fallback, uint64_t min, uint64_t max) {
    return parsed.has(name) ? util::ParseCount(parsed.get(name), std::string("--") + name, min, max) : fallback;
  };
  serve::ServerOptions options;
  options.host = parsed.get("host", options.host);
  options.port = static_cast<int>(count("port", 8080, 0, 65535));
  options.threads = count("threads", 1, 1, 256);
  options.queue = count("queue", 32, 0, 100000);
  options.connections = count("connections", 64, 1, 4096);
  options.timeout_seconds = static_cast<int>(count("timeout", 5, 1, 3600));
  options.idle_seconds = static_cast<int>(count("idle-timeout", 5, 1, 3600));
  if (options.connections < options.threads) {
    throw util::UsageError("--connections must be at least --threads", command);
  }
  serve::Limits limits;
  limits.max_body_bytes = count("max-body-bytes", limits.max_body_bytes, 1, uint64_t{1} << 32);
  limits.max_inputs = count("max-inputs", limits.max_inputs, 1, 1u << 20);
  limits.max_text_bytes = count("max-text-bytes", limits.max_text_bytes, 1, uint64_t{1} << 30);
  serve::Service service(LoadModel(parsed.positional[0]), parsed.get("index"), limits);
  return serve::Serve(service, options);
}

}  // namespace swe::cli
