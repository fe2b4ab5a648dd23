// float16 and bfloat16 on the GPU against the CPU (Note [reduced floats]):
// fused chains (one kernel, each node computed in float and rounded), casts,
// reductions and matrix products through cuBLAS. Tolerances: one step of the
// 16-bit type for transcendental nodes (the device's float math may differ
// from the host's by a float ulp, which can move the final rounding), exact
// for arithmetic, casts, sorts and selections; products, sums and scans two
// steps relative (float accumulation in another order, then one rounding).

#include <doctest/doctest.h>

#include <string>

#include <tensorlib/tensor.hpp>

#include "cuda_support.hpp"

using cuda_support::check_parity;
using cuda_support::no_gpu;

namespace {

template <class T>
constexpr double step() {
  return std::is_same_v<T, tl::Half> ? 0x1p-10 : 0x1p-7;
}

template <class T>
void check_type(const char* name) {
  tl::Generator g(11);
  const tl::Tensor<T> a = tl::randn({257, 129}, g).to<T>(), b = tl::randn({129}, g).to<T>();
  const auto ag = a.cuda(), bg = b.cuda();
  const std::string n = name;
  // Arithmetic only: the same bits on both devices, in one kernel.
  const auto before = tl::stats::snapshot();
  const tl::Tensor<T> chain = (ag * bg + 1.5) / (1 + tl::abs(ag)) - bg;
  CHECK((tl::stats::snapshot() - before).fused_kernels == 1);
  check_parity(chain, tl::Tensor<T>((a * b + 1.5) / (1 + tl::abs(a)) - b), 0, 0, n + " arithmetic chain");
  check_parity(tl::Tensor<T>(tl::exp(ag) * tl::sigmoid(bg) + tl::tanh(ag)),
               tl::Tensor<T>(tl::exp(a) * tl::sigmoid(b) + tl::tanh(a)), 2 * step<T>(), 1e-6,
               n + " transcendental chain");
  // Strided and transposed operands (the non-vectorized path).
  check_parity(tl::Tensor<T>(ag.t() * 2 - 1), tl::Tensor<T>(a.t() * 2 - 1), 0, 0, n + " transposed");
  // Casts both ways and mixed promotion.
  check_parity(ag.template to<float>(), a.template to<float>(), 0, 0, n + " to float");
  const tl::Tensor<float> f = tl::randn({1000}, g) * 1000.0f;
  check_parity(f.cuda().template to<T>(), f.template to<T>(), 0, 0, n + " from float");
  check_parity(tl::Tensor<float>(bg + f.narrow(0, 0, 129).cuda()), tl::Tensor<float>(b + f.narrow(0, 0, 129)), 0, 0,
               n + " + float");
  // Reductions accumulate in wider types, then round once.
  check_parity(ag.sum(0), a.sum(0), 2 * step<T>(), 16 * step<T>(), n + " sum(0)");
  check_parity(ag.mean(1), a.mean(1), 2 * step<T>(), 16 * step<T>(), n + " mean(1)");
  check_parity(ag.amax(0), a.amax(0), 0, 0, n + " amax(0)");
  // Products: tensor cores with float accumulation against the host's float GEMM.
  check_parity(tl::mm(ag, ag.t()), tl::mm(a, a.t()), 2 * step<T>(), 16 * step<T>(), n + " mm");
  const tl::Tensor<T> x = tl::randn({3, 40, 24}, g).to<T>(), y = tl::randn({3, 24, 56}, g).to<T>();
  check_parity(tl::bmm(x.cuda(), y.cuda()), tl::bmm(x, y), 2 * step<T>(), 16 * step<T>(), n + " bmm");
  // Sorts (float keys: the 16-bit values widen exactly and keep their
  // order), stable on both devices, so indices match too; selections.
  const tl::Tensor<T> ties = tl::randint(-8, 8, {50, 77}, g).to<T>();
  const auto [sv, si] = tl::sort(ties.cuda(), 1, true, true);
  const auto [cv, ci] = tl::sort(ties, 1, true, true);
  check_parity(sv, cv, 0, 0, n + " sort values");
  check_parity(si, ci, 0, 0, n + " sort indices");
  check_parity(tl::max(ties.cuda(), 0).indices, tl::max(ties, 0).indices, 0, 0, n + " max indices");
  check_parity(tl::median(ties.cuda(), 1).indices, tl::median(ties, 1).indices, 0, 0, n + " median indices");
  // softmax computes in float and rounds once on both devices.
  check_parity(tl::softmax(ag, 1), tl::softmax(a, 1), step<T>(), 1e-6, n + " softmax");
  // Random numbers: the float stream rounded, the same on both devices
  // (a float normal may differ from the host's in its last bit, which can
  // move the rounding by one step).
  tl::Generator g1(3), g2(3);
  check_parity(tl::rand<T>({1000}, g1, {.device = tl::kCUDA}), tl::rand<T>({1000}, g2), 0, 0, n + " rand");
  check_parity(tl::randn<T>({1000}, g1, {.device = tl::kCUDA}), tl::randn<T>({1000}, g2), step<T>(), 1e-6,
               n + " randn");
  // Scans accumulate in float and round each output once.
  check_parity(tl::cumsum(ag, 1), tl::cumsum(a, 1), 2 * step<T>(), 16 * step<T>(), n + " cumsum");
  // Accumulating scatters add 16-bit floats by the GPU's 16-bit atomic add
  // (Note [16-bit atomic adds]; sm_90 has both) and reduce them (amax, amin)
  // by compare-and-swap on their 32-bit word (Note [sub-word atomics]);
  // small integers add exactly in any order, and neighbouring elements are
  // hit together.
  const auto rep = tl::randint(0, 7, {5, 300}, g);
  const tl::Tensor<T> many = tl::randint(-2, 3, {5, 300}, g).to<T>();
  const tl::Tensor<T> base = tl::randint(-4, 5, {5, 7}, g).to<T>();
  check_parity(tl::scatter_add(base.cuda(), 1, rep.cuda(), many.cuda()), tl::scatter_add(base, 1, rep, many), 0, 0,
               n + " scatter_add");
  for (const char* r : {"amax", "amin", "mean"})
    check_parity(tl::scatter_reduce(base.cuda(), 1, rep.cuda(), many.cuda(), r),
                 tl::scatter_reduce(base, 1, rep, many, r), step<T>(), 0, n + " scatter_reduce " + r);
  const auto rows = tl::randint(0, 5, {40}, g);
  const tl::Tensor<T> src = tl::randint(-4, 5, {40, 7}, g).to<T>();
  check_parity(tl::index_add(base.cuda(), 0, rows.cuda(), src.cuda(), T(0.5f)),
               tl::index_add(base, 0, rows, src, T(0.5f)), 0, 0, n + " index_add");
  const auto flat = tl::randint(0, 35, {100}, g);
  const tl::Tensor<T> vals = tl::randint(-4, 5, {100}, g).to<T>();
  check_parity(tl::put(base.cuda(), flat.cuda(), vals.cuda(), true), tl::put(base, flat, vals, true), 0, 0,
               n + " put accumulate");
}

}  // namespace

TEST_CASE("CUDA: float16 and bfloat16 chains, casts, reductions and products match the CPU") {
  if (no_gpu()) return;
  check_type<tl::Half>("float16");
  check_type<tl::BFloat16>("bfloat16");
}
