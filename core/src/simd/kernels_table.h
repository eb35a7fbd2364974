// A variant's table of kernels, included last by its translation unit: its entry points
// Vec<Kernel> (vector_kernels.h's, and the variant's own VecHammingDistances, VecCrc32c,
// VecAsciiAlnumRun) when the variant defines SWE_KERNELS_VEC, else kernels_impl.h's portable loops.
#ifdef SWE_KERNELS_VEC
#define SWE_KERNEL(name) Vec##name
#else
#define SWE_KERNEL(name) impl::name
#endif

namespace swe::simd::SWE_KERNELS_NS {

extern const Kernels kKernels;
const Kernels kKernels = {
    SWE_KERNELS_NAME,      SWE_KERNEL(AxpyF32),   SWE_KERNEL(AxpyF16),   SWE_KERNEL(AxpyI8),
    SWE_KERNEL(ScaleF32),  SWE_KERNEL(DotF32),    SWE_KERNEL(DotI8),     SWE_KERNEL(ScanF32),
    SWE_KERNEL(ScanI8),    SWE_KERNEL(GatherF32), SWE_KERNEL(GatherF16), SWE_KERNEL(GatherI8),
    SWE_KERNEL(HammingDistances), SWE_KERNEL(Crc32c), SWE_KERNEL(AsciiAlnumRun),
};

}  // namespace swe::simd::SWE_KERNELS_NS

#undef SWE_KERNEL
