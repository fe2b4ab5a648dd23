#pragma once
/// \file
/// The CUDA form of the multi-output loop (backend/cpu/for_each.hpp, Note
/// [multi-output loops]): one kernel per element type, functor and buffer
/// kinds, that loads every buffer's element, calls the functor and stores
/// the written ones, in a grid-stride loop; and its multi-tensor form, one
/// kernel over many buffer lists (Note [multi-tensor steps] in
/// optim/step_batch.hpp). Only translation units compiled by nvcc include
/// this header; they register the launchers for the others (Note [kernels
/// across translation units]).

#include <cuda_runtime_api.h>

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorlib/backend/cuda/pointwise.hpp"
#include "tensorlib/backend/cuda/registry.hpp"
#include "tensorlib/backend/cuda/runtime.hpp"
#include "tensorlib/core/stats.hpp"

namespace tensorlib::cuda::detail {

template <class T, class P>
__device__ void store_element(T v, P p) {
  if constexpr (!std::is_const_v<std::remove_pointer_t<P>>) *p = v;
}

template <class T, class F, class... P>
__global__ void __launch_bounds__(kThreads) for_each_kernel_body(F f, int64_t n, P... p) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += step) {
    [&](auto... v) {
      f(v...);
      (store_element(v, p + i), ...);
    }(static_cast<T>(p[i])...);
  }
}

/// Runs f over elements [0, n) of the buffers on GPU `device`, on the
/// current stream.
template <Element T, class F, class... P>
void launch_for_each(const F& f, int64_t n, int device, P... ptrs) {
  if (n == 0) return;
  stats::detail::count_fused_kernel();
  DeviceGuard guard(device);
  for_each_kernel_body<T><<<grid_for(n, device), kThreads, 0, current_stream(device).handle()>>>(f, n, ptrs...);
  check(cudaGetLastError(), "fused for_each kernel launch");
}

/// Elements one block of the multi-tensor kernel handles.
inline constexpr int64_t kListChunk = int64_t{kThreads} * 16;

/// Whether two items' functors make the same update, so that one launch can
/// share one copy: `==` where the functor defines it (the optimizer rules'
/// step functors default it: equal members, where +0 equals -0, so sharing
/// can flip only the sign of a zero result), else equal bytes (padding may
/// make that wrongly false, which only costs a launch).
template <class F>
bool same_functor(const F& a, const F& b) {
  if constexpr (std::equality_comparable<F>)
    return a == b;
  else
    return std::memcmp(static_cast<const void*>(&a), static_cast<const void*>(&b), sizeof(F)) == 0;
}

/// One item of a launch: its element count, first chunk and buffers.
template <int N>
struct ListItem {
  int64_t n;
  int64_t first_block;
  const void* ptrs[N];
};

/// The items of one multi-tensor launch, passed as the kernel's argument
/// (4 KiB, the limit of every driver: a 32 KiB argument, allowed since CUDA
/// 12.1, made each launch cost about 8 us more on the host). The items of
/// one launch share one functor (Note [multi-tensor steps]: a step's
/// parameters of one group make the same update), so an item is 16 bytes
/// and a pointer per buffer: 82 of Adam's. The functor is stored as bytes:
/// it need not be default constructible.
template <class F, class... P>
struct ForEachList {
  using Item = ListItem<static_cast<int>(sizeof...(P))>;
  static constexpr int kCapacity =
      static_cast<int>((4000 - static_cast<int64_t>(sizeof(int) + sizeof(F))) / static_cast<int64_t>(sizeof(Item)));
  static_assert(kCapacity >= 1, "a multi-tensor functor larger than a kernel argument");
  alignas(F) unsigned char f[sizeof(F)];
  Item items[kCapacity];
  int count = 0;

  __host__ __device__ const F& functor() const { return *reinterpret_cast<const F*>(f); }
};

// Runs elements [start, end) of one item. A thread loads kUnroll elements
// of every buffer before updating any (more loads in flight): elements are
// independent, as buffers are disjoint or the same (fused_update checks).
template <class T, class F, class... P, std::size_t... I>
__device__ void run_item(const F& f, const ListItem<sizeof...(P)>& item, int64_t start, int64_t end,
                         std::index_sequence<I...>) {
  constexpr int kUnroll = 4;
  const std::tuple<P...> ptrs{static_cast<P>(const_cast<void*>(item.ptrs[I]))...};
  for (int64_t first = start + threadIdx.x; first < end; first += int64_t{kThreads} * kUnroll) {
    T v[sizeof...(P)][kUnroll];
#pragma unroll
    for (int j = 0; j < kUnroll; ++j) {
      const int64_t i = first + int64_t{j} * kThreads;
      if (i < end) ((v[I][j] = static_cast<T>(std::get<I>(ptrs)[i])), ...);
    }
#pragma unroll
    for (int j = 0; j < kUnroll; ++j) {
      const int64_t i = first + int64_t{j} * kThreads;
      if (i < end) {
        f(v[I][j]...);
        (store_element(v[I][j], std::get<I>(ptrs) + i), ...);
      }
    }
  }
}

