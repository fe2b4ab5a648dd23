// Including the umbrella header must not put code in a translation unit that
// uses nothing: check_no_code.cmake reads this file's object and fails on any
// function or object defined in it (Note [key functions] in
// autograd/accumulate_grad.hpp: a virtual function declared without `inline`
// in its class and defined `inline` later made every translation unit compile
// 182 KB of autograd code).

#include <tensorlib/tensorlib.hpp>
