#include "http_parser.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace swe::serve {
namespace {

bool IsTokenChar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

bool IsToken(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), IsTokenChar); }

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string_view TrimSpace(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The comma-separated elements of a field value, each trimmed and in lower case.
std::vector<std::string> Elements(std::string_view value) {
  std::vector<std::string> out;
  while (!value.empty()) {
    const size_t comma = value.find(',');
    const std::string_view item = TrimSpace(value.substr(0, comma));
    if (!item.empty()) out.push_back(Lower(item));
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return out;
}

bool Contains(const std::vector<std::string>& items, std::string_view item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

}  // namespace

const std::string* HttpRequest::Field(std::string_view name) const {
  for (const auto& [key, value] : fields) {
    if (key == name) return &value;
  }
  return nullptr;
}

void HttpParser::Reset() {
  state_ = State::kRequestLine;
  request_ = HttpRequest();
  line_.clear();
  remaining_ = 0;
  fields_ = 0;
  status_ = 0;
  message_.clear();
}

HttpParser::Result HttpParser::Fail(int status, std::string message) {
  status_ = status;
  message_ = std::move(message);
  return Result::kFailed;
}

bool HttpParser::NextLine(std::string_view in, size_t* pos, std::string* line, bool* too_long) {
  const size_t end = in.find('\n', *pos);
  const size_t stop = end == std::string_view::npos ? in.size() : end;
  // At most one byte past the limit is kept: enough to know the line is too long.
  const size_t room = limits_.max_line + 2 - std::min(line_.size(), limits_.max_line + 2);
  line_.append(in.data() + *pos, std::min(stop - *pos, room));
  *too_long = line_.size() > limits_.max_line + 1;  // the "\r" is not counted
  if (end == std::string_view::npos) {
    *pos = in.size();
    return *too_long;  // a line already too long needs no end
  }
  *pos = end + 1;
  if (!line_.empty() && line_.back() == '\r') line_.pop_back();
  *too_long = *too_long || line_.size() > limits_.max_line;
  *line = std::move(line_);
  line_.clear();
  return true;
}

HttpParser::Result HttpParser::RequestLine(const std::string& line) {
  const size_t a = line.find(' ');
  const size_t b = a == std::string::npos ? a : line.find(' ', a + 1);
  if (b == std::string::npos || line.find(' ', b + 1) != std::string::npos) return Fail(400, "malformed request line");
  request_.method = line.substr(0, a);
  request_.target = line.substr(a + 1, b - a - 1);
  const std::string version = line.substr(b + 1);
  if (!IsToken(request_.method)) return Fail(400, "malformed request line");
  if (request_.target.empty() || std::any_of(request_.target.begin(), request_.target.end(), [](char c) {
        return static_cast<unsigned char>(c) <= ' ' || c == 0x7F;
      })) {
    return Fail(400, "malformed request target");
  }
  if (version.size() != 8 || version.compare(0, 5, "HTTP/") != 0 || version[6] != '.' || version[5] < '0' ||
      version[5] > '9' || version[7] < '0' || version[7] > '9') {
    return Fail(400, "malformed HTTP version");
  }
  if (version[5] != '1' || (version[7] != '0' && version[7] != '1')) {
    return Fail(505, "HTTP version " + version.substr(5) + " is not supported (1.0 and 1.1 are)");
  }
  request_.minor_version = version[7] - '0';
  request_.path = request_.target.substr(0, request_.target.find('?'));
  state_ = State::kFields;
  return Result::kMore;
}

HttpParser::Result HttpParser::Field(const std::string& line, bool trailer) {
  if (++fields_ > limits_.max_fields) {
    return Fail(431, "more than " + std::to_string(limits_.max_fields) + " header fields");
  }
  if (line.front() == ' ' || line.front() == '\t') return Fail(400, "folded header field");
  const size_t colon = line.find(':');
  if (colon == std::string::npos || !IsToken(std::string_view(line).substr(0, colon))) {
    return Fail(400, "malformed header field");
  }
  if (!trailer) {
    request_.fields.emplace_back(Lower(std::string_view(line).substr(0, colon)),
                                 std::string(TrimSpace(std::string_view(line).substr(colon + 1))));
  }
  return Result::kMore;
}

HttpParser::Result HttpParser::EndOfHead() {
  const std::string* length = nullptr;
  bool chunked = false;
  std::vector<std::string> connection;  // the options of every Connection field
  for (const auto& [name, value] : request_.fields) {
    if (name == "content-length") {
      if (value.empty() || value.size() > 18 || !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return Fail(400, "malformed Content-Length");
      }
      if (length && *length != value) return Fail(400, "two different Content-Length fields");
      length = &value;
    } else if (name == "transfer-encoding") {
      const std::vector<std::string> codings = Elements(value);
      if (chunked || codings != std::vector<std::string>{"chunked"}) {
        return Fail(501, "transfer coding '" + value + "' is not supported (only chunked is)");
      }
      chunked = true;
    } else if (name == "connection") {
      for (std::string& option : Elements(value)) connection.push_back(std::move(option));
    } else if (name == "expect") {
      if (Lower(value) != "100-continue") return Fail(417, "only 'Expect: 100-continue' is supported");
      request_.expect_continue = true;
    }
  }
  // HTTP/1.1 keeps the connection unless told to close it; HTTP/1.0 closes it unless told to keep it.
  request_.keep_alive =
      !Contains(connection, "close") && (request_.minor_version == 1 || Contains(connection, "keep-alive"));
  if (chunked && length) return Fail(400, "both Content-Length and Transfer-Encoding");
  if (chunked) {
    state_ = State::kChunkSize;
    return Result::kMore;
  }
  remaining_ = length ? std::stoull(*length) : 0;
  if (remaining_ > limits_.max_body) {
    return Fail(413, "the request body is too large: " + std::to_string(remaining_) + " bytes, more than the " +
                         std::to_string(limits_.max_body) + " allowed");
  }
  if (remaining_ == 0) {
    state_ = State::kDone;
    return Result::kDone;
  }
  request_.body.reserve(remaining_);
  state_ = State::kBody;
  return Result::kMore;
}

HttpParser::Result HttpParser::ChunkSize(const std::string& line) {
  const std::string_view size = TrimSpace(std::string_view(line).substr(0, line.find(';')));
  if (size.empty() || size.size() > 15 || !std::all_of(size.begin(), size.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); })) {
    return Fail(400, "malformed chunk size");
  }
  remaining_ = std::stoull(std::string(size), nullptr, 16);
  if (remaining_ > limits_.max_body - request_.body.size()) {
    return Fail(413, "the request body is too large: more than the " + std::to_string(limits_.max_body) +
                         " bytes allowed (chunked)");
  }
  state_ = remaining_ == 0 ? State::kTrailers : State::kChunkData;
  return Result::kMore;
}

