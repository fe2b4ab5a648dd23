#pragma once
/// \file
/// Spectral ops, `tl::fft::*` with `torch.fft`'s names, arguments and
/// semantics: `fft`, `ifft`, `rfft`, `irfft`, `hfft`, `ihfft` along one
/// dimension; `fft2`/`fftn` and their inverse and real forms over several;
/// `fftfreq`, `rfftfreq`, `fftshift`, `ifftshift`.
///
/// Complex data is a `ComplexTensor<T>` (Note [complex representation]), T
/// float or double; real data any tensor or pointwise expression (evaluated
/// first; integer and bool data are converted to float, as in PyTorch).
/// `fft` of real data transforms it as complex data with zero imaginary
/// parts, as PyTorch does for a real input. Arguments follow PyTorch: (input, n, dim, norm) for 1-D ops,
/// (input, s, dim, norm) for n-D ops; n / s cut or zero-pad the input along
/// the transformed dimensions (-1 in s keeps a size); norm is "backward"
/// (scale the inverse by 1/n), "forward" (scale the forward by 1/n) or
/// "ortho" (both by 1/sqrt(n)). An empty s or dim means "not given" (PyTorch's
/// None). Results are contiguous. The algorithms are in
/// `backend/cpu/fft_kernel.hpp` (Note [fft algorithms]); the kernels read
/// every line of the input in place with its strides, so transposed and
/// sliced inputs are not copied first.

#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tensorlib/backend/cpu/fft_kernel.hpp"
#include "tensorlib/core/dim_list.hpp"
#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/core/tensor_options.hpp"
#include "tensorlib/ops/along_dim.hpp"
#include "tensorlib/ops/complex_tensor.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/rearrange.hpp"
#include "tensorlib/ops/views.hpp"

#if TENSORLIB_CUDA_RUNTIME
#include "tensorlib/backend/cuda/fft.hpp"
#endif

namespace tensorlib::fft {
namespace detail {

using tensorlib::detail::check;

enum class Norm { Backward, Forward, Ortho };

inline Norm parse_norm(std::string_view norm, const char* op) {
  if (norm == "backward") return Norm::Backward;
  if (norm == "forward") return Norm::Forward;
  if (norm == "ortho") return Norm::Ortho;
  check<ValueError>(false, op, ": Invalid normalization mode: \"", norm,
                    "\" (expected \"backward\", \"forward\" or \"ortho\")");
  return Norm::Backward;
}

/// Factor applied to a transform of length n; `inverse` is the exp(+2 pi i jk / n) direction.
inline double norm_scale(Norm norm, int64_t n, bool inverse) {
  const double len = static_cast<double>(n);
  switch (norm) {
    case Norm::Backward:
      return inverse ? 1.0 / len : 1.0;
    case Norm::Forward:
      return inverse ? 1.0 : 1.0 / len;
    case Norm::Ortho:
      return 1.0 / std::sqrt(len);
  }
  return 1.0;
}

inline void check_points(int64_t n, const char* op) {
  check<ValueError>(n >= 1, op, ": Invalid number of data points (", n, ") specified");
}

/// Complex-to-complex, real-to-complex (full or one-sided) and complex-to-real.
enum class Kind { C2C, R2C, R2COneSided, C2R };

}  // namespace detail
}  // namespace tensorlib::fft

namespace tensorlib::autograd {

// The recording form of one transform (autograd/fft_backward.hpp).
template <ComplexPart T>
Tensor<T> fft_transform(const Tensor<T>& x, bool complex_in, int64_t d, fft::detail::Kind kind, int64_t n, bool inverse,
                        double scale);

}  // namespace tensorlib::autograd

