#pragma once
/// \file
/// Scans along a dimension on a GPU (nvcc translation units only): cumsum,
/// cumprod, cummax and cummin through the scan functors of ops/scan.hpp,
/// the ones the host loop (backend/cpu/scan.hpp) runs.
///
/// Note [GPU scans]
/// The input is a contiguous [outer, n, inner] layout; a line is one
/// (outer, inner) pair, its n elements `inner` apart. Each line is cut into
/// `chunks` consecutive pieces and a thread runs one piece, neighbouring
/// threads taking neighbouring lines of the same piece, so loads coalesce
/// when inner > 1. When the lines alone fill the GPU, a line is one piece
/// and its thread runs exactly the CPU's loop (same state type, operations
/// and order): the results equal the CPU's bit for bit. Otherwise there are
/// three passes: each thread folds its piece into a total; one block per
/// line scans the totals (cub::BlockScan) into the state before each piece;
/// each thread runs its piece again from that state, storing. Sums and
/// products are then associated differently from the CPU's (float
/// accumulates in double on both, so float results rarely differ in the
/// last bit); cummax and cummin, whose combine selects an element, stay
/// exact.

#include <cuda_runtime_api.h>
#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <cstdint>

#include "tensorlib/backend/cuda/pointwise.hpp"
#include "tensorlib/backend/cuda/registry.hpp"
#include "tensorlib/backend/cuda/runtime.hpp"
#include "tensorlib/core/allocator.hpp"

namespace tensorlib::cuda::detail {

/// The layout and the pieces of Note [GPU scans].
struct ScanGrid {
  int64_t outer = 1, n = 1, inner = 1;
  int64_t chunks = 1, chunk_len = 1;
};

/// Shortest piece worth its own thread, and most pieces per line (the
/// totals of a line are scanned by one block).
inline constexpr int64_t kMinPiece = 64;
inline constexpr int64_t kMaxPieces = int64_t{kThreads} * 64;

// Runs every piece from the state before it (totals, or the identity with
// one piece per line), storing each step; or, when `!store`, folds each
// piece into totals.
template <class S>
__global__ void __launch_bounds__(kThreads)
    scan_pieces_kernel(S scan, ScanGrid g, typename S::State* totals, bool store) {
  const int64_t pieces = g.outer * g.inner * g.chunks;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; t < pieces; t += step) {
    const int64_t k = t % g.inner, rest = t / g.inner;
    const int64_t c = rest % g.chunks, o = rest / g.chunks;
    const int64_t slot = (o * g.inner + k) * g.chunks + c;
    auto state = store && g.chunks > 1 ? totals[slot] : scan.identity();
    const int64_t j0 = c * g.chunk_len, j1 = j0 + g.chunk_len < g.n ? j0 + g.chunk_len : g.n;
    for (int64_t j = j0; j < j1; ++j) {
      const int64_t offset = (o * g.n + j) * g.inner + k;
      state = scan.combine(state, scan.load(offset, j));
      if (store) scan.store(offset, state);
    }
    if (!store) totals[slot] = state;
  }
}

// Replaces each line's piece totals by the state before the piece.
template <class S>
__global__ void __launch_bounds__(kThreads)
    scan_totals_kernel(S scan, typename S::State* totals, int64_t lines, int64_t chunks) {
  using State = typename S::State;
  using BlockScan = cub::BlockScan<State, kThreads>;
  __shared__ typename BlockScan::TempStorage temp;
  const auto combine = [&scan](State a, State b) { return scan.combine(a, b); };
  const int64_t per = (chunks + kThreads - 1) / kThreads;
  for (int64_t line = blockIdx.x; line < lines; line += gridDim.x) {
    State* t = totals + line * chunks;
    const int64_t c0 = int64_t{threadIdx.x} * per, c1 = c0 + per < chunks ? c0 + per : chunks;
    State local = scan.identity();
    for (int64_t c = c0; c < c1; ++c) local = scan.combine(local, t[c]);
    State before;
    BlockScan(temp).ExclusiveScan(local, before, scan.identity(), combine);
    for (int64_t c = c0; c < c1; ++c) {
      const State total = t[c];
      t[c] = before;
      before = scan.combine(before, total);
    }
    __syncthreads();  // `temp` is reused by the next line
  }
}

/// Runs scan functor `scan` along the middle dimension of a contiguous
/// [outer, n, inner] layout on GPU `device` (Note [GPU scans]), on its
/// current stream.
template <class S>
void launch_scan(const S& scan, int64_t outer, int64_t n, int64_t inner, int device) {
  using State = typename S::State;
  const int64_t lines = outer * inner;
  if (lines == 0 || n == 0) return;
  DeviceGuard guard(device);
  const cudaStream_t stream = current_stream(device).handle();
  // Enough threads to fill the GPU: the lines alone when they do.
  const int64_t wanted = int64_t{multiprocessor_count(device)} * 2048;
  const int64_t most = std::max<int64_t>(1, std::min(n / kMinPiece, kMaxPieces));
  ScanGrid g{outer, n, inner, std::clamp<int64_t>(wanted / lines, 1, most), 1};
  g.chunk_len = (n + g.chunks - 1) / g.chunks;
  g.chunks = (n + g.chunk_len - 1) / g.chunk_len;
  DataPtr scratch;
  State* totals = nullptr;
  if (g.chunks > 1) {
    const Device gpu(DeviceType::CUDA, static_cast<int8_t>(device));
    scratch = allocator_for(gpu).allocate(static_cast<int64_t>(sizeof(State)) * lines * g.chunks, gpu);
    totals = static_cast<State*>(scratch.get());
    scan_pieces_kernel<S><<<grid_for(lines * g.chunks, device), kThreads, 0, stream>>>(scan, g, totals, false);
    check(cudaGetLastError(), "scan totals kernel launch");
    const auto blocks = static_cast<unsigned>(std::min<int64_t>(lines, 65535));
    scan_totals_kernel<S><<<blocks, kThreads, 0, stream>>>(scan, totals, lines, g.chunks);
    check(cudaGetLastError(), "scan of totals kernel launch");
  }
  scan_pieces_kernel<S><<<grid_for(lines * g.chunks, device), kThreads, 0, stream>>>(scan, g, totals, true);
  check(cudaGetLastError(), "scan kernel launch");
  // `scratch` returns to the pool of this stream: later work on it is ordered after these kernels.
}

/// Set before main by each nvcc translation unit that runs scan S on a GPU.
template <class S>
inline const bool scan_registered = (scan_kernel<S> = &launch_scan<S>, true);

}  // namespace tensorlib::cuda::detail
