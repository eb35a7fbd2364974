#include "common.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sys/stat.h>

#include "swe/util/args.h"
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
                             const std::string& label) {
  constexpr size_t kBatch = 4096;
  std::vector<float> out(texts.size() * size_t{dims});
  swe_encode_params params = swe_encode_default_params();
  params.dims = dims;
  util::Progress progress(label, texts.size());
  std::vector<swe_text> batch;
  for (size_t start = 0; start < texts.size(); start += kBatch) {
    size_t n = std::min(kBatch, texts.size() - start);
    batch.resize(n);
    for (size_t i = 0; i < n; ++i) batch[i] = {texts[start + i].data(), texts[start + i].size()};
    Check(swe_model_encode_batch(model, batch.data(), n, &params, out.data() + start * dims, n * size_t{dims}));
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
  const bool special = stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode);
  if (!special) temp_ = path + ".tmp";
  const std::string& target = special ? path : temp_;
  file_ = std::fopen(target.c_str(), "wb");
  if (!file_) throw CliError(1, target + ": " + std::strerror(errno));
}

Output::~Output() {
  if (!file_ || file_ == stdout) return;
  std::fclose(file_);  // not closed: an error ended the run, so the output is dropped
  if (!temp_.empty()) std::remove(temp_.c_str());
}

void Output::Write(const void* data, size_t size) {
  if (size > 0 && std::fwrite(data, 1, size, file_) != size) {
    throw CliError(1, (is_stdout() ? std::string("stdout") : path_) + ": write failed: " + std::strerror(errno));
  }
}

void Output::Close() {
  std::FILE* f = file_;
  file_ = nullptr;
  bool ok = std::fflush(f) == 0 && !std::ferror(f);
  if (f != stdout) ok = std::fclose(f) == 0 && ok;
  if (ok && !temp_.empty()) ok = std::rename(temp_.c_str(), path_.c_str()) == 0;
  if (!ok) {
    const int error = errno;
    if (!temp_.empty()) std::remove(temp_.c_str());
    throw CliError(1, (is_stdout() ? std::string("stdout") : path_) + ": write failed: " + std::strerror(error));
  }
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
