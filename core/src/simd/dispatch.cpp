// Picks the kernel variant once per process; f16 conversions.
#include <cstdlib>
#include <cstring>

#include "simd/kernels.h"
#include "swe/simd.h"

#ifdef SWE_HAVE_AVX2_KERNELS
#include <cpuid.h>
#endif

namespace swe::simd {

namespace generic {
extern const Kernels kKernels;
}
#ifdef SWE_HAVE_AVX2_KERNELS
namespace avx2 {
extern const Kernels kKernels;
}
#endif
#ifdef SWE_HAVE_WASM_KERNELS
namespace wasm128 {  // kernels_wasm.cpp: a wasm build is compiled with -msimd128, so always usable
extern const Kernels kKernels;
}
#endif

namespace {

#ifdef SWE_HAVE_AVX2_KERNELS
// AVX2 (which the compiler's builtin checks together with the OS's AVX state) and F16C (CPUID leaf 1,
// ECX bit 29; clang 14's __builtin_cpu_supports does not know "f16c").
bool CpuHasAvx2() {
  __builtin_cpu_init();
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 29)) != 0;
  return __builtin_cpu_supports("avx2") && f16c;
}
#endif

const Kernels* Choose() {
  std::vector<const Kernels*> supported = Supported();
  const char* wanted = std::getenv("SWE_SIMD");
  if (wanted != nullptr) {
    for (const Kernels* k : supported) {
      if (std::strcmp(k->name, wanted) == 0) return k;
    }
  }
  return supported.back();
}

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

const Kernels& Active() {
  static const Kernels* const active = Choose();
  return *active;
}

std::vector<const Kernels*> Supported() {
  std::vector<const Kernels*> out = {&generic::kKernels};
#ifdef SWE_HAVE_AVX2_KERNELS
  if (CpuHasAvx2()) out.push_back(&avx2::kKernels);
#endif
#ifdef SWE_HAVE_WASM_KERNELS
  out.push_back(&wasm128::kKernels);
#endif
  return out;
}

const char* ActiveName() { return Active().name; }

std::vector<const char*> SupportedNames() {
  std::vector<const char*> names;
  for (const Kernels* k : Supported()) names.push_back(k->name);
  return names;
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = uint32_t{h & 0x8000u} << 16;
  const uint32_t exponent = (h >> 10) & 0x1Fu;
  const uint32_t mantissa = h & 0x3FFu;
  if (exponent == 0x1F) return BitsFloat(sign | 0x7F800000u | mantissa << 13);  // inf, NaN (payload kept)
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return BitsFloat(sign | FloatBits(magnitude));
  }
  return BitsFloat(sign | (exponent + 112) << 23 | mantissa << 13);
}

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

}  // namespace swe::simd
