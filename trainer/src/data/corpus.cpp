#include "data/corpus.h"

#include <sys/stat.h>
#include <zstd.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "swe/util/progress.h"
#include "swe/util/strings.h"

namespace swe::trainer {

struct LineReader::Zstd {
  ZSTD_DCtx* ctx = nullptr;
  std::vector<char> in;
  ZSTD_inBuffer input{nullptr, 0, 0};
  size_t last_ret = 0;  // 0 after a complete frame
  ~Zstd() { ZSTD_freeDCtx(ctx); }
};

LineReader::~LineReader() {
  delete zstd_;
  if (file_) std::fclose(file_);
}

Status LineReader::Open(const std::string& path, std::unique_ptr<LineReader>* out, size_t max_line_bytes) {
  std::unique_ptr<LineReader> r(new LineReader());
  r->path_ = path;
  r->max_line_ = max_line_bytes;
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return IoError("corpus file not found: " + path);
  if (S_ISDIR(st.st_mode)) return InvalidArgument("corpus path is a directory: " + path);
  r->file_size_ = static_cast<uint64_t>(st.st_size);
  r->file_ = std::fopen(path.c_str(), "rb");
  if (!r->file_) return IoError("cannot open corpus file: " + path + ": " + std::strerror(errno));
  if (util::EndsWith(path, ".zst")) {
    r->zstd_ = new Zstd();
    r->zstd_->ctx = ZSTD_createDCtx();
    if (!r->zstd_->ctx) return Internal("ZSTD_createDCtx failed");
    r->zstd_->in.resize(ZSTD_DStreamInSize());
  }
  *out = std::move(r);
  return Status::Ok();
}

bool LineReader::Fill() {
  if (eof_ || !status_.ok()) return false;
  if (!zstd_) {
    char chunk[1 << 16];
    size_t n = std::fread(chunk, 1, sizeof chunk, file_);
    file_offset_ += n;
    if (n == 0) {
      if (std::ferror(file_)) status_ = IoError("read error in " + path_);
      eof_ = true;
      return false;
    }
    buf_.append(chunk, n);
    return true;
  }
  Zstd& z = *zstd_;
  std::vector<char> outbuf(ZSTD_DStreamOutSize());
  for (;;) {
    if (z.input.pos == z.input.size) {
      size_t n = std::fread(z.in.data(), 1, z.in.size(), file_);
      file_offset_ += n;
      if (n == 0) {
        if (std::ferror(file_)) status_ = IoError("read error in " + path_);
        else if (z.last_ret != 0) status_ = Corrupt("truncated zstd stream in " + path_);
        eof_ = true;
        return false;
      }
      z.input = ZSTD_inBuffer{z.in.data(), n, 0};
    }
    ZSTD_outBuffer output{outbuf.data(), outbuf.size(), 0};
    size_t ret = ZSTD_decompressStream(z.ctx, &output, &z.input);
    if (ZSTD_isError(ret)) {
      status_ = Corrupt("corrupt zstd data in " + path_ + ": " + ZSTD_getErrorName(ret));
      eof_ = true;
      return false;
    }
    z.last_ret = ret;
    if (output.pos > 0) {
      buf_.append(outbuf.data(), output.pos);
      return true;
    }
  }
}

bool LineReader::Next(std::string* line) {
  for (;;) {
    size_t nl = buf_.find('\n', pos_);
    if (nl != std::string::npos) {
      size_t end = nl;
      if (end > pos_ && buf_[end - 1] == '\r') --end;
      line->assign(buf_, pos_, end - pos_);
      pos_ = nl + 1;
      return true;
    }
    if (buf_.size() - pos_ > max_line_) {
      status_ = InvalidArgument("line longer than " + std::to_string(max_line_) + " bytes in " + path_);
      return false;
    }
    buf_.erase(0, pos_);
    pos_ = 0;
    if (!Fill()) {
      if (!status_.ok() || buf_.empty()) return false;
      line->assign(buf_);
      if (!line->empty() && line->back() == '\r') line->pop_back();
      buf_.clear();
      return true;
    }
  }
}

namespace {

bool IsSpace(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

using util::Trim;  // ASCII whitespace, as IsSpace

// The word (ASCII letters and dots) that ends just before position `end` (exclusive), lower-cased.
std::string WordBefore(std::string_view s, size_t end) {
  size_t b = end;
  while (b > 0 && (std::isalpha(static_cast<unsigned char>(s[b - 1])) || s[b - 1] == '.')) --b;
  std::string w(s.substr(b, end - b));
  for (char& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return w;
}

bool IsAbbreviation(std::string_view s, size_t dot) {
  static const char* kAbbrev[] = {"mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "etc", "e.g", "i.e",
                                  "no", "vol", "fig", "cf", "mt", "gen", "col", "capt", "lt", "rev", "hon"};
  std::string w = WordBefore(s, dot);
  if (w.size() == 1 && std::isupper(static_cast<unsigned char>(s[dot - 1]))) return true;  // "J. Smith"
  for (const char* a : kAbbrev) {
    if (w == a) return true;
  }
  return false;
}

}  // namespace

void SplitSentences(std::string_view p, std::vector<std::string_view>* out) {
  size_t start = 0, i = 0;
  auto emit = [&](size_t end) {
    std::string_view s = Trim(p.substr(start, end - start));
    if (!s.empty()) out->push_back(s);
    start = end;
  };
  while (i < p.size()) {
    unsigned char c = static_cast<unsigned char>(p[i]);
    bool cjk_stop = false;
    size_t len = 1;
    // 。 E3 80 82, ！ EF BC 81, ？ EF BC 9F
    if (i + 2 < p.size() + 0 && i + 3 <= p.size()) {
      std::string_view three = p.substr(i, 3);
      if (three == "\xE3\x80\x82" || three == "\xEF\xBC\x81" || three == "\xEF\xBC\x9F") {
        cjk_stop = true;
        len = 3;
      }
    }
    if (!cjk_stop && c != '.' && c != '!' && c != '?') {
      ++i;
      continue;
    }
    size_t end = i + len;
    while (end < p.size() && (p[end] == '.' || p[end] == '!' || p[end] == '?')) ++end;
    while (end < p.size() && (p[end] == '"' || p[end] == '\'' || p[end] == ')' || p[end] == ']')) ++end;
    if (end + 3 <= p.size() && (p.substr(end, 3) == "\xE2\x80\x9D" || p.substr(end, 3) == "\xE2\x80\x99")) end += 3;
    bool boundary = cjk_stop ? true : (end == p.size() || IsSpace(static_cast<unsigned char>(p[end])));
    if (boundary && !cjk_stop && c == '.' && end == i + 1 && IsAbbreviation(p, i)) boundary = false;
    if (boundary) emit(end);
    i = end;
  }
  emit(p.size());
}

Status ForEachSentence(const CorpusOptions& options, const std::string& stage,
                       const std::function<bool(std::string_view)>& fn) {
  if (options.paths.empty()) return InvalidArgument("no corpus files given");
  uint64_t total_bytes = 0;
  for (const std::string& path : options.paths) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) return IoError("corpus file not found: " + path);
    total_bytes += static_cast<uint64_t>(st.st_size);
  }
  util::Progress progress(stage, total_bytes, "bytes");
  uint64_t done_bytes = 0, sentences = 0, lines = 0, skipped = 0;
  std::string line;
  std::vector<std::string_view> pieces;
  for (const std::string& path : options.paths) {
    std::unique_ptr<LineReader> reader;
    SWE_RETURN_IF_ERROR(LineReader::Open(path, &reader));
    while (reader->Next(&line)) {
      if ((++lines & 1023) == 0) progress.Update(done_bytes + reader->file_offset());
      pieces.clear();
      std::string_view rest = line;
      while (!rest.empty()) {  // one column, or each tab-separated one
        size_t tab = options.split_tabs ? rest.find('\t') : std::string_view::npos;
        std::string_view column = rest.substr(0, tab);
        rest = tab == std::string_view::npos ? std::string_view() : rest.substr(tab + 1);
        if (options.split_sentences) {
          SplitSentences(column, &pieces);
        } else {
          std::string_view s = Trim(column);
          if (!s.empty()) pieces.push_back(s);
        }
      }
      for (std::string_view s : pieces) {
        if (skipped < options.skip_sentences) {
          ++skipped;
          continue;
        }
        if (!fn(s)) return Status::Ok();
        if (options.max_sentences && ++sentences >= options.max_sentences) return Status::Ok();
      }
    }
    SWE_RETURN_IF_ERROR(reader->status());
    done_bytes += reader->file_size();
  }
  progress.Update(done_bytes);
  return Status::Ok();
}

Status ReadTuples(const std::string& path, size_t columns, std::vector<std::vector<std::string>>* out,
                  uint64_t* skipped) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return IoError("file not found: " + path);
  std::unique_ptr<LineReader> reader;
  SWE_RETURN_IF_ERROR(LineReader::Open(path, &reader));
  std::string line;
  size_t before = out->size();
  for (uint64_t number = 1; reader->Next(&line); ++number) {
    if (Trim(line).empty()) continue;
    std::string where = path + ":" + std::to_string(number) + ": ";
    size_t tabs = static_cast<size_t>(std::count(line.begin(), line.end(), '\t'));
    if (tabs != columns - 1) {
      if (skipped) {
        ++*skipped;
        continue;
      }
      return InvalidArgument(where + "expected " + std::to_string(columns) + " tab-separated sentences, found " +
                             std::to_string(tabs) + " tabs");
    }
    std::vector<std::string> tuple;
    bool empty = false;
    for (size_t start = 0, tab; start <= line.size(); start = tab + 1) {
      tab = line.find('\t', start);
      if (tab == std::string::npos) tab = line.size();
      std::string_view side = Trim(std::string_view(line).substr(start, tab - start));
      empty = empty || side.empty();
      tuple.emplace_back(side);
    }
    if (empty && !skipped) return InvalidArgument(where + "empty sentence");
    if (empty) {
      ++*skipped;
      continue;
    }
    out->push_back(std::move(tuple));
  }
  SWE_RETURN_IF_ERROR(reader->status());
  if (out->size() == before) return InvalidArgument("no sentences in " + path);
  return Status::Ok();
}

Status ReadPairs(const std::string& path, std::vector<SentencePair>* out) {
  std::vector<std::vector<std::string>> tuples;
  SWE_RETURN_IF_ERROR(ReadTuples(path, 2, &tuples));
  for (auto& t : tuples) out->push_back({std::move(t[0]), std::move(t[1])});
  return Status::Ok();
}

uint64_t Fnv1a64(std::string_view bytes, uint64_t seed) {
  uint64_t h = seed;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string HexU64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace swe::trainer
