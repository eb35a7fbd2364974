// An HTTP/1.x request parser for `swe serve`, fed bytes as they arrive: request line, header fields and
// a body framed by Content-Length or chunked transfer coding, each bounded while it is read (a line,
// the number of fields, the body counted as it arrives). It consumes exactly one request's bytes, so
// what follows in the buffer (a pipelined request) is left for the next. No I/O: tests/fuzz fuzzes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace swe::serve {

struct HttpLimits {
  size_t max_line = 8192;        // the request line, one header field, one chunk-size line
  size_t max_fields = 100;       // header fields (and trailer fields)
  size_t max_body = 8u << 20;    // bytes of body, however framed
};

struct HttpRequest {
  std::string method;
  std::string target;  // as sent
  std::string path;    // the target without its query
  int minor_version = 1;                                     // HTTP/1.0 or HTTP/1.1
  std::vector<std::pair<std::string, std::string>> fields;  // names in lower case, values trimmed
  std::string body;
  bool keep_alive = true;       // after the answer (HTTP/1.1 unless "close"; 1.0 only with "keep-alive")
  bool expect_continue = false;  // "Expect: 100-continue"
  // The value of field `name` (lower case), or null.
  const std::string* Field(std::string_view name) const;
};

class HttpParser {
 public:
  enum class Result {
    kMore,    // every byte given was used: give more
    kDone,    // request() is whole; bytes after it were not used
    kFailed,  // status() and message() say why; the connection cannot continue
  };

  explicit HttpParser(const HttpLimits& limits) : limits_(limits) {}
  // Parses what it can of `in`, adding to *used the bytes it consumed.
  Result Parse(std::string_view in, size_t* used);
  // Nothing of a request yet (empty lines before one aside).
  bool idle() const { return state_ == State::kRequestLine && line_.empty(); }
  // The header is read: the body (if any) comes next, or is coming.
  bool head_done() const { return state_ != State::kRequestLine && state_ != State::kFields; }
  // The header is read, the body not yet: a client that sent "Expect: 100-continue" waits now.
  bool awaiting_body() const {
    return (state_ == State::kBody || state_ == State::kChunkSize) && request_.body.empty();
  }
  // Ready for the next request on the connection.
  void Reset();
  HttpRequest& request() { return request_; }
  int status() const { return status_; }  // 400, 413, 431, 501 or 505 after kFailed
  const std::string& message() const { return message_; }

 private:
  enum class State { kRequestLine, kFields, kBody, kChunkSize, kChunkData, kChunkEnd, kTrailers, kDone };
  Result Fail(int status, std::string message);
  // The next line of `in` from *pos (without its "\r\n" or "\n") into *line, pieced together across
  // calls in line_; false when `in` ends first.
  bool NextLine(std::string_view in, size_t* pos, std::string* line, bool* too_long);
  Result RequestLine(const std::string& line);
  Result Field(const std::string& line, bool trailer);
  Result EndOfHead();
  Result ChunkSize(const std::string& line);

  HttpLimits limits_;
  State state_ = State::kRequestLine;
  HttpRequest request_;
  std::string line_;        // a line cut by the end of the input so far
  uint64_t remaining_ = 0;  // body bytes (Content-Length) or chunk bytes still to come
  size_t fields_ = 0;
  int status_ = 0;
  std::string message_;
};

}  // namespace swe::serve
