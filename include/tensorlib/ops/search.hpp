#pragma once
/// \file
/// Binary search in sorted boundaries: `searchsorted` and `bucketize`.
/// The searches are PyTorch's (`!(b >= v)` moves right for the left side,
/// `!(b > v)` for the right side), so a NaN value lands after every boundary
/// and NaN boundaries behave as in PyTorch. The index type is the template
/// argument: `searchsorted<int32_t>(...)` is PyTorch's `out_int32=True`.

#include <array>
#include <concepts>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/along_dim.hpp"
#include "tensorlib/ops/dispatch.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/index_common.hpp"
#include "tensorlib/ops/index_ops.hpp"
#include "tensorlib/ops/sort.hpp"

namespace tensorlib {

/// The index types `searchsorted` and `bucketize` can return.
template <class I>
concept SearchIndex = std::same_as<I, int64_t> || std::same_as<I, int32_t>;

namespace detail {

/// First position in [0, n) of `row` (through `sorter` if given) whose
/// boundary is >= value (right: > value).
template <Element T>
TENSORLIB_HOST_DEVICE int64_t search_row(const T* row, const int64_t* sorter, int64_t n, T value, bool right) {
  int64_t start = 0, end = n;
  while (start < end) {
    const int64_t mid = start + ((end - start) >> 1);
    const T b = sorter ? row[sorter[mid]] : row[mid];
    if (right ? !(b > value) : !(b >= value))
      start = mid + 1;
    else
      end = mid;
  }
  return start;
}

/// out[i] = the insertion position of v[i] in its row of `b` (the only row
/// when `one_row`), for contiguous v, out and b (rows of n boundaries) and
/// row-major i = o0: one functor for the CPU loop and the GPU kernel.
template <SearchIndex I, Element T>
struct SearchRows {
  I* out;
  const T* b;
  const T* v;
  const int64_t* sorter;
  int64_t n, row_len;
  bool one_row, right;
  TENSORLIB_HOST_DEVICE void operator()(const std::array<int64_t, 1>& o) const {
    const int64_t i = o[0], row = one_row ? 0 : i / row_len;
    out[i] = static_cast<I>(search_row(b + row * n, sorter ? sorter + row * n : nullptr, n, v[i], right));
  }
};

template <SearchIndex I, Element T>
Tensor<I> searchsorted_impl(const Tensor<T>& boundaries, const Tensor<T>& values, bool right,
                            std::optional<std::string_view> side, const std::optional<Tensor<int64_t>>& sorter,
                            const char* op) {
  static_assert(!std::is_same_v<T, bool>, "tl::searchsorted: bool tensors are not supported (as in PyTorch)");
  check_devices(op, boundaries.device(), values);
  if (side) {
    detail::check<ValueError>(*side == "left" || *side == "right", op, ": side can only be 'left' or 'right' but got ",
                              *side);
    detail::check<ValueError>(*side == "right" || !right, op,
                              ": side and right can't be set to opposites, got side of left while right was True");
    right = *side == "right";
  }
  if (sorter) {
    check_devices(op, boundaries.device(), *sorter);
    detail::check<ShapeError>(sorter->sizes() == boundaries.sizes(), op,
                              ": boundary and sorter must have the same size, but got boundary tensor ",
                              boundaries.sizes(), " and got sorter tensor ", sorter->sizes());
  }
  detail::check<ShapeError>(boundaries.dim() != 0, op,
                            ": boundaries tensor should have positive dimension, but got 0 dimension");
  detail::check<ShapeError>(values.dim() > 0 || boundaries.dim() == 1, op,
                            ": input value can be a scalar only when boundaries tensor dimension is 1, but we got "
                            "boundaries tensor dim(",
                            boundaries.dim(), ") and input value's dim(", values.dim(), ") numel(", values.numel(),
                            ")");
  bool leading_match = boundaries.dim() == values.dim();
  for (int64_t d = 0; leading_match && d + 1 < boundaries.dim(); ++d)
    leading_match = boundaries.size(d) == values.size(d);
  detail::check<ShapeError>(boundaries.dim() == 1 || leading_match, op,
                            ": boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
                            "tensor and input value tensor must match, but we got boundaries tensor ",
                            boundaries.sizes(), " and input value tensor ", values.sizes());
  const Tensor<T> b = boundaries.contiguous();
  const Tensor<T> v = values.contiguous();
  const int64_t n = boundaries.size(-1);
  Tensor<int64_t> s;
  if (sorter) {
    // PyTorch reads out of bounds here; we check (on a GPU, one reduction
    // first, then the host finds the first bad index for the message).
    s = sorter->contiguous();
    bool bad = true;
    if (!s.is_cpu()) {
      NoGradGuard no_grad;
      bad = s.numel() > 0 && any(logical_or(s < int64_t{0}, s >= n)).item();
    }
    const Tensor<int64_t> host = bad && !s.is_cpu() ? s.cpu() : s;
    for (int64_t i = 0; bad && i < host.numel(); ++i) {
      const int64_t at = host.data_ptr()[i];
      detail::check<IndexError>(at >= 0 && at < n, op, ": sorter index ", at,
                                " is out of range for boundaries of size ", n, " in the last dimension");
    }
  }
  auto out = empty<I>(values.sizes(), {.device = values.device()});
  const SearchRows<I, T> f{out.data_ptr(),
                           b.data_ptr(),
                           v.data_ptr(),
                           sorter ? s.data_ptr() : nullptr,
                           n,
                           values.dim() == 0 ? 1 : values.size(-1),
                           boundaries.dim() == 1,
                           right};
  dispatch_offsets<1>(values.device(), values.sizes(), {contiguous_strides(values.sizes())}, f, op);
  return out;
}

}  // namespace detail

/// `torch.searchsorted(sorted_sequence, input, right=False, side=None,
/// sorter=None)`: for each value, the index where it would be inserted into
/// the innermost dimension of `sorted_sequence` to keep it sorted (the first
/// such index, or the last with `right=true` / `side="right"`). A 1-d
/// sequence serves every value; otherwise its leading dimensions must equal
/// the input's. `sorter` holds indices that sort an unsorted sequence.
template <SearchIndex I = int64_t, Expression S, Expression E>
Tensor<I> searchsorted(const S& sorted_sequence, const E& input, bool right = false,
                       std::optional<std::string_view> side = std::nullopt,
                       const std::optional<Tensor<int64_t>>& sorter = std::nullopt) {
  static_assert(std::is_same_v<value_type_t<S>, value_type_t<E>>,
                "tl::searchsorted: the sequence and the values must have the same element type");
  const Tensor<value_type_t<S>> b = sorted_sequence;
  const Tensor<value_type_t<E>> v = input;
  return detail::searchsorted_impl<I>(b, v, right, side, sorter, "searchsorted");
}

/// `torch.searchsorted(sorted_sequence, value)` for one scalar value: a 0-d
/// result (the sequence must be 1-d).
template <SearchIndex I = int64_t, Expression S>
Tensor<I> searchsorted(const S& sorted_sequence, value_type_t<S> value, bool right = false,
                       std::optional<std::string_view> side = std::nullopt,
                       const std::optional<Tensor<int64_t>>& sorter = std::nullopt) {
  const Tensor<value_type_t<S>> b = sorted_sequence;
  return detail::searchsorted_impl<I>(b, full<value_type_t<S>>({}, value, {.device = b.device()}), right, side, sorter,
                                      "searchsorted");
}

/// `torch.bucketize(input, boundaries, right=False)`: for each value, the
/// index of its bucket in the 1-d sorted `boundaries` (boundaries[i-1] < x
/// <= boundaries[i]; with `right=true`, boundaries[i-1] <= x < boundaries[i]).
template <SearchIndex I = int64_t, Expression E, Expression B>
Tensor<I> bucketize(const E& input, const B& boundaries, bool right = false) {
  static_assert(std::is_same_v<value_type_t<B>, value_type_t<E>>,
                "tl::bucketize: the values and the boundaries must have the same element type");
  const Tensor<value_type_t<E>> v = input;
  const Tensor<value_type_t<B>> b = boundaries;
  detail::check<ShapeError>(b.dim() == 1, "bucketize: boundaries tensor must be 1 dimension, but got dim(", b.dim(),
                            ")");
  return detail::searchsorted_impl<I>(b, v, right, std::nullopt, std::nullopt, "bucketize");
}

/// `torch.bucketize(value, boundaries, right=False)` for one scalar value: a 0-d result.
template <SearchIndex I = int64_t, Expression B>
Tensor<I> bucketize(value_type_t<B> value, const B& boundaries, bool right = false) {
  const Tensor<value_type_t<B>> b = boundaries;
  return bucketize<I>(full<value_type_t<B>>({}, value, {.device = b.device()}), b, right);
}

/// Whether each element of `elements` equals some element of
/// `test_elements` (`torch.isin`), or does not with `invert`: a bool tensor
/// shaped like `elements`. Both are compared in their promoted type; the test
/// elements are sorted once and searched, so the cost is (n + m) log m. NaN
/// is in no set, as NaN == NaN is false. (`assume_unique` only promises what
/// the sort does not need.)
template <Expression E, Expression Test>
Tensor<bool> isin(const E& elements, const Test& test_elements, bool assume_unique = false, bool invert = false) {
  (void)assume_unique;
  using C = promote_t<value_type_t<E>, value_type_t<Test>>;
  const Tensor<C> x = Tensor<value_type_t<E>>(elements).template to<C>();
  Tensor<C> sorted = msort(Tensor<value_type_t<Test>>(test_elements).template to<C>().reshape({-1}));
  detail::check_same_device("isin", x, sorted);
  if constexpr (is_floating<C>) {
    // The sort puts NaNs last; they match nothing, and a binary search over
    // them would stray (as PyTorch's searchsorted does), so they are dropped.
    const int64_t nans = isnan(sorted).sum().item();
    sorted = sorted.narrow(0, 0, sorted.numel() - nans);
  }
  if (sorted.numel() == 0) return full<bool>(x.sizes(), invert, {.device = x.device()});
  // The first position not below each element holds it if anything does.
  const Tensor<int64_t> at = minimum(searchsorted(sorted, x), sorted.numel() - 1);
  const Tensor<C> candidate = take(sorted, at);
  return invert ? Tensor<bool>(candidate != x) : Tensor<bool>(candidate == x);
}
/// `isin` of one test value: elements == value (or != with `invert`), in
/// the promoted type.
template <Expression E, Scalar S>
Tensor<bool> isin(const E& elements, S test_element, bool assume_unique = false, bool invert = false) {
  (void)assume_unique;
  return invert ? Tensor<bool>(ne(elements, test_element)) : Tensor<bool>(eq(elements, test_element));
}
/// `isin` of one element: a 0-d bool tensor.
template <Scalar S, Expression Test>
Tensor<bool> isin(S element, const Test& test_elements, bool assume_unique = false, bool invert = false) {
  (void)assume_unique;
  const Tensor<bool> found = eq(test_elements, element).any();
  return invert ? Tensor<bool>(logical_not(found)) : found;
}

}  // namespace tensorlib
