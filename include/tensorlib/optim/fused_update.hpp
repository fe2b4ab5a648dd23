#pragma once
/// \file
/// `fused_update(f, tensors...)`: runs an update rule's element functor over
/// a parameter, its gradient and its state buffers as ONE fused loop (CPU) or
/// kernel (CUDA), Note [multi-output loops]; inside an optimizer step the
/// GPU updates of all parameters share one kernel (Note [multi-tensor steps]). Tensors passed as non-const
/// lvalues are written, const ones only read.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <tuple>
#include <type_traits>
#include <utility>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/copy.hpp"
#include "tensorlib/ops/dispatch.hpp"
#include "tensorlib/optim/step_batch.hpp"

namespace tensorlib::optim {

namespace detail {

template <Element T>
T* buffer_of(Tensor<T>& t) {
  return t.data_ptr();
}
template <Element T>
const T* buffer_of(const Tensor<T>& t) {
  return t.data_ptr();
}

template <Element T>
void bump_written(Tensor<T>& t) {
  t.storage().bump_version();
}
template <Element T>
void bump_written(const Tensor<T>&) {}

// Writes a contiguous working copy back into a non-contiguous tensor.
template <Element T>
void copy_back(Tensor<T>& t, const Tensor<T>& work) {
  if (work.impl() != t.impl()) t.copy_(work);
}
template <Element T>
void copy_back(const Tensor<T>&, const Tensor<T>&) {}

// Every pair of buffers must be the same memory or disjoint: the loop reads
// element i of each before writing it, which is safe for a buffer passed
// twice but races for partly overlapping ones (a view shifted by k).
inline void check_overlap(std::initializer_list<std::pair<const std::byte*, std::size_t>> ranges) {
  for (auto a = ranges.begin(); a != ranges.end(); ++a)
    for (auto b = a + 1; b != ranges.end(); ++b)
      tensorlib::detail::check<ValueError>(
          a->first == b->first || a->first + a->second <= b->first || b->first + b->second <= a->first,
          "optimizer step: two of the update's tensors partly overlap in memory");
}

template <class F, class Tuple, class Orig, std::size_t... I>
void run_contiguous(const F& f, Tuple& work, Orig& orig, std::index_sequence<I...>) {
  using T = typename std::remove_cvref_t<std::tuple_element_t<0, Orig>>::value_type;
  // Written tensors stay non-const lvalues, read ones become const.
  using Written = std::tuple<std::conditional_t<std::is_const_v<std::remove_reference_t<std::tuple_element_t<I, Orig>>>,
                                                const Tensor<T>&, Tensor<T>&>...>;
  Written w{std::get<I>(work)...};
  const auto& first = std::get<0>(work);
  check_overlap({{reinterpret_cast<const std::byte*>(std::get<I>(work).data_ptr()),
                  static_cast<std::size_t>(first.numel()) * sizeof(T)}...});
  // Inside an optimizer step, contiguous GPU updates join the step's
  // multi-tensor launch (Note [multi-tensor steps]).
  StepBatch* batch = StepBatch::active();
  if (batch != nullptr && first.is_cuda() && ((std::get<I>(work).impl() == std::get<I>(orig).impl()) && ...))
    batch->add<T>(first.device(), f, first.numel(), buffer_of(std::get<I>(w))...);
  else
    tensorlib::detail::dispatch_for_each<T>(first.device(), f, first.numel(), buffer_of(std::get<I>(w))...);
  (copy_back(std::get<I>(orig), std::get<I>(work)), ...);
  (bump_written(std::get<I>(orig)), ...);
}

}  // namespace detail

/// Calls f(elements...) for every element of the tensors, all of one shape,
/// element type and device, as one fused pass: a non-const tensor's element
/// is passed by reference and written back, a const tensor's by value.
/// Non-contiguous operands go through contiguous copies (written ones are
/// copied back). Written tensors get their version counters bumped.
template <class F, class First, class... Rest>
void fused_update(const F& f, First&& first, Rest&&... rest) {
  static_assert(std::is_lvalue_reference_v<First> && (std::is_lvalue_reference_v<Rest> && ...),
                "fused_update: pass named tensors (a non-const one is written, a const one read), not temporaries");
  const auto& head = first;
  [[maybe_unused]] auto check = [&](const auto& t) {
    tensorlib::detail::check<ShapeError>(t.sizes() == head.sizes(), "optimizer step: a state or gradient of shape ",
                                         t.sizes(), " for a parameter of shape ", head.sizes());
    tensorlib::detail::check<DeviceError>(t.device() == head.device(), "optimizer step: tensors on ", head.device(),
                                          " and ", t.device(), " in one update");
  };
  (check(rest), ...);
  auto orig = std::forward_as_tuple(first, rest...);
  auto work = std::tuple{head.contiguous(), rest.contiguous()...};
  detail::run_contiguous(f, work, orig, std::index_sequence_for<First, Rest...>{});
}

}  // namespace tensorlib::optim
