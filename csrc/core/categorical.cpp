// categorical_scan(w [rows, K], u [L, rows]) -> idx [L, rows] int64: inverse-cdf draws
// from the rows of non-negative weights w (float32 or float64, not normalised), one for
// each uniform u[l, r] in [0, 1): idx = the number of running sums of row r (in float64,
// in column order) that are <= u * (row total), clipped to [0, K - 1] — what
// searchsorted(cumsum(row), u * total, side="right") gives.
//
// Why: the array code (weft/distribution/_util.categorical_indices) forms the float64
// running sum of every weight (80 MB for [1e4, 1000] float32 weights, 53 ms on this
// machine) to place a handful of draws per row. Scanning a row until the sum passes the
// target reads half the row on average and writes nothing; the caller takes this path
// for a few draws per row and keeps the running sums for many.
// Rows are independent: results do not depend on the thread count.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "bindings.h"
#include "common/checks.h"
#include "common/dtype.h"
#include "common/parallel.h"

namespace py = pybind11;

namespace weft {
namespace {

template <class T>
void scan_rows(const T* w, std::int64_t rows, std::int64_t k, const double* u, std::int64_t draws,
               std::int64_t* out) {
  parallel_for(0, rows, std::max<std::int64_t>(1, 65536 / std::max<std::int64_t>(k, 1)),
               [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t r = b; r < e; ++r) {
      const T* row = w + r * k;
      double total = 0.0;
      for (std::int64_t j = 0; j < k; ++j) total += static_cast<double>(row[j]);
      for (std::int64_t l = 0; l < draws; ++l) {
        const double target = u[l * rows + r] * total;
        double acc = 0.0;
        std::int64_t j = 0;
        for (; j < k; ++j) {
          acc += static_cast<double>(row[j]);
          if (acc > target) break;
        }
        out[l * rows + r] = j < k ? j : k - 1;
      }
    }
  });
}

py::array categorical_scan(const py::array& w, const py::array& u) {
  const char* op = "categorical_scan";
  check_ndim(w, 2, op, "w");
  check_ndim(u, 2, op, "u");
  check_dtype(FloatingTypes{}, w, op, "w");
  if (!u.dtype().is(py::dtype::of<double>()))
    type_error(op, "u must be float64, got ", dtype_name(u.dtype()));
  check_contiguous(w, op, "w");
  check_contiguous(u, op, "u");
  const std::int64_t rows = w.shape(0), k = w.shape(1), draws = u.shape(0);
  if (u.shape(1) != rows)
    value_error(op, "u has shape ", shape_str(u), " but w has ", rows, " rows");
  if (k < 1 && rows > 0) value_error(op, "w needs at least one column, got shape ", shape_str(w));
  py::array_t<std::int64_t> out(std::vector<py::ssize_t>{static_cast<py::ssize_t>(draws),
                                                         static_cast<py::ssize_t>(rows)});
  const double* pu = static_cast<const double*>(u.data());
  std::int64_t* po = out.mutable_data();
  dispatch(FloatingTypes{}, w, op, "w", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* pw = static_cast<const T*>(w.data());
    py::gil_scoped_release nogil;
    scan_rows(pw, rows, k, pu, draws, po);
  });
  return out;
}

}  // namespace

void bind_categorical(py::module_& m) {
  m.def("categorical_scan", &categorical_scan, py::arg("w").noconvert(), py::arg("u").noconvert(),
        "categorical_scan(w [rows, K] float32/64 weights, u [L, rows] float64 uniforms) -> int64 "
        "[L, rows]: inverse-cdf draws by scanning each row's float64 running sum");
}

}  // namespace weft
