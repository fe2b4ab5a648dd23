#pragma once
/// \file
/// The optim layer over the tensor layers: the optimizers and the learning-rate
/// schedulers.
/// A layer header: it only includes (STYLE 3). Each one includes tensor.hpp
/// first, so that every Tensor method a layer's code calls is defined.

#include "tensorlib/tensor.hpp"

#include "tensorlib/optim/adagrad.hpp"
#include "tensorlib/optim/adam.hpp"
#include "tensorlib/optim/adamax.hpp"
#include "tensorlib/optim/chained_scheduler.hpp"
#include "tensorlib/optim/clip_grad.hpp"
#include "tensorlib/optim/cosine_annealing_warm_restarts.hpp"
#include "tensorlib/optim/cyclic_lr.hpp"
#include "tensorlib/optim/decay_lr.hpp"
#include "tensorlib/optim/fused_update.hpp"
#include "tensorlib/optim/lambda_lr.hpp"
#include "tensorlib/optim/lbfgs.hpp"
#include "tensorlib/optim/lbfgs_state.hpp"
#include "tensorlib/optim/lr_scheduler.hpp"
#include "tensorlib/optim/lr_scheduler_base.hpp"
#include "tensorlib/optim/nadam.hpp"
#include "tensorlib/optim/one_cycle_lr.hpp"
#include "tensorlib/optim/optimizer.hpp"
#include "tensorlib/optim/optimizer_base.hpp"
#include "tensorlib/optim/option_checks.hpp"
#include "tensorlib/optim/radam.hpp"
#include "tensorlib/optim/reduce_lr_on_plateau.hpp"
#include "tensorlib/optim/rmsprop.hpp"
#include "tensorlib/optim/rprop.hpp"
#include "tensorlib/optim/sequential_lr.hpp"
#include "tensorlib/optim/sgd.hpp"
#include "tensorlib/optim/strong_wolfe.hpp"
#include "tensorlib/optim/warmup_lr.hpp"
