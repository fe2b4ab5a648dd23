#pragma once
/// \file
/// The one place where raw operations pick a backend by device (STYLE 11).
/// CUDA joins here: fused expressions and reductions run as kernels once a
/// translation unit compiled by nvcc has used them (Note [kernels across
/// translation units]); copies and GEMM need only the CUDA runtime. Anything
/// else gets a clear error instead of a silent host loop over device memory.

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "tensorlib/backend/cpu/fill.hpp"
#include "tensorlib/backend/cpu/for_each.hpp"
#include "tensorlib/backend/cpu/gemm.hpp"
#include "tensorlib/backend/cpu/pointwise.hpp"
#include "tensorlib/backend/cpu/scan.hpp"
#include "tensorlib/backend/cpu/softmax.hpp"
#include "tensorlib/backend/cpu/strided_loop.hpp"
#include "tensorlib/backend/cuda/registry.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/map.hpp"
#include "tensorlib/expr/traverse.hpp"

#if TENSORLIB_CUDA_RUNTIME
#include "tensorlib/backend/cuda/caching_allocator.hpp"
#include "tensorlib/backend/cuda/copy.hpp"
#include "tensorlib/backend/cuda/gemm.hpp"
#endif
#if defined(__CUDACC__)
#include "tensorlib/backend/cuda/for_each.hpp"
#include "tensorlib/backend/cuda/for_each_offsets.hpp"
#include "tensorlib/backend/cuda/philox_fill.hpp"
#include "tensorlib/backend/cuda/pointwise.hpp"
#include "tensorlib/backend/cuda/reduce.hpp"
#include "tensorlib/backend/cuda/scan.hpp"
#include "tensorlib/backend/cuda/softmax.hpp"
#include "tensorlib/backend/cuda/sort.hpp"
#endif

#if !TENSORLIB_CUDA_RUNTIME
// Without the CUDA runtime there is no GPU to use. Every translation unit of
// a program must agree on TENSORLIB_CUDA (the `tensorlib::cuda` component
// defines it for all of a target's sources).
namespace tensorlib::cuda {
/// False: this build has no CUDA runtime (see backend/cuda/runtime.hpp).
inline bool is_available() noexcept { return false; }
/// 0: this build has no CUDA runtime.
inline int device_count() noexcept { return 0; }
}  // namespace tensorlib::cuda
#endif

namespace tensorlib::detail {

[[noreturn]] inline void no_cuda_backend(const char* op) {
  throw DeviceError(std::string(op) +
                    ": CUDA tensors need the CUDA backend, and fused expressions on them need this translation unit "
                    "to be compiled with nvcc");
}

/// Forward mode through an operand whose derivative PyTorch does not
/// implement (zeta's x, igamma's a) throws, as the backward does (Note
/// [derivatives PyTorch does not implement] in autograd/fused.hpp), instead
/// of giving NaN tangents.
template <class E>
void check_forward_derivatives() {
  if constexpr (constexpr std::string_view name = refused_forward_derivative<E>; !name.empty())
    throw NotImplementedError(concat("the derivative for '", name, "' is not implemented."));
}

/// Evaluates a pointwise expression into `out` on `out`'s device.
template <Element T, class E>
void dispatch_pointwise(const Tensor<T>& out, const E& expr) {
  check_forward_derivatives<E>();
  switch (out.device().type) {
    case DeviceType::CPU:
      cpu::run_pointwise(out, expr);
      return;
    case DeviceType::CUDA:
#if defined(__CUDACC__)
      (void)cuda::detail::pointwise_registered<T, E>;
#endif
      if (auto* kernel = cuda::detail::pointwise_kernel<T, E>) return kernel(out, expr);
      no_cuda_backend("pointwise");
  }
}

/// Runs the multi-output loop f over elements [0, n) of contiguous buffers
/// of T on `device` (Note [multi-output loops]).
template <Element T, class F, class... P>
void dispatch_for_each(Device device, const F& f, int64_t n, P... ptrs) {
  switch (device.type) {
    case DeviceType::CPU:
      cpu::for_each_element<T>(f, n, ptrs...);
      return;
    case DeviceType::CUDA:
#if defined(__CUDACC__)
      (void)cuda::detail::for_each_registered<T, F, P...>;
#endif
      if (auto* kernel = cuda::detail::for_each_kernel<T, F, P...>) return kernel(f, n, device.index, ptrs...);
      no_cuda_backend("for_each");
  }
}

/// Runs the multi-output loops of `items` (buffers on GPU `device`) in as
/// few kernels as possible: one multi-tensor kernel where an nvcc
/// translation unit registered it, else one kernel per item.
template <Element T, class F, class... P>
void dispatch_for_each_list(Device device, std::vector<cuda::detail::ForEachItem<F, P...>>& items) {
  if (auto* kernel = cuda::detail::for_each_list_kernel<T, F, P...>) return kernel(items, device.index);
  for (const auto& item : items) [&]<std::size_t... I>(std::index_sequence<I...>) {
      dispatch_for_each<T>(device, item.f, item.n, static_cast<P>(const_cast<void*>(item.ptrs[I]))...);
    }
  (std::index_sequence_for<P...>{});
}

/// Whether GPU `device`'s current stream has run all the work queued on it
/// (a query: it does not wait). True without the CUDA runtime, where no
/// GPU work can be queued.
inline bool stream_idle(Device device) {
#if TENSORLIB_CUDA_RUNTIME
  const cuda::DeviceGuard guard(device.index);  // the legacy default stream is the current device's
  return cuda::current_stream(device.index).query();
#else
  (void)device;
  return true;
#endif
}

/// Copies `nbytes` between two buffers, one of them (at least) on a GPU.
inline void dispatch_copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, std::size_t nbytes,
                                bool non_blocking) {
#if TENSORLIB_CUDA_RUNTIME
  cuda::copy_bytes(dst, dst_device, src, src_device, nbytes, non_blocking);
#else
  (void)dst, (void)dst_device, (void)src, (void)src_device, (void)nbytes, (void)non_blocking;
  no_cuda_backend("to");
#endif
}

