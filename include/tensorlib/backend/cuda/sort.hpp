#pragma once
/// \file
/// Sorting contiguous rows on a GPU (nvcc translation units only) with CUB's
/// radix sort: the CUDA form of ops/sort.hpp's row sort, behind `sort`,
/// `argsort`, `msort` and `topk`.
///
/// Note [GPU row sort]
/// The rows are sorted as one array, in two stable radix sorts: the keys
/// with their flat positions, then those positions by their row number
/// (only as many bits as the row count needs). One long row, many short rows
/// and anything between keep the whole GPU busy, where a segmented sort
/// gives each row one block. The keys are canonical copies (float16 and
/// bfloat16 widened to float): every NaN
/// becomes the same positive quiet NaN, so NaNs sort after +inf (first when
/// descending), as ops/sort.hpp orders them, and -0.0 becomes +0.0 (equal,
/// as on the CPU). Both sorts are stable, so equal elements keep their
/// input order: the order sort(stable=true) gives on the CPU (with
/// stable=false PyTorch promises no order of ties). Values are read back from the input through
/// the sorted positions, so NaN payloads and the sign of zero survive. Rows
/// are sorted in chunks of at most 2^28 elements (one row may be longer, up
/// to 2^31 - 1: CUB counts items in 32 bits here).

#include <cuda_runtime_api.h>
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "tensorlib/backend/cuda/pointwise.hpp"
#include "tensorlib/backend/cuda/registry.hpp"
#include "tensorlib/backend/cuda/runtime.hpp"
#include "tensorlib/core/allocator.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/half.hpp"

namespace tensorlib::cuda::detail {

/// The radix key of element type T: bool sorts as a byte, float16 and
/// bfloat16 as the floats they widen to (exactly, in the same order).
template <class T>
using sort_key_t =
    std::conditional_t<std::is_same_v<T, bool>, uint8_t, std::conditional_t<is_reduced_float<T>, float, T>>;

template <class T>
__device__ sort_key_t<T> canonical_key(T v) {
  if constexpr (is_reduced_float<T>)
    return canonical_key(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, float>)
    return v != v ? __int_as_float(0x7fc00000) : v == 0.0f ? 0.0f : v;
  else if constexpr (std::is_same_v<T, double>)
    return v != v ? __longlong_as_double(0x7ff8000000000000LL) : v == 0.0 ? 0.0 : v;
  else
    return static_cast<sort_key_t<T>>(v);
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    sort_keys_kernel(const T* in, sort_key_t<T>* keys, int32_t* pos, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += step) {
    keys[i] = canonical_key(in[i]);
    pos[i] = static_cast<int32_t>(i);
  }
}

template <class I>
__global__ void __launch_bounds__(kThreads) row_of_kernel(const I* pos, uint32_t* row, int64_t n, int64_t length) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += step)
    row[i] = static_cast<uint32_t>(pos[i] / length);
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    sorted_rows_kernel(const T* in, const int32_t* pos, T* values, int64_t* indices, int64_t n, int64_t length) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += step) {
    const int64_t p = pos[i];
    values[i] = in[p];
    indices[i] = p % length;
  }
}

/// N pieces of device memory in one allocation, each 256-byte aligned.
template <std::size_t N>
class Scratch {
 public:
  Scratch(const std::array<std::size_t, N>& sizes, Device device) {
    std::size_t total = 0;
    for (std::size_t i = 0; i < N; ++i) {
      offsets_[i] = total;
      total += (sizes[i] + 255) / 256 * 256;
    }
    data_ = allocator_for(device).allocate(static_cast<int64_t>(total), device);
  }
  template <class P>
  P* piece(std::size_t i) const {
    return reinterpret_cast<P*>(static_cast<char*>(data_.get()) + offsets_[i]);
  }

 private:
  std::array<std::size_t, N> offsets_{};
  DataPtr data_;
};

