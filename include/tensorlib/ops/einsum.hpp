#pragma once
/// \file
/// `einsum`: Einstein summation over any equation PyTorch accepts: implicit
/// and explicit output, repeated subscripts within an operand (diagonals),
/// `...` with broadcasting, size-1 dimensions broadcasting against their
/// subscript's size, and summed subscripts.
///
/// Note [einsum plan]
/// Each operand first becomes a view with one dimension per distinct
/// subscript (a repeated subscript is a diagonal: its strides add up). The
/// operands are then contracted left to right, as PyTorch does: before a
/// step, subscripts that no other remaining operand and not the output uses
/// are summed out; the step itself is one batched GEMM, with subscripts
/// shared and still needed as the batch, shared and no longer needed as the
/// inner dimension, and the rest as rows (left) and columns (right). A sum
/// over dimensions is a matrix-vector product with a vector of ones, so
/// every reduction runs on the GEMM too. A single operand that needs no sum
/// comes back as a view of its input, as in PyTorch.

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/linalg.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib {
namespace detail {

// Subscripts are numbered A-Z as 0-25, a-z as 26-51; the k-th of E
// dimensions covered by an ellipsis is 52 + k (right-aligned across operands).
inline constexpr int kEinsumLetters = 52;

struct EinsumTerm {
  std::vector<int> labels;  // letters in order; kEllipsisMark where `...` stands
  bool has_ellipsis = false;
};
inline constexpr int kEllipsisMark = -1;

struct EinsumEquation {
  std::vector<EinsumTerm> inputs;
  bool explicit_output = false;
  EinsumTerm output;
};

inline int einsum_letter(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  return -1;
}

inline char einsum_char(int label) { return static_cast<char>(label < 26 ? 'A' + label : 'a' + label - 26); }

// Parses one side of the equation, [begin, end) of `eq`, into comma-separated terms.
inline std::vector<EinsumTerm> parse_einsum_terms(std::string_view eq, std::size_t begin, std::size_t end,
                                                  bool output) {
  std::vector<EinsumTerm> terms(1);
  int dots = 0;
  for (std::size_t i = begin; i < end; ++i) {
    const char c = eq[i];
    const auto operand = terms.size() - 1;
    if (c == ' ') continue;
    if (c == '.') {
      check<ValueError>(!terms.back().has_ellipsis, "einsum(): found '.' for ", output ? "output" : "operand ",
                        output ? "" : std::to_string(operand), " for which an ellipsis was already found");
      if (++dots == 3) {
        terms.back().has_ellipsis = true;
        terms.back().labels.push_back(kEllipsisMark);
        dots = 0;
      }
      continue;
    }
    check<ValueError>(dots == 0, "einsum(): found '.' for ", output ? "output" : "operand ",
                      output ? "" : std::to_string(operand), " that is not part of any ellipsis");
    if (c == ',' && !output) {
      terms.emplace_back();
      continue;
    }
    const int label = einsum_letter(c);
    check<ValueError>(label >= 0, "einsum(): invalid subscript given at index ", i,
                      " in the equation string, subscripts must be in [a-zA-Z]");
    terms.back().labels.push_back(label);
  }
  check<ValueError>(dots == 0, "einsum(): found '.' for ", output ? "output" : "operand ",
                    output ? "" : std::to_string(terms.size() - 1), " that is not part of any ellipsis");
  return terms;
}

inline EinsumEquation parse_einsum(std::string_view eq, std::size_t num_operands) {
  EinsumEquation result;
  const std::size_t arrow = eq.find("->");
  const std::size_t lhs_end = arrow == std::string_view::npos ? eq.size() : arrow;
  result.inputs = parse_einsum_terms(eq, 0, lhs_end, false);
  check<ValueError>(result.inputs.size() <= num_operands,
                    "einsum(): fewer operands were provided than specified in the equation (", num_operands, " vs ",
                    result.inputs.size(), ")");
  check<ValueError>(result.inputs.size() >= num_operands,
                    "einsum(): more operands were provided than specified in the equation (", num_operands, " vs ",
                    result.inputs.size(), ")");
  if (arrow != std::string_view::npos) {
    result.explicit_output = true;
    result.output = parse_einsum_terms(eq, arrow + 2, eq.size(), true).front();
  }
  return result;
}

/// Sums `t` over its trailing `summed` dimensions (a matrix-vector product
/// with ones, so it runs on the GEMM).
template <Element T>
Tensor<T> sum_trailing(const Tensor<T>& t, int64_t summed) {
  if (summed == 0) return t;
  Shape kept = t.sizes();
  kept.resize(t.dim() - summed);
  int64_t inner = 1;
  for (int64_t d = t.dim() - summed; d < t.dim(); ++d) inner *= t.size(d);
  const Tensor<T> rows = t.reshape({kept.numel(), inner});
  return tensorlib::mv(rows, ones<T>({inner}, {.device = t.device()})).view(kept);
}

// An operand in the plan: a tensor with one dimension per distinct label.
template <Element T>
struct EinsumOperand {
  Tensor<T> t;
  std::vector<int> labels;
};

// Moves `drop` labels of `x` to the end and sums them out.
template <Element T>
EinsumOperand<T> sum_labels(const EinsumOperand<T>& x, const std::vector<bool>& keep) {
  Shape perm;
  std::vector<int> labels;
  for (std::size_t i = 0; i < x.labels.size(); ++i)
    if (keep[static_cast<std::size_t>(x.labels[i])]) {
      perm.push_back(static_cast<int64_t>(i));
      labels.push_back(x.labels[i]);
    }
  const int64_t summed = static_cast<int64_t>(x.labels.size()) - perm.size();
  if (summed == 0) return x;
  for (std::size_t i = 0; i < x.labels.size(); ++i)
    if (!keep[static_cast<std::size_t>(x.labels[i])]) perm.push_back(static_cast<int64_t>(i));
  return {sum_trailing(x.t.permute(perm), summed), labels};
}

// One contraction step (Note [einsum plan]); `needed[l]`: l is used later.
template <Element T>
EinsumOperand<T> contract_pair(const EinsumOperand<T>& x, const EinsumOperand<T>& y, const std::vector<bool>& needed,
                               const std::vector<int64_t>& sizes) {
  auto position = [](const std::vector<int>& labels, int l) {
    return static_cast<int64_t>(std::find(labels.begin(), labels.end(), l) - labels.begin());
  };
  std::vector<int> batch, left, inner, right;
  for (int l : x.labels) {
    const bool shared = position(y.labels, l) < static_cast<int64_t>(y.labels.size());
    (shared ? (needed[static_cast<std::size_t>(l)] ? batch : inner) : left).push_back(l);
  }
  for (int l : y.labels)
    if (position(x.labels, l) == static_cast<int64_t>(x.labels.size())) right.push_back(l);
  // Shared labels broadcast: a size-1 side is expanded to the label's size.
  Shape xs = x.t.sizes(), ys = y.t.sizes();
  for (std::size_t i = 0; i < x.labels.size(); ++i) xs[i] = sizes[static_cast<std::size_t>(x.labels[i])];
  for (std::size_t i = 0; i < y.labels.size(); ++i) ys[i] = sizes[static_cast<std::size_t>(y.labels[i])];
  for (int l : left) xs[position(x.labels, l)] = x.t.size(position(x.labels, l));
  for (int l : right) ys[position(y.labels, l)] = y.t.size(position(y.labels, l));
  const Tensor<T> xe = x.t.expand(xs), ye = y.t.expand(ys);
  auto extent = [&](const std::vector<int>& group, const Tensor<T>& t, const std::vector<int>& labels) {
    int64_t n = 1;
    for (int l : group) n *= t.size(position(labels, l));
    return n;
  };
  Shape px, py, out_shape;
  for (const auto* g : {&batch, &left, &inner})
    for (int l : *g) px.push_back(position(x.labels, l));
  for (const auto* g : {&batch, &inner, &right})
    for (int l : *g) py.push_back(position(y.labels, l));
  const int64_t nb = extent(batch, xe, x.labels), nl = extent(left, xe, x.labels);
  const int64_t ni = extent(inner, xe, x.labels), nr = extent(right, ye, y.labels);
  const Tensor<T> a = xe.permute(px).reshape({nb, nl, ni});
  const Tensor<T> b = ye.permute(py).reshape({nb, ni, nr});
  std::vector<int> labels;
  for (int l : batch) {
    labels.push_back(l);
    out_shape.push_back(xe.size(position(x.labels, l)));
  }
  for (int l : left) {
    labels.push_back(l);
    out_shape.push_back(xe.size(position(x.labels, l)));
  }
  for (int l : right) {
    labels.push_back(l);
    out_shape.push_back(ye.size(position(y.labels, l)));
  }
  return {tensorlib::bmm(a, b).view(out_shape), labels};
}

template <Element T>
Tensor<T> einsum_impl(std::string_view equation, const std::vector<Tensor<T>>& operands) {
  check<ValueError>(!operands.empty(), "einsum(): must provide at least one operand");
  const EinsumEquation eq = parse_einsum(equation, operands.size());
  // Dimensions covered by the ellipsis, and the size of every label.
  int64_t ell = 0;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    const EinsumTerm& term = eq.inputs[i];
    const int64_t letters = static_cast<int64_t>(term.labels.size()) - (term.has_ellipsis ? 1 : 0);
    const int64_t nd = operands[i].dim();
    if (term.has_ellipsis) {
      check<ShapeError>(letters <= nd, "einsum(): the number of subscripts in the equation (", letters,
                        ") is more than the number of dimensions (", nd, ") for operand ", i);
      ell = std::max(ell, nd - letters);
    } else {
      check<ShapeError>(letters == nd, "einsum(): the number of subscripts in the equation (", letters,
                        ") does not match the number of dimensions (", nd, ") for operand ", i,
                        " and no ellipsis was given");
    }
    if (i > 0) check_same_device("einsum", operands[0], operands[i]);
  }
  const std::size_t nlabels = static_cast<std::size_t>(kEinsumLetters + ell);
  std::vector<int64_t> sizes(nlabels, -1);
  std::vector<int> count(nlabels, 0);  // occurrences over all inputs
  std::vector<EinsumOperand<T>> ops;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    const Tensor<T>& t = operands[i];
    const EinsumTerm& term = eq.inputs[i];
    const int64_t covered = t.dim() - (static_cast<int64_t>(term.labels.size()) - (term.has_ellipsis ? 1 : 0));
    std::vector<int> dim_labels;  // one per dimension of t
    for (int l : term.labels) {
      if (l != kEllipsisMark) {
        dim_labels.push_back(l);
        continue;
      }
      for (int64_t k = 0; k < covered; ++k) dim_labels.push_back(static_cast<int>(kEinsumLetters + ell - covered + k));
    }
    // Distinct labels; repeated ones become a diagonal (their strides add).
    EinsumOperand<T> op;
    Shape op_sizes, op_strides;
    for (int64_t d = 0; d < t.dim(); ++d) {
      const int l = dim_labels[static_cast<std::size_t>(d)];
      const auto lu = static_cast<std::size_t>(l);
      ++count[lu];
      const auto it = std::find(op.labels.begin(), op.labels.end(), l);
      if (it != op.labels.end()) {
        const auto j = it - op.labels.begin();
        check<ShapeError>(op_sizes[j] == t.size(d), "einsum(): subscript ", einsum_char(l), " is repeated for operand ",
                          i, " but the sizes don't match, ", op_sizes[j], " != ", t.size(d));
        op_strides[j] += t.stride(d);
        continue;
      }
      op.labels.push_back(l);
      op_sizes.push_back(t.size(d));
      op_strides.push_back(t.stride(d));
      if (t.size(d) == 1) {
        if (sizes[lu] < 0) sizes[lu] = 1;
      } else if (sizes[lu] < 0 || sizes[lu] == 1) {  // unseen, or seen only broadcastable (0 is not)
        sizes[lu] = t.size(d);
      } else if (l >= kEinsumLetters) {
        check<ShapeError>(sizes[lu] == t.size(d), "einsum(): dimension ", l - kEinsumLetters,
                          " covered by ellipsis in operand ", i, " has size ", t.size(d),
                          " which does not broadcast with previously seen ellipsis with size ", sizes[lu],
                          " for the respective dimension");
      } else {
        check<ShapeError>(sizes[lu] == t.size(d), "einsum(): subscript ", einsum_char(l), " has size ", t.size(d),
                          " for operand ", i, " which does not broadcast with previously seen size ", sizes[lu]);
      }
    }
    // Only a repeated label needs the strided view (a diagonal); otherwise the
    // operand is used as it is (and its gradient needs no as_strided backward).
    op.t = op_sizes.size() == t.dim() ? t : t.as_strided(op_sizes, op_strides, t.storage_offset());
    ops.push_back(std::move(op));
  }
  // The output's labels.
  std::vector<int> out;
  if (eq.explicit_output) {
    std::vector<bool> seen(nlabels, false);
    for (int l : eq.output.labels) {
      if (l == kEllipsisMark) {
        for (int64_t k = 0; k < ell; ++k) out.push_back(static_cast<int>(kEinsumLetters + k));
        continue;
      }
      const auto lu = static_cast<std::size_t>(l);
      check<ValueError>(count[lu] > 0, "einsum(): output subscript ", einsum_char(l),
                        " does not appear in the equation for any input operand");
      check<ValueError>(!seen[lu], "einsum(): output subscript ", einsum_char(l),
                        " appears more than once in the output");
      seen[lu] = true;
      out.push_back(l);
    }
  } else {
    for (int64_t k = 0; k < ell; ++k) out.push_back(static_cast<int>(kEinsumLetters + k));
    for (int l = 0; l < kEinsumLetters; ++l)
      if (count[static_cast<std::size_t>(l)] == 1) out.push_back(l);
  }
  // Contract left to right (Note [einsum plan]).
  std::vector<bool> in_output(nlabels, false);
  for (int l : out) in_output[static_cast<std::size_t>(l)] = true;
  auto needed_after = [&](std::size_t i) {  // labels used by the output or operands past i
    std::vector<bool> needed = in_output;
    for (std::size_t j = i + 1; j < ops.size(); ++j)
      for (int l : ops[j].labels) needed[static_cast<std::size_t>(l)] = true;
    return needed;
  };
  EinsumOperand<T> acc = ops[0];
  for (std::size_t i = 1; i < ops.size(); ++i) {
    const std::vector<bool> needed = needed_after(i);
    std::vector<bool> keep_x = needed, keep_y = needed;
    for (int l : ops[i].labels) keep_x[static_cast<std::size_t>(l)] = true;
    for (int l : acc.labels) keep_y[static_cast<std::size_t>(l)] = true;
    acc = contract_pair(sum_labels(acc, keep_x), sum_labels(ops[i], keep_y), needed, sizes);
  }
  acc = sum_labels(acc, in_output);
  Shape perm;
  for (int l : out)
    perm.push_back(static_cast<int64_t>(std::find(acc.labels.begin(), acc.labels.end(), l) - acc.labels.begin()));
  // A label of size 1 here may have a larger broadcast size only when it met
  // another operand, which already expanded it; so this is the final shape.
  return acc.t.permute(perm);
}

}  // namespace detail

/// Einstein summation (`torch.einsum`): `tl::einsum("bij,bjk->bik", {a, b})`.
/// Subscripts are letters; `...` stands for broadcast dimensions; without
/// `->` the output is the ellipsis dimensions followed by the subscripts
/// that appear once, in alphabetical order (upper case first).
template <Element T>
Tensor<T> einsum(std::string_view equation, const std::vector<Tensor<T>>& operands) {
  static_assert(!std::is_same_v<T, bool>, "einsum: bool tensors are not supported (as in PyTorch)");
  return detail::einsum_impl(equation, operands);
}

/// `einsum` with the operands in braces: `tl::einsum("ii", {x})`.
template <Element T>
Tensor<T> einsum(std::string_view equation, std::initializer_list<Tensor<T>> operands) {
  return einsum(equation, std::vector<Tensor<T>>(operands));
}

}  // namespace tensorlib
