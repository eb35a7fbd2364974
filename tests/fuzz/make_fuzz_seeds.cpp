// Writes valid model and index files into DIR/model and DIR/index: the fuzzers' starting corpus.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "fuzz_input.h"
#include "fuzz_models.h"
#include "swe/index.h"
#include "swe/model_file.h"

namespace {

bool WriteFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_fuzz_seeds DIR (DIR/model and DIR/index must exist)\n");
    return 2;
  }
  const std::string dir = argv[1];
  int n = 0;
  for (swe::SubwordKind kind : {swe::SubwordKind::kNone, swe::SubwordKind::kWordPiece, swe::SubwordKind::kUnigram}) {
    for (swe::DType dtype : {swe::DType::kF32, swe::DType::kF16, swe::DType::kInt8}) {
      for (int level : {0, 3}) {
        std::vector<uint8_t> bytes;
        swe::WriteOptions options;
        options.dtype = dtype;
        options.zstd_level = level;
        swe::Status s = swe::WriteModel(swe::fuzz::SeedContents(kind), options, &bytes);
        const std::string name = dir + "/model/seed" + std::to_string(n++);
        if (!s.ok() || !WriteFile(name + ".swe", bytes) ||
            !WriteFile(name + ".msg", swe::fuzz::BareMessageSeed(bytes, swe::container::Kind::kModel))) {
          std::fprintf(stderr, "make_fuzz_seeds: %s\n", s.ok() ? "cannot write" : s.ToString().c_str());
          return 1;
        }
      }
    }
  }
  for (swe::DType dtype : {swe::DType::kF32, swe::DType::kInt8}) {
    std::unique_ptr<swe::Index> index;
    if (!swe::Index::Create(4, dtype, &index).ok()) return 1;
    for (uint64_t id = 0; id < 5; ++id) {
      float v[4] = {float(id), 1, -float(id), 0.5f};
      if (!index->Add(id * 3, v).ok()) return 1;
    }
    swe::IndexDocs docs;  // documents for some entries: a string id, and a text or metadata
    if (!docs.Put(0, {"first", "a text", ""}).ok() || !docs.Put(6, {"second", "", "{\"k\": 1}"}).ok()) return 1;
    std::vector<uint8_t> bytes;
    const std::string name = dir + "/index/seed" + std::to_string(n++);
    if (!index->Save(&bytes, 0, dtype == swe::DType::kInt8 ? &docs : nullptr).ok() || !WriteFile(name + ".swi", bytes) ||
        !WriteFile(name + ".msg", swe::fuzz::BareMessageSeed(bytes, swe::container::Kind::kIndex))) {
      return 1;
    }
  }
  return 0;
}