/// Block b runs chunks b, b + gridDim.x, ...: chunk c is chunk c -
/// first_block of the last item whose first_block <= c.
template <class T, class F, class... P>
__global__ void __launch_bounds__(kThreads)
    for_each_list_kernel_body(const __grid_constant__ ForEachList<F, P...> list, int64_t chunks) {
  const F f = list.functor();
  for (int64_t chunk = blockIdx.x; chunk < chunks; chunk += gridDim.x) {
    int lo = 0, hi = list.count - 1;
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (list.items[mid].first_block <= chunk)
        lo = mid;
      else
        hi = mid - 1;
    }
    const auto& item = list.items[lo];
    const int64_t start = (chunk - item.first_block) * kListChunk;
    run_item<T, F, P...>(f, item, start, std::min(item.n, start + kListChunk), std::index_sequence_for<P...>{});
  }
}

/// One launch of the multi-tensor kernel: its argument and chunk count.
template <class F, class... P>
struct ListLaunch {
  ForEachList<F, P...> list;
  int64_t chunks = 0;
};

/// The launches that run `items` (host code, tested without a GPU): the
/// items with elements, grouped by functor (`same_functor`, order kept
/// within a group), each group in lists of at most ForEachList::kCapacity
/// items, chunks of kListChunk elements numbered from 0 in each list.
/// Parameters are distinct (Note [multi-tensor steps]), so the order of the
/// launches does not matter.
template <class F, class... P>
std::vector<ListLaunch<F, P...>> list_launches(const std::vector<ForEachItem<F, P...>>& items) {
  using List = ForEachList<F, P...>;
  std::vector<std::vector<const ForEachItem<F, P...>*>> groups;
  for (const auto& item : items) {
    if (item.n == 0) continue;
    const auto same =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return same_functor(g[0]->f, item.f); });
    if (same == groups.end())
      groups.push_back({&item});
    else
      same->push_back(&item);
  }
  std::vector<ListLaunch<F, P...>> launches;
  for (const auto& group : groups) {
    for (std::size_t i = 0; i < group.size();) {
      auto& launch = launches.emplace_back();
      std::memcpy(launch.list.f, static_cast<const void*>(&group[i]->f), sizeof(F));
      for (; i < group.size() && launch.list.count < List::kCapacity; ++i) {
        auto& item = launch.list.items[launch.list.count++];
        item.n = group[i]->n;
        item.first_block = launch.chunks;
        std::copy(std::begin(group[i]->ptrs), std::end(group[i]->ptrs), std::begin(item.ptrs));
        launch.chunks += (group[i]->n + kListChunk - 1) / kListChunk;
      }
    }
  }
  return launches;
}

/// Runs every item's loop on GPU `device`, on the current stream: one
/// kernel per launch of `list_launches`, its blocks looping over chunks (one
/// wave of resident blocks at most).
template <Element T, class F, class... P>
void launch_for_each_list(std::vector<ForEachItem<F, P...>>& items, int device) {
  const auto launches = list_launches(items);
  if (launches.empty()) return;
  DeviceGuard guard(device);
  const cudaStream_t stream = current_stream(device).handle();
  const int64_t resident = resident_blocks<for_each_list_kernel_body<T, F, P...>>(device);
  for (const auto& launch : launches) {
    stats::detail::count_fused_kernel();
    const auto grid = static_cast<unsigned>(std::min(launch.chunks, resident));
    for_each_list_kernel_body<T><<<grid, kThreads, 0, stream>>>(launch.list, launch.chunks);
    check(cudaGetLastError(), "multi-tensor for_each kernel launch");
  }
}

template <Element T, class F, class... P>
bool register_for_each() {
  for_each_kernel<T, F, P...> = &launch_for_each<T, F, P...>;
  if constexpr (std::is_trivially_copyable_v<F>) for_each_list_kernel<T, F, P...> = &launch_for_each_list<T, F, P...>;
  return true;
}

/// Set before main by each nvcc translation unit that runs f.
template <Element T, class F, class... P>
inline const bool for_each_registered = register_for_each<T, F, P...>();
}  // namespace tensorlib::cuda::detail