/// Runs reducer R over expression `x` into `out` (contiguous, kept
/// dimensions in order) with `finish` applied to each accumulator:
/// `cpu_kernel` on the host, the CUDA reduction kernel on a GPU.
template <class R, Element Out, class E, class Finish, class CpuKernel>
void dispatch_reduce(const Tensor<Out>& out, const E& x, uint32_t mask, Finish finish, CpuKernel&& cpu_kernel) {
  switch (out.device().type) {
    case DeviceType::CPU:
      cpu_kernel();
      return;
    case DeviceType::CUDA:
#if defined(__CUDACC__)
      (void)cuda::detail::reduce_registered<R, Out, E, Finish>;
#endif
      if (auto* kernel = cuda::detail::reduce_kernel<R, Out, E, Finish>) return kernel(out, x, mask, finish);
      no_cuda_backend("reduction");
  }
}

/// Sets every element of `out` to `value` on `out`'s device.
template <Element T>
void dispatch_fill(const Tensor<T>& out, T value) {
  switch (out.device().type) {
    case DeviceType::CPU:
      cpu::fill(out, value);
      return;
    case DeviceType::CUDA: {
#if defined(__CUDACC__)
      (void)cuda::detail::pointwise_registered<T, ScalarLeaf<T>>;
#endif
      if (auto* kernel = cuda::detail::pointwise_kernel<T, ScalarLeaf<T>>) return kernel(out, ScalarLeaf<T>{value});
      // No nvcc translation unit has filled a T tensor: a dense one is
      // written from the host (slower, same result).
      if (!out.is_contiguous()) no_cuda_backend("fill_");
      const auto n = static_cast<std::size_t>(out.numel());
      const std::unique_ptr<T[]> host(new T[n]);
      std::fill_n(host.get(), n, value);
      dispatch_copy_bytes(out.data_ptr(), out.device(), host.get(), Device(kCPU), n * sizeof(T), false);
      return;
    }
  }
}

/// Calls f(offsets) for every element of `shape`, offsets[k] being its
/// offset under strides[k], on `device` (gathers and scatters: f is a named
/// functor, ops/gather_scatter.hpp). The CPU visits elements in row-major
/// order; the GPU in no particular order.
template <std::size_t N, class F>
void dispatch_offsets(Device device, const Shape& shape, const std::array<Shape, N>& strides, const F& f,
                      const char* op) {
  switch (device.type) {
    case DeviceType::CPU:
      cpu::for_each_offsets<N>(shape, strides, f);
      return;
    case DeviceType::CUDA:
#if defined(__CUDACC__)
      (void)cuda::detail::offsets_registered<N, F>;
#endif
      if (auto* kernel = cuda::detail::offsets_kernel<N, F>) return kernel(shape, strides, f, device.index);
      no_cuda_backend(op);
  }
}