HttpParser::Result HttpParser::Parse(std::string_view in, size_t* used) {
  if (state_ == State::kDone) return Result::kDone;
  size_t pos = 0;
  Result result = Result::kMore;
  std::string line;
  bool too_long = false;
  while (result == Result::kMore && state_ != State::kDone) {
    if (state_ == State::kBody || state_ == State::kChunkData) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(remaining_, in.size() - pos));
      request_.body.append(in.data() + pos, n);
      pos += n;
      remaining_ -= n;
      if (remaining_ > 0) break;
      if (state_ == State::kBody) {
        state_ = State::kDone;
        result = Result::kDone;
      } else {
        state_ = State::kChunkEnd;
      }
      continue;
    }
    if (!NextLine(in, &pos, &line, &too_long)) break;
    if (too_long) {
      result = state_ == State::kRequestLine ? Fail(414, "the request line is longer than " +
                                                             std::to_string(limits_.max_line) + " bytes")
                                             : Fail(431, "a header line is longer than " +
                                                             std::to_string(limits_.max_line) + " bytes");
      break;
    }
    switch (state_) {
      case State::kRequestLine:
        if (!line.empty()) result = RequestLine(line);  // empty lines before a request are ignored
        break;
      case State::kFields:
        result = line.empty() ? EndOfHead() : Field(line, false);
        break;
      case State::kChunkSize:
        result = ChunkSize(line);
        break;
      case State::kChunkEnd:
        if (!line.empty()) result = Fail(400, "a chunk does not end with CRLF");
        state_ = State::kChunkSize;
        break;
      case State::kTrailers:
        if (line.empty()) {
          state_ = State::kDone;
          result = Result::kDone;
        } else {
          result = Field(line, true);
        }
        break;
      default:
        break;
    }
  }
  *used += pos;
  return result;
}

}  // namespace swe::serve
