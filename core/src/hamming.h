// Binary (1 bit per dimension) codes for the index's approximate search: the sign bits of a vector
// minus a center, Hamming distances by popcount, and the selection of the nearest codes. Internal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace swe::hamming {

inline size_t Words(size_t dims) { return (dims + 63) / 64; }
// Bit j of out[j / 64] is set when x[j] * scale > center[j] (center null: 0); Words(n) words.
void SignBits(const float* x, const float* center, size_t n, uint64_t* out);
void SignBits(const int8_t* x, float scale, const float* center, size_t n, uint64_t* out);
// The positions of the m rows (each `words` words) nearest to `query` in Hamming distance (ties:
// lower position first), in ascending (distance, position) order. words ≤ 256 (16,384 dims). The
// distances come from the kernel table's hamming_distances (simd/kernels.h, SWE_SIMD).
void Nearest(const uint64_t* query, const uint64_t* rows, size_t words, size_t count, size_t m,
             std::vector<uint32_t>* out);
// The same over rows kept in chunks (an index's): row p's code is at chunks[p / chunk_rows] +
// (p % chunk_rows) * words; chunk_rows is a multiple of 1,024.
void Nearest(const uint64_t* query, const uint64_t* const* chunks, size_t chunk_rows, size_t words, size_t count,
             size_t m, std::vector<uint32_t>* out);

}  // namespace swe::hamming
