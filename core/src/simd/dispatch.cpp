// Picks the kernel variant once per process.
#include "simd/kernels.h"
#include "simd/pick.h"
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
namespace avx512 {  // kernels_avx512.cpp: AVX2's table with VNNI int8 dot products
const Kernels& Table();
}
#endif
#ifdef SWE_HAVE_NEON_KERNELS
namespace neon {  // kernels_neon.cpp: NEON is part of every AArch64 CPU
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
// AVX2 (which the compiler's builtin checks together with the OS's AVX state), F16C (CPUID leaf 1,
// ECX bit 29; clang 14's __builtin_cpu_supports does not know "f16c"), POPCNT and SSE4.2 (the
// Hamming scan's and CRC-32C's instructions; every AVX2 CPU has them).
bool CpuHasAvx2() {
  __builtin_cpu_init();
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 29)) != 0;
  return __builtin_cpu_supports("avx2") && f16c && __builtin_cpu_supports("popcnt") &&
         __builtin_cpu_supports("sse4.2");
}
bool CpuHasAvx512Vnni() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vnni");
}
#endif

}  // namespace

const Kernels& Active() {
  static const Kernels* const active = PickByName(Supported(), "SWE_SIMD");
  return *active;
}

std::vector<const Kernels*> Supported() {
  std::vector<const Kernels*> out = {&generic::kKernels};
#ifdef SWE_HAVE_AVX2_KERNELS
  if (CpuHasAvx2()) out.push_back(&avx2::kKernels);
  if (CpuHasAvx2() && CpuHasAvx512Vnni()) out.push_back(&avx512::Table());
#endif
#ifdef SWE_HAVE_NEON_KERNELS
  out.push_back(&neon::kKernels);
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

}  // namespace swe::simd
