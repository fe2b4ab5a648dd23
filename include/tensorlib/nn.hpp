#pragma once
/// \file
/// The nn layer over the tensor layers: nn::functional, nn::init and the modules.
/// A layer header: it only includes (STYLE 3). Each one includes tensor.hpp
/// first, so that every Tensor method a layer's code calls is defined.

#include "tensorlib/tensor.hpp"

#include "tensorlib/nn/functional.hpp"
#include "tensorlib/nn/functional/attention.hpp"
#include "tensorlib/nn/functional/cross_entropy.hpp"
#include "tensorlib/nn/functional/ctc.hpp"
#include "tensorlib/nn/functional/interpolate.hpp"
#include "tensorlib/nn/functional/layers.hpp"
#include "tensorlib/nn/functional/loss.hpp"
#include "tensorlib/nn/functional/normalization.hpp"
#include "tensorlib/nn/functional/vision.hpp"
#include "tensorlib/nn/init.hpp"
#include "tensorlib/nn/module.hpp"
#include "tensorlib/nn/module_detail.hpp"
#include "tensorlib/nn/modules/activation.hpp"
#include "tensorlib/nn/modules/batchnorm.hpp"
#include "tensorlib/nn/modules/container.hpp"
#include "tensorlib/nn/modules/conv.hpp"
#include "tensorlib/nn/modules/dropout.hpp"
#include "tensorlib/nn/modules/linear.hpp"
#include "tensorlib/nn/modules/loss.hpp"
#include "tensorlib/nn/modules/normalization.hpp"
#include "tensorlib/nn/modules/pooling.hpp"
#include "tensorlib/nn/modules/rnn.hpp"
#include "tensorlib/nn/modules/sparse.hpp"
#include "tensorlib/nn/modules/transformer.hpp"
#include "tensorlib/nn/modules/transformer_decoder.hpp"
#include "tensorlib/nn/packed_sequence.hpp"
#include "tensorlib/nn/state_dict.hpp"
