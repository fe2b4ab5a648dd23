// Links the components named in CONSUMER_COMPONENTS and calls into what each
// one brings, so a component that compiles but links nothing (or the wrong
// thing) fails here. Needs no GPU: the CUDA calls only ask for versions.

#include <iostream>

#include <tensorlib/core/config.hpp>  // the include path comes with every component

#ifdef CONSUMER_WITH_CUDA
#ifndef TENSORLIB_CUDA
#error "tensorlib::cuda must define TENSORLIB_CUDA"
#endif
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#if __has_include(<cudnn.h>)
#include <cudnn.h>
#endif
#endif

#ifdef CONSUMER_WITH_OPENMP
#ifndef _OPENMP
#error "tensorlib::openmp must compile with OpenMP"
#endif
#include <omp.h>
#endif

#ifdef CONSUMER_WITH_BLAS
#ifndef TENSORLIB_USE_BLAS
#error "tensorlib::blas must define TENSORLIB_USE_BLAS"
#endif
// The Fortran BLAS entry point, which every BLAS library provides.
extern "C" double ddot_(const int* n, const double* x, const int* incx, const double* y, const int* incy);
#endif

int main() {
  const auto v = tl::version();
  std::cout << "components of tensorlib " << v.major << '.' << v.minor << '.' << v.patch << ':';
#ifdef CONSUMER_WITH_CUDA
  int runtime = 0;
  int cublas_major = 0;
  const bool cuda_ok = cudaRuntimeGetVersion(&runtime) == cudaSuccess && runtime == CUDART_VERSION &&
                       cublasGetProperty(MAJOR_VERSION, &cublas_major) == CUBLAS_STATUS_SUCCESS &&
                       cublas_major == CUBLAS_VER_MAJOR && cublasLtGetVersion() > 0;
  std::cout << " cuda=" << (cuda_ok ? "ok" : "broken");
#if __has_include(<cudnn.h>)
  std::cout << " cudnn=" << (cudnnGetVersion() == CUDNN_VERSION ? "ok" : "broken");
#endif
#endif
#ifdef CONSUMER_WITH_OPENMP
  int threads = 0;
#pragma omp parallel reduction(+ : threads)
  threads += 1;
  std::cout << " openmp=" << (threads >= 1 && omp_get_max_threads() >= 1 ? "ok" : "broken");
#endif
#ifdef CONSUMER_WITH_BLAS
  const int n = 3;
  const int one = 1;
  const double a[] = {1, 2, 3};
  const double b[] = {4, 5, 6};
  std::cout << " blas=" << (ddot_(&n, a, &one, b, &one) == 32 ? "ok" : "broken");
#endif
  std::cout << '\n';
  return 0;
}
