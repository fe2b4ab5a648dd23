#pragma once
/// \file
/// The option checks the update rules share, with PyTorch's messages.

#include "tensorlib/core/error.hpp"
#include "tensorlib/optim/optimizer.hpp"

namespace tensorlib::optim::detail {

inline void check_lr(double lr) { tensorlib::detail::check<ValueError>(lr >= 0, "Invalid learning rate: ", lr); }
inline void check_eps(double eps) { tensorlib::detail::check<ValueError>(eps >= 0, "Invalid epsilon value: ", eps); }
inline void check_weight_decay(double wd) {
  tensorlib::detail::check<ValueError>(wd >= 0, "Invalid weight_decay value: ", wd);
}
inline void check_betas(const Betas& betas) {
  tensorlib::detail::check<ValueError>(betas[0] >= 0 && betas[0] < 1, "Invalid beta parameter at index 0: ", betas[0]);
  tensorlib::detail::check<ValueError>(betas[1] >= 0 && betas[1] < 1, "Invalid beta parameter at index 1: ", betas[1]);
}

}  // namespace tensorlib::optim::detail
