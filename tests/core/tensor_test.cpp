// Tensor handles: properties, sharing semantics, item/to_vector, storage,
// allocator alignment and counters.

#include <doctest/doctest.h>

#include <cstdint>
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
