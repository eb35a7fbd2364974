// IEEE binary16 and bfloat16 <-> binary32: the one conversion of the project (model tables, the SIMD
// kernels, safetensors weights). binary16 -> binary32 and bfloat16 -> binary32 are exact.
#pragma once

#include <cstdint>
#include <cstring>

namespace swe {

// The inline conversions are `static`: every SIMD variant's translation unit is compiled for its own
// instruction set, and an inline function with external linkage would be merged into one copy,
// possibly built for an instruction set this CPU lacks.

// binary16 -> binary32, branch-free (so that loops over it vectorize). The half's exponent and
// mantissa, moved to the float's positions, read as a float with the wrong bias; scaling by
// 2^(127-15) fixes the bias exactly, subnormal halves included. Inf and NaN (which land at >= 2^16)
// get the all-ones exponent and keep their payload.
static inline float HalfToFloat(uint16_t h) {
  const uint32_t moved = uint32_t{h & 0x7FFFu} << 13;
  float scaled;
  std::memcpy(&scaled, &moved, sizeof scaled);
  scaled *= 0x1p112f;
  uint32_t bits;
  std::memcpy(&bits, &scaled, sizeof bits);
  const uint32_t special = 0u - static_cast<uint32_t>(scaled >= 0x1p16f);  // all ones or zero
  bits |= (special & 0x7F800000u) | uint32_t{h & 0x8000u} << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// bfloat16 -> binary32: the top half of a float.
static inline float BFloat16ToFloat(uint16_t h) {
  const uint32_t bits = uint32_t{h} << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// binary32 -> binary16, rounded to nearest even; too large becomes inf, NaN stays a NaN.
uint16_t FloatToHalf(float f);

}  // namespace swe
