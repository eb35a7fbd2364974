// The portable kernels: baseline instruction set of the target (SSE2 on x86-64, any CPU).
#define SWE_KERNELS_NS generic
#define SWE_KERNELS_NAME "generic"
#include "simd/kernels_impl.h"
#include "simd/kernels_table.h"