template <class T>
void sort_row_chunk(const T* in, T* values, int64_t* indices, int64_t rows, int64_t length, bool descending, int device,
                    cudaStream_t stream) {
  using K = sort_key_t<T>;
  const int64_t n = rows * length;
  const int items = static_cast<int>(n);
  const int row_bits = std::bit_width(static_cast<uint32_t>(rows - 1));
  const auto un = static_cast<std::size_t>(n);
  // Keys, positions and row numbers each in a double buffer (CUB's sorts
  // ping-pong between the two halves), then CUB's own storage.
  const std::size_t rows_bytes = rows > 1 ? un * sizeof(uint32_t) : 0;
  std::array<std::size_t, 7> sizes = {
      un * sizeof(K), un * sizeof(K), un * sizeof(int32_t), un * sizeof(int32_t), rows_bytes, rows_bytes, 0};
  const auto key_bits = static_cast<int>(sizeof(K) * 8);
  // Null storage: CUB reports the size it needs.
  cub::DoubleBuffer<K> keys(nullptr, nullptr);
  cub::DoubleBuffer<int32_t> pos(nullptr, nullptr);
  cub::DoubleBuffer<uint32_t> row_of(nullptr, nullptr);
  // The key sort, ascending or descending (CUB's one pass or the other).
  const auto sort_keys = [&](void* storage, std::size_t& bytes) {
    check(descending ? cub::DeviceRadixSort::SortPairsDescending(storage, bytes, keys, pos, items, 0, key_bits, stream)
                     : cub::DeviceRadixSort::SortPairs(storage, bytes, keys, pos, items, 0, key_bits, stream),
          "cub::DeviceRadixSort::SortPairs");
  };
  std::size_t keys_temp = 0, rows_temp = 0;
  sort_keys(nullptr, keys_temp);
  if (rows > 1)
    check(cub::DeviceRadixSort::SortPairs(nullptr, rows_temp, row_of, pos, items, 0, row_bits, stream),
          "cub::DeviceRadixSort::SortPairs");
  sizes[6] = std::max(keys_temp, rows_temp);
  const Scratch<7> scratch(sizes, Device(DeviceType::CUDA, static_cast<int8_t>(device)));
  keys = cub::DoubleBuffer<K>(scratch.piece<K>(0), scratch.piece<K>(1));
  pos = cub::DoubleBuffer<int32_t>(scratch.piece<int32_t>(2), scratch.piece<int32_t>(3));
  row_of = cub::DoubleBuffer<uint32_t>(scratch.piece<uint32_t>(4), scratch.piece<uint32_t>(5));
  void* temp = scratch.piece<char>(6);

  const unsigned grid = grid_for(n, device);
  sort_keys_kernel<T><<<grid, kThreads, 0, stream>>>(in, keys.Current(), pos.Current(), n);
  check(cudaGetLastError(), "sort keys kernel launch");
  std::size_t bytes = keys_temp;
  sort_keys(temp, bytes);
  if (rows > 1) {
    row_of_kernel<int32_t><<<grid, kThreads, 0, stream>>>(pos.Current(), row_of.Current(), n, length);
    check(cudaGetLastError(), "sort rows kernel launch");
    bytes = rows_temp;
    check(cub::DeviceRadixSort::SortPairs(temp, bytes, row_of, pos, items, 0, row_bits, stream),
          "cub::DeviceRadixSort::SortPairs");
  }
  sorted_rows_kernel<T><<<grid, kThreads, 0, stream>>>(in, pos.Current(), values, indices, n, length);
  check(cudaGetLastError(), "sorted rows kernel launch");
  // `scratch` returns to the pool of this stream: later work on it is ordered after these kernels.
}

/// values[r, :] and indices[r, :] = `rows` contiguous rows of `length`
/// elements of `in`, sorted (Note [GPU row sort]), on GPU `device`'s current
/// stream.
template <class T>
void launch_sort_rows(const T* in, T* values, int64_t* indices, int64_t rows, int64_t length, bool descending,
                      int device) {
  if (rows == 0 || length == 0) return;
  constexpr int64_t kMaxItems = std::numeric_limits<int32_t>::max();
  tensorlib::detail::check<ValueError>(length <= kMaxItems,
                                       "sort: a CUDA tensor's dimension to sort must have fewer "
                                       "than 2^31 elements, but it has ",
                                       length);
  DeviceGuard guard(device);
  const cudaStream_t stream = current_stream(device).handle();
  // Chunks of whole rows, of at most 2^28 elements unless one row is longer
  // (scratch: 16 bytes per element plus the keys).
  const int64_t chunk_rows = std::max<int64_t>(1, (int64_t{1} << 28) / length);
  for (int64_t r = 0; r < rows; r += chunk_rows) {
    const int64_t count = std::min(chunk_rows, rows - r);
    sort_row_chunk(in + r * length, values + r * length, indices + r * length, count, length, descending, device,
                   stream);
  }
}

/// Set before main by each nvcc translation unit that sorts T on a GPU.
template <class T>
inline const bool sort_registered = (sort_kernel<T> = &launch_sort_rows<T>, true);

}  // namespace tensorlib::cuda::detail
