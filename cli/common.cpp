#include "common.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sys/stat.h>

#include "swe/util/args.h"
#include "swe/util/json.h"
#include "line_reader.h"
#include "swe/util/progress.h"

namespace swe::cli {

void Check(swe_status status) {
  if (status != SWE_OK) throw CliError(1, swe_last_error());
}

ModelPtr LoadModel(const std::string& path) {
  swe_model* model = nullptr;
  Check(swe_model_load_from_file(path.c_str(), nullptr, &model));
  return ModelPtr(model);
}

IndexPtr LoadIndex(const std::string& path) {
  swe_index* index = nullptr;
  Check(swe_index_load_from_file(path.c_str(), nullptr, &index));
  return IndexPtr(index);
}

std::vector<std::string> ReadLines(const std::string& path) {
  LineReader reader(path);
  std::vector<std::string> lines;
  std::string line;
  while (reader.Next(&line)) lines.push_back(std::move(line));
  return lines;
}

std::vector<float> EncodeAll(const swe_model* model, const std::vector<std::string>& texts, uint32_t dims,
                             const std::string& label, std::vector<uint32_t>* known_words) {
  constexpr size_t kBatch = 4096;
  std::vector<float> out(texts.size() * size_t{dims});
  if (known_words) known_words->assign(texts.size(), 0);
  swe_encode_params params = swe_encode_default_params();
  params.dims = dims;
  util::Progress progress(label, texts.size());
  std::vector<swe_text> batch;
  for (size_t start = 0; start < texts.size(); start += kBatch) {
    size_t n = std::min(kBatch, texts.size() - start);
    batch.resize(n);
    for (size_t i = 0; i < n; ++i) batch[i] = {texts[start + i].data(), texts[start + i].size()};
    Check(swe_model_encode_batch(model, batch.data(), n, &params, out.data() + start * dims, n * size_t{dims},
                                 known_words ? known_words->data() + start : nullptr));
    progress.Update(start + n);
  }
  progress.Finish();
  return out;
}

std::vector<float> EncodeOne(const swe_model* model, const std::string& text, uint32_t dims,
                             uint32_t* known_words) {
  std::vector<float> out(dims);
  swe_encode_params params = swe_encode_default_params();
  params.dims = dims;
  Check(swe_model_encode_text(model, text.data(), text.size(), &params, out.data(), out.size(), known_words));
  return out;
}

uint32_t ResolveDims(const swe_model* model, const std::string& value, const std::string& command) {
  uint32_t model_dims = swe_model_get_dims(model);
  if (value.empty()) return model_dims;
  uint64_t dims = util::ParseCount(value, "--dims", 0, UINT32_MAX);
  if (dims > model_dims) {
    throw util::UsageError("--dims " + value + " exceeds the model's " + std::to_string(model_dims) + " dimensions",
                     command);
  }
  return dims == 0 ? model_dims : static_cast<uint32_t>(dims);
}

Output::Output(const std::string& path) : path_(path) {
  if (path == "-") {
    file_ = stdout;
    return;
  }
  struct stat info;
  if (stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) {
    file_ = std::fopen(path.c_str(), "wb");
    if (!file_) throw CliError(1, path + ": " + std::strerror(errno));
    return;
  }
  std::string error;
  if (!atomic_.Open(path, &error)) throw CliError(1, error);
  file_ = atomic_.file();
}

Output::~Output() {
  // Not closed: an error ended the run, so the output is dropped (atomic_ removes its temporary file).
  if (file_ && file_ != stdout && !atomic_.file()) std::fclose(file_);
}

void Output::Write(const void* data, size_t size) {
  if (size > 0 && std::fwrite(data, 1, size, file_) != size) {
    throw CliError(1, (is_stdout() ? std::string("stdout") : path_) + ": write failed: " + std::strerror(errno));
  }
}

void Output::Close() {
  std::FILE* f = file_;
  file_ = nullptr;
  std::string error;
  if (atomic_.file()) {
    if (!atomic_.Commit(&error)) throw CliError(1, error);
    return;
  }
  bool ok = std::fflush(f) == 0 && !std::ferror(f);
  if (f != stdout) ok = std::fclose(f) == 0 && ok;
  if (!ok) {
    throw CliError(1, (is_stdout() ? std::string("stdout") : path_) + ": write failed: " + std::strerror(errno));
  }
}

nlohmann::ordered_json ParseJson(std::string_view text, const std::string& where) {
  if (!util::JsonDepthWithin(text)) throw CliError(1, where + ": " + util::JsonTooDeepMessage());
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(text, nullptr, false);
  if (j.is_discarded()) throw CliError(1, where + ": not JSON");
  return j;
}

void AddStoredMetadata(std::string_view text, nlohmann::ordered_json* doc) {
  if (text.empty()) return;
  std::string problem;
  if (!util::JsonDepthWithin(text)) {
    problem = util::JsonTooDeepMessage();
  } else {
    nlohmann::ordered_json value = nlohmann::ordered_json::parse(text, nullptr, false);
    if (!value.is_discarded()) {
      (*doc)["metadata"] = std::move(value);
      return;
    }
    problem = "not JSON";
  }
  (*doc)["metadata_error"] = "the stored metadata cannot be shown: " + problem;
}

std::string EscapeLine(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte == 0x7F) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", byte);
      out += hex;
    } else {
      out += c;
    }
  }
  return out;
}

std::string JsonLine(const nlohmann::ordered_json& value) {
  // Invalid UTF-8 in a text (tolerated everywhere else) becomes U+FFFD instead of an exception.
  return value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

double JsonFloat(float value) { return std::strtod(FormatFloat(value).c_str(), nullptr); }

void PrintLine(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);  // interactive use: each answer as soon as it is ready
}

std::string FormatFloat(float value) {
  char text[32];
  auto [ptr, ec] = std::to_chars(text, text + sizeof text, value);
  if (ec != std::errc()) return "0";
  return std::string(text, ptr);
}

}  // namespace swe::cli
