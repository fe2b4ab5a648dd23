// stft and istft (ops/stft.hpp) against PyTorch 1.13
// (tests/fixtures/generate_stft.py): hops, short windows, every pad mode,
// center off, normalized and two-sided transforms, batches, float; istft's
// lengths, centering and normalization; the round trip; PyTorch's checks.
// Gradients are in tests/autograd/op_gradcheck_test.cpp.

#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "fixtures.hpp"

namespace {

template <class T>
void check_spectrum(const tl::ComplexTensor<T>& got, const tl::Tensor<T>& pairs, double tol, const std::string& what) {
  fixtures::check_close(tl::view_as_real(got).contiguous(), pairs, tol, tol, what);
}

}  // namespace

TEST_CASE("stft against PyTorch") {
  const auto& f = fixtures::load("stft.txt");
  const auto x = f["stft/default"].get<double>("x");
  check_spectrum(tl::stft(x, 16), f["stft/default"].get<double>("r"), 1e-12, "default hop n_fft / 4, ones window");
  const auto& h = f["stft/hann_hop5"];
  check_spectrum(tl::stft(x, 16, 5, std::nullopt, h.get<double>("window")), h.get<double>("r"), 1e-12, "hann, hop 5");
  const auto& s = f["stft/short_window"];
  check_spectrum(tl::stft(s.get<double>("x"), 12, 3, 10, s.get<double>("window")), s.get<double>("r"), 1e-12,
                 "batched, a 10-sample window centred in 12");
  for (const std::string mode : {"constant", "replicate", "circular"})
    check_spectrum(tl::stft(x, 16, 4, std::nullopt, std::nullopt, true, mode), f["stft/pad_" + mode].get<double>("r"),
                   1e-12, "pad " + mode);
  const auto& n = f["stft/no_center"];
  check_spectrum(tl::stft(n.get<double>("x"), 8, 2, std::nullopt, std::nullopt, false), n.get<double>("r"), 1e-12,
                 "center off");
  const auto& t = f["stft/normalized_twosided"];
  check_spectrum(tl::stft(x, 16, 4, std::nullopt, t.get<double>("window"), true, "reflect", true, false),
                 t.get<double>("r"), 1e-12, "normalized, two-sided");
  const auto& fl = f["stft/float"];
  check_spectrum(tl::stft(fl.get<float>("x"), 10, 3), fl.get<float>("r"), 1e-5, "float");
}

TEST_CASE("istft against PyTorch; the round trip") {
  const auto& f = fixtures::load("stft.txt");
  const auto& r = f["istft/roundtrip"];
  const auto window = r.get<double>("window");
  const tl::ComplexTensor<double> S(r.get<double>("S"));
  fixtures::check_close(tl::istft(S, 16, 4, std::nullopt, window), r.get<double>("r"), 1e-12, 1e-12, "istft");
  fixtures::check_close(tl::istft(S, 16, 4, std::nullopt, window, true, false, std::nullopt, 37),
                        r.get<double>("r_length"), 1e-12, 1e-12, "istft length");
  fixtures::check_close(tl::istft(S, 16, 4, std::nullopt, window, true, false, std::nullopt, 45),
                        r.get<double>("r_longer"), 1e-12, 1e-12, "istft zero-padded to a longer length");
  // stft then istft gives the signal back.
  const auto x = r.get<double>("x");
  fixtures::check_close(
      tl::istft(tl::stft(x, 16, 4, std::nullopt, window), 16, 4, std::nullopt, window, true, false, std::nullopt, 37),
      x, 1e-12, 1e-12, "round trip");
  const auto& a = f["istft/arbitrary"];
  const tl::ComplexTensor<double> Z(a.get<double>("S"));
  fixtures::check_close(tl::istft(Z, 16, 4, std::nullopt, a.get<double>("window")), a.get<double>("r"), 1e-12, 1e-12,
                        "istft of an arbitrary spectrum");
  fixtures::check_close(tl::istft(Z, 16, 4, std::nullopt, a.get<double>("hamming"), false),
                        a.get<double>("r_no_center"), 1e-12, 1e-12, "istft center off");
  fixtures::check_close(tl::istft(Z, 16, 4, std::nullopt, a.get<double>("window"), true, true),
                        a.get<double>("r_normalized"), 1e-12, 1e-12, "istft normalized");
  const auto& t = f["istft/twosided"];
  fixtures::check_close(
      tl::istft(tl::ComplexTensor<double>(t.get<double>("S")), 12, 3, std::nullopt, std::nullopt, true, false, false),
      t.get<double>("r"), 1e-12, 1e-12, "istft two-sided");
}

TEST_CASE("stft and istft check their arguments as PyTorch does") {
  const auto x = tl::ones<double>({20});
  CHECK(fixtures::error_message([&] { (void)tl::stft(x, 32, 4, std::nullopt, std::nullopt, false); }) ==
        "stft: expected 0 < n_fft <= 20, but got n_fft=32");
  CHECK(fixtures::error_message([&] { (void)tl::stft(x, 8, 0); }) ==
        "stft: expected hop_length > 0, but got hop_length=0");
  CHECK(fixtures::error_message([&] { (void)tl::stft(x, 8, 2, 10); }) ==
        "stft: expected 0 < win_length <= n_fft, but got win_length=10");
  CHECK(fixtures::error_message([&] { (void)tl::stft(x, 8, 2, 4, tl::ones<double>({5})); }) ==
        "stft: expected a 1D window tensor of size equal to win_length=4, but got window with size [5]");
  CHECK(fixtures::error_message([&] { (void)tl::stft(x, 8, 2, std::nullopt, std::nullopt, true, "mirror"); }) ==
        "stft: unknown pad_mode 'mirror'; expected reflect, constant, replicate or circular");
  CHECK(fixtures::error_message([&] {
          (void)tl::stft(tl::ones<double>({2, 2, 9}), 4);
        }) == "stft: expected a 1D or 2D tensor, but got 3D");
  CHECK(fixtures::error_message([&] { (void)tl::stft(tl::ones<double>({3}), 8); }) ==
        "stft: reflect padding of 4 must be smaller than the input's length 3");
  const auto S = tl::stft(x, 8, 2);
  CHECK(fixtures::error_message([&] { (void)tl::istft(S, 8, 4, 2); }) ==
        "istft: expected 0 < hop_length <= win_length, but got hop_length=4, win_length=2");
  CHECK(fixtures::error_message([&] { (void)tl::istft(S, 10, 2); }) ==
        "istft: expected the frequency dimension (5) to be n_fft / 2 + 1 (onesided) = 6");
  // A window that vanishes where the frames do not overlap fails PyTorch's NOLA check.
  CHECK(fixtures::error_message([&] {
          (void)tl::istft(S, 8, 2, std::nullopt, tl::hann_window<double>(8), false);
        }).find("istft: window overlap add min: 0") == 0);
}
