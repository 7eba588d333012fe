// Structural CSR kernels: slicing a (batched) CSR tensor to a window and the
// row-wise softmax over stored entries (with its backward).
//
// slice: one pass counts the kept entries of every output row, a prefix sum
// places each row, a second pass copies the re-based columns and the slot of
// every kept entry in the input.  The values are not touched here: the caller
// gathers them by slot with a differentiable gather, so the gradient is the
// masked scatter back.  Each thread owns whole output rows, so the result does
// not depend on the thread count.
//
// softmax: per row, max subtraction keeps exp() from overflowing; the row sum is
// accumulated in double for float32 so long rows do not lose digits.  Implicit
// zeros take no part (they act as -inf), as in api-sparse.md §4.
//
// row sums: the sums of the non-empty rows in one pass (float32/complex64 rows
// accumulated in double precision), with the running count of non-empty rows that
// is the crows of the [R, 1] result.
//
// Every argument is checked (dtype, rank, contiguity, shapes, crows monotone and
// ending at nnz, cols in range) before a data pointer is read.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "common/checked_math.h"
#include "common/checks.h"
#include "common/dtype.h"
#include "common/parallel.h"

namespace py = pybind11;

namespace weft {
namespace {

constexpr std::int64_t kEntryGrain = 1 << 15;  // stored entries per chunk below which a team costs more than it saves

// Rows per chunk so that a chunk holds about kEntryGrain entries on average.
inline std::int64_t row_grain(std::int64_t nrows, std::int64_t nnz) {
  if (nrows <= 0) return 1;
  return std::max<std::int64_t>(1, kEntryGrain * nrows / std::max<std::int64_t>(nnz + nrows, 1));
}

void check_index_array(const py::array& a, const char* op, const char* name) {
  check_ndim(a, 1, op, name);
  check_dtype(IndexTypes{}, a, op, name);
  check_contiguous(a, op, name);
}

// `nblocks` row-pointer blocks of `nrows` + 1 entries, each starting at 0, not
// decreasing and ending at most at nnz; their last entries add up to nnz.  Returns
// each block's offset into cols.  Every block's end is compared with nnz before it
// is added, so the running offset stays in [0, nnz] and never wraps (crafted blocks
// whose ends sum to 2^64 once passed as nnz = 0).  The caller has checked that
// nblocks * (nrows + 1) entries exist.
template <class index_t>
std::vector<std::int64_t> check_block_crows(const index_t* cr, std::int64_t nblocks, std::int64_t nrows,
                                            std::int64_t nnz, const char* op, const char* what = "cols") {
  std::vector<std::int64_t> off(static_cast<std::size_t>(nblocks) + 1, 0);
  enum { kOk, kFirst, kDecreasing, kPastEnd, kTotal } fault = kOk;
  std::int64_t bad = -1;
  {
    py::gil_scoped_release nogil;
    for (std::int64_t b = 0; b < nblocks; ++b) {
      const std::int64_t base = b * (nrows + 1);
      const index_t* c = cr + base;
      if (c[0] != 0) { fault = kFirst; bad = base; break; }
      for (std::int64_t r = 0; r < nrows; ++r)
        if (c[r + 1] < c[r]) { fault = kDecreasing; bad = base + r + 1; break; }
      if (fault != kOk) break;
      const std::int64_t last = static_cast<std::int64_t>(c[nrows]);
      if (last > nnz) { fault = kPastEnd; bad = base + nrows; break; }
      // off[b] <= nnz and last <= nnz: the sum cannot wrap
      off[static_cast<std::size_t>(b) + 1] = off[static_cast<std::size_t>(b)] + last;
      if (off[static_cast<std::size_t>(b) + 1] > nnz) { fault = kTotal; bad = b; break; }
    }
  }
  switch (fault) {
    case kFirst:
      value_error(op, "crows[", bad, "] = ", static_cast<std::int64_t>(cr[bad]), ", expected 0 (every batch's row "
                  "pointers start at 0)");
    case kDecreasing:
      value_error(op, "crows must be non-decreasing within each batch, but crows[", bad, "] = ",
                  static_cast<std::int64_t>(cr[bad]), " < crows[", bad - 1, "] = ",
                  static_cast<std::int64_t>(cr[bad - 1]));
    case kPastEnd:
      value_error(op, "crows[", bad, "] = ", static_cast<std::int64_t>(cr[bad]), ": the row pointers describe ",
                  static_cast<std::int64_t>(cr[bad]), " stored entries but ", what, " has ", nnz);
    case kTotal:
      value_error(op, "the row pointers of batches 0..", bad, " describe ", off[static_cast<std::size_t>(bad) + 1],
                  " stored entries but ", what, " has ", nnz);
    case kOk: break;
  }
  if (off.back() != nnz)
    value_error(op, "the row pointers describe ", off.back(), " stored entries but ", what, " has ", nnz);
  return off;
}

// ---------------------------------------------------------------------------------
// csr_slice(crows [B*(M+1)], cols [nnz], shape [B, M, N], starts [3], ends [3])
//   -> (crows [B'*(M'+1)], cols [nnz'], slots [nnz'] int64)

py::tuple csr_slice(const py::array& crows, const py::array& cols, const std::vector<std::int64_t>& shape,
                    const std::vector<std::int64_t>& starts, const std::vector<std::int64_t>& ends) {
  const char* op = "sparse_csr_slice";
  check_index_array(crows, op, "crows");
  check_index_array(cols, op, "cols");
  check_same_dtype(cols, "cols", crows, "crows", op);
  if (shape.size() != 3 || starts.size() != 3 || ends.size() != 3)
    value_error(op, "shape, starts and ends must each have 3 entries (batch, row, column), got ", shape.size(), ", ",
                starts.size(), " and ", ends.size());
  for (int d = 0; d < 3; ++d) {
    if (shape[d] < 0) value_error(op, "shape[", d, "] = ", shape[d], " is negative");
    if (!(0 <= starts[d] && starts[d] <= ends[d] && ends[d] <= shape[d]))
      value_error(op, "axis ", d, ": need 0 <= start <= end <= size, got start ", starts[d], ", end ", ends[d],
                  ", size ", shape[d]);
  }
  const std::int64_t B = shape[0], M = shape[1], N = shape[2], nnz = cols.shape(0);
  const std::int64_t need = checked_mul(B, checked_add(M, 1, op, "M+1"), op, "B*(M+1)");
  if (crows.shape(0) != need)
    value_error(op, "crows has ", crows.shape(0), " entries but a [", B, ", ", M, ", ", N, "] tensor needs ",
                need, " (B*(M+1))");
  const std::int64_t b0 = starts[0], r0 = starts[1], c0 = starts[2];
  const std::int64_t nb = ends[0] - b0, nr = ends[1] - r0;
  const std::int64_t c1 = ends[2];
  return dispatch(IndexTypes{}, crows, op, "crows", [&](auto itag) -> py::tuple {
    using index_t = typename decltype(itag)::type;
    const auto* cr = static_cast<const index_t*>(crows.data());
    const auto* cl = static_cast<const index_t*>(cols.data());
    const auto off = check_block_crows(cr, B, M, nnz, op);
    check_index_range(cl, nnz, N, op, "cols", "the columns of the tensor");
    const std::int64_t nout = nb * nr;
    const bool all_cols = c0 == 0 && c1 == N;
    std::vector<std::int64_t> start(static_cast<std::size_t>(nout) + 1, 0);
    // input entry range [kb, ke) of output row o
    auto range = [&](std::int64_t o, std::int64_t& kb, std::int64_t& ke) {
      const std::int64_t b = b0 + o / nr, r = r0 + o % nr;
      const index_t* c = cr + b * (M + 1);
      kb = off[static_cast<std::size_t>(b)] + static_cast<std::int64_t>(c[r]);
      ke = off[static_cast<std::size_t>(b)] + static_cast<std::int64_t>(c[r + 1]);
    };
    {
      py::gil_scoped_release nogil;
      const std::int64_t grain = row_grain(nout, nnz);
      parallel_for(0, nout, grain, [&](std::int64_t ob, std::int64_t oe) {
        for (std::int64_t o = ob; o < oe; ++o) {
          std::int64_t kb, ke, n = 0;
          range(o, kb, ke);
          if (all_cols) {  // a row window only: every entry of the row is kept
            start[static_cast<std::size_t>(o) + 1] = ke - kb;
            continue;
          }
          for (std::int64_t k = kb; k < ke; ++k) {
            const std::int64_t c = static_cast<std::int64_t>(cl[k]);
            n += (c >= c0) & (c < c1);
          }
          start[static_cast<std::size_t>(o) + 1] = n;
        }
      });
      for (std::size_t o = 0; o < static_cast<std::size_t>(nout); ++o) start[o + 1] += start[o];
    }
    const std::int64_t kept = start.back();
    py::array_t<index_t> out_crows(std::vector<py::ssize_t>{nb * (nr + 1)});
    py::array_t<index_t> out_cols(std::vector<py::ssize_t>{kept});
    py::array_t<std::int64_t> slots(std::vector<py::ssize_t>{kept});
    auto* ocr = out_crows.mutable_data();
    auto* ocl = out_cols.mutable_data();
    auto* osl = slots.mutable_data();
    {
      py::gil_scoped_release nogil;
      // per-batch row pointers restart at 0; a batch's entries never outnumber the
      // input's, so they fit index_t
      for (std::int64_t b = 0; b < nb; ++b) {
        const std::int64_t base = start[static_cast<std::size_t>(b * nr)];
        for (std::int64_t r = 0; r <= nr; ++r)
          ocr[b * (nr + 1) + r] = static_cast<index_t>(start[static_cast<std::size_t>(b * nr + r)] - base);
      }
      parallel_for(0, nout, row_grain(nout, nnz), [&](std::int64_t ob, std::int64_t oe) {
        for (std::int64_t o = ob; o < oe; ++o) {
          std::int64_t kb, ke, w = start[static_cast<std::size_t>(o)];
          range(o, kb, ke);
          for (std::int64_t k = kb; k < ke; ++k) {
            const std::int64_t c = static_cast<std::int64_t>(cl[k]);
            if (c >= c0 && c < c1) {
              ocl[w] = static_cast<index_t>(c - c0);
              osl[w++] = k;
            }
          }
        }
      });
    }
    return py::make_tuple(out_crows, out_cols, slots);
  });
}

// ---------------------------------------------------------------------------------
// softmax over the stored entries of every row (crows [R+1] over all rows)

template <class index_t, class F>
void for_rows(const index_t* cr, std::int64_t nrows, std::int64_t nnz, const F& f) {
  parallel_for(0, nrows, row_grain(nrows, nnz), [&](std::int64_t rb, std::int64_t re) {
    for (std::int64_t r = rb; r < re; ++r) f(static_cast<std::int64_t>(cr[r]), static_cast<std::int64_t>(cr[r + 1]));
  });
}

// crows and one value per stored entry: the arguments of the per-row kernels
template <class ValueTypes>
void check_row_args(const py::array& crows, const py::array& v, const char* op, const char* vname) {
  check_index_array(crows, op, "crows");
  if (crows.shape(0) < 1) value_error(op, "crows must have at least one entry, got shape ", shape_str(crows));
  check_ndim(v, 1, op, vname);
  check_dtype(ValueTypes{}, v, op, vname);
  check_contiguous(v, op, vname);
}

py::array csr_softmax(const py::array& crows, const py::array& values) {
  const char* op = "sparse_csr_softmax";
  check_row_args<FloatingTypes>(crows, values, op, "values");
  const std::int64_t nrows = crows.shape(0) - 1, nnz = values.shape(0);
  py::array out(values.dtype(), std::vector<py::ssize_t>{nnz});
  dispatch(IndexTypes{}, crows, op, "crows", [&](auto itag) {
    using index_t = typename decltype(itag)::type;
    const auto* cr = static_cast<const index_t*>(crows.data());
    check_block_crows(cr, 1, nrows, nnz, op, "values");
    dispatch(FloatingTypes{}, values, op, "values", [&](auto vtag) {
      using T = typename decltype(vtag)::type;
      using A = double;  // row sums in double: float32 rows keep their digits
      const auto* v = static_cast<const T*>(values.data());
      auto* y = static_cast<T*>(out.mutable_data());
      py::gil_scoped_release nogil;
      for_rows(cr, nrows, nnz, [&](std::int64_t kb, std::int64_t ke) {
        if (kb == ke) return;
        T mx = v[kb];
        bool nan = false;
        for (std::int64_t k = kb; k < ke; ++k) {
          mx = std::max(mx, v[k]);
          nan |= v[k] != v[k];
        }
        // a row holding NaN gives NaN everywhere, as the dense softmax does
        if (nan) mx = std::numeric_limits<T>::quiet_NaN();
        A s = 0;
        for (std::int64_t k = kb; k < ke; ++k) {
          const T e = std::exp(v[k] - mx);
          y[k] = e;
          s += static_cast<A>(e);
        }
        const A inv = A(1) / s;
        for (std::int64_t k = kb; k < ke; ++k) y[k] = static_cast<T>(static_cast<A>(y[k]) * inv);
      });
    });
  });
  return out;
}

// g_in = y * (g - sum_row(y * g))
py::array csr_softmax_grad(const py::array& crows, const py::array& y, const py::array& g) {
  const char* op = "sparse_csr_softmax_grad";
  check_row_args<FloatingTypes>(crows, y, op, "y");
  check_ndim(g, 1, op, "g");
  check_same_dtype(g, "g", y, "y", op);
  check_contiguous(g, op, "g");
  if (g.shape(0) != y.shape(0)) value_error(op, "g has ", g.shape(0), " entries but y has ", y.shape(0));
  const std::int64_t nrows = crows.shape(0) - 1, nnz = y.shape(0);
  py::array out(y.dtype(), std::vector<py::ssize_t>{nnz});
  dispatch(IndexTypes{}, crows, op, "crows", [&](auto itag) {
    using index_t = typename decltype(itag)::type;
    const auto* cr = static_cast<const index_t*>(crows.data());
    check_block_crows(cr, 1, nrows, nnz, op, "y");
    dispatch(FloatingTypes{}, y, op, "y", [&](auto vtag) {
      using T = typename decltype(vtag)::type;
      using A = double;  // row sums in double: float32 rows keep their digits
      const auto* yd = static_cast<const T*>(y.data());
      const auto* gd = static_cast<const T*>(g.data());
      auto* o = static_cast<T*>(out.mutable_data());
      py::gil_scoped_release nogil;
      for_rows(cr, nrows, nnz, [&](std::int64_t kb, std::int64_t ke) {
        A s = 0;
        for (std::int64_t k = kb; k < ke; ++k) s += static_cast<A>(yd[k]) * static_cast<A>(gd[k]);
        for (std::int64_t k = kb; k < ke; ++k)
          o[k] = static_cast<T>(static_cast<A>(yd[k]) * (static_cast<A>(gd[k]) - s));
      });
    });
  });
  return out;
}

// ---------------------------------------------------------------------------------
// row sums

// the accumulator: floats in double precision; integers in unsigned 64-bit, whose
// wrap-around is defined (the result wraps as numpy's integer sums do)
template <class T> struct wide { using type = T; };
template <> struct wide<float> { using type = double; };
template <> struct wide<std::complex<float>> { using type = std::complex<double>; };
template <> struct wide<std::int32_t> { using type = std::uint64_t; };
template <> struct wide<std::int64_t> { using type = std::uint64_t; };

// (counts [R+1] int64, sums [U]): counts[r] = non-empty rows before r, U = counts[R]
py::tuple csr_row_sums(const py::array& crows, const py::array& values) {
  const char* op = "sparse_csr_row_sums";
  check_row_args<FloatingComplexIntTypes>(crows, values, op, "values");
  const std::int64_t nrows = crows.shape(0) - 1, nnz = values.shape(0);
  py::array_t<std::int64_t> counts(std::vector<py::ssize_t>{nrows + 1});
  py::array sums;
  dispatch(IndexTypes{}, crows, op, "crows", [&](auto itag) {
    using index_t = typename decltype(itag)::type;
    const auto* cr = static_cast<const index_t*>(crows.data());
    check_block_crows(cr, 1, nrows, nnz, op, "values");
    auto* cnt = counts.mutable_data();
    cnt[0] = 0;
    for (std::int64_t r = 0; r < nrows; ++r) cnt[r + 1] = cnt[r] + (cr[r + 1] > cr[r] ? 1 : 0);
    sums = py::array(values.dtype(), std::vector<py::ssize_t>{cnt[nrows]});
    dispatch(FloatingComplexIntTypes{}, values, op, "values", [&](auto vtag) {
      using T = typename decltype(vtag)::type;
      using A = typename wide<T>::type;
      const auto* v = static_cast<const T*>(values.data());
      auto* out = static_cast<T*>(sums.mutable_data());
      py::gil_scoped_release nogil;
      parallel_for(0, nrows, row_grain(nrows, nnz), [&](std::int64_t rb, std::int64_t re) {
        for (std::int64_t r = rb; r < re; ++r) {
          const std::int64_t kb = static_cast<std::int64_t>(cr[r]), ke = static_cast<std::int64_t>(cr[r + 1]);
          if (kb == ke) continue;
          A acc = 0;
          for (std::int64_t k = kb; k < ke; ++k) acc += static_cast<A>(v[k]);
          out[cnt[r]] = static_cast<T>(acc);
        }
      });
    });
  });
  return py::make_tuple(counts, sums);
}

}  // namespace

void bind_sparse_structural(py::module_& m) {
  m.def("sparse_csr_slice", &csr_slice, py::arg("crows").noconvert(), py::arg("cols").noconvert(),
        py::arg("shape"), py::arg("starts"), py::arg("ends"),
        R"doc(sparse_csr_slice(crows, cols, shape, starts, ends) -> (crows, cols, slots)

Window [starts, ends) of a batched CSR tensor of shape [B, M, N] (a 2-D tensor
is B = 1): crows [B*(M+1)] per-batch row pointers each starting at 0, cols [nnz]
of the same int32/int64 dtype.  Returns the window's per-batch row pointers,
its columns re-based to the window (same dtype, input order kept) and, for every
kept entry, its position in the input (int64).  Row-parallel, deterministic.
)doc");
  m.def("sparse_csr_softmax", &csr_softmax, py::arg("crows").noconvert(), py::arg("values").noconvert(),
        R"doc(sparse_csr_softmax(crows, values) -> y [nnz]

Softmax over the stored entries of every row of a CSR pattern (crows [R+1]
int32/int64, values [nnz] float32/float64); empty rows stay empty.
)doc");
  m.def("sparse_csr_softmax_grad", &csr_softmax_grad, py::arg("crows").noconvert(), py::arg("y").noconvert(),
        py::arg("g").noconvert(),
        R"doc(sparse_csr_softmax_grad(crows, y, g) -> y * (g - rowsum(y * g))

Backward of sparse_csr_softmax given its output y and the cotangent g (same
float32/float64 dtype and length).
)doc");
  m.def("sparse_csr_row_sums", &csr_row_sums, py::arg("crows").noconvert(), py::arg("values").noconvert(),
        R"doc(sparse_csr_row_sums(crows, values) -> (counts, sums)

Sums of the non-empty rows of a CSR pattern (crows [R+1] int32/int64, values
[nnz] float32/float64/complex64/complex128/int32/int64), in row order, each
added entry by entry in storage order (float32 and complex64 in double
precision); counts [R+1] int64 holds the number of non-empty rows before each
row, i.e. the crows of the [R, 1] result.
)doc");
}

}  // namespace weft
