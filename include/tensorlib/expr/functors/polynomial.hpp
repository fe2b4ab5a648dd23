#pragma once
/// \file
/// The orthogonal-polynomial functors of torch.special, p_n(x) with a degree
/// operand n (expr/math/orthogonal_polynomials.hpp): one functor template over
/// the family, so the twelve share their code. Integral operands compute in
/// float.
///
/// Note [polynomials without gradient]
/// PyTorch records no gradient for these (their results do not require
/// grad), so a gradient through them here is 0, in x and in n: the numbers
/// PyTorch gives wherever its backward runs. `masks_gradient` keeps an
/// infinite or NaN incoming gradient from turning the 0 into NaN (Note
/// [masked adjoints] in autograd/adjoint_sweep.hpp), and `no_gradient` keeps
/// the leaves below them out of Note [derivatives PyTorch does not
/// implement] (autograd/fused.hpp), as PyTorch's result has no history.
/// Unlike PyTorch, the result of a tensor that requires grad still requires
/// grad.

#include <string_view>

#include "tensorlib/core/config.hpp"
#include "tensorlib/expr/math/orthogonal_polynomials.hpp"
#include "tensorlib/expr/promotion.hpp"

namespace tensorlib::fn {

namespace detail {

/// torch.special's name of the family.
constexpr std::string_view polynomial_name(math::Polynomial kind) {
  switch (kind) {
    case math::Polynomial::chebyshev_t:
      return "chebyshev_polynomial_t";
    case math::Polynomial::chebyshev_u:
      return "chebyshev_polynomial_u";
    case math::Polynomial::chebyshev_v:
      return "chebyshev_polynomial_v";
    case math::Polynomial::chebyshev_w:
      return "chebyshev_polynomial_w";
    case math::Polynomial::shifted_chebyshev_t:
      return "shifted_chebyshev_polynomial_t";
    case math::Polynomial::shifted_chebyshev_u:
      return "shifted_chebyshev_polynomial_u";
    case math::Polynomial::shifted_chebyshev_v:
      return "shifted_chebyshev_polynomial_v";
    case math::Polynomial::shifted_chebyshev_w:
      return "shifted_chebyshev_polynomial_w";
    case math::Polynomial::hermite_h:
      return "hermite_polynomial_h";
    case math::Polynomial::hermite_he:
      return "hermite_polynomial_he";
    case math::Polynomial::laguerre_l:
      return "laguerre_polynomial_l";
    case math::Polynomial::legendre_p:
      return "legendre_polynomial_p";
  }
  return {};  // not reached: every family is named above
}

}  // namespace detail

/// p_n(x) of one family (Note [orthogonal polynomials]); no gradient (Note
/// [polynomials without gradient]).
template <math::Polynomial Kind>
struct OrthogonalPolynomial {
  static constexpr std::string_view name = detail::polynomial_name(Kind);
  using promotion = promotion::CommonFloating;
  static constexpr bool masks_gradient = true;
  static constexpr bool no_gradient = true;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x, T n) const {
    using math::orthogonal_polynomial;
    return orthogonal_polynomial(Kind, x, n);
  }
  template <class T>
  TENSORLIB_HOST_DEVICE T partial_a(T, T) const {
    return T(0);
  }
  template <class T>
  TENSORLIB_HOST_DEVICE T partial_b(T, T) const {
    return T(0);
  }
};

}  // namespace tensorlib::fn