/// Fills the contiguous tensor `out` from the Philox stream (seed, offset)
/// with lane functor `value` (ops/random.hpp), on `out`'s device.
template <Element T, class F>
void dispatch_random(const Tensor<T>& out, uint64_t seed, uint64_t offset, const F& value) {
  switch (out.device().type) {
    case DeviceType::CPU:
      cpu::philox_fill(out.data_ptr(), out.numel(), seed, offset, value);
      return;
    case DeviceType::CUDA: {
#if defined(__CUDACC__)
      (void)cuda::detail::philox_fill_registered<T, F>;
#endif
      if (auto* kernel = cuda::detail::philox_fill_kernel<T, F>)
        return kernel(out.data_ptr(), out.numel(), seed, offset, value, out.device().index);
      // No nvcc translation unit has drawn these: drawn on the host and
      // copied (the same numbers, slower).
      const auto n = static_cast<std::size_t>(out.numel());
      const std::unique_ptr<T[]> host(new T[n]);
      cpu::philox_fill(host.get(), out.numel(), seed, offset, value);
      dispatch_copy_bytes(out.data_ptr(), out.device(), host.get(), Device(kCPU), n * sizeof(T), false);
      return;
    }
  }
}

/// Runs `cpu_kernel` (a host loop over the tensors' memory) for an op that
/// has no CUDA kernel yet; on a CUDA device it is a DeviceError naming `op`.
template <class F>
void dispatch_cpu_only(Device device, const char* op, F&& cpu_kernel) {
  switch (device.type) {
    case DeviceType::CPU:
      cpu_kernel();
      return;
    case DeviceType::CUDA:
      no_cuda_backend(op);
  }
}

/// Throws the standard error for a CUDA tensor given to a CPU-only op: the
/// entry check of ops whose host loops run outside dispatch_cpu_only.
template <Element T>
void check_cpu(const Tensor<T>& x, const char* op) {
  if (!x.is_cpu()) no_cuda_backend(op);
}

/// y = softmax(x) (Log: log_softmax) along the last dimension, both
/// contiguous with x's shape, on x's device.
template <bool Log, Element T>
void dispatch_softmax_rows(const Tensor<T>& x, const Tensor<T>& y) {
  switch (x.device().type) {
    case DeviceType::CPU: {
      const int64_t cols = x.size(-1);
      cpu::softmax_rows<Log>(x.data_ptr(), y.data_ptr(), x.numel() / cols, cols);
      return;
    }
    case DeviceType::CUDA: {
#if defined(__CUDACC__)
      (void)cuda::detail::softmax_registered<Log, T>;
#endif
      const int64_t cols = x.size(-1);
      if (auto* kernel = cuda::detail::softmax_kernel<Log, T>)
        return kernel(x.data_ptr(), y.data_ptr(), x.numel() / cols, cols, x.device().index);
      no_cuda_backend(Log ? "log_softmax" : "softmax");
    }
  }
}

/// Runs scan functor `scan` (ops/scan.hpp) along the middle dimension of a
/// contiguous [outer, n, inner] layout on `device`: the host loop, or Note
/// [GPU scans].
template <class S>
void dispatch_scan(Device device, const S& scan, int64_t outer, int64_t n, int64_t inner, const char* op) {
  switch (device.type) {
    case DeviceType::CPU:
      cpu::scan_lines(scan, outer, n, inner);
      return;
    case DeviceType::CUDA:
#if defined(__CUDACC__)
      (void)cuda::detail::scan_registered<S>;
#endif
      if (auto* kernel = cuda::detail::scan_kernel<S>) return kernel(scan, outer, n, inner, device.index);
      no_cuda_backend(op);
  }
}

/// Sorts the rows of `rows` (contiguous, [count, length]) into `values` and
/// `indices` (contiguous, same shape; each element's position in its row),
/// ascending or descending: `cpu_kernel` on the host, a stable radix sort
/// on a GPU (Note [GPU row sort]).
template <Element T, class CpuKernel>
void dispatch_sort_rows(const Tensor<T>& rows, const Tensor<T>& values, const Tensor<int64_t>& indices, int64_t count,
                        int64_t length, bool descending, CpuKernel&& cpu_kernel) {
  switch (rows.device().type) {
    case DeviceType::CPU:
      cpu_kernel();
      return;
    case DeviceType::CUDA:
#if defined(__CUDACC__)
      (void)cuda::detail::sort_registered<T>;
#endif
      if (auto* kernel = cuda::detail::sort_kernel<T>)
        return kernel(rows.data_ptr(), values.data_ptr(), indices.data_ptr(), count, length, descending,
                      rows.device().index);
      no_cuda_backend("sort");
  }
}

