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
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorlib/core/device.hpp"
#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/generator.hpp"
#include "tensorlib/core/inplace_methods.hpp"
#include "tensorlib/core/pointwise_methods.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/slice.hpp"
#include "tensorlib/core/tensor_impl.hpp"

namespace tensorlib {

template <Element T>
class Tensor;
template <Element T>
struct ValuesIndices;
class TensorIndex;  // core/tensor_index.hpp: it holds index tensors, so it comes after Tensor
namespace autograd {
class Node;
}  // namespace autograd

/// A lazy expression whose result would become a Tensor<T> (any expression
/// but a Tensor<T> itself, which copies as a handle). A named concept rather
/// than a requires-clause: clang 14 cannot match the out-of-line definitions
/// of members constrained by an expression mentioning the injected class name.
template <class E, class T>
concept ForeignExpression = Expression<E> && !std::same_as<std::remove_cvref_t<E>, Tensor<T>>;

/// A handle to a strided, typed, device-resident array. Cheap to copy;
/// copies share the same tensor.
template <Element T>
class Tensor : public PointwiseMethods<Tensor<T>>, public InplaceMethods<T> {
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
  /// Implicit only for expressions of element type T (`Tensor<float> y = a + b;`),
  /// so overloads on Tensor<float>/Tensor<double> stay unambiguous; direct
  /// initialization from another type fails with a message naming `.to<T>()`.
  template <ForeignExpression<T> E>
  explicit(!ExpressionOf<E, T>) Tensor(const E& expr);

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

  /// False for a default-constructed handle.
  bool defined() const noexcept { return impl_ != nullptr; }
  /// The shared untyped state (what `AnyTensor` holds).
  const std::shared_ptr<TensorImpl>& impl() const noexcept { return impl_; }
  /// The buffer this tensor views.
  const Storage& storage() const { return checked().storage; }
  /// Extent of each dimension.
  const Shape& sizes() const { return checked().sizes; }
  /// Same as `sizes()` (the expression interface's name).
  const Shape& shape() const { return checked().sizes; }
  /// Step in elements between neighbours along each dimension.
  const Shape& strides() const { return checked().strides; }
  /// Extent of one dimension (negative dims count from the end).
  /// A 0-d tensor has none (IndexError, as PyTorch).
  int64_t size(int64_t dim) const { return sizes()[checked_dim(dim, "size")]; }
  /// Stride of one dimension (negative dims count from the end).
  int64_t stride(int64_t dim) const { return strides()[checked_dim(dim, "stride")]; }
  /// Number of dimensions.
  int64_t dim() const { return checked().sizes.size(); }
  /// Same as `dim()` (PyTorch's other name).
  int64_t ndimension() const { return dim(); }
  /// Number of elements.
  int64_t numel() const { return checked().numel(); }
  /// Offset of element [0, ..., 0] in the storage, in elements.
  int64_t storage_offset() const { return checked().offset; }
  /// Where the storage lives.
  Device device() const { return checked().storage.device(); }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_cuda() const { return device().is_cuda(); }
  /// The run-time tag of T.
  static constexpr ScalarType dtype() noexcept { return scalar_type_of<T>; }
  /// Whether T is a floating type.
  static constexpr bool is_floating_point() noexcept { return is_floating<T>; }
  /// Whether T is signed (bool and uint8 are not).
  static constexpr bool is_signed() noexcept { return !std::is_same_v<T, bool> && !std::is_same_v<T, uint8_t>; }
  /// Always false: there are no complex element types (complex numbers are
  /// pairs of real tensors, ops/complex_tensor.hpp).
  static constexpr bool is_complex() noexcept { return false; }
  /// The CUDA device's index, -1 for a CPU tensor (`x.get_device()`).
  int64_t get_device() const { return is_cuda() ? device().index : -1; }
  /// Same as `numel()`.
  int64_t nelement() const { return numel(); }
  /// Whether `other` has the same sizes.
  template <Element U>
  bool is_same_size(const Tensor<U>& other) const {
    return sizes() == other.sizes();
  }
  /// The single element's truth value; a `ValueError` for any other number of
  /// elements, which is ambiguous (PyTorch's RuntimeError).
  bool is_nonzero() const;
  /// This tensor converted to `other`'s element type and moved to its device.
  template <Element U>
  Tensor<U> type_as(const Tensor<U>& other) const {
    return this->template to<U>().to(other.device());
  }
  /// Bytes per element.
  static constexpr int64_t element_size() noexcept { return sizeof(T); }
  /// Bytes of the elements (not of the storage).
  int64_t nbytes() const { return numel() * element_size(); }
  /// Row-major contiguity (size-1 dimensions ignored, as in PyTorch).
  bool is_contiguous() const { return checked().is_contiguous(); }
  /// True when the elements tile a dense block in some dimension order.
  bool is_non_overlapping_and_dense() const { return checked().is_non_overlapping_and_dense(); }
  /// Pointer to element [0, ..., 0] (a device pointer for CUDA tensors).
  T* data_ptr() const { return static_cast<T*>(checked().data()); }
  /// True when both handles are the same tensor (not merely equal values).
  bool is_same(const Tensor& other) const noexcept { return impl_ == other.impl_; }
  /// True when both tensors view the same storage.
  bool is_alias_of(const Tensor& other) const { return storage().is_alias_of(other.storage()); }
  /// Number of handles sharing this tensor.
  long use_count() const noexcept { return impl_.use_count(); }

