#pragma once
/// \file
/// `Tensor<T>`: the typed tensor handle. Element type static, shape, strides
/// and device dynamic (DESIGN 3.1). Accessors are defined here; views,
/// pointwise methods and evaluation are declared here and defined by the
/// layer that implements them (ops/, expr/), as DESIGN section 2 asks.
///
/// Note [assignment semantics]
/// As in LibTorch, assigning to a tensor *variable* rebinds the handle:
/// `x = x + y` evaluates the expression into fresh memory and makes `x` refer
/// to it; other handles to the old tensor keep the old values. Assigning to a
/// *temporary* view writes into the viewed memory:
/// `x.slice(0, 0, 2) = y` or `x.index({0}) = 1.f`. In-place methods
/// (`add_`, `copy_`, `+=`) also write into existing memory. Every write into
/// existing memory is alias-safe: when a source overlaps the destination in
/// any way other than element-for-element, the source is evaluated into a
/// temporary first (Note [alias-safe writes] in ops/evaluate.hpp).

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorlib/core/device.hpp"
#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/generator.hpp"
#include "tensorlib/core/pointwise_methods.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor_impl.hpp"
#include "tensorlib/core/tensor_index.hpp"

namespace tensorlib {

template <Element T>
class Tensor;

/// A lazy expression whose result would become a Tensor<T> (any expression
/// but a Tensor<T> itself, which copies as a handle). A named concept rather
/// than a requires-clause: clang 14 cannot match the out-of-line definitions
/// of members constrained by an expression mentioning the injected class name.
template <class E, class T>
concept ForeignExpression = Expression<E> && !std::same_as<std::remove_cvref_t<E>, Tensor<T>>;

/// A handle to a strided, typed, device-resident array. Cheap to copy;
/// copies share the same tensor.
template <Element T>
class Tensor : public PointwiseMethods<Tensor<T>> {
 public:
  using value_type = T;
  using expression_tag = void;

  /// An undefined tensor (`defined() == false`).
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {
    detail::check<TypeError>(!impl_ || impl_->dtype == scalar_type_of<T>, "Tensor<", DTypeTraits<T>::name,
                             ">: cannot wrap a tensor of dtype ", impl_ ? impl_->dtype : scalar_type_of<T>);
  }
  /// Wraps existing storage with the given geometry (no copy).
  static Tensor from_storage(Storage storage, const Shape& sizes, const Shape& strides, int64_t offset) {
    return Tensor(std::make_shared<TensorImpl>(std::move(storage), sizes, strides, offset, scalar_type_of<T>));
  }

  /// Evaluates a lazy expression of the same element type into a new tensor.
  template <ForeignExpression<T> E>
  Tensor(const E& expr);  // NOLINT: implicit, so `Tensor<float> y = a + b;` reads naturally

  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) noexcept = default;
  ~Tensor() = default;

  /// Rebinds this handle (Note [assignment semantics]).
  Tensor& operator=(const Tensor&) & = default;
  Tensor& operator=(Tensor&&) & noexcept = default;
  /// Rebinds this handle to the evaluated expression.
  template <ForeignExpression<T> E>
  Tensor& operator=(const E& expr) &;
  /// Writes into the viewed memory (broadcasting, converting dtype).
  Tensor& operator=(const Tensor& src) &&;
  template <ForeignExpression<T> E>
  Tensor& operator=(const E& src) &&;
  /// Fills the viewed memory with a value.
  template <Scalar S>
  Tensor& operator=(S value) &&;

  // ---- properties -------------------------------------------------------

  bool defined() const noexcept { return impl_ != nullptr; }
  const std::shared_ptr<TensorImpl>& impl() const noexcept { return impl_; }
  const Storage& storage() const { return checked().storage; }
  const Shape& sizes() const { return checked().sizes; }
  const Shape& shape() const { return checked().sizes; }
  const Shape& strides() const { return checked().strides; }
  int64_t size(int64_t dim) const { return sizes()[wrap_dim(dim, this->dim(), "size")]; }
  int64_t stride(int64_t dim) const { return strides()[wrap_dim(dim, this->dim(), "stride")]; }
  int64_t dim() const { return checked().sizes.size(); }
  int64_t ndimension() const { return dim(); }
  int64_t numel() const { return checked().numel(); }
  int64_t storage_offset() const { return checked().offset; }
  Device device() const { return checked().storage.device(); }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_cuda() const { return device().is_cuda(); }
  static constexpr ScalarType dtype() noexcept { return scalar_type_of<T>; }
  static constexpr int64_t element_size() noexcept { return sizeof(T); }
  int64_t nbytes() const { return numel() * element_size(); }
  bool is_contiguous() const { return checked().is_contiguous(); }
  bool is_non_overlapping_and_dense() const { return checked().is_non_overlapping_and_dense(); }
  /// Pointer to element [0, ..., 0] (a device pointer for CUDA tensors).
  T* data_ptr() const { return static_cast<T*>(checked().data()); }
  /// True when both handles are the same tensor (not merely equal values).
  bool is_same(const Tensor& other) const noexcept { return impl_ == other.impl_; }
  /// True when both tensors view the same storage.
  bool is_alias_of(const Tensor& other) const { return storage().is_alias_of(other.storage()); }
  long use_count() const noexcept { return impl_.use_count(); }

