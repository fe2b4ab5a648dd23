// Philox4x32-10 against the published known-answer vectors of Random123
// (Salmon et al., SC'11), and the Generator's state handling.

#include <doctest/doctest.h>

#include <tensorlib/tensorlib.hpp>

TEST_CASE("philox4x32-10 matches the Random123 known-answer vectors") {
  using B = tl::PhiloxBlock;
  CHECK(tl::philox4x32(B{0, 0, 0, 0}, 0, 0) == B{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u});
  CHECK(tl::philox4x32(B{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, 0xffffffffu, 0xffffffffu) ==
        B{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu});
  CHECK(tl::philox4x32(B{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, 0xa4093822u, 0x299f31d0u) ==
        B{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u});
}

TEST_CASE("the generator reserves consecutive blocks and restores its state") {
  tl::Generator g(11);
  CHECK(g.reserve(3) == tl::Generator::State{11, 0});
  CHECK(g.reserve(2) == tl::Generator::State{11, 3});
  g.manual_seed(12);
  CHECK(g.get_state() == tl::Generator::State{12, 0});
  const uint64_t s = g.seed();
  CHECK(g.initial_seed() == s);
  CHECK(g.get_state().offset == 0);
  CHECK(tl::Generator().initial_seed() == tl::Generator::kDefaultSeed);
}

TEST_CASE("rand_like, randn_like and randint_like follow the shape and type") {
  const auto x = tl::zeros<double>({3, 4});
  CHECK(tl::rand_like(x).sizes() == x.sizes());
  static_assert(std::is_same_v<decltype(tl::randn_like(x)), tl::Tensor<double>>);
  const auto i = tl::randint_like(tl::zeros<int32_t>({100}), 3, 5).to_vector();
  for (int32_t v : i) CHECK((v == 3 || v == 4));
  CHECK_THROWS_WITH_AS(tl::randint<uint8_t>(0, 1000, {2}), "randint: the range [0, 1000) does not fit in uint8",
                       tl::ValueError);
}