  /// The single element's value; a `ValueError` unless `numel() == 1`.
  T item() const;
  /// All elements in row-major order.
  std::vector<T> to_vector() const;
  /// A materialized tensor is already evaluated: returns itself.
  const Tensor& eval() const& { return *this; }
  Tensor eval() && { return std::move(*this); }

  // Autograd. The state lives in the TensorImpl (core/autograd_meta.hpp);
  // the graph operations are defined in autograd/tensor_methods.hpp.

  /// True for a leaf that asked for gradients or a result of recorded ops.
  bool requires_grad() const { return checked().requires_grad(); }
  /// Makes a leaf require (or stop requiring) gradients; floating types only.
  Tensor& requires_grad_(bool requires_grad = true);
  /// True for tensors not produced by a recorded op (PyTorch's `is_leaf`).
  bool is_leaf() const { return !checked().autograd || !impl_->autograd->grad_fn; }
  /// The accumulated gradient (undefined until a backward fills it).
  Tensor grad() const;
  /// Replaces the accumulated gradient (an undefined tensor clears it).
  void set_grad(const Tensor& grad) const;
  /// The node that produced this tensor; null for leaves.
  std::shared_ptr<autograd::Node> grad_fn() const;
  /// Which output of `grad_fn()` this tensor is.
  uint32_t output_nr() const { return checked().autograd ? impl_->autograd->output_nr : 0; }
  /// Keeps the gradient of a non-leaf in `grad()` after backward.
  void retain_grad() const;
  /// True after `retain_grad()` on a non-leaf.
  bool retains_grad() const { return checked().autograd && impl_->autograd->retains_grad; }
  /// Computes the gradients of this tensor with respect to the graph leaves
  /// and accumulates them into their `grad()`. A non-scalar needs `gradient`.
  void backward(const Tensor& gradient = {}, std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false) const;
  /// A new tensor sharing this one's memory, outside the graph.
  Tensor detach() const;
  /// Removes this tensor from the graph: it becomes a leaf not requiring grad.
  Tensor& detach_();
  /// Calls `hook(grad)` whenever a gradient for this tensor is computed; a
  /// defined returned tensor replaces the gradient. Returns the hook's index.
  template <class F>
  std::size_t register_hook(F hook) const;
  /// In-place writes seen by this tensor's memory (shared by its views).
  uint32_t _version() const { return storage().version(); }

  // Views: they alias the storage (defined in ops/views.hpp).

