#pragma once
/// \file
/// The umbrella header: includes every public header through the layer
/// headers, in layer order (tensor: core, expr, backend, ops, autograd; then
/// nn, optim, data, io). It contains nothing else (STYLE 3). A program that
/// uses fewer layers may include only theirs (docs/architecture.md, "Layer
/// headers").

#include "tensorlib/tensor.hpp"

#include "tensorlib/nn.hpp"

#include "tensorlib/optim.hpp"

#include "tensorlib/data.hpp"

#include "tensorlib/io.hpp"
