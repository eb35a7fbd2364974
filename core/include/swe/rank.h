// Rows of vectors ranked by cosine similarity to a query, exactly as a flat f32 Index holding them
// ranks them (the C API's swe_vectors_rank): for rows that are not kept anywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "swe/index.h"
#include "swe/status.h"

namespace swe {

// The up to k rows of `rows` (n × dims floats, row-major) scoring at least `min_score` against `query`
// (dims floats), best first, equal scores by ascending row, as hits {id: row, score}. The query and
// each row are L2-normalised (NormalizeL2) and scored by the index's f32 scan, so the scores are bit
// for bit those of an f32 Index holding the rows under ids 0..n-1 (a zero row scores 0). Selecting k
// of n rows keeps a heap of k: O(n log k) after the O(n · dims) scores. Rejects non-finite values.
Status RankRows(const float* query, const float* rows, size_t n, uint32_t dims, size_t k, float min_score,
                std::vector<SearchHit>* hits);

}  // namespace swe
