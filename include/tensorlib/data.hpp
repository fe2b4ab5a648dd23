#pragma once
/// \file
/// The data layer over the tensor layers: datasets, samplers, collation and the
/// DataLoader.
/// A layer header: it only includes (STYLE 3). Each one includes tensor.hpp
/// first, so that every Tensor method a layer's code calls is defined.

#include "tensorlib/tensor.hpp"

#include "tensorlib/data/collate.hpp"
#include "tensorlib/data/dataloader.hpp"
#include "tensorlib/data/dataset.hpp"
#include "tensorlib/data/sampler.hpp"
