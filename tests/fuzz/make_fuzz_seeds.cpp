// Writes valid model and index files into DIR/model and DIR/index: the fuzzers' starting corpus.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "fuzz_input.h"
#include "fuzz_models.h"
#include "swe/index.h"
#include "swe/index_log.h"
#include "swe/model_file.h"

namespace {

bool WriteFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok;
}

// index_log_fuzz's seeds for the base of `dtype` (fuzz_input.h, LogBytes): three records of real
// changes (documents added and replaced, plain entries put, removals), raw and framed.
bool WriteLogSeeds(swe::DType dtype, const std::string& name) {
  std::unique_ptr<swe::Index> index;
  swe::IndexDocs docs;
  swe::fuzz::SeedIndex(dtype, &index, &docs);
  std::vector<uint8_t> base;
  swe::IndexFileState state;
  if (!index->Save(&base, 0, &docs, &state).ok()) return false;
  const uint8_t selector = dtype == swe::DType::kF32 ? 0 : 1;
  std::vector<uint8_t> raw = {selector}, framed = {static_cast<uint8_t>(selector | swe::fuzz::kFramedLog)};
  swe::IndexJournal journal;
  for (int record = 0; record < 3; ++record) {
    const float v[4] = {1, float(record), 0, -1};
    journal.BeginPuts(true);
    const uint64_t entry = record == 1 ? 0 : 100 + record;  // record 1 replaces "first"
    const swe::IndexDoc doc{record == 1 ? "first" : "doc" + std::to_string(record), "text " + std::to_string(record),
                            record == 2 ? "{\"n\": [1, {\"x\": null}]}" : ""};
    if (!docs.Put(entry, doc).ok() || !index->Add(entry, v).ok()) return false;
    journal.Put(*index, entry, docs.Get(entry));
    journal.BeginPuts(false);
    if (!index->Add(200 + record, v).ok()) return false;
    journal.Put(*index, 200 + record, nullptr);
    if (record == 2) {
      if (!index->Remove(3).ok()) return false;
      journal.Remove(3);
    }
    std::vector<uint8_t> bytes;
    swe::IndexFileState after;
    if (!swe::EncodeIndexRecord(*index, journal.steps(), state, &bytes, &after).ok()) return false;
    journal.Clear();
    raw.insert(raw.end(), bytes.begin(), bytes.end());
    const size_t body = bytes.size() - (after.mark_offset - state.valid_size) - 32;
    framed.push_back(static_cast<uint8_t>(body));
    framed.push_back(static_cast<uint8_t>(body >> 8));
    framed.insert(framed.end(), bytes.end() - body, bytes.end());
    state = after;
  }
  std::vector<uint8_t> torn(raw.begin(), raw.end() - 5);  // the last record cut short
  return WriteFile(name + "-raw.log", raw) && WriteFile(name + "-framed.log", framed) && WriteFile(name + "-torn.log", torn);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_fuzz_seeds DIR (DIR/model, DIR/index and DIR/log must exist)\n");
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
    swe::IndexDocs docs;  // documents for some entries: a string id, and a text or metadata
    swe::fuzz::SeedIndex(dtype, &index, &docs);
    std::vector<uint8_t> bytes;
    const std::string name = dir + "/index/seed" + std::to_string(n++);
    if (!index->Save(&bytes, 0, dtype == swe::DType::kInt8 ? &docs : nullptr).ok() || !WriteFile(name + ".swi", bytes) ||
        !WriteFile(name + ".msg", swe::fuzz::BareMessageSeed(bytes, swe::container::Kind::kIndex))) {
      return 1;
    }
    if (!WriteLogSeeds(dtype, dir + "/log/seed" + std::to_string(n++))) return 1;
  }
  return 0;
}
