// What the oneDNN files of the amx target share (onednn_matmul.cc,
// onednn_attention.cc): the CPU engine and the guard that keeps oneDNN on the
// calling thread. Included only by .cc files built with oneDNN
// (PHASOR_ONEDNN); its headers stay out of every other file.
#pragma once

#include <omp.h>

#include <oneapi/dnnl/dnnl.hpp>

namespace phasor::kernels {

// The process's CPU engine, made on first use.
inline dnnl::engine& OnednnEngine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// The calling thread's OpenMP thread count at 1 while it lives: oneDNN (on
// Debian, DNNL_CPU_RUNTIME OMP) then neither starts a team nor sizes its
// blocking for one.
class OnednnOneThread {
 public:
  OnednnOneThread() : saved_(omp_get_max_threads()) {
    if (saved_ != 1) omp_set_num_threads(1);
  }
  ~OnednnOneThread() {
    if (saved_ != 1) omp_set_num_threads(saved_);
  }
  OnednnOneThread(const OnednnOneThread&) = delete;
  OnednnOneThread& operator=(const OnednnOneThread&) = delete;

 private:
  int saved_;
};

}  // namespace phasor::kernels
