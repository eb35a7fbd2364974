// What the subcommands share: errors that end the program, RAII handles over the C API, reading lines
// and encoding them in batches with progress.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "swe.h"
#include "swe/util/file.h"

namespace swe::cli {

// Ends the program with `exit_code` and the one-line message "swe: error: <what>".
class CliError : public std::runtime_error {
 public:
  CliError(int exit_code, const std::string& message) : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

// Throws CliError(1, swe_last_error()) unless `status` is SWE_OK.
void Check(swe_status status);

struct ModelDeleter {
  void operator()(swe_model* m) const { swe_model_free(m); }
};
struct IndexDeleter {
  void operator()(swe_index* i) const { swe_index_free(i); }
};
using ModelPtr = std::unique_ptr<swe_model, ModelDeleter>;
using IndexPtr = std::unique_ptr<swe_index, IndexDeleter>;

ModelPtr LoadModel(const std::string& path);
IndexPtr LoadIndex(const std::string& path);

// The lines of a file ("-" = stdin), without their line ends ("\n" or "\r\n").
std::vector<std::string> ReadLines(const std::string& path);

// Encodes `texts` in batches into n * dims floats, with a progress bar labelled `label`;
// `known_words` (optional) receives how many words of each text the model knows.
std::vector<float> EncodeAll(const swe_model* model, const std::vector<std::string>& texts, uint32_t dims,
                             const std::string& label, std::vector<uint32_t>* known_words = nullptr);
// Encodes one text.
// `known_words` (optional) receives how many of its words the model knows.
std::vector<float> EncodeOne(const swe_model* model, const std::string& text, uint32_t dims,
                             uint32_t* known_words = nullptr);
// The dims a --dims value gives for `model` (0 or absent = all); usage error when too large.
uint32_t ResolveDims(const swe_model* model, const std::string& value, const std::string& command);

// An output file ("-" = stdout) that reports write errors by name when closed. A regular file is
// written through util::AtomicFile (a unique temporary file renamed over PATH by Close()), so a
// failed run leaves PATH as it was and `swe encode F -o F` reads F whole before replacing it; devices
// and pipes (-o /dev/null) are written in place.
class Output {
 public:
  explicit Output(const std::string& path);
  ~Output();
  std::FILE* file() const { return file_; }
  bool is_stdout() const { return path_ == "-"; }
  void Write(const void* data, size_t size);
  void Close();  // throws CliError on a write error

 private:
  std::string path_;
  util::AtomicFile atomic_;  // open unless path_ is stdout, a device or a pipe
  std::FILE* file_ = nullptr;
};

// Parses JSON from a user (a .jsonl line, stored metadata), refusing more than util::kMaxJsonDepth
// levels of nesting first. Throws CliError "WHERE: ..." for either fault.
nlohmann::ordered_json ParseJson(std::string_view text, const std::string& where);

// A document's stored metadata into (*doc)["metadata"]; when it is not JSON within util::kMaxJsonDepth
// levels (which no writer stores: a file made some other way), (*doc)["metadata_error"] says so instead
// and the rest of the document is shown: what `swe index get`, `swe index query`, `swe search` and
// `swe serve` all do (as the npm and Python packages do). Nothing for empty metadata.
void AddStoredMetadata(std::string_view text, nlohmann::ordered_json* doc);

// `text` as one line of tab-separated output: backslash, tab and control characters (a newline, ESC,
// NUL) as C escapes (\\, \t, \n, \r, \xHH); everything else, UTF-8 included, as it is.
std::string EscapeLine(std::string_view text);

// One JSON value on a line (with "\n").
std::string JsonLine(const nlohmann::ordered_json& value);
// A float as the JSON number of its shortest text (0.85607 rather than 0.856070697...).
double JsonFloat(float value);
// Writes `text` to stdout and flushes it.
void PrintLine(const std::string& text);

// Shortest text that reads back as the same float ("0.25", "-1e-07").
std::string FormatFloat(float value);

}  // namespace swe::cli
