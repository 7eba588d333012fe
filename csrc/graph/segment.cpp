// Sorted-segment reductions (weft.geometric segment_sum / mean / max / min).
//
// The ids are sorted, so the CSR of the segments is just their run boundaries and
// the rows of data are reduced in place order by the shared kernel of
// gather_reduce.h, one output row per thread (deterministic).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/checks.h"
#include "common/dtype.h"
#include "graph/gather_reduce.h"

namespace py = pybind11;

namespace weft {
namespace {

using namespace graph;  // NOLINT

// Sorted-segment reduction: the CSR of sorted ids is just its run boundaries.
py::array segment_reduce(const py::array& data, const py::array& ids, const std::string& reduce,
                         const std::string& opname) {
  const char* op = opname.c_str();
  check_2d(data, op, "data");
  const int red = parse_reduce(reduce, op);
  check_ndim(ids, 1, op, "segment_ids");
  check_contiguous(ids, op, "segment_ids");
  if (!dtype_in(IndexTypes{}, ids.dtype()))
    value_error(op, "Unsupported index type, Expected int, int64, but segment_ids has dtype ",
                dtype_name(ids.dtype()));
  const std::int64_t N = data.shape(0), F = data.shape(1);
  if (ids.shape(0) != N)
    value_error(op, "Segment_ids should be the same size as dimension 0 of input X (data has ", N,
                " rows, segment_ids has ", ids.shape(0), " entries)");
  py::array out;
  dispatch_index(ids, op, "segment_ids", [&](auto itag) {
    using I = typename decltype(itag)::type;
    const I* key = cdata_of<I>(ids);
    std::int64_t bad;
    {
      py::gil_scoped_release nogil;
      bad = first_unsorted(key, N);
    }
    if (bad >= 0)
      value_error(op, "The segment ids should be sorted, but got segment_ids[", bad, "]:",
                  static_cast<std::int64_t>(key[bad]), " > segment_ids[", bad + 1, "]:",
                  static_cast<std::int64_t>(key[bad + 1]));
    if (N > 0 && key[0] < 0)
      index_error(op, "segment_ids[0] = ", static_cast<std::int64_t>(key[0]), " is negative; ids must be >= 0");
    const std::int64_t R = N > 0 ? checked_add(static_cast<std::int64_t>(key[N - 1]), 2, op, "the segment count + 1") - 1 : 0;
    out = new_rows(data.dtype(), R, F, op);
    py::array rp(py::dtype::of<std::int64_t>(), std::vector<py::ssize_t>{static_cast<py::ssize_t>(R + 1)});
    std::int64_t* rowptr = data_of<std::int64_t>(rp);
    Csr<I> csr;
    csr.rows = R;
    csr.rowptr = rowptr;
    dispatch_value(data, op, "data", [&](auto vtag) {
      using T = typename decltype(vtag)::type;
      const T* dp = cdata_of<T>(data);
      T* o = data_of<T>(out);
      py::gil_scoped_release nogil;
      rowptr_from_sorted(key, N, R, rowptr);
      switch (red) {
        case kSum: reduce_rows<T, I, kSum>(dp, o, F, csr); break;
        case kMean: reduce_rows<T, I, kMean>(dp, o, F, csr); break;
        case kMax: reduce_rows<T, I, kMax>(dp, o, F, csr); break;
        default: reduce_rows<T, I, kMin>(dp, o, F, csr); break;
      }
    });
  });
  return out;
}

}  // namespace

void bind_segment_reduce(py::module_& m) {
  m.def("segment_reduce", &segment_reduce, py::arg("data").noconvert(), py::arg("segment_ids").noconvert(),
        py::arg("reduce"), py::arg("op") = "segment_sum",
        R"doc(segment_reduce(data, segment_ids, reduce, op) -> out [segment_ids[-1] + 1, F]

Reduction of the rows of data [N, F] over runs of sorted, non-negative
segment_ids; ids without rows give zero rows.)doc");
}

}  // namespace weft
