// Tensor handles: properties, sharing semantics, item/to_vector, storage,
// allocator alignment and counters.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <tensorlib/tensorlib.hpp>

#include "sanitizers.hpp"

TEST_CASE("a tensor handle exposes its geometry") {
  const auto t = tl::zeros<double>({2, 3});
  CHECK(t.defined());
  CHECK(t.dim() == 2);
  CHECK(t.numel() == 6);
  CHECK(t.size(-1) == 3);
  CHECK(t.stride(0) == 3);
  CHECK(t.storage_offset() == 0);
  CHECK(t.dtype() == tl::kFloat64);
  CHECK(t.element_size() == 8);
  CHECK(t.nbytes() == 48);
  CHECK(t.device() == tl::Device(tl::kCPU));
  CHECK(t.is_cpu());
  CHECK(t.is_contiguous());
  CHECK_FALSE(tl::Tensor<float>().defined());
  CHECK_THROWS_WITH_AS(tl::Tensor<float>().numel(), "tensor: operation on an undefined tensor", tl::ValueError);
}

TEST_CASE("type predicates, nelement, get_device, is_same_size, is_nonzero, type_as") {
  static_assert(tl::Tensor<float>::is_floating_point() && tl::Tensor<tl::BFloat16>::is_floating_point());
  static_assert(!tl::Tensor<int64_t>::is_floating_point());
  static_assert(tl::Tensor<int32_t>::is_signed() && tl::Tensor<double>::is_signed());
  static_assert(!tl::Tensor<uint8_t>::is_signed() && !tl::Tensor<bool>::is_signed());
  const auto t = tl::zeros<double>({2, 3});
  CHECK(t.nelement() == 6);
  CHECK(t.get_device() == -1);
  CHECK(t.is_same_size(tl::ones<int32_t>({2, 3})));
  CHECK_FALSE(t.is_same_size(tl::ones<double>({3, 2})));
  CHECK_FALSE(tl::scalar_tensor(0.0).is_nonzero());
  CHECK(tl::ones<int32_t>({1, 1}).is_nonzero());
  CHECK(tl::scalar_tensor(std::nan("")).is_nonzero());  // NaN is not zero, as in Python
  CHECK_THROWS_WITH_AS(t.is_nonzero(), "is_nonzero: Boolean value of Tensor with more than one value is ambiguous",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::ones<float>({0}).is_nonzero(),
                       "is_nonzero: Boolean value of Tensor with no values is ambiguous", tl::ValueError);
  const auto f = tl::tensor<double>({1.75, -2.5}).type_as(tl::ones<int32_t>({1}));
  static_assert(std::is_same_v<decltype(f), const tl::Tensor<int32_t>>);
  CHECK(f.to_vector() == std::vector<int32_t>{1, -2});
}

TEST_CASE("H, adjoint, ravel and narrow_copy") {
  const auto m = tl::arange<float>(0, 6).reshape({2, 3});
  CHECK(tl::equal(m.H(), m.t()));
  CHECK(m.H().is_alias_of(m));
  CHECK(tl::equal(m.adjoint(), m.mT()));
  const auto b = tl::arange<float>(0, 12).reshape({2, 2, 3});
  CHECK(tl::equal(b.adjoint(), b.transpose(1, 2)));
  CHECK_THROWS_WITH_AS((void)b.H(), "H: tensor.H is only supported on matrices (2-D tensors). Got 3-D tensor.",
                       tl::ShapeError);
  const auto s = tl::scalar_tensor(3.f);
  CHECK(s.H().is_same(s));
  CHECK_THROWS_WITH_AS(
      (void)tl::ones<float>({3}).adjoint(),
      "adjoint: tensor.adjoint() is only supported on matrices or batches of matrices. Got 1-D tensor.",
      tl::ShapeError);
  // ravel: a view of a contiguous tensor, a contiguous copy otherwise.
  CHECK(m.ravel().is_alias_of(m));
  CHECK(m.ravel().sizes() == tl::Shape{6});
  const auto r = m.t().ravel();
  CHECK(r.is_contiguous());
  CHECK_FALSE(r.is_alias_of(m));
  CHECK(r.to_vector() == std::vector<float>{0, 3, 1, 4, 2, 5});
  const auto every_other = tl::arange<float>(0, 6).slice(0, tl::None, tl::None, 2);
  CHECK(every_other.ravel().is_contiguous());
  const auto n = m.narrow_copy(1, 1, 2);
  CHECK(n.is_contiguous());
  CHECK_FALSE(n.is_alias_of(m));
  CHECK(n.to_vector() == std::vector<float>{1, 2, 4, 5});
}

TEST_CASE("copies of a handle are the same tensor") {
  auto a = tl::zeros<float>({3});
  auto b = a;
  CHECK(b.is_same(a));
  b.fill_(2.f);
  CHECK(a.to_vector() == std::vector<float>(3, 2.f));
  CHECK(a.use_count() >= 2);
}

