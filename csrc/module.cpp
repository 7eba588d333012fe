#include <pybind11/pybind11.h>

#include "bindings.h"

PYBIND11_MODULE(_C, m) {
  m.doc() = "weft native kernels (C++17, OpenMP); use through weft._native and the public API.";
  weft::bind_parallel(m);
  weft::bind_index_add(m);
  weft::bind_message_passing(m);
  weft::bind_sampling(m);
  weft::bind_reindex(m);
  weft::bind_sparse_convert(m);
  weft::bind_sparse_spmm(m);
  weft::bind_sparse_structural(m);
  weft::bind_sparse_elementwise(m);
  weft::bind_sparse_spgemm(m);
  weft::bind_lapack(m);
  weft::bind_sparse_conv_rulebook(m);
  weft::bind_sparse_conv(m);
  weft::bind_special(m);
  weft::bind_ibeta_shape(m);
  weft::bind_autograd_apply(m);
  weft::bind_mahalanobis(m);
  weft::bind_categorical(m);
}
