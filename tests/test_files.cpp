#include "test_files.h"

#include <ftw.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "swe/half.h"

namespace swe::test {

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/swe-trainer-test-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) throw std::runtime_error("mkdtemp failed");
  path_ = buf.data();
}

namespace {
int RemoveEntry(const char* path, const struct stat*, int, struct FTW*) {
  std::remove(path);  // a file, or a directory already emptied (FTW_DEPTH: contents first)
  return 0;
}
}  // namespace

// POSIX nftw rather than std::filesystem::remove_all: pip's CUDA libtorch exports its own copies of
// some std::filesystem functions, the executable binds to them before libstdc++'s, and its remove_all
// jumps to a null pointer (docs/TRAINER.md, "CUDA").
TempDir::~TempDir() { nftw(path_.c_str(), RemoveEntry, 16, FTW_DEPTH | FTW_PHYS); }

void WriteFile(const std::string& path, const std::string& bytes) {
  std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw std::runtime_error("cannot write " + path);
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool UseLiteFound(const std::string& dir) {
  struct stat st;
  return stat((dir + "/model.json").c_str(), &st) == 0;
}

namespace {

uint16_t FloatToBf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t rounding = 0x7FFF + ((x >> 16) & 1);
  return static_cast<uint16_t>((x + rounding) >> 16);
}

}  // namespace

std::string SafetensorsBytes(const std::map<std::string, TensorSpec>& tensors) {
  nlohmann::json header = nlohmann::json::object();
  std::string data;
  for (const auto& [name, t] : tensors) {
    size_t begin = data.size();
    for (float v : t.values) {
      if (t.dtype == "F32") {
        data.append(reinterpret_cast<const char*>(&v), 4);
      } else {
        uint16_t h = t.dtype == "F16" ? FloatToHalf(v) : FloatToBf16(v);
        data.append(reinterpret_cast<const char*>(&h), 2);
      }
    }
    header[name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {begin, data.size()}}};
  }
  header["__metadata__"] = {{"format", "pt"}};
  std::string h = header.dump();
  while (h.size() % 8) h += ' ';
  uint64_t n = h.size();
  std::string out(reinterpret_cast<const char*>(&n), 8);
  return out + h + data;
}

}  // namespace swe::test