/// The host GEMM of reduced floats (Note [reduced floats]): the operands
/// widened to float, one float GEMM, the result rounded once, as PyTorch's
/// CPU kernel accumulates half and bfloat16 products in float.
template <Element T>
void reduced_float_bmm(const Tensor<T>& out, const Tensor<T>& a, const Tensor<T>& b, float alpha, float beta) {
  const int64_t batch = out.size(0), m = out.size(1), n = out.size(2), k = a.size(2);
  auto widen = [batch](const Tensor<T>& t, std::vector<float>& to) {
    const int64_t rows = t.size(1), cols = t.size(2);
    to.resize(static_cast<std::size_t>(batch * rows * cols));
    const T* p = t.data_ptr();
    float* q = to.data();
    for (int64_t i = 0; i < batch; ++i)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c)
          *q++ = static_cast<float>(p[i * t.stride(0) + r * t.stride(1) + c * t.stride(2)]);
  };
  std::vector<float> af, bf, cf;
  widen(a, af);
  widen(b, bf);
  if (beta != 0.0f)
    widen(out, cf);
  else
    cf.assign(static_cast<std::size_t>(batch * m * n), 0.0f);
  using cpu::MatrixView;
  const MatrixView<const float> av{af.data(), m, k, k, 1};
  const MatrixView<const float> bv{bf.data(), k, n, n, 1};
  const MatrixView<float> cv{cf.data(), m, n, n, 1};
  cpu::gemm_batched(batch, alpha, av, m * k, bv, k * n, beta, cv, m * n);
  T* o = out.data_ptr();
  const float* c = cf.data();
  for (int64_t i = 0; i < batch; ++i)
    for (int64_t r = 0; r < m; ++r)
      for (int64_t j = 0; j < n; ++j) o[i * out.stride(0) + r * out.stride(1) + j * out.stride(2)] = T(*c++);
}

/// out[i] = alpha * a[i] @ b[i] + beta * out[i] for 3-d tensors (batch, rows,
/// cols) of any strides on one device; beta == 0 does not read `out`. The
/// caller checks shapes and devices, and that `out` overlaps neither input.
template <Element T>
void dispatch_bmm(const Tensor<T>& out, const Tensor<T>& a, const Tensor<T>& b, T alpha, T beta, const char* op) {
  switch (out.device().type) {
    case DeviceType::CPU: {
      using cpu::MatrixView;
      if constexpr (is_reduced_float<T>) {
        reduced_float_bmm(out, a, b, static_cast<float>(alpha), static_cast<float>(beta));
      } else {
        const MatrixView<const T> av{a.data_ptr(), a.size(1), a.size(2), a.stride(1), a.stride(2)};
        const MatrixView<const T> bv{b.data_ptr(), b.size(1), b.size(2), b.stride(1), b.stride(2)};
        const MatrixView<T> cv{out.data_ptr(), out.size(1), out.size(2), out.stride(1), out.stride(2)};
        cpu::gemm_batched(out.size(0), alpha, av, a.stride(0), bv, b.stride(0), beta, cv, out.stride(0));
      }
      return;
    }
    case DeviceType::CUDA: {
#if TENSORLIB_CUDA_RUNTIME
      // cuBLAS reads rows or columns in place; other layouts (an expanded
      // gradient of stride 0, overlapping rows) are copied first, and an
      // output it cannot write (never a contiguous one) is computed in a
      // contiguous buffer, which holds a copy of `out` only when beta reads it.
      const Tensor<T> ca = cuda::gemm_reads(a) ? a : a.contiguous();
      const Tensor<T> cb = cuda::gemm_reads(b) ? b : b.contiguous();
      if (cuda::gemm_writes(out)) {
        cuda::gemm_batched(out, ca, cb, alpha, beta, op);
      } else {
        const Shape strides = contiguous_strides(out.sizes());
        const Tensor<T> staged =
            beta == T(0)
                ? Tensor<T>::from_storage(make_storage(out.numel() * int64_t{sizeof(T)}, {.device = out.device()}, op),
                                          out.sizes(), strides, 0)
                : out.contiguous();
        cuda::gemm_batched(staged, ca, cb, alpha, beta, op);
        dispatch_pointwise(out, staged);
      }
      return;
#else
      no_cuda_backend(op);
#endif
    }
  }
}

}  // namespace tensorlib::detail
