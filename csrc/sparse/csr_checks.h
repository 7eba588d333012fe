// The structural checks every CSR kernel runs before touching a pointer: 1-D,
// contiguous crows/cols of one index dtype, and a crows array of at least one entry.
// Value ranges (monotone crows, cols < ncols) are each kernel's own business, since
// some check them in the same pass as the work.
#pragma once

#include <pybind11/numpy.h>

#include "common/checks.h"
#include "common/dtype.h"

namespace weft {

inline void check_csr_pattern(const pybind11::array& crows, const pybind11::array& cols,
                              const char* op) {
  check_ndim(crows, 1, op, "crows");
  check_ndim(cols, 1, op, "cols");
  check_dtype(IndexTypes{}, crows, op, "crows");
  check_same_dtype(cols, "cols", crows, "crows", op);
  check_contiguous(crows, op, "crows");
  check_contiguous(cols, op, "cols");
  if (crows.shape(0) < 1)
    value_error(op, "crows must have at least one entry, got shape ", shape_str(crows));
}

}  // namespace weft
