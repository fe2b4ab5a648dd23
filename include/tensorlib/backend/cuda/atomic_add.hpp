#pragma once
/// \file
/// `atomic_add` for the element types a GPU scatter accumulates (nvcc
/// translation units, device code): float, double, int32 and int64 (the
/// latter as unsigned 64-bit addition, which is two's complement addition).
/// ops/gather_scatter.hpp refuses the other types before a launch.

#include <cstdint>
#include <type_traits>

namespace tensorlib::cuda::detail {

/// True for the element types `atomic_add` takes.
template <class T>
inline constexpr bool has_atomic_add =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>;

#if defined(__CUDACC__)
/// *p += v, atomically.
template <class T>
__device__ inline void atomic_add(T* p, T v) {
  static_assert(has_atomic_add<T>, "atomic_add: float, double, int32 or int64 only");
  if constexpr (std::is_same_v<T, int64_t>)
    atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
  else
    atomicAdd(p, v);
}
#endif

}  // namespace tensorlib::cuda::detail