  /// The same elements with another shape (one size may be -1); an error
  /// when the strides cannot express it (use `reshape`).
  Tensor view(const Shape& sizes) const;
  /// `view` with another tensor's shape.
  Tensor view_as(const Tensor& other) const { return view(other.sizes()); }
  /// A view when possible, else a contiguous copy, with the given shape.
  Tensor reshape(const Shape& sizes) const;
  /// `reshape` to another tensor's shape.
  Tensor reshape_as(const Tensor& other) const { return reshape(other.sizes()); }
  /// Merges dimensions start_dim..end_dim into one.
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  /// Splits one dimension into `sizes` (one may be -1).
  Tensor unflatten(int64_t dim, const Shape& sizes) const;
  /// Reorders the dimensions.
  Tensor permute(const Shape& dims) const;
  /// Swaps two dimensions.
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  /// Transpose of a tensor with at most two dimensions.
  Tensor t() const;
  /// Inserts a size-1 dimension at `dim`.
  Tensor unsqueeze(int64_t dim) const;
  /// Removes every size-1 dimension.
  Tensor squeeze() const;
  /// Removes dimension `dim` if its size is 1.
  Tensor squeeze(int64_t dim) const;
  /// Repeats size-1 dimensions (stride 0) and prepends new ones; -1 keeps a size.
  Tensor expand(const Shape& sizes) const;
  /// `expand` to another expression's shape.
  template <Expression E>
  Tensor expand_as(const E& other) const;
  /// Elements start..start+length-1 of one dimension.
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  /// The slice at `index` of one dimension, which is removed.
  Tensor select(int64_t dim, int64_t index) const;
  /// Python's `x[start:end:step]` along one dimension.
  Tensor slice(int64_t dim, SliceBound start = None, SliceBound end = None, int64_t step = 1) const;
  /// Uninitialized, 0, 1 or `value`, of this element type on this device (ops/factories.hpp).
  Tensor new_empty(const Shape& sizes) const;
  Tensor new_zeros(const Shape& sizes) const;
  Tensor new_ones(const Shape& sizes) const;
  Tensor new_full(const Shape& sizes, T value) const;
  /// The last two dimensions swapped (`x.mT`), for matrices or batches of them.
  Tensor mT() const;
  /// `mT()`: the conjugate transpose of a real tensor (PyTorch's `x.mH`).
  Tensor mH() const { return mT(); }
  /// The conjugate transpose of the last two dimensions (`x.adjoint()`),
  /// `mT()` of a real tensor (ops/swap_axes.hpp).
  Tensor adjoint() const;
  /// The conjugate transpose of a matrix (`x.H`): `t()` of a real 2-d
  /// tensor, the tensor itself when 0-d (ops/swap_axes.hpp).
  Tensor H() const;
  /// A contiguous 1-d tensor of the elements: a view when already contiguous (torch.ravel).
  Tensor ravel() const { return contiguous().view({-1}); }
  /// `narrow` as a new tensor (clone's layout), not a view.
  Tensor narrow_copy(int64_t dim, int64_t start, int64_t length) const { return narrow(dim, start, length).clone(); }
  /// Windows of `size` along `dim`, `step` apart, as a new last dim (a view).
  Tensor unfold(int64_t dim, int64_t size, int64_t step) const;
  /// LibTorch's indexing form: integers, `Slice`s, `None` and `Ellipsis` give
  /// a view; index tensors (`Tensor<int64_t>`, `Tensor<bool>` masks) among
  /// them give a copy with NumPy/PyTorch's advanced-indexing rules
  /// (defined in ops/advanced_index.hpp).
  Tensor index(std::initializer_list<TensorIndex> indices) const;
  /// `index` of a list built at run time.
  Tensor index(const std::vector<TensorIndex>& indices) const;
  /// `select(0, index)`.
  Tensor operator[](int64_t index) const { return select(0, index); }
  /// A view with explicit sizes, strides and storage offset (bounds-checked).
  Tensor as_strided(const Shape& sizes, const Shape& strides, std::optional<int64_t> offset = std::nullopt) const;

  // In-place views (defined in ops/inplace_views.hpp): this tensor, and every
  // handle of it, takes the view's geometry and history (Note [in-place views]).

