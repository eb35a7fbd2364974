// A variant's table of kernels, included last by its translation unit (after kernels_impl.h and its
// own kernels): SWE_KERNEL_<NAME> names a kernel of the variant's own, the others are kernels_impl.h's
// portable ones, or vector_kernels.h's for axpy and gather when the variant defines SWE_KERNELS_VEC.
#ifdef SWE_KERNELS_VEC
#define SWE_KERNEL_AXPY_F32 VecAxpyF32
#define SWE_KERNEL_AXPY_F16 VecAxpyF16
#define SWE_KERNEL_AXPY_I8 VecAxpyI8
#define SWE_KERNEL_GATHER_F32 VecGatherF32
#define SWE_KERNEL_GATHER_F16 VecGatherF16
#define SWE_KERNEL_GATHER_I8 VecGatherI8
#endif
#ifndef SWE_KERNEL_AXPY_F32
#define SWE_KERNEL_AXPY_F32 impl::AxpyF32
#endif
#ifndef SWE_KERNEL_AXPY_F16
#define SWE_KERNEL_AXPY_F16 impl::AxpyF16
#endif
#ifndef SWE_KERNEL_AXPY_I8
#define SWE_KERNEL_AXPY_I8 impl::AxpyI8
#endif
#ifndef SWE_KERNEL_DOT_F32
#define SWE_KERNEL_DOT_F32 impl::DotF32
#endif
#ifndef SWE_KERNEL_DOT_I8
#define SWE_KERNEL_DOT_I8 impl::DotI8
#endif
#ifndef SWE_KERNEL_SCAN_F32
#define SWE_KERNEL_SCAN_F32 impl::ScanF32
#endif
#ifndef SWE_KERNEL_SCAN_I8
#define SWE_KERNEL_SCAN_I8 impl::ScanI8
#endif
#ifndef SWE_KERNEL_GATHER_F32
#define SWE_KERNEL_GATHER_F32 impl::GatherF32
#endif
#ifndef SWE_KERNEL_GATHER_F16
#define SWE_KERNEL_GATHER_F16 impl::GatherF16
#endif
#ifndef SWE_KERNEL_GATHER_I8
#define SWE_KERNEL_GATHER_I8 impl::GatherI8
#endif

namespace swe::simd::SWE_KERNELS_NS {

extern const Kernels kKernels;
const Kernels kKernels = {
    SWE_KERNELS_NAME,      SWE_KERNEL_AXPY_F32,   SWE_KERNEL_AXPY_F16,  SWE_KERNEL_AXPY_I8,
    SWE_KERNEL_DOT_F32,    SWE_KERNEL_DOT_I8,     SWE_KERNEL_SCAN_F32,  SWE_KERNEL_SCAN_I8,
    SWE_KERNEL_GATHER_F32, SWE_KERNEL_GATHER_F16, SWE_KERNEL_GATHER_I8,
};

}  // namespace swe::simd::SWE_KERNELS_NS
