// Rows ranked as an f32 Index ranks its entries (swe/rank.h): each row normalised as Index::Add stores
// it, scored by the scan of Index::Search, selected by the same TopK.
#include "swe/rank.h"

#include <algorithm>
#include <string>

#include "index_internal.h"
#include "simd/kernels.h"
#include "swe/encoder.h"

namespace swe {

Status RankRows(const float* query, const float* rows, size_t n, uint32_t dims, size_t k, float min_score,
                std::vector<SearchHit>* hits) {
  hits->clear();
  if (query == nullptr || (n > 0 && rows == nullptr)) return InvalidArgument("null query or rows");
  if (!index_internal::AllFinite(query, dims)) return InvalidArgument("query has a non-finite value");
  // "row N has a non-finite value", N the first such row of the m at `first`, or Ok.
  auto check = [&](size_t first, size_t m) {
    if (index_internal::AllFinite(rows + first * dims, m * dims)) return Status::Ok();
    size_t row = first;
    while (index_internal::AllFinite(rows + row * dims, dims)) ++row;
    return InvalidArgument("row " + std::to_string(row) + " has a non-finite value");
  };
  if (std::min(k, n) == 0) return check(0, n);  // nothing to rank, but the rows are checked all the same
  k = std::min(k, n);
  std::vector<float> unit(query, query + dims);
  NormalizeL2(unit.data(), dims);
  const simd::Kernels& kernels = simd::Active();
  index_internal::TopK top(k, min_score);
  // Blocks of ~32 KB: a block is checked, copied, normalised and scanned while it is in the L1/L2
  // cache, so that the rows are read from memory once (a separate check of every row first took as
  // long again: ranking is bound by memory).
  const size_t block = std::min(n, std::max<size_t>(1, (32 << 10) / (sizeof(float) * dims)));
  std::vector<float> normalized(block * dims);  // a block of rows as the index would store them
  std::vector<float> scores(block);
  std::vector<uint64_t> ids(block);
  for (size_t start = 0; start < n; start += block) {
    const size_t m = std::min(block, n - start);
    if (Status s = check(start, m); !s.ok()) return s;  // (hits are filled only at the end)
    std::copy_n(rows + start * dims, m * dims, normalized.data());
    for (size_t j = 0; j < m; ++j) {
      NormalizeL2(normalized.data() + j * dims, dims);
      ids[j] = start + j;
    }
    kernels.scan_f32(unit.data(), normalized.data(), dims, m, scores.data());
    top.OfferBlock(ids.data(), scores.data(), m);
  }
  top.Finish(hits);
  return Status::Ok();
}

}  // namespace swe