namespace tensorlib::fft {
namespace detail {

/// Offset (in elements) of the start of every line along dimension d of the
/// first nd dimensions of a tensor with these sizes and strides, row-major
/// over the other dimensions.
inline std::vector<int64_t> line_starts(const Shape& sizes, const Shape& strides, int64_t nd, int64_t d) {
  Shape dims;
  int64_t count = 1;
  for (int64_t i = 0; i < nd; ++i) {
    if (i == d) continue;
    dims.push_back(i);
    count *= sizes[i];
  }
  std::vector<int64_t> starts(static_cast<std::size_t>(count));
  Shape index = Shape::filled(dims.size(), 0);
  int64_t offset = 0;
  for (int64_t r = 0; r < count; ++r) {
    starts[static_cast<std::size_t>(r)] = offset;
    for (int64_t j = dims.size() - 1; j >= 0; --j) {
      const int64_t dim = dims[j];
      if (++index[j] < sizes[dim]) {
        offset += strides[dim];
        break;
      }
      offset -= strides[dim] * (sizes[dim] - 1);
      index[j] = 0;
    }
  }
  return starts;
}

/// One 1-D transform of length n along dimension d (wrapped) of `x`, whose
/// last dimension holds (re, im) pairs (stride 1) when `complex_in`. The
/// kernel reads x's lines in place, whatever their layout, and writes a new
/// contiguous tensor with x's dimension order.
/// Every transform records through here: its backward is the adjoint
/// transform (autograd/fft_backward.hpp).
/// `x` (length `from` along d) cut or zero-padded to `to`.
template <Element T>
Tensor<T> fit_length(const Tensor<T>& x, int64_t d, int64_t to) {
  const int64_t from = x.size(d);
  if (to == from) return x;
  if (to < from) return x.narrow(d, 0, to);
  Shape pad = x.sizes();
  pad[d] = to - from;
  return tensorlib::cat({x, zeros<T>(pad, {.device = x.device()})}, d);
}

/// (re, im) pairs (last dim) times (a, b), as one fused kernel into a new
/// contiguous tensor: a scale, with b = -a a scaled conjugate.
template <ComplexPart T>
Tensor<T> scale_pairs(const Tensor<T>& pairs, T a, T b) {
  const Tensor<T> factors = tensorlib::tensor<T>({a, b}).to(pairs.device());
  return Tensor<T>(pairs * factors);
}

// Note [cuFFT transforms]
// ~~~~~~~~~~~~~~~~~~~~~~~
// On a GPU a transform_dim moves the lines along d last, cuts or zero-pads
// them to the points the transform reads (n, or n / 2 + 1 pairs for C2R)
// and makes them contiguous, runs cuFFT over all lines at once
// (cuda::fft_lines), and moves the result back, contiguous like the CPU's.
// cuFFT has a forward one-sided R2C and an inverse C2R only; for real x and
// Hermitian X, the other directions are conjugates:
//   inverse R2C(x) = conj(forward R2C(x)),
//   forward C2R(X) = inverse C2R(conj(X))   (the output is real),
// so ihfft conjugates the output and hfft the input, each folded into the
// one fused multiply that also applies the scale. The full R2C (fft of real
// data) is a C2C of (x, 0) pairs. cuFFT's C2R may overwrite its input, so
// that input is always a fresh tensor (the conjugating multiply, or a copy).
// Values match the CPU's up to rounding (cuFFT's algorithms differ from
// backend/cpu/fft_kernel.hpp's); C2R ignores the imaginary parts of the DC
// and Nyquist bins, as the CPU's does only where they are zero, so the
// parity tests give it Hermitian input.
#if TENSORLIB_CUDA_RUNTIME
template <ComplexPart T>
Tensor<T> transform_dim_cuda(const Tensor<T>& x, bool complex_in, int64_t d, Kind kind, int64_t n, bool inverse,
                             double scale) {
  const int64_t nd = x.dim() - (complex_in ? 1 : 0);
  const int64_t read = kind == Kind::C2R ? n / 2 + 1 : n;
  Tensor<T> lines = fit_length(x.movedim(d, nd - 1), nd - 1, read);
  if (kind == Kind::R2C) {  // the full spectrum of real data: a C2C of (x, 0)
    lines = tensorlib::stack({lines, zeros<T>(lines.sizes(), {.device = lines.device()})}, -1);
    kind = Kind::C2C;
  }
  if (kind == Kind::C2R)
    lines = scale_pairs(lines, T(1), inverse ? T(1) : T(-1));  // fresh (cuFFT may overwrite it), conjugated for hfft
  else
    lines = lines.contiguous();
  // cuFFT reads real input as if it were complex too: it needs the
  // alignment of a (re, im) pair, which a view at an odd offset lacks.
  if (reinterpret_cast<std::uintptr_t>(lines.data_ptr()) % (2 * sizeof(T)) != 0) lines = lines.clone();
  const bool complex_out = kind != Kind::C2R;
  Shape out_shape = lines.sizes();
  if (kind == Kind::C2R) out_shape.erase(nd);
  out_shape[nd - 1] = kind == Kind::R2COneSided ? n / 2 + 1 : n;
  if (complex_out && kind == Kind::R2COneSided) out_shape.push_back(2);
  Tensor<T> out = empty<T>(out_shape, {.device = x.device()});
  const int64_t batch = out.numel() / (out_shape[nd - 1] * (complex_out ? 2 : 1));
  const cuda::FftType type = kind == Kind::C2C   ? cuda::FftType::C2C
                             : kind == Kind::C2R ? cuda::FftType::C2R
                                                 : cuda::FftType::R2C;
  cuda::fft_lines(lines.data_ptr(), out.data_ptr(), batch, n, type, inverse, x.device());
  const bool conjugate = kind == Kind::R2COneSided && inverse;
  if (complex_out && (scale != 1.0 || conjugate))
    out = scale_pairs(out, static_cast<T>(scale), static_cast<T>(conjugate ? -scale : scale));
  else if (scale != 1.0)
    out = Tensor<T>(out * static_cast<T>(scale));
  return out.movedim(nd - 1, d).contiguous();
}
#endif

template <ComplexPart T>
Tensor<T> transform_dim(const Tensor<T>& x, bool complex_in, int64_t d, Kind kind, int64_t n, bool inverse,
                        double scale) {
  if (tensorlib::detail::records_grad(x)) return autograd::fft_transform(x, complex_in, d, kind, n, inverse, scale);
  if (!x.is_cpu()) {
#if TENSORLIB_CUDA_RUNTIME
    return transform_dim_cuda(x, complex_in, d, kind, n, inverse, scale);
#else
    tensorlib::detail::no_cuda_backend("fft");
#endif
  }
  const int64_t nd = x.dim() - (complex_in ? 1 : 0);
  const bool complex_out = kind != Kind::C2R;
  Shape out_shape = x.sizes();
  if (complex_in) out_shape.erase(nd);
  out_shape[d] = kind == Kind::R2COneSided ? n / 2 + 1 : n;
  if (complex_out) out_shape.push_back(2);
  auto out = empty<T>(out_shape);
  const int64_t len_in = x.size(d);
  const std::vector<int64_t> in_rows = line_starts(x.sizes(), x.strides(), nd, d);
  const std::vector<int64_t> out_rows = line_starts(out.sizes(), out.strides(), nd, d);
  const auto count = static_cast<int64_t>(in_rows.size());
  const cpu::Lines<const T> in{x.data_ptr(), in_rows.data(), x.stride(d)};
  const cpu::Lines<T> dst{out.data_ptr(), out_rows.data(), out.stride(d)};
  switch (kind) {
    case Kind::C2C:
      cpu::fft_c2c(in, count, len_in, dst, n, inverse, scale);
      break;
    case Kind::R2C:
    case Kind::R2COneSided:
      cpu::fft_r2c(in, count, len_in, dst, n, out_shape[d], inverse, scale);
      break;
    case Kind::C2R:
      cpu::fft_c2r(in, count, len_in, dst, n, inverse, scale);
      break;
  }
  return out;
}

/// Element type of the transform of real input of type value_type_t<E>:
/// integers and bool are converted to float, as PyTorch does.
template <Expression E>
using real_t = floating_t<value_type_t<E>>;

/// Real input materialized (an expression is evaluated) and converted to real_t.
template <Expression E>
Tensor<real_t<E>> real_input(const E& input) {
  const Tensor<value_type_t<E>> x = input;
  if constexpr (std::is_same_v<value_type_t<E>, real_t<E>>)
    return x;
  else
    return x.template to<real_t<E>>();
}

/// Checks shared by every op: float/double data with at least one dimension.
template <ComplexPart T>
void check_input(const Tensor<T>& data, bool complex_in, const char* op) {
  check<IndexError>(data.dim() - (complex_in ? 1 : 0) >= 1, op,
                    ": expected a tensor with at least one dimension, got a 0-d tensor");
}

/// A 1-D op: n defaults to the input's size along dim (2 (size - 1) for C2R).
template <ComplexPart T>
Tensor<T> transform_1d(const Tensor<T>& data, bool complex_in, Kind kind, std::optional<int64_t> n, int64_t dim,
                       std::string_view norm, bool inverse, const char* op) {
  check_input(data, complex_in, op);
  const int64_t d = wrap_dim(dim, data.dim() - (complex_in ? 1 : 0), op);
  const int64_t size = data.size(d);
  const int64_t points = n.value_or(kind == Kind::C2R ? 2 * (size - 1) : size);
  check_points(points, op);
  const Norm mode = parse_norm(norm, op);
  return transform_dim(data, complex_in, d, kind, points, inverse, norm_scale(mode, points, inverse));
}

struct DimSize {
  int64_t dim;
  int64_t n;
};

/// The (dimension, length) pairs of an n-D op (PyTorch's
/// canonicalize_fft_shape_and_dim_args). `c2r_last`: the last length
/// defaults to 2 (size - 1), as in irfftn.
inline std::vector<DimSize> resolve_dims(const Shape& sizes, const Shape& s, const DimList& dim, bool c2r_last,
                                         const char* op) {
  const int64_t nd = sizes.size();
  Shape dims;
  for (int64_t d : dim.dims()) {
    const int64_t w = wrap_dim(d, nd, op);
    for (int64_t seen : dims) check<ValueError>(seen != w, op, ": FFT dims must be unique, got ", dim.dims());
    dims.push_back(w);
  }
  if (!s.empty()) {
    if (!dims.empty()) {
      check<ValueError>(s.size() == dims.size(), op,
                        ": When given, dim and shape arguments must have the same length, got s = ", s,
                        " and dim = ", dim.dims());
    } else {
      check<ValueError>(s.size() <= nd, op, ": Got shape with ", s.size(), " values but input tensor only has ", nd,
                        " dimensions.");
      for (int64_t i = 0; i < s.size(); ++i) dims.push_back(nd - s.size() + i);
    }
  } else if (dims.empty()) {
    for (int64_t i = 0; i < nd; ++i) dims.push_back(i);
  }
  std::vector<DimSize> plan;
  for (int64_t i = 0; i < dims.size(); ++i) {
    const bool last = i + 1 == dims.size();
    const int64_t size = nd == 0 ? 0 : sizes[dims[i]];  // a 0-d input has no points (PyTorch's error below)
    const int64_t fallback = c2r_last && last ? 2 * (size - 1) : size;
    const int64_t n = s.empty() || s[i] == -1 ? fallback : s[i];
    check_points(n, op);
    plan.push_back({dims[i], n});
  }
  return plan;
}

/// Complex-to-complex transforms over `plan`, the first one of real data when `!complex_in`.
template <ComplexPart T>
ComplexTensor<T> c2c_nd(const Tensor<T>& data, bool complex_in, const Shape& s, const DimList& dim,
                        std::string_view norm, bool inverse, const char* op) {
  const Shape logical = complex_in ? ComplexTensor<T>(data).sizes() : data.sizes();
  const auto plan = resolve_dims(logical, s, dim, false, op);
  const Norm mode = parse_norm(norm, op);
  Tensor<T> cur = data;
  bool is_complex = complex_in;
  for (const DimSize& step : plan) {
    cur = transform_dim(cur, is_complex, step.dim, is_complex ? Kind::C2C : Kind::R2C, step.n, inverse,
                        norm_scale(mode, step.n, inverse));
    is_complex = true;
  }
  if (plan.empty())
    return complex_in ? ComplexTensor<T>(data.clone())
                      : complex(data.clone(), zeros<T>(data.sizes(), {.device = data.device()}));
  return ComplexTensor<T>(cur);
}

/// rfftn: a one-sided transform along the last dimension of `plan`, then full ones along the others.
template <ComplexPart T>
ComplexTensor<T> r2c_nd(const Tensor<T>& input, const Shape& s, const DimList& dim, std::string_view norm,
                        const char* op) {
  const auto plan = resolve_dims(input.sizes(), s, dim, false, op);
  check<ValueError>(!plan.empty(), op, ": must transform at least one axis");
  const Norm mode = parse_norm(norm, op);
  const DimSize& last = plan.back();
  Tensor<T> cur =
      transform_dim(input, false, last.dim, Kind::R2COneSided, last.n, false, norm_scale(mode, last.n, false));
  for (std::size_t i = 0; i + 1 < plan.size(); ++i)
    cur = transform_dim(cur, true, plan[i].dim, Kind::C2C, plan[i].n, false, norm_scale(mode, plan[i].n, false));
  return ComplexTensor<T>(cur);
}

/// irfftn: inverse transforms along all but the last dimension of `plan`,
/// then a complex-to-real one (length s[-1] or 2 (size - 1)) along it.
template <ComplexPart T>
Tensor<T> c2r_nd(const ComplexTensor<T>& input, const Shape& s, const DimList& dim, std::string_view norm,
                 const char* op) {
  const auto plan = resolve_dims(input.sizes(), s, dim, true, op);
  check<ValueError>(!plan.empty(), op, ": must transform at least one axis");
  const Norm mode = parse_norm(norm, op);
  Tensor<T> cur = input.pairs();
  for (std::size_t i = 0; i + 1 < plan.size(); ++i)
    cur = transform_dim(cur, true, plan[i].dim, Kind::C2C, plan[i].n, true, norm_scale(mode, plan[i].n, true));
  const DimSize& last = plan.back();
  return transform_dim(cur, true, last.dim, Kind::C2R, last.n, true, norm_scale(mode, last.n, true));
}

}  // namespace detail

/// The DFT of complex data along `dim`, cut or zero-padded to n (torch.fft.fft).
template <ComplexPart T>
ComplexTensor<T> fft(const ComplexTensor<T>& input, std::optional<int64_t> n = std::nullopt, int64_t dim = -1,
                     std::string_view norm = "backward") {
  using detail::Kind;
  return ComplexTensor<T>(detail::transform_1d(input.pairs(), true, Kind::C2C, n, dim, norm, false, "fft"));
}

/// The DFT of real data (imaginary parts zero): all n frequencies.
template <Expression E>
ComplexTensor<detail::real_t<E>> fft(const E& input, std::optional<int64_t> n = std::nullopt, int64_t dim = -1,
                                     std::string_view norm = "backward") {
  using detail::Kind;
  return ComplexTensor<detail::real_t<E>>(
      detail::transform_1d(detail::real_input(input), false, Kind::R2C, n, dim, norm, false, "fft"));
}

/// The inverse DFT of complex data along `dim` (torch.fft.ifft).
template <ComplexPart T>
ComplexTensor<T> ifft(const ComplexTensor<T>& input, std::optional<int64_t> n = std::nullopt, int64_t dim = -1,
                      std::string_view norm = "backward") {
  using detail::Kind;
  return ComplexTensor<T>(detail::transform_1d(input.pairs(), true, Kind::C2C, n, dim, norm, true, "ifft"));
}

/// The inverse DFT of real data: all n frequencies.
template <Expression E>
ComplexTensor<detail::real_t<E>> ifft(const E& input, std::optional<int64_t> n = std::nullopt, int64_t dim = -1,
                                      std::string_view norm = "backward") {
  using detail::Kind;
  return ComplexTensor<detail::real_t<E>>(
      detail::transform_1d(detail::real_input(input), false, Kind::R2C, n, dim, norm, true, "ifft"));
}

/// The DFT of real data, frequencies 0..n/2 only (torch.fft.rfft).
template <Expression E>
ComplexTensor<detail::real_t<E>> rfft(const E& input, std::optional<int64_t> n = std::nullopt, int64_t dim = -1,
                                      std::string_view norm = "backward") {
  using detail::Kind;
  return ComplexTensor<detail::real_t<E>>(
      detail::transform_1d(detail::real_input(input), false, Kind::R2COneSided, n, dim, norm, false, "rfft"));
}

/// The inverse of `rfft`: n real outputs (default 2 (size - 1)) from the
/// one-sided spectrum along `dim` (torch.fft.irfft).
template <ComplexPart T>
Tensor<T> irfft(const ComplexTensor<T>& input, std::optional<int64_t> n = std::nullopt, int64_t dim = -1,
                std::string_view norm = "backward") {
  using detail::Kind;
  return detail::transform_1d(input.pairs(), true, Kind::C2R, n, dim, norm, true, "irfft");
}

/// The DFT of a Hermitian-symmetric signal given by its first half: n real
/// outputs, default 2 (size - 1) (torch.fft.hfft).
template <ComplexPart T>
Tensor<T> hfft(const ComplexTensor<T>& input, std::optional<int64_t> n = std::nullopt, int64_t dim = -1,
               std::string_view norm = "backward") {
  using detail::Kind;
  return detail::transform_1d(input.pairs(), true, Kind::C2R, n, dim, norm, false, "hfft");
}

/// The inverse of `hfft`: frequencies 0..n/2 of the inverse DFT of real data (torch.fft.ihfft).
template <Expression E>
ComplexTensor<detail::real_t<E>> ihfft(const E& input, std::optional<int64_t> n = std::nullopt, int64_t dim = -1,
                                       std::string_view norm = "backward") {
  using detail::Kind;
  return ComplexTensor<detail::real_t<E>>(
      detail::transform_1d(detail::real_input(input), false, Kind::R2COneSided, n, dim, norm, true, "ihfft"));
}

/// The n-D DFT over `dim` (default: the last s.size() dimensions, or all) (torch.fft.fftn).
template <ComplexPart T>
ComplexTensor<T> fftn(const ComplexTensor<T>& input, const Shape& s = {}, const DimList& dim = {},
                      std::string_view norm = "backward") {
  return detail::c2c_nd(input.pairs(), true, s, dim, norm, false, "fftn");
}

/// The n-D DFT of real data.
template <Expression E>
ComplexTensor<detail::real_t<E>> fftn(const E& input, const Shape& s = {}, const DimList& dim = {},
                                      std::string_view norm = "backward") {
  return detail::c2c_nd(detail::real_input(input), false, s, dim, norm, false, "fftn");
}

/// The n-D inverse DFT (torch.fft.ifftn).
template <ComplexPart T>
ComplexTensor<T> ifftn(const ComplexTensor<T>& input, const Shape& s = {}, const DimList& dim = {},
                       std::string_view norm = "backward") {
  return detail::c2c_nd(input.pairs(), true, s, dim, norm, true, "ifftn");
}

/// The n-D inverse DFT of real data.
template <Expression E>
ComplexTensor<detail::real_t<E>> ifftn(const E& input, const Shape& s = {}, const DimList& dim = {},
                                       std::string_view norm = "backward") {
  return detail::c2c_nd(detail::real_input(input), false, s, dim, norm, true, "ifftn");
}

/// The n-D DFT of real data, one-sided along the last transformed dimension (torch.fft.rfftn).
template <Expression E>
ComplexTensor<detail::real_t<E>> rfftn(const E& input, const Shape& s = {}, const DimList& dim = {},
                                       std::string_view norm = "backward") {
  return detail::r2c_nd(detail::real_input(input), s, dim, norm, "rfftn");
}

/// The inverse of `rfftn`: real output, last length s[-1] or 2 (size - 1) (torch.fft.irfftn).
template <ComplexPart T>
Tensor<T> irfftn(const ComplexTensor<T>& input, const Shape& s = {}, const DimList& dim = {},
                 std::string_view norm = "backward") {
  return detail::c2r_nd(input, s, dim, norm, "irfftn");
}

/// `fftn` over two dimensions (default the last two) (torch.fft.fft2).
template <ComplexPart T>
ComplexTensor<T> fft2(const ComplexTensor<T>& input, const Shape& s = {}, const DimList& dim = {-2, -1},
                      std::string_view norm = "backward") {
  return detail::c2c_nd(input.pairs(), true, s, dim, norm, false, "fft2");
}

/// `fft2` of real data.
template <Expression E>
ComplexTensor<detail::real_t<E>> fft2(const E& input, const Shape& s = {}, const DimList& dim = {-2, -1},
                                      std::string_view norm = "backward") {
  return detail::c2c_nd(detail::real_input(input), false, s, dim, norm, false, "fft2");
}

/// `ifftn` over two dimensions (default the last two) (torch.fft.ifft2).
template <ComplexPart T>
ComplexTensor<T> ifft2(const ComplexTensor<T>& input, const Shape& s = {}, const DimList& dim = {-2, -1},
                       std::string_view norm = "backward") {
  return detail::c2c_nd(input.pairs(), true, s, dim, norm, true, "ifft2");
}

/// `ifft2` of real data.
template <Expression E>
ComplexTensor<detail::real_t<E>> ifft2(const E& input, const Shape& s = {}, const DimList& dim = {-2, -1},
                                       std::string_view norm = "backward") {
  return detail::c2c_nd(detail::real_input(input), false, s, dim, norm, true, "ifft2");
}

/// `rfftn` over two dimensions (torch.fft.rfft2).
template <Expression E>
ComplexTensor<detail::real_t<E>> rfft2(const E& input, const Shape& s = {}, const DimList& dim = {-2, -1},
                                       std::string_view norm = "backward") {
  return detail::r2c_nd(detail::real_input(input), s, dim, norm, "rfft2");
}

/// `irfftn` over two dimensions (torch.fft.irfft2).
template <ComplexPart T>
Tensor<T> irfft2(const ComplexTensor<T>& input, const Shape& s = {}, const DimList& dim = {-2, -1},
                 std::string_view norm = "backward") {
  return detail::c2r_nd(input, s, dim, norm, "irfft2");
}

/// Sample frequencies of an n-point DFT with sample spacing d:
/// [0, 1, ..., (n - 1) / 2, -(n / 2), ..., -1] / (d n) (torch.fft.fftfreq).
template <ComplexPart T = float>
Tensor<T> fftfreq(int64_t n, double d = 1.0, TensorOptions options = {}) {
  check_sizes({n}, "fftfreq");
  const T step = static_cast<T>(1.0 / (static_cast<double>(n) * d));
  return tensorlib::detail::generate<T>({n}, options,
                                        [&](int64_t i) { return static_cast<T>(i < (n + 1) / 2 ? i : i - n) * step; });
}

/// Frequencies 0..n/2 of `rfft`'s output: [0, 1, ..., n / 2] / (d n) (torch.fft.rfftfreq).
template <ComplexPart T = float>
Tensor<T> rfftfreq(int64_t n, double d = 1.0, TensorOptions options = {}) {
  check_sizes({n}, "rfftfreq");
  const T step = static_cast<T>(1.0 / (static_cast<double>(n) * d));
  return tensorlib::detail::generate<T>({n / 2 + 1}, options, [&](int64_t i) { return static_cast<T>(i) * step; });
}

namespace detail {

/// Rolls each of `dims` (all when empty) of `x`'s first `nd` dimensions by
/// size / 2 (fftshift) or (size + 1) / 2 (ifftshift).
template <Element T>
Tensor<T> shift(const Tensor<T>& x, int64_t nd, const DimList& dim, bool inverse, const char* op) {
  Shape dims, shifts;
  if (dim.dims().empty()) {
    for (int64_t i = 0; i < nd; ++i) dims.push_back(i);
  } else {
    for (int64_t d : dim.dims()) {
      check<IndexError>(nd > 0, op, ": dimension specified as ", d, " but tensor has no dimensions");
      dims.push_back(wrap_dim(d, nd, op));
    }
  }
  for (int64_t d : dims) shifts.push_back(inverse ? (x.size(d) + 1) / 2 : x.size(d) / 2);
  if (dims.empty()) return x.clone();
  return roll(x, shifts, dims);
}

}  // namespace detail

/// Moves the zero frequency to the centre of each of `dim` (default all) (torch.fft.fftshift).
template <Expression E>
Tensor<value_type_t<E>> fftshift(const E& input, const DimList& dim = {}) {
  const Tensor<value_type_t<E>> x = input;
  return detail::shift(x, x.dim(), dim, false, "fftshift");
}

/// `fftshift` of a complex tensor.
template <ComplexPart T>
ComplexTensor<T> fftshift(const ComplexTensor<T>& input, const DimList& dim = {}) {
  return ComplexTensor<T>(detail::shift(input.pairs(), input.dim(), dim, false, "fftshift"));
}

/// The inverse of `fftshift` (torch.fft.ifftshift).
template <Expression E>
Tensor<value_type_t<E>> ifftshift(const E& input, const DimList& dim = {}) {
  const Tensor<value_type_t<E>> x = input;
  return detail::shift(x, x.dim(), dim, true, "ifftshift");
}

/// `ifftshift` of a complex tensor.
template <ComplexPart T>
ComplexTensor<T> ifftshift(const ComplexTensor<T>& input, const DimList& dim = {}) {
  return ComplexTensor<T>(detail::shift(input.pairs(), input.dim(), dim, true, "ifftshift"));
}

}  // namespace tensorlib::fft
