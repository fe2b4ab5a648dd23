// Spectral analysis with tl::fft: find the frequencies of two tones buried in
// noise with a Hann-windowed real FFT, then filter one out and transform back.
// Run: build/examples/spectrum

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numbers>

#include <tensorlib/tensorlib.hpp>

int main() {
  // One second sampled at 1000 Hz: tones at 50 Hz and 120 Hz plus noise.
  const int64_t n = 1000;
  const double rate = 1000.0;
  tl::manual_seed(0);
  const auto t = tl::arange<double>(0, n) / rate;
  const double w = 2 * std::numbers::pi;
  const tl::Tensor<double> signal = tl::sin(t * (w * 50)) + 0.5 * tl::sin(t * (w * 120)) + 0.2 * tl::randn<double>({n});

  // A window against spectral leakage, then the one-sided spectrum (n / 2 + 1 bins).
  const auto spectrum = tl::fft::rfft(signal * tl::hann_window<double>(n));  // ComplexTensor<double>, [501]
  const auto freqs = tl::fft::rfftfreq<double>(n, 1 / rate);
  const auto magnitude = tl::abs(spectrum);
  std::cout << "spectrum: " << spectrum.sizes() << " complex bins, " << freqs[1].item() << " Hz apart\n";

  // The two largest peaks are the tones (a window spreads each over a few bins,
  // so the bins next to the first peak are skipped when looking for the second).
  auto mags = magnitude.to_vector();
  for (int peak = 0; peak < 2; ++peak) {
    const auto best = std::max_element(mags.begin(), mags.end()) - mags.begin();
    std::cout << "peak at " << freqs[best].item() << " Hz, magnitude " << mags[static_cast<std::size_t>(best)] << "\n";
    for (auto i = std::max<int64_t>(0, best - 5); i <= std::min<int64_t>(n / 2, best + 5); ++i)
      mags[static_cast<std::size_t>(i)] = 0;
  }

  // Remove everything above 80 Hz from the unwindowed signal's spectrum and invert.
  const auto full = tl::fft::rfft(signal);
  const tl::Tensor<double> keep = (freqs <= 80.0).to<double>();
  const auto filtered =
      tl::fft::irfft(tl::complex(tl::Tensor<double>(full.real() * keep), tl::Tensor<double>(full.imag() * keep)), n);
  const tl::Tensor<double> tone = tl::sin(t * (w * 50));
  const tl::Tensor<double> residual = filtered - tone;
  std::cout << "low-pass result vs the 50 Hz tone: rms difference "
            << std::sqrt(tl::Tensor<double>(residual * residual).mean().item()) << " (noise rms 0.2 before)\n";
  return 0;
}
