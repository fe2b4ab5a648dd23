#pragma once
/// \file
/// `DefaultCollate` (torch.utils.data.default_collate): a list of examples
/// into a batch. Tensors are stacked along a new first dimension, numbers
/// become a tensor (integers int64, bools bool, floating-point double, as
/// PyTorch's), and tuples and pairs are collated element by element.

#include <cstdint>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/traverse.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/join.hpp"

namespace tensorlib::data {

namespace detail {

template <class E>
concept TupleLike = requires {
  std::tuple_size<E>::value;
};

}  // namespace detail

/// Collates examples of type E: Tensor<T>, a number, or a tuple / pair of
/// those (nested).
struct DefaultCollate {
  template <class E>
  auto operator()(const std::vector<E>& examples) const {
    tensorlib::detail::check<ValueError>(!examples.empty(), "default_collate: no examples to collate");
    if constexpr (is_tensor_v<E>) {
      return stack(examples, 0);
    } else if constexpr (std::is_arithmetic_v<E>) {
      using V =
          std::conditional_t<std::is_same_v<E, bool>, bool, std::conditional_t<std::is_integral_v<E>, int64_t, double>>;
      std::vector<V> values(examples.begin(), examples.end());
      const auto n = static_cast<int64_t>(values.size());
      if constexpr (std::is_same_v<V, bool>) {
        Tensor<bool> out = empty<bool>({n});
        for (int64_t i = 0; i < n; ++i) out.data_ptr()[i] = values[static_cast<std::size_t>(i)];
        return out;
      } else {
        return from_blob(std::span<V>(values), {n}).clone();
      }
    } else if constexpr (detail::TupleLike<E>) {
      return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return std::make_tuple((*this)(column<I>(examples))...);
      }
      (std::make_index_sequence<std::tuple_size_v<E>>{});
    } else {
      static_assert(std::is_arithmetic_v<E>,
                    "DefaultCollate: examples must be tensors, numbers, or tuples of them; pass a collate "
                    "function of your own for other types");
    }
  }

 private:
  template <std::size_t I, class E>
  static auto column(const std::vector<E>& examples) {
    std::vector<std::remove_cvref_t<std::tuple_element_t<I, E>>> out;
    out.reserve(examples.size());
    for (const auto& e : examples) out.push_back(std::get<I>(e));
    return out;
  }
};

}  // namespace tensorlib::data
