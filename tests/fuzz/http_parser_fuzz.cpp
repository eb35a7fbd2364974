// Any bytes as what a client sends `swe serve` on one connection (cli/serve/http_parser.h): the parser
// never crashes, never keeps more than its limits allow (a line, the fields, the body), consumes only
// what it is given, and reads the same requests (or fails at the same one, with the same status) whether
// the bytes come at once or in pieces. The first byte picks where the pieces are cut.
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "http_parser.h"

namespace {

// What one parse of a connection's bytes gave: each request whole, then how it ended.
struct Outcome {
  std::vector<std::string> requests;  // method, target, fields and body, flattened
  int failed = 0;                     // the status of a failure, 0 when the input simply ended
  bool operator==(const Outcome& other) const { return requests == other.requests && failed == other.failed; }
};

Outcome ParseAll(std::string_view input, size_t piece) {
  swe::serve::HttpLimits limits;
  limits.max_line = 256;
  limits.max_fields = 8;
  limits.max_body = 4096;
  swe::serve::HttpParser parser(limits);
  Outcome out;
  std::string buffer;  // bytes given and not yet consumed, as the server keeps them
  size_t given = 0;
  for (;;) {
    size_t used = 0;
    const auto result = parser.Parse(buffer, &used);
    if (used > buffer.size()) std::abort();
    buffer.erase(0, used);
    const swe::serve::HttpRequest& r = parser.request();
    if (r.body.size() > limits.max_body || r.fields.size() > limits.max_fields) std::abort();
    if (result == swe::serve::HttpParser::Result::kFailed) {
      if (parser.status() < 400 || parser.status() > 599 || parser.message().empty()) std::abort();
      out.failed = parser.status();
      return out;
    }
    if (result == swe::serve::HttpParser::Result::kDone) {
      std::string flat = r.method + ' ' + r.target + ' ' + std::to_string(r.minor_version) + (r.keep_alive ? "k" : "c");
      for (const auto& [name, value] : r.fields) flat += '\n' + name + ':' + value;
      out.requests.push_back(flat + "\n\n" + r.body);
      parser.Reset();
      continue;
    }
    if (!buffer.empty() && used == 0 && given == input.size()) return out;  // waits for more than there is
    if (given == input.size()) return out;
    const size_t n = std::min(piece, input.size() - given);
    buffer.append(input.substr(given, n));
    given += n;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Outcome whole = ParseAll(input, input.size() + 1);
  const Outcome pieces = ParseAll(input, 1 + data[0] % 64);
  if (!(whole == pieces)) std::abort();
  return 0;
}
