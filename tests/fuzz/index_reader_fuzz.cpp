// Any bytes: Index::Load (documents included) must return a status, never crash; an accepted index must
// be searchable, and the writer's round trip must hold: saving it, loading that and saving again gives
// the same bytes.
#include <cmath>
#include <cstdlib>
#include <memory>
#include <vector>

#include "fuzz_input.h"
#include "swe/index.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::unique_ptr<swe::Index> index;
  swe::ReadLimits limits;
  limits.max_payload_bytes = 64 << 20;
  const std::vector<uint8_t> file = swe::fuzz::FileBytes(data, size, swe::container::Kind::kIndex);
  swe::IndexDocs docs;
  if (!swe::Index::Load(file.data(), file.size(), &index, limits, &docs).ok()) return 0;
  docs.ForEach([&](uint64_t entry, const swe::IndexDoc& doc) {
    if (!index->Contains(entry) || doc.id.empty()) std::abort();
  });
  std::vector<float> query(index->dims(), 1.0f);
  std::vector<swe::SearchHit> hits;
  if (!index->Search(query.data(), 10, &hits).ok()) std::abort();
  for (const swe::SearchHit& h : hits) {
    if (!std::isfinite(h.score)) std::abort();
  }
  swe::fuzz::CheckSaveRoundTrip(*index, docs);
  return 0;
}