  /// `t()` in place.
  Tensor& t_();
  /// `transpose(dim0, dim1)` in place.
  Tensor& transpose_(int64_t dim0, int64_t dim1);
  /// `transpose_` under NumPy's name.
  Tensor& swapaxes_(int64_t axis0, int64_t axis1) { return transpose_(axis0, axis1); }
  /// `transpose_` under PyTorch's other name.
  Tensor& swapdims_(int64_t dim0, int64_t dim1) { return transpose_(dim0, dim1); }
  /// `unsqueeze(dim)` in place.
  Tensor& unsqueeze_(int64_t dim);
  /// `squeeze()` in place.
  Tensor& squeeze_();
  /// `squeeze(dim)` in place.
  Tensor& squeeze_(int64_t dim);
  /// `as_strided(sizes, strides, offset)` in place.
  Tensor& as_strided_(const Shape& sizes, const Shape& strides, std::optional<int64_t> offset = std::nullopt);
  /// Gives this tensor `sizes` with contiguous strides, keeping its offset
  /// and its elements in storage order; a storage too small grows (its old
  /// bytes kept, the new ones uninitialized), for every tensor sharing it
  /// (ops/resize.hpp). Refused for a tensor that requires grad.
  Tensor& resize_(const Shape& sizes);
  /// `resize_(other.sizes())`.
  template <Element U>
  Tensor& resize_as_(const Tensor<U>& other) {
    return resize_(other.sizes());
  }

  // Copies (defined in ops/copy.hpp).

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
  /// This tensor on `device` (itself when already there). `non_blocking`
  /// returns before the copy has run (Note [current stream]); differentiable.
  Tensor to(Device device, bool non_blocking = false) const;
  /// `to(kCUDA)` / `to(Device(kCUDA, index))`.
  Tensor cuda(int index = -1, bool non_blocking = false) const {
    return to(Device(kCUDA, static_cast<int8_t>(index)), non_blocking);
  }
  /// `to(kCPU)`.
  Tensor cpu() const { return to(Device(kCPU)); }
  /// A copy in pinned host memory (itself when already pinned); CPU tensors
  /// only, needs the CUDA runtime (backend/cuda/host_allocator.hpp).
  Tensor pin_memory() const;
  /// True when this tensor's memory is pinned host memory.
  bool is_pinned() const;

  // In-place pointwise ops: InplaceMethods (core/inplace_methods.hpp).

  // In-place random fills (defined in ops/random_fill.hpp).

  /// Fills with values uniform on [from, to).
  Tensor& uniform_(double from = 0, double to = 1, Generator& gen = default_generator());
  /// Fills with normal values.
  Tensor& normal_(double mean = 0, double std = 1, Generator& gen = default_generator());
  /// Fills with 1 (probability p) or 0.
  Tensor& bernoulli_(double p = 0.5, Generator& gen = default_generator());
  /// Fills with 1 where a uniform draw falls below p (broadcast to this shape), else 0.
  template <Element P>
  Tensor& bernoulli_(const Tensor<P>& p, Generator& gen = default_generator());
  /// Fills with exponential values of rate lambd.
  Tensor& exponential_(double lambd = 1, Generator& gen = default_generator());
  /// Fills with the number of Bernoulli(p) trials up to the first success (>= 1).
  Tensor& geometric_(double p, Generator& gen = default_generator());
  /// Fills with exp of normal values of the given mean and std.
  Tensor& log_normal_(double mean = 1, double std = 2, Generator& gen = default_generator());
  /// Fills with Cauchy values of the given median and scale.
  Tensor& cauchy_(double median = 0, double sigma = 1, Generator& gen = default_generator());
  /// Fills with integers uniform on [from, to); without `to`, on [from, the
  /// largest T] (2^digits for floating T, so that every value is exact).
  Tensor& random_(int64_t from, std::optional<int64_t> to, Generator& gen = default_generator());
  /// random_(0, to).
  Tensor& random_(int64_t to, Generator& gen = default_generator());
  /// random_(0, None).
  Tensor& random_(Generator& gen = default_generator());

  // linear algebra (ops/linalg.hpp)

