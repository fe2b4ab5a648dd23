#pragma once
/// \file
/// `tl::nn::functional` (torch.nn.functional; LibTorch's
/// torch::nn::functional): the losses, normalizations, layer functions and
/// dropouts of nn/functional/, and, under the same names, the ops PyTorch
/// also exposes there that live in ops/ and expr/ (convolutions, pools,
/// padding, activations, softmax, distances).
///
///     namespace F = tl::nn::functional;
///     auto loss = F::cross_entropy(F::linear(x, w, b), labels);

#include "tensorlib/expr/activations.hpp"
#include "tensorlib/expr/composites.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/nn/functional/attention.hpp"
#include "tensorlib/nn/functional/cross_entropy.hpp"
#include "tensorlib/nn/functional/ctc.hpp"
#include "tensorlib/nn/functional/interpolate.hpp"
#include "tensorlib/nn/functional/layers.hpp"
#include "tensorlib/nn/functional/loss.hpp"
#include "tensorlib/nn/functional/normalization.hpp"
#include "tensorlib/nn/functional/vision.hpp"
#include "tensorlib/ops/convolution.hpp"
#include "tensorlib/ops/distances.hpp"
#include "tensorlib/ops/pad.hpp"
#include "tensorlib/ops/pooling.hpp"
#include "tensorlib/ops/softmax.hpp"

namespace tensorlib::nn::functional {

// Convolutions, unfold/fold, padding.
using ::tensorlib::conv1d;
using ::tensorlib::conv2d;
using ::tensorlib::conv3d;
using ::tensorlib::conv_transpose1d;
using ::tensorlib::conv_transpose2d;
using ::tensorlib::conv_transpose3d;
using ::tensorlib::pad;
/// F.unfold: tl::im2col.
template <Element T>
Tensor<T> unfold(const Tensor<T>& input, const Shape& kernel_size, const Shape& dilation = {1},
                 const Shape& padding = {0}, const Shape& stride = {1}) {
  return im2col(input, kernel_size, dilation, padding, stride);
}
/// F.fold: tl::col2im.
template <Element T>
Tensor<T> fold(const Tensor<T>& input, const Shape& output_size, const Shape& kernel_size, const Shape& dilation = {1},
               const Shape& padding = {0}, const Shape& stride = {1}) {
  return col2im(input, output_size, kernel_size, dilation, padding, stride);
}

// Pools.
using ::tensorlib::adaptive_avg_pool1d;
using ::tensorlib::adaptive_avg_pool2d;
using ::tensorlib::adaptive_avg_pool3d;
using ::tensorlib::adaptive_max_pool1d;
using ::tensorlib::adaptive_max_pool1d_with_indices;
using ::tensorlib::adaptive_max_pool2d;
using ::tensorlib::adaptive_max_pool2d_with_indices;
using ::tensorlib::adaptive_max_pool3d;
using ::tensorlib::adaptive_max_pool3d_with_indices;
using ::tensorlib::avg_pool1d;
using ::tensorlib::avg_pool2d;
using ::tensorlib::avg_pool3d;
using ::tensorlib::lp_pool1d;
using ::tensorlib::lp_pool2d;
using ::tensorlib::max_pool1d;
using ::tensorlib::max_pool1d_with_indices;
using ::tensorlib::max_pool2d;
using ::tensorlib::max_pool2d_with_indices;
using ::tensorlib::max_pool3d;
using ::tensorlib::max_pool3d_with_indices;
using ::tensorlib::max_unpool1d;
using ::tensorlib::max_unpool2d;
using ::tensorlib::max_unpool3d;

// Activations, softmax, distances.
using ::tensorlib::celu;
using ::tensorlib::cosine_similarity;
using ::tensorlib::elu;
using ::tensorlib::gelu;
using ::tensorlib::hardshrink;
using ::tensorlib::hardsigmoid;
using ::tensorlib::hardswish;
using ::tensorlib::hardtanh;
using ::tensorlib::leaky_relu;
using ::tensorlib::log_softmax;
using ::tensorlib::logsigmoid;
using ::tensorlib::mish;
using ::tensorlib::pairwise_distance;
using ::tensorlib::pdist;
using ::tensorlib::relu;
using ::tensorlib::relu6;
using ::tensorlib::selu;
using ::tensorlib::sigmoid;
using ::tensorlib::silu;
using ::tensorlib::softmax;
using ::tensorlib::softplus;
using ::tensorlib::softshrink;
using ::tensorlib::softsign;
using ::tensorlib::tanh;
using ::tensorlib::tanhshrink;
using ::tensorlib::threshold;

}  // namespace tensorlib::nn::functional
