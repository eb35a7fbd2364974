// binary32 -> binary16 (swe/half.h); the other direction is inline there.
#include <cstdint>
#include <cstring>

#include "swe/half.h"

namespace swe {
namespace {

uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float BitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

}  // namespace

uint16_t FloatToHalf(float f) {
  const uint32_t bits = FloatBits(f);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t abs = bits & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u) {  // inf stays inf; NaN stays a quiet NaN with the top payload bits
    if (abs == 0x7F800000u) return sign | 0x7C00u;
    return static_cast<uint16_t>(sign | 0x7E00u | ((abs >> 13) & 0x3FFu));
  }
  if (abs >= 0x477FF000u) return sign | 0x7C00u;  // >= 65520 rounds to inf
  if (abs < 0x38800000u) {                        // below the smallest normal half (2^-14)
    // Subnormal half: the value in units of 2^-24, rounded to an integer (ties to even) by the
    // float addition itself: at 2^23 the float spacing is exactly 1.
    const float scaled = BitsFloat(abs) * 0x1p24f;  // exact: power-of-two scale, result < 2^10
    const float rounded = scaled + 0x1p23f;
    const uint32_t q = FloatBits(rounded) - FloatBits(0x1p23f);
    return static_cast<uint16_t>(sign | q);  // q == 0x400 becomes the smallest normal: still right
  }
  // Normal half: re-bias, then round the 13 dropped bits to nearest even.
  const uint32_t mantissa_odd = (abs >> 13) & 1u;
  const uint32_t rounded = abs - (112u << 23) + 0xFFFu + mantissa_odd;
  return static_cast<uint16_t>(sign | (rounded >> 13));
}

}  // namespace swe
