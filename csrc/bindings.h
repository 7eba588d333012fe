// One bind_* per source family; module.cpp calls them all.  A new kernel file
// declares its binder here and adds one line to PYBIND11_MODULE.
#pragma once

#include <pybind11/pybind11.h>

namespace weft {
void bind_parallel(pybind11::module_& m);
void bind_index_add(pybind11::module_& m);
void bind_message_passing(pybind11::module_& m);
void bind_sampling(pybind11::module_& m);
void bind_reindex(pybind11::module_& m);
void bind_sparse_convert(pybind11::module_& m);
void bind_sparse_spmm(pybind11::module_& m);
void bind_sparse_structural(pybind11::module_& m);
void bind_sparse_elementwise(pybind11::module_& m);
void bind_sparse_spgemm(pybind11::module_& m);
void bind_lapack(pybind11::module_& m);
void bind_sparse_conv_rulebook(pybind11::module_& m);
void bind_sparse_conv(pybind11::module_& m);
void bind_special(pybind11::module_& m);
void bind_ibeta_shape(pybind11::module_& m);
void bind_autograd_apply(pybind11::module_& m);
void bind_mahalanobis(pybind11::module_& m);
void bind_categorical(pybind11::module_& m);
}  // namespace weft
