#pragma once
/// \file
/// Every macro tensorlib defines lives here (STYLE 5): version, host/device
/// annotations, inlining hints and the compile-time limits.
///
/// Macros the headers read but never define, set by the build:
/// - `TENSORLIB_CUDA` (the `tensorlib::cuda` component) and `TENSORLIB_USE_BLAS`
///   (the `tensorlib::blas` component) switch on optional backends.
/// Macros only tensorlib's own tests and benchmarks use, set by their CMake files:
/// - `TENSORLIB_FIXTURE_DIR`: where the PyTorch-generated fixtures live;
/// - `TENSORLIB_COMPILE_FAIL`: selects the line a compile-fail test expects to fail;
/// - `TENSORLIB_BENCH_LIBTORCH`: the benchmarks also time LibTorch;
/// - `TENSORLIB_BENCH_BLAS`: the GEMM benchmark also times the system CBLAS;
/// - `TENSORLIB_MATH_REPORT`: the ulp tests print their error tables.

/// Version of tensorlib. CMake reads these three lines (one source of truth).
#define TENSORLIB_VERSION_MAJOR 0
#define TENSORLIB_VERSION_MINOR 1
#define TENSORLIB_VERSION_PATCH 0

// Functors and math kernels are written once and run on the host and, when the
// translation unit is compiled by nvcc, on the device too (DESIGN 3.3).
#if defined(__CUDACC__)
#define TENSORLIB_HOST_DEVICE __host__ __device__
#else
#define TENSORLIB_HOST_DEVICE
#endif

// The CUDA runtime (streams, the caching allocator, copies, cuBLAS) is
// available to a translation unit compiled by nvcc or built with the
// `tensorlib::cuda` component; fused kernels only to the former (DESIGN 3.4).
#if defined(__CUDACC__) || defined(TENSORLIB_CUDA)
#define TENSORLIB_CUDA_RUNTIME 1
#else
#define TENSORLIB_CUDA_RUNTIME 0
#endif

// The fused loops rely on the whole expression tree being inlined into one
// loop body; GCC's heuristics give up on deep trees without this hint.
// Note [forced inlining at -O0]: clang forces it only where it
// optimizes (and in device code). At -O0 clang inlines such a function at
// every call and still emits its body (no dead-code pass runs), so forcing
// only adds code: in the sanitizer build of test_autograd the rows loop, with
// three inlined copies of the block loop, was 18 KB per expression, and the
// block loops' own bodies 9 MB of the file's 96 MB. g++ at -O0 drops the
// bodies it inlined, so there forcing saves code, and it stays on: the host
// pass of tests/parity/reduce_test.cu took 38 s with it, 43.5 s without.
#if defined(__clang__)
#if defined(__OPTIMIZE__) || defined(__CUDA_ARCH__)
#define TENSORLIB_FORCE_INLINE __attribute__((always_inline))
#else
#define TENSORLIB_FORCE_INLINE
#endif
#elif defined(__GNUC__)
#define TENSORLIB_FORCE_INLINE __attribute__((always_inline))
#else
#define TENSORLIB_FORCE_INLINE
#endif
#define TENSORLIB_ALWAYS_INLINE inline TENSORLIB_FORCE_INLINE

/// Largest number of dimensions a tensor may have. Shapes and strides are
/// stored inline (no heap) so that handles, iteration plans and kernel
/// arguments stay allocation-free; PyTorch's CUDA kernels use a similar cap.
#define TENSORLIB_MAX_DIMS 16

/// The members of an `nn::Module` (Note [module members], nn/module.hpp):
/// inside the class, `TENSORLIB_PARAMETERS(weight, bias)`,
/// `TENSORLIB_BUFFERS(running_mean)` and `TENSORLIB_MODULES(fc1, fc2)` name
/// the members once; their state dict keys are those names. Each defines a
/// function returning the names as one string and the members as references.
#define TENSORLIB_PARAMETERS(...) TENSORLIB_DETAIL_MODULE_FIELDS(tensorlib_parameters, __VA_ARGS__)
#define TENSORLIB_BUFFERS(...) TENSORLIB_DETAIL_MODULE_FIELDS(tensorlib_buffers, __VA_ARGS__)
#define TENSORLIB_MODULES(...) TENSORLIB_DETAIL_MODULE_FIELDS(tensorlib_modules, __VA_ARGS__)
#define TENSORLIB_DETAIL_MODULE_FIELDS(function, ...)                                               \
  auto function() { return ::tensorlib::detail::NamedFields{#__VA_ARGS__, std::tie(__VA_ARGS__)}; } \
  auto function() const { return ::tensorlib::detail::NamedFields{#__VA_ARGS__, std::tie(__VA_ARGS__)}; }

/// The members of an optimizer rule's options or per-parameter state, named
/// once inside the struct, `TENSORLIB_FIELDS(lr, betas, eps)`: PyTorch's keys
/// of `param_groups` and `state` (io/optimizer_state.hpp). Defines
/// `tensorlib_fields()` (core/named_fields.hpp).
#define TENSORLIB_FIELDS(...) TENSORLIB_DETAIL_MODULE_FIELDS(tensorlib_fields, __VA_ARGS__)

namespace tensorlib {

/// The version as numbers, for run-time checks by consumers.
struct Version {
  int major;
  int minor;
  int patch;
};

/// Returns the version of the headers this translation unit was compiled with.
constexpr Version version() noexcept {
  return {TENSORLIB_VERSION_MAJOR, TENSORLIB_VERSION_MINOR, TENSORLIB_VERSION_PATCH};
}

}  // namespace tensorlib

/// Short public alias: `tl::Tensor<float>`.
namespace tl = tensorlib;
