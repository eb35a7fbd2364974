// The swe program tests' shared fixture: a temp directory with two small models and a docs file, and
// Run(), which runs the built binary with arguments and stdin and returns its exit code and output.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/test_models.h"
#include "swe/encoder.h"
#include "swe/model_file.h"
#include "test_paths.h"

namespace swe_cli_test {

namespace fs = std::filesystem;

struct Result {
  int code = -1;
  std::string out, err;
};

inline std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline const std::vector<std::string> kWords = {"the", "cat", "sat", "on", "mat", "stock", "market", "price", "fell",
                                         "rain", "weather", "tomorrow", "dog", "park", "ran", "a"};
constexpr uint32_t kDims = 16;
inline const std::string kDocs =
    "the cat sat on the mat\n"
    "stock market price fell\n"
    "\n"
    "rain weather tomorrow\n"
    "a dog ran in the park\n";

class CliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("swe_cli_test_" + std::to_string(getpid())));
    fs::create_directories(*dir_);
    swe::ModelContents contents = swe::testing::RandomContents(kWords, kDims, 3);
    contents.provenance.name = "cli-model";
    contents.provenance.description = "for the CLI test";
    std::vector<uint8_t> bytes = swe::testing::ModelBytes(contents);
    std::ofstream(*dir_ / "model.swe", std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    swe::ModelContents other = swe::testing::RandomContents(kWords, kDims, 4);
    bytes = swe::testing::ModelBytes(other);
    std::ofstream(*dir_ / "other.swe", std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    WriteFile(*dir_ / "docs.txt", kDocs);
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(*dir_, ec);
    delete dir_;
  }

  static std::string P(const std::string& name) { return (*dir_ / name).string(); }

  // Runs swe with `args`, feeding `input` on stdin.
  static Result Run(const std::vector<std::string>& args, const std::string& input = "") {
    const fs::path in = *dir_ / "stdin", out = *dir_ / "stdout", err = *dir_ / "stderr";
    WriteFile(in, input);
    pid_t pid = fork();
    if (pid == 0) {
      int fds[3] = {open(in.c_str(), O_RDONLY), open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644),
                    open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644)};
      for (int i = 0; i < 3; ++i) dup2(fds[i], i);
      std::vector<char*> argv = {const_cast<char*>(swe::test::CliPath())};
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(swe::test::CliPath(), argv.data());
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    Result r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = ReadFile(out);
    r.err = ReadFile(err);
    return r;
  }

  static std::unique_ptr<swe::Model> ReadModelFile(const std::string& path) {
    std::string bytes = ReadFile(path);
    std::unique_ptr<swe::Model> model;
    swe::Status s = swe::ReadModel(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &model);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return model;
  }

  static std::vector<float> CoreEncode(const std::string& text, uint32_t dims = 0) {
    std::unique_ptr<swe::Model> model = ReadModelFile(P("model.swe"));
    swe::EncodeOptions options;
    options.dims = dims;
    swe::Encoder encoder(*model, options);
    std::vector<float> v(encoder.dims());
    encoder.Encode(text, v.data());
    return v;
  }

  static inline fs::path* dir_ = nullptr;
};


// One line "swe: error: ..." on stderr.
inline void ExpectOneLineError(const Result& r, int code, const std::string& needle) {
  EXPECT_EQ(r.code, code) << r.err;
  EXPECT_EQ(r.err.rfind("swe: error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << "'" << needle << "' not in: " << r.err;
}

inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace swe_cli_test
