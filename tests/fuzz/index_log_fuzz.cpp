// Any change log after a valid base (docs/FORMAT.md, "Index change log"): Index::Load must return a
// status, never crash; an accepted index is searchable with finite scores, its documents name entries,
// what follows its valid part is nothing or a torn tail (never a record it should have applied), the
// file cut at its valid part loads the same index, and the writer's round trip holds.
// The first byte picks the base (bit 0: f32 or int8) and the shape (bit 1, see fuzz_input.h's
// LogBytes): raw bytes after the base, or record bodies that the harness frames with a valid header
// and checksum, so that mutations reach the record's message and its steps.
#include <cmath>
#include <cstdlib>
#include <memory>
#include <vector>

#include "fuzz_input.h"
#include "swe/index.h"
#include "swe/index_log.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::vector<uint8_t> file = swe::fuzz::LogBytes(data, size);
  swe::ReadLimits limits;
  limits.max_payload_bytes = 64 << 20;
  std::unique_ptr<swe::Index> index;
  swe::IndexDocs docs;
  swe::IndexFileState state;
  if (!swe::Index::Load(file.data(), file.size(), &index, limits, &docs, &state).ok()) return 0;
  if (state.valid_size > file.size() || state.file_size != file.size()) std::abort();
  const swe::IndexTail tail =
      swe::ClassifyIndexTail(file.data() + state.valid_size, file.size() - state.valid_size, state);
  if (tail != (state.valid_size == file.size() ? swe::IndexTail::kNone : swe::IndexTail::kTorn)) std::abort();
  docs.ForEach([&](uint64_t entry, const swe::IndexDoc& doc) {
    if (!index->Contains(entry) || doc.id.empty()) std::abort();
  });
  std::vector<float> query(index->dims(), 1.0f);
  std::vector<swe::SearchHit> hits;
  if (!index->Search(query.data(), 10, &hits).ok()) std::abort();
  for (const swe::SearchHit& h : hits) {
    if (!std::isfinite(h.score)) std::abort();
  }
  // Cut at its valid part, the file is the same index.
  std::unique_ptr<swe::Index> cut;
  swe::IndexDocs cut_docs;
  if (!swe::Index::Load(file.data(), state.valid_size, &cut, limits, &cut_docs).ok()) std::abort();
  std::vector<uint8_t> a, b;
  if (!index->Save(&a, 0, &docs).ok() || !cut->Save(&b, 0, &cut_docs).ok() || a != b) std::abort();
  swe::fuzz::CheckSaveRoundTrip(*index, docs);
  return 0;
}