  /// The single element's value; a `ValueError` unless `numel() == 1`.
  T item() const;
  /// All elements in row-major order.
  std::vector<T> to_vector() const;
  /// A materialized tensor is already evaluated: returns itself.
  const Tensor& eval() const& { return *this; }
  Tensor eval() && { return std::move(*this); }

  // ---- views (alias storage; defined in ops/views.hpp) -----------------

  Tensor view(const Shape& sizes) const;
  Tensor view_as(const Tensor& other) const { return view(other.sizes()); }
  Tensor reshape(const Shape& sizes) const;
  Tensor reshape_as(const Tensor& other) const { return reshape(other.sizes()); }
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor unflatten(int64_t dim, const Shape& sizes) const;
  Tensor permute(const Shape& dims) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor t() const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor expand(const Shape& sizes) const;
  template <Expression E>
  Tensor expand_as(const E& other) const {
    return expand(other.shape());
  }
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor slice(int64_t dim, SliceBound start = None, SliceBound end = None, int64_t step = 1) const;
  Tensor index(std::initializer_list<TensorIndex> indices) const;
  Tensor operator[](int64_t index) const { return select(0, index); }
  Tensor as_strided(const Shape& sizes, const Shape& strides, std::optional<int64_t> offset = std::nullopt) const;

  // ---- copies (defined in ops/copy.hpp) ---------------------------------

  /// This tensor if already contiguous, else a contiguous copy.
  Tensor contiguous() const;
  /// A copy with its own storage, keeping the layout of dense tensors.
  Tensor clone() const;
  /// Copies `src` (broadcast, converted) into this tensor's memory.
  template <Expression E>
  Tensor& copy_(const E& src);
  /// This tensor converted to element type U (itself when U == T).
  template <Element U>
  Tensor<U> to() const;
  /// Writes `value` into the elements selected by `indices`.
  template <Operand V>
  Tensor& index_put_(std::initializer_list<TensorIndex> indices, const V& value);

  // ---- in-place pointwise (defined in ops/inplace.hpp) ------------------

  Tensor& fill_(T value);
  Tensor& zero_();
  template <Operand O>
  Tensor& add_(const O& other, T alpha = T(1));
  template <Operand O>
  Tensor& sub_(const O& other, T alpha = T(1));
  template <Operand O>
  Tensor& mul_(const O& other);
  template <Operand O>
  Tensor& div_(const O& other);
  template <Operand O>
  Tensor& pow_(const O& exponent);
  template <Operand O>
  Tensor& operator+=(const O& other) {
    return add_(other);
  }
  template <Operand O>
  Tensor& operator-=(const O& other) {
    return sub_(other);
  }
  template <Operand O>
  Tensor& operator*=(const O& other) {
    return mul_(other);
  }
  template <Operand O>
  Tensor& operator/=(const O& other) {
    return div_(other);
  }
  /// Clamps in place; either bound may be `tl::None`.
  template <ClampBound Lo, ClampBound Hi = NoneType>
  Tensor& clamp_(Lo min, Hi max = None);
  template <Scalar S>
  Tensor& clamp_min_(S min) {
    return clamp_(min, None);
  }
  template <Scalar S>
  Tensor& clamp_max_(S max) {
    return clamp_(None, max);
  }
  /// Fills with values uniform on [from, to) (defined in ops/random.hpp).
  Tensor& uniform_(double from = 0, double to = 1, Generator& gen = default_generator());
  /// Fills with normal values.
  Tensor& normal_(double mean = 0, double std = 1, Generator& gen = default_generator());
  /// Applies a pointwise functor in place: `x.apply_(fn::Exp{})`.
  template <class F>
  Tensor& apply_(F f);

  Tensor& abs_();
  Tensor& acos_();
  Tensor& asin_();
  Tensor& atan_();
  Tensor& ceil_();
  Tensor& cos_();
  Tensor& cosh_();
  Tensor& digamma_();
  Tensor& erf_();
  Tensor& erfc_();
  Tensor& erfinv_();
  Tensor& exp_();
  Tensor& exp2_();
  Tensor& expm1_();
  Tensor& floor_();
  Tensor& frac_();
  Tensor& lgamma_();
  Tensor& log_();
  Tensor& log10_();
  Tensor& log1p_();
  Tensor& log2_();
  Tensor& neg_();
  Tensor& reciprocal_();
  Tensor& relu_();
  Tensor& round_();
  Tensor& rsqrt_();
  Tensor& sigmoid_();
  Tensor& sign_();
  Tensor& sin_();
  Tensor& sinh_();
  Tensor& sqrt_();
  Tensor& square_();
  Tensor& tan_();
  Tensor& tanh_();
  Tensor& trunc_();

 private:
  const TensorImpl& checked() const {
    detail::check<ValueError>(impl_ != nullptr, "tensor: operation on an undefined tensor");
    return *impl_;
  }

  std::shared_ptr<TensorImpl> impl_;
};

}  // namespace tensorlib