  /// Matrix product with a 2-D tensor (`tl::mm`).
  template <Expression E>
  Tensor mm(const E& mat2) const;
  /// Matrix-vector product (`tl::mv`).
  template <Expression E>
  Tensor mv(const E& vec) const;
  /// Batched matrix product of 3-D tensors (`tl::bmm`).
  template <Expression E>
  Tensor bmm(const E& mat2) const;
  /// `tl::matmul`: dot, mv, mm or broadcast batched product by dimension.
  template <Expression E>
  Tensor matmul(const E& other) const;
  /// Inner product of 1-D tensors, a 0-d tensor (`tl::dot`).
  template <Expression E>
  Tensor dot(const E& other) const;
  /// `tl::addmm(*this, mat1, mat2, beta, alpha)`, `addmv`, `addbmm`, `baddbmm`
  /// and `addr` (ops/linalg_composites.hpp); the `_` forms write the result
  /// into this tensor, whose shape it must have.
  Tensor addmm(const Tensor& mat1, const Tensor& mat2, T beta = T(1), T alpha = T(1)) const;
  Tensor& addmm_(const Tensor& mat1, const Tensor& mat2, T beta = T(1), T alpha = T(1));
  Tensor addmv(const Tensor& mat, const Tensor& vec, T beta = T(1), T alpha = T(1)) const;
  Tensor& addmv_(const Tensor& mat, const Tensor& vec, T beta = T(1), T alpha = T(1));
  Tensor addbmm(const Tensor& batch1, const Tensor& batch2, T beta = T(1), T alpha = T(1)) const;
  Tensor& addbmm_(const Tensor& batch1, const Tensor& batch2, T beta = T(1), T alpha = T(1));
  Tensor baddbmm(const Tensor& batch1, const Tensor& batch2, T beta = T(1), T alpha = T(1)) const;
  Tensor& baddbmm_(const Tensor& batch1, const Tensor& batch2, T beta = T(1), T alpha = T(1));
  Tensor addr(const Tensor& vec1, const Tensor& vec2, T beta = T(1), T alpha = T(1)) const;
  Tensor& addr_(const Tensor& vec1, const Tensor& vec2, T beta = T(1), T alpha = T(1));

  /// Sums over the dimensions along which `size` would be broadcast to this
  /// tensor's shape, giving a tensor of shape `size` (ops/reduce.hpp).
  Tensor sum_to_size(const Shape& size) const;

  // Sorting (ops/sort.hpp).

  /// `tl::sort(*this, dim, descending, stable)`: sorted values and their indices.
  ValuesIndices<T> sort(int64_t dim = -1, bool descending = false, bool stable = false) const;
  /// `tl::argsort(*this, dim, descending, stable)`: the indices that sort this tensor.
  Tensor<int64_t> argsort(int64_t dim = -1, bool descending = false, bool stable = false) const;
  /// `tl::topk(*this, k, dim, largest, sorted)`: the k largest (or smallest) values and their indices.
  ValuesIndices<T> topk(int64_t k, int64_t dim = -1, bool largest = true, bool sorted = true) const;

  // Joining and splitting (defined in ops/join.hpp); the pieces are views.

  /// `chunks` views along `dim` of ceil(size / chunks) elements (torch.chunk).
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  /// Views of `split_size` elements along `dim`, the last possibly smaller.
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  /// Views of the given sizes along `dim` (they must add up to its size).
  std::vector<Tensor> split(const std::vector<int64_t>& split_sizes, int64_t dim = 0) const;
  /// Braces are a list of sizes, as in Python: `x.split({2, 3})`.
  std::vector<Tensor> split(std::initializer_list<int64_t> split_sizes, int64_t dim = 0) const;
  /// The slices along `dim`, each without that dimension.
  std::vector<Tensor> unbind(int64_t dim = 0) const;
  /// `tl::hsplit`, `tl::vsplit`, `tl::dsplit` (defined in ops/stacking.hpp):
  /// `sections` equal views, or the views between `indices`; braces are a
  /// list of indices, as in Python: `x.vsplit({1})`.
  std::vector<Tensor> hsplit(int64_t sections) const;
  std::vector<Tensor> hsplit(const std::vector<int64_t>& indices) const;
  std::vector<Tensor> hsplit(std::initializer_list<int64_t> indices) const;
  std::vector<Tensor> vsplit(int64_t sections) const;
  std::vector<Tensor> vsplit(const std::vector<int64_t>& indices) const;
  std::vector<Tensor> vsplit(std::initializer_list<int64_t> indices) const;
  std::vector<Tensor> dsplit(int64_t sections) const;
  std::vector<Tensor> dsplit(const std::vector<int64_t>& indices) const;
  std::vector<Tensor> dsplit(std::initializer_list<int64_t> indices) const;

  // Rearranging (defined in ops/rearrange.hpp).

