#pragma once
/// \file
/// The io layer over the tensor layers: JSON, safetensors, .npy, .npz and torch.save
/// files (models' and optimizers' state).
/// A layer header: it only includes (STYLE 3). Each one includes tensor.hpp
/// first, so that every Tensor method a layer's code calls is defined.

#include "tensorlib/tensor.hpp"

#include "tensorlib/io/json.hpp"
#include "tensorlib/io/npy.hpp"
#include "tensorlib/io/npz.hpp"
#include "tensorlib/io/optimizer_state.hpp"
#include "tensorlib/io/pickle_value.hpp"
#include "tensorlib/io/pickler.hpp"
#include "tensorlib/io/pt.hpp"
#include "tensorlib/io/safetensors.hpp"
#include "tensorlib/io/scheduler_state.hpp"
#include "tensorlib/io/unpickler.hpp"
#include "tensorlib/io/zip_reader.hpp"
#include "tensorlib/io/zip_writer.hpp"
