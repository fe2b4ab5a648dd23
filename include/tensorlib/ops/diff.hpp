#pragma once
/// \file
/// `tl::diff`: n-th forward differences along one dimension, PyTorch's
/// `torch.diff`. Each order is one fused pass (`x[1:] - x[:-1]`, or `!=` for
/// bool), so the result records through narrow and subtraction like any
/// expression.

#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/join.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib {
namespace detail {

/// PyTorch's check of a `prepend`/`append` tensor against the input.
template <Element T>
void check_diff_operand(const Tensor<T>& input, const Tensor<T>& other, int64_t d) {
  check<ShapeError>(other.dim() == input.dim(),
                    "diff: diff expects prepend or append to be the same dimension as input");
  for (int64_t i = 0; i < input.dim(); ++i)
    check<ShapeError>(i == d || other.size(i) == input.size(i),
                      "diff: diff expects the shape of tensor to prepend or append to match that of input except "
                      "along the differencing dimension; input.size(",
                      i, ") = ", input.size(i), ", but got tensor.size(", i, ") = ", other.size(i));
}

}  // namespace detail

/// The n-th forward difference along `dim`: out[i] = x[i + 1] - x[i], n
/// times (n larger than the dimension gives an empty result), after
/// concatenating `prepend` before and `append` after the input along `dim`.
/// Bool tensors differ by `!=`, as in PyTorch. A negative n is an error, as
/// in current PyTorch (1.13 returned the input unchanged).
template <Element T>
Tensor<T> diff(const Tensor<T>& input, int64_t n = 1, int64_t dim = -1,
               const std::type_identity_t<std::optional<Tensor<T>>>& prepend = std::nullopt,
               const std::type_identity_t<std::optional<Tensor<T>>>& append = std::nullopt) {
  detail::check<ShapeError>(input.dim() >= 1, "diff: diff expects input to be at least one-dimensional");
  detail::check<ValueError>(n >= 0, "diff: order must be non-negative but got ", n);
  const int64_t d = wrap_dim(dim, input.dim(), "diff");
  std::vector<Tensor<T>> parts;
  if (prepend) {
    detail::check_diff_operand(input, *prepend, d);
    parts.push_back(*prepend);
  }
  parts.push_back(input);
  if (append) {
    detail::check_diff_operand(input, *append, d);
    parts.push_back(*append);
  }
  Tensor<T> x = parts.size() == 1 ? input : cat(parts, d);
  for (int64_t k = 0; k < n && x.size(d) > 0; ++k) {
    const int64_t len = x.size(d) - 1;
    if constexpr (std::is_same_v<T, bool>)
      x = ne(x.narrow(d, 1, len), x.narrow(d, 0, len));
    else
      x = x.narrow(d, 1, len) - x.narrow(d, 0, len);
  }
  return x;
}

}  // namespace tensorlib