  /// Tiles the tensor `repeats[i]` times along each dimension (torch.Tensor.repeat).
  Tensor repeat(const Shape& repeats) const;
  /// A copy with the order of elements reversed along `dims`.
  Tensor flip(const Shape& dims) const;
  /// A copy shifted circularly by `shifts` along `dims` (none: the flattened tensor).
  Tensor roll(const Shape& shifts, const Shape& dims = {}) const;
  /// A view with dimensions `source` moved to positions `destination`.
  Tensor movedim(const Shape& source, const Shape& destination) const;
  /// `movedim` of one dimension.
  Tensor movedim(int64_t source, int64_t destination) const;

  // Indexing by tensors (defined in ops/gather_scatter.hpp, ops/index_ops.hpp,
  // ops/masked.hpp, ops/advanced_index.hpp); index tensors are int64, masks bool.

  /// `tl::gather(*this, dim, index)`.
  Tensor gather(int64_t dim, const Tensor<int64_t>& index) const;
  /// `tl::scatter(*this, dim, index, src)`.
  Tensor scatter(int64_t dim, const Tensor<int64_t>& index, const Tensor& src) const;
  /// `tl::scatter(*this, dim, index, value)`.
  Tensor scatter(int64_t dim, const Tensor<int64_t>& index, T value) const;
  /// Writes src[i][j][k] into self[index[i][j][k]][j][k] (dim 0), or combines
  /// with `reduce` "add" / "multiply".
  Tensor& scatter_(int64_t dim, const Tensor<int64_t>& index, const Tensor& src, std::string_view reduce = {});
  /// `scatter_` of one value.
  Tensor& scatter_(int64_t dim, const Tensor<int64_t>& index, T value, std::string_view reduce = {});
  /// `tl::scatter_add(*this, dim, index, src)`.
  Tensor scatter_add(int64_t dim, const Tensor<int64_t>& index, const Tensor& src) const;
  /// Adds src into the positions `index` names along `dim`.
  Tensor& scatter_add_(int64_t dim, const Tensor<int64_t>& index, const Tensor& src);
  /// `tl::scatter_reduce(*this, dim, index, src, reduce, include_self)`.
  Tensor scatter_reduce(int64_t dim, const Tensor<int64_t>& index, const Tensor& src, std::string_view reduce,
                        bool include_self = true) const;
  /// Reduces src into the positions `index` names ("sum", "prod", "mean", "amax", "amin").
  Tensor& scatter_reduce_(int64_t dim, const Tensor<int64_t>& index, const Tensor& src, std::string_view reduce,
                          bool include_self = true);
  /// `tl::index_reduce(*this, dim, index, source, reduce, include_self)` and
  /// its in-place form (ops/gather_scatter.hpp).
  Tensor index_reduce(int64_t dim, const Tensor<int64_t>& index, const Tensor& source, std::string_view reduce,
                      bool include_self = true) const;
  Tensor& index_reduce_(int64_t dim, const Tensor<int64_t>& index, const Tensor& source, std::string_view reduce,
                        bool include_self = true);
  /// `tl::index_select(*this, dim, index)`.
  Tensor index_select(int64_t dim, const Tensor<int64_t>& index) const;
  /// `index_select` with an int32 index (PyTorch accepts one here).
  Tensor index_select(int64_t dim, const Tensor<int32_t>& index) const;
  /// `tl::index_add(*this, dim, index, source, alpha)`.
  Tensor index_add(int64_t dim, const Tensor<int64_t>& index, const Tensor& source, T alpha = T(1)) const;
  /// self[index[i]] += alpha * source[i] along `dim`.
  Tensor& index_add_(int64_t dim, const Tensor<int64_t>& index, const Tensor& source, T alpha = T(1));
  /// `index_add_` with an int32 index (PyTorch accepts one here).
  Tensor& index_add_(int64_t dim, const Tensor<int32_t>& index, const Tensor& source, T alpha = T(1));
  /// `tl::index_copy(*this, dim, index, source)`.
  Tensor index_copy(int64_t dim, const Tensor<int64_t>& index, const Tensor& source) const;
  /// self[index[i]] = source[i] along `dim`.
  Tensor& index_copy_(int64_t dim, const Tensor<int64_t>& index, const Tensor& source);
  /// `tl::index_fill(*this, dim, index, value)`.
  Tensor index_fill(int64_t dim, const Tensor<int64_t>& index, T value) const;
  /// self[index[i]] = value along `dim`.
  Tensor& index_fill_(int64_t dim, const Tensor<int64_t>& index, T value);
  /// Writes `value` (a scalar, or an expression broadcast) where `indices` select.
  template <Operand V>
  Tensor& index_put_(std::initializer_list<TensorIndex> indices, const V& value);
  /// `index_put_` of a list built at run time.
  template <Operand V>
  Tensor& index_put_(const std::vector<TensorIndex>& indices, const V& value);
  /// PyTorch's `index_put_(indices, values, accumulate)`: one optional index
  /// tensor per leading dimension (nullopt = the whole dimension).
  Tensor& index_put_(const std::vector<std::optional<Tensor<int64_t>>>& indices, const Tensor& values,
                     bool accumulate = false);
  /// `tl::index_put(*this, indices, values, accumulate)`.
  Tensor index_put(const std::vector<std::optional<Tensor<int64_t>>>& indices, const Tensor& values,
                   bool accumulate = false) const;
  /// `tl::masked_select(*this, mask)`.
  Tensor masked_select(const Tensor<bool>& mask) const;
  /// `tl::masked_fill(*this, mask, value)`.
  Tensor masked_fill(const Tensor<bool>& mask, T value) const;
  /// `masked_fill` with a 0-d value tensor.
  Tensor masked_fill(const Tensor<bool>& mask, const Tensor& value) const;
  /// Sets the elements where `mask` (broadcast to this shape) is true.
  Tensor& masked_fill_(const Tensor<bool>& mask, T value);
  /// `masked_fill_` with a 0-d value tensor.
  Tensor& masked_fill_(const Tensor<bool>& mask, const Tensor& value);
  /// `tl::masked_scatter(*this, mask, source)`.
  Tensor masked_scatter(const Tensor<bool>& mask, const Tensor& source) const;
  /// Copies source's elements, in order, into the positions where `mask` is true.
  Tensor& masked_scatter_(const Tensor<bool>& mask, const Tensor& source);
  /// `tl::take(*this, index)`.
  Tensor take(const Tensor<int64_t>& index) const;
  /// `tl::put(*this, index, source, accumulate)`.
  Tensor put(const Tensor<int64_t>& index, const Tensor& source, bool accumulate = false) const;
  /// Writes source into the flat (row-major) positions `index`, or adds with `accumulate`.
  Tensor& put_(const Tensor<int64_t>& index, const Tensor& source, bool accumulate = false);
  /// `tl::nonzero(*this)`: the (n, dim) coordinates of the nonzero elements.
  Tensor<int64_t> nonzero() const;
  /// `tl::argwhere(*this)`, the same as `nonzero()`.
  Tensor<int64_t> argwhere() const;