TEST_CASE("the CPU allocator aligns to 64 bytes and counts bytes in use") {
  const auto before = tl::stats::snapshot();
  {
    const auto t = tl::empty<float>({1000});
    CHECK(reinterpret_cast<std::uintptr_t>(t.data_ptr()) % 64 == 0);
    const auto during = tl::stats::snapshot() - before;
    CHECK(during.allocations == 1);
    CHECK(during.bytes_in_use == 4000);
  }
  CHECK((tl::stats::snapshot() - before).bytes_in_use == 0);
  tl::stats::reset();
  const int64_t base = tl::stats::snapshot().bytes_in_use;
  { const auto big = tl::empty<double>({1000}); }
  CHECK(tl::stats::snapshot().peak_bytes_in_use == base + 8000);
}

TEST_CASE("large CPU blocks are aligned for huge pages and counted like others") {
  const auto before = tl::stats::snapshot();
  {
    const auto big = tl::ones<float>({(int64_t{4} << 20) / 4 + 3});  // just over 4 MiB
    CHECK(reinterpret_cast<std::uintptr_t>(big.data_ptr()) % (std::uintptr_t{2} << 20) == 0);
    CHECK((tl::stats::snapshot() - before).bytes_in_use == (int64_t{4} << 20) + 12);
    CHECK(big.sum().item() == static_cast<float>((int64_t{4} << 20) / 4 + 3));
    const auto small = tl::empty<float>({(int64_t{4} << 20) / 4 - 1});  // below the threshold: 64 bytes
    CHECK(reinterpret_cast<std::uintptr_t>(small.data_ptr()) % 64 == 0);
  }
  CHECK((tl::stats::snapshot() - before).bytes_in_use == 0);
}

// ASan refuses an allocation this large by aborting (allocation-size-too-big)
// before operator new can report it, so the sanitized build leaves it out.
#ifndef TL_TEST_ASAN
TEST_CASE("an allocation the machine cannot give is a tl::Error, and counts nothing") {
  const auto before = tl::stats::snapshot();
  CHECK_THROWS_WITH_AS(tl::empty<float>({int64_t{1} << 60}),
                       "DefaultCPUAllocator: not enough memory: you tried to allocate 4611686018427387904 bytes.",
                       tl::Error);
  CHECK((tl::stats::snapshot() - before).allocations == 0);
}
#endif

TEST_CASE("an empty tensor is contiguous whatever its strides") {
  CHECK(tl::empty_strided<float>({0, 3}, {1, 7}).is_contiguous());
}

TEST_CASE("item reads the single element and rejects more than one") {
  CHECK(tl::tensor(3.5).item() == 3.5f);
  CHECK(tl::ones<int32_t>({1, 1}).item() == 1);
  CHECK_THROWS_WITH_AS(tl::ones<float>({2, 3}).item(), "item: a Tensor with 6 elements cannot be converted to Scalar",
                       tl::ValueError);
}

TEST_CASE("to_vector reads row-major through any strides") {
  const auto t = tl::arange(6).view({2, 3}).t();
  CHECK(t.to_vector() == std::vector<int64_t>{0, 3, 1, 4, 2, 5});
  CHECK(tl::tensor({true, false}).to_vector() == std::vector<bool>{true, false});
}

TEST_CASE("Tensor<T> refuses to wrap an implementation of another element type") {
  const auto d = tl::zeros<double>({2});
  CHECK_THROWS_WITH_AS(tl::Tensor<float>(d.impl()), "Tensor<float32>: cannot wrap a tensor of dtype float64",
                       tl::TypeError);
}

TEST_CASE("CUDA tensors give a clear error until the CUDA backend is present") {
  CHECK_THROWS_WITH_AS(tl::zeros<float>({2}, {.device = tl::kCUDA}), doctest::Contains("no allocator for device cuda"),
                       tl::DeviceError);
}

TEST_CASE("version") {
  constexpr auto v = tl::version();
  static_assert(v.major == TENSORLIB_VERSION_MAJOR && v.minor == TENSORLIB_VERSION_MINOR);
  CHECK(v.patch == TENSORLIB_VERSION_PATCH);
}

// This suite is built with TENSORLIB_NO_DOUBLE_BACKWARD (tests/CMakeLists.txt),
// the compile-time switch that leaves out the fused second-order passes:
// create_graph through a fused expression must then say so, not compute
// wrongly. (Without the macro it works: tests/autograd/fused_test.cpp.)
TEST_CASE("create_graph through a fused expression with TENSORLIB_NO_DOUBLE_BACKWARD") {
  auto x = tl::tensor<double>({0.5, 1.5}, {.requires_grad = true});
  tl::Tensor<double> y = (x * x * x).sum();
#if defined(TENSORLIB_NO_DOUBLE_BACKWARD)
  CHECK_THROWS_WITH_AS(tl::autograd::grad<double>({y}, {x}, {}, true, /*create_graph=*/true),
                       doctest::Contains("TENSORLIB_NO_DOUBLE_BACKWARD"), tl::NotImplementedError);
#else
  const auto g = tl::autograd::grad<double>({y}, {x}, {}, true, /*create_graph=*/true);
  CHECK(g[0].requires_grad());
#endif
  // First-order backward is unaffected either way.
  const auto g1 = tl::autograd::grad<double>({y}, {x});
  CHECK(g1[0].to_vector() == std::vector<double>{0.75, 6.75});
}
