// The hot loops, one table of function pointers per instruction set: every piece of code specific to
// one instruction set lives in core/src/simd and is reached through this table. Every variant is
// compiled from the same generic source (kernels_impl.h) and must give bit-identical results:
// reductions use a fixed 8-lane order and no FMA contraction, so native and wasm builds agree
// (docs/FORMAT.md, "Determinism").
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace swe::simd {

struct Kernels {
  const char* name;
  // acc[i] += a * x[i]
  void (*axpy_f32)(float* acc, const float* x, float a, size_t n);
  void (*axpy_f16)(float* acc, const uint16_t* x, float a, size_t n);
  void (*axpy_i8)(float* acc, const int8_t* x, float a, size_t n);
  // x[i] *= a (normalisation)
  void (*scale_f32)(float* x, float a, size_t n);
  // sum a[i] * b[i], 8 partial sums in a fixed order
  float (*dot_f32)(const float* a, const float* b, size_t n);
  // exact integer dot product of values in [-127, 127], as QuantizeRow writes them and the index
  // reader checks (AVX2 negates b's bytes by a's signs: -128 has no negation in int8)
  int32_t (*dot_i8)(const int8_t* a, const int8_t* b, size_t n);
  // out[j] = dot(query, rows + j*n) for j < count: the index scan (int8: values as for dot_i8)
  void (*scan_f32)(const float* query, const float* rows, size_t n, size_t count, float* out);
  void (*scan_i8)(const int8_t* query, const int8_t* rows, size_t n, size_t count, int32_t* out);
  // The encoder's inner loop in one call: for j = 0 .. count-1 in order, acc[0..n) += c_j * row(ids[j]),
  // row(r) = table + r * stride, c_j = weights ? weights[ids[j]] : 1 (times scales[ids[j]] for int8).
  // f32 and f16: bit-identical to `count` axpy calls with those coefficients, without a call per word.
  // int8: the rows summed exactly in integers with 15-bit fixed-point coefficients, one rounding per
  // 512 rows (kernels_impl.h's GatherI8), not axpy calls.
  void (*gather_f32)(float* acc, const float* table, size_t stride, const uint32_t* ids, size_t count,
                     const float* weights, size_t n);
  void (*gather_f16)(float* acc, const uint16_t* table, size_t stride, const uint32_t* ids, size_t count,
                     const float* weights, size_t n);
  void (*gather_i8)(float* acc, const int8_t* table, size_t stride, const uint32_t* ids, size_t count,
                    const float* weights, const float* scales, size_t n);
  // The binary codes' distance scan (hamming.h): out[r] = popcount(query ^ row r) for r < count, rows
  // of `words` 64-bit words.
  void (*hamming_distances)(const uint64_t* query, const uint64_t* rows, size_t words, size_t count,
                            uint16_t* out);
  // CRC-32C (Castagnoli, reflected) of data[0..size), continued from `crc` (0 to start): the
  // container's checksum of files sealed before FrameHash.
  uint32_t (*crc32c)(const uint8_t* data, size_t size, uint32_t crc);
  // The tokenizer's inner loop: the length of the run of ASCII letters and digits that starts
  // p[0..n); sets *upper when the run has a capital (A-Z), leaves it as is otherwise. Reads only
  // p[0..n).
  size_t (*ascii_alnum_run)(const char* p, size_t n, bool* upper);
};

// The table-driven CRC-32C (crc32c.cpp): the portable variants' crc32c, and the fallback of the
// variants whose instruction may be missing at run time.
uint32_t Crc32cTables(const uint8_t* data, size_t size, uint32_t crc);

// The variant in use: the best this CPU supports, chosen once; SWE_SIMD=<name> overrides it
// (an unknown or unsupported name falls back to the automatic choice).
const Kernels& Active();
// Every variant this CPU can run, best last (for tests and benchmarks).
std::vector<const Kernels*> Supported();

}  // namespace swe::simd