  // Diagonals and triangles (defined in ops/triangular.hpp).

  /// A view of diagonal `offset` of the matrices in dims `dim1`, `dim2`, as the last dim.
  Tensor diagonal(int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  /// A copy with elements above diagonal `diagonal` of the last two dims zeroed.
  Tensor tril(int64_t diagonal = 0) const;
  /// A copy with elements below diagonal `diagonal` of the last two dims zeroed.
  Tensor triu(int64_t diagonal = 0) const;
  /// `tril`, `triu`, `cumsum` and `cumprod` written back into this tensor, in
  /// its element type (ops/triangular.hpp, ops/scan.hpp).
  Tensor& tril_(int64_t diagonal = 0);
  Tensor& triu_(int64_t diagonal = 0);
  Tensor& cumsum_(int64_t dim);
  Tensor& cumprod_(int64_t dim);

 private:
  const TensorImpl& checked() const {
    detail::check<ValueError>(impl_ != nullptr, "tensor: operation on an undefined tensor");
    return *impl_;
  }
  /// `dim` wrapped for size() and stride(), which a 0-d tensor does not have.
  int64_t checked_dim(int64_t d, const char* op) const {
    detail::check<IndexError>(this->dim() > 0, op, ": dimension specified as ", d, " but tensor has no dimensions");
    return wrap_dim(d, this->dim(), op);
  }

  std::shared_ptr<TensorImpl> impl_;
};

}  // namespace tensorlib
