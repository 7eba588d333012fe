// Sparse-dense products: CSR SpMM (out = A @ Y), SpMV (y = A @ x) and SDDMM (A's pattern sampled
// from a dense product, s[k] = <a[row(k)], b[col(k)]>).  The transposed product
// Aᵀ @ G needs no kernel: the caller transposes A with the COO -> CSR kernel
// of convert.cpp (on (cols, rows)) and calls SpMM on the result, so every
// product is row-parallel with each thread owning its output rows: no atomics,
// and results do not depend on the thread count.
//
// Rows are split among threads by stored entries, not by row count, so the few
// very long rows of a power-law matrix do not serialise one thread.  SDDMM is
// split over stored entries directly (each chunk finds its first row by a
// binary search of crows).
//
// Complex values are multiplied on the interleaved real storage: std::complex
// operator* checks for inf/nan (Annex G) and does not vectorise.
//
// Every argument is checked (dtype, rank, contiguity, shapes, crows monotone,
// cols in range) before a data pointer is read; errors name the argument.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "common/checks.h"
#include "common/dtype.h"
#include "common/parallel.h"
#include "common/simd.h"
#include "sparse/csr_checks.h"

namespace py = pybind11;

namespace weft {
namespace {

constexpr std::int64_t kFlopGrain = 1 << 16;  // multiply-adds per chunk below which a team costs more than it saves
constexpr int kChunksPerThread = 4;            // row ranges per thread, taken dynamically (see plan_tasks)
constexpr std::int64_t kPrefetch = 8;          // entries ahead whose dense row is prefetched (a hint: never faults, even for a bad index)
constexpr std::int64_t kPrefetchBytes = 512;    // at most this much of that row: a k = 64 float32 row spans four cache lines

// Prefetch every cache line of a dense row of y: a row the hardware sees only the
// first line of arrives one miss at a time, and those misses bound SpMM on graphs
// whose y does not fit in cache.
inline void prefetch_row(const void* p, std::int64_t bytes) {
  const char* c = static_cast<const char*>(p);
  const std::int64_t n = std::min(bytes, kPrefetchBytes);
  for (std::int64_t off = 0; off < n; off += 64) __builtin_prefetch(c + off);
}

// The unrolled part of a real row-times-vector product: sum of v[k] * x[cl[k]] over
// [k, ke) in groups of four with four partial sums (they break the add chain). It
// stops before the first group holding a column >= ubound or at the last full group,
// leaving k there; the caller finishes the row entry by entry with its own checks.
template <class index_t, class real_t>
inline real_t dot4(const index_t* __restrict cl, const real_t* __restrict v, const real_t* __restrict x,
                   std::int64_t& k, std::int64_t ke, std::uint64_t ubound) {
  real_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (; k + 4 <= ke; k += 4) {
    const auto c0 = static_cast<std::uint64_t>(static_cast<std::int64_t>(cl[k]));
    const auto c1 = static_cast<std::uint64_t>(static_cast<std::int64_t>(cl[k + 1]));
    const auto c2 = static_cast<std::uint64_t>(static_cast<std::int64_t>(cl[k + 2]));
    const auto c3 = static_cast<std::uint64_t>(static_cast<std::int64_t>(cl[k + 3]));
    if ((c0 >= ubound) | (c1 >= ubound) | (c2 >= ubound) | (c3 >= ubound)) break;
    s0 += v[k] * x[c0];
    s1 += v[k + 1] * x[c1];
    s2 += v[k + 2] * x[c2];
    s3 += v[k + 3] * x[c3];
  }
  return (s0 + s1) + (s2 + s3);
}

template <class index_t>
void check_crows_spmm(const index_t* cr, std::int64_t nrows, std::int64_t nnz, const char* op) {
  if (static_cast<std::int64_t>(cr[0]) != 0) value_error(op, "crows[0] must be 0, got ", static_cast<std::int64_t>(cr[0]));
  for (std::int64_t r = 0; r < nrows; ++r)
    if (cr[r + 1] < cr[r])
      value_error(op, "crows must not decrease, but crows[", r + 1, "] = ", static_cast<std::int64_t>(cr[r + 1]),
                  " < crows[", r, "] = ", static_cast<std::int64_t>(cr[r]));
  if (static_cast<std::int64_t>(cr[nrows]) != nnz)
    value_error(op, "the last value of crows (", static_cast<std::int64_t>(cr[nrows]),
                ") must equal the number of stored entries (", nnz, ")");
}

// [b, e) row ranges holding about equal numbers of entries (plus one per row, so
// runs of empty rows still get split when nnz is small).
template <class index_t>
std::vector<std::int64_t> split_rows(const index_t* cr, std::int64_t nrows, int nchunks) {
  std::vector<std::int64_t> cut(static_cast<std::size_t>(nchunks) + 1, nrows);
  cut[0] = 0;
  const std::int64_t total = static_cast<std::int64_t>(cr[nrows]) + nrows;
  for (int c = 1; c < nchunks; ++c) {
    const std::int64_t target = total / nchunks * c;
    std::int64_t lo = cut[c - 1], hi = nrows;  // first r with cr[r] + r >= target
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (static_cast<std::int64_t>(cr[mid]) + mid < target) lo = mid + 1; else hi = mid;
    }
    cut[c] = lo;
  }
  return cut;
}

// o[0:n] += a * y[0:n] on the real storage; w = row width in real components.
template <class T>
inline void axpy(T* __restrict o, T a, const T* __restrict y, std::int64_t w) {
  for (std::int64_t j = 0; j < w; ++j) o[j] += a * y[j];
}
template <class T>
inline void axpy_c(T* __restrict o, T ar, T ai, const T* __restrict y, std::int64_t w) {
  for (std::int64_t j = 0; j < w; j += 2) {
    const T yr = y[j], yi = y[j + 1];
    o[j] += ar * yr - ai * yi;
    o[j + 1] += ar * yi + ai * yr;
  }
}

template <class T>
inline T dot(const T* __restrict a, const T* __restrict b, std::int64_t w) {
  T s = 0;
  for (std::int64_t j = 0; j < w; ++j) s += a[j] * b[j];
  return s;
}
template <class T>
inline void dot_c(const T* __restrict a, const T* __restrict b, std::int64_t w, T* out) {
  T sr = 0, si = 0;
  for (std::int64_t j = 0; j < w; j += 2) {
    sr += a[j] * b[j] - a[j + 1] * b[j + 1];
    si += a[j] * b[j + 1] + a[j + 1] * b[j];
  }
  out[0] = sr;
  out[1] = si;
}

void check_common(const py::array& crows, const py::array& cols, const py::array& values, const char* op) {
  check_csr_pattern(crows, cols, op);
  check_ndim(values, 1, op, "values");
  check_dtype(FloatingComplexTypes{}, values, op, "values");
  check_contiguous(values, op, "values");
  if (values.shape(0) != cols.shape(0))
    value_error(op, "values has ", values.shape(0), " entries but cols has ", cols.shape(0));
}

void check_dense(const py::array& d, const char* name, const py::array& values, const char* op) {
  check_ndim(d, 2, op, name);
  check_same_dtype(d, name, values, "values", op);
  check_contiguous(d, op, name);
}

// ---------------------------------------------------------------------------------
// spmm(crows [R+1], cols [nnz], values [nnz], y [C, N]) -> out [R, N] = A @ y

// Rows [rb, re) of out = A @ y for a real y of compile-time width W: the output row
// stays in registers across the row's entries.  A bad column is skipped and its
// first position kept in `bad`.  On x86-64 Linux this loop also gets an AVX2 clone
// (see WEFT_SIMD_CLONES): without FMA, so it rounds exactly as the baseline build.
template <std::int64_t W, class index_t, class real_t>
WEFT_SIMD_CLONES void spmm_rows_fixed(const index_t* __restrict cr, const index_t* __restrict cl,
                                      const real_t* __restrict v, const real_t* __restrict yd,
                                      real_t* __restrict o, std::int64_t rb, std::int64_t re,
                                      std::uint64_t ubound, std::int64_t& bad) {
  const std::int64_t kend = static_cast<std::int64_t>(cr[re]);
  for (std::int64_t r = rb; r < re; ++r) {
    real_t acc[W] = {};
    for (std::int64_t k = static_cast<std::int64_t>(cr[r]), ke = static_cast<std::int64_t>(cr[r + 1]); k < ke; ++k) {
      const auto c = static_cast<std::uint64_t>(static_cast<std::int64_t>(cl[k]));
      if (c >= ubound) {
        if (bad < 0) bad = k;
        continue;
      }
      if (k + kPrefetch < kend)
        prefetch_row(yd + static_cast<std::int64_t>(cl[k + kPrefetch]) * W, W * static_cast<std::int64_t>(sizeof(real_t)));
      const real_t a = v[k];
      const real_t* __restrict yrow = yd + static_cast<std::int64_t>(c) * W;
      for (std::int64_t j = 0; j < W; ++j) acc[j] += a * yrow[j];
    }
    for (std::int64_t j = 0; j < W; ++j) o[r * W + j] = acc[j];
  }
}


py::array spmm(const py::array& crows, const py::array& cols, const py::array& values, const py::array& y) {
  const char* op = "sparse_spmm";
  check_common(crows, cols, values, op);
  check_dense(y, "y", values, op);
  const std::int64_t nrows = crows.shape(0) - 1, nnz = cols.shape(0);
  const std::int64_t ncols = y.shape(0), n = y.shape(1);
  py::array out(values.dtype(), std::vector<py::ssize_t>{nrows, n});
  dispatch(IndexTypes{}, crows, op, "crows", [&](auto itag) {
    using index_t = typename decltype(itag)::type;
    const auto* cr = static_cast<const index_t*>(crows.data());
    const auto* cl = static_cast<const index_t*>(cols.data());
    check_crows_spmm(cr, nrows, nnz, op);
    // cols are range-checked entry by entry just before the row of y they name is
    // read (one pass over cols instead of two); a bad entry is skipped and raised below
    std::int64_t badpos = -1;
    const std::uint64_t ubound = static_cast<std::uint64_t>(ncols);
    dispatch(FloatingComplexTypes{}, values, op, "values", [&](auto vtag) {
      using scalar_t = typename decltype(vtag)::type;
      using real_t = real_of_t<scalar_t>;
      constexpr std::int64_t comp = components_v<scalar_t>;
      const auto* v = static_cast<const real_t*>(values.data());
      const auto* yd = static_cast<const real_t*>(y.data());
      auto* o = static_cast<real_t*>(out.mutable_data());
      const std::int64_t w = n * comp;
      py::gil_scoped_release nogil;
      const int nchunks = plan_tasks((nnz + nrows) * std::max<std::int64_t>(n, 1), kFlopGrain, kChunksPerThread);
      const auto cut = split_rows(cr, nrows, nchunks);
      std::vector<std::int64_t> bad(static_cast<std::size_t>(nchunks), -1);
      auto ok = [&](std::int64_t k, std::int64_t& b) {
        if (static_cast<std::uint64_t>(static_cast<std::int64_t>(cl[k])) < ubound) return true;
        if (b < 0) b = k;
        return false;
      };
      auto first_bad = [&] {
        for (const std::int64_t b : bad)
          if (b >= 0) { badpos = b; break; }  // chunks are in entry order: the first is the smallest
      };
      auto run = [&](auto rowfn) {
        parallel_chunks(0, nchunks, nchunks, [&](int, std::int64_t cb, std::int64_t) {
          const std::int64_t rb = cut[static_cast<std::size_t>(cb)], re = cut[static_cast<std::size_t>(cb) + 1];
          const std::int64_t kend = cr[re];
          std::int64_t& b = bad[static_cast<std::size_t>(cb)];
          for (std::int64_t r = rb; r < re; ++r)
            rowfn(o + r * w, static_cast<std::int64_t>(cr[r]), static_cast<std::int64_t>(cr[r + 1]), kend, b);
        });
        first_bad();
      };
      if constexpr (comp == 1) {
        // compile-time widths keep the output row in registers across the row's entries
        bool done = false;
        auto fixed = [&](auto wtag) {
          constexpr std::int64_t W = decltype(wtag)::value;
          if (done || w != W) return;
          done = true;
          if constexpr (W == 1) {
            // SpMV: y fits in cache, so no prefetch; four partial sums break the add chain
            run([&](real_t* __restrict orow, std::int64_t kb, std::int64_t ke, std::int64_t, std::int64_t& b) {
              std::int64_t k = kb;
              real_t sum = dot4(cl, v, yd, k, ke, ubound);
              for (; k < ke; ++k)
                if (ok(k, b)) sum += v[k] * yd[cl[k]];
              orow[0] = sum;
            });
            return;
          }
          parallel_chunks(0, nchunks, nchunks, [&](int, std::int64_t cb, std::int64_t) {
            const auto c = static_cast<std::size_t>(cb);
            spmm_rows_fixed<W>(cr, cl, v, yd, o, cut[c], cut[c + 1], ubound, bad[c]);
          });
          first_bad();
        };
        fixed(std::integral_constant<std::int64_t, 1>{});
        fixed(std::integral_constant<std::int64_t, 2>{});
        fixed(std::integral_constant<std::int64_t, 4>{});
        fixed(std::integral_constant<std::int64_t, 8>{});
        fixed(std::integral_constant<std::int64_t, 16>{});
        fixed(std::integral_constant<std::int64_t, 32>{});
        fixed(std::integral_constant<std::int64_t, 64>{});
        if (done) return;
      }
      run([&](real_t* __restrict orow, std::int64_t kb, std::int64_t ke, std::int64_t kend, std::int64_t& b) {
        std::fill(orow, orow + w, real_t(0));
        for (std::int64_t k = kb; k < ke; ++k) {
          if (!ok(k, b)) continue;
          if (k + kPrefetch < kend)
            prefetch_row(yd + static_cast<std::int64_t>(cl[k + kPrefetch]) * w, w * static_cast<std::int64_t>(sizeof(real_t)));
          const real_t* yrow = yd + static_cast<std::int64_t>(cl[k]) * w;
          if constexpr (comp == 1) axpy(orow, v[k], yrow, w);
          else axpy_c(orow, v[2 * k], v[2 * k + 1], yrow, w);
        }
      });
    });
    if (badpos >= 0)
      index_error(op, "cols[", badpos, "] = ", static_cast<std::int64_t>(cl[badpos]), " is out of range [0, ",
                  ncols, ") for the rows of y");
  });
  return out;
}

// ---------------------------------------------------------------------------------
// spmv(crows [R+1], cols [nnz], values [nnz], x [C]) -> y [R] = A @ x
//
// Its own kernel rather than SpMM with N = 1: a matrix-vector product streams
// crows/cols/values once and does two flops per 12-16 bytes, so the extra pass
// SpMM spends validating crows up front is a tenth of the work.  Here each chunk
// checks the bounds of its rows' slices as it reads them and the precise error is
// produced afterwards (by the serial check) only when one failed.

template <class index_t, class real_t, std::int64_t comp>
void spmv_rows(const index_t* __restrict cr, const index_t* __restrict cl, const real_t* __restrict v,
               const real_t* __restrict x, real_t* __restrict y, std::int64_t rb, std::int64_t re,
               std::int64_t nnz, std::uint64_t ubound, std::int64_t& badcol, bool& badrow) {
  for (std::int64_t r = rb; r < re; ++r) {
    const std::int64_t kb = static_cast<std::int64_t>(cr[r]), ke = static_cast<std::int64_t>(cr[r + 1]);
    if (!(0 <= kb && kb <= ke && ke <= nnz)) {
      badrow = true;
      return;
    }
    std::int64_t k = kb;
    if constexpr (comp == 1) {
      // a group with a bad column drops to the checked tail
      real_t sum = dot4(cl, v, x, k, ke, ubound);
      for (; k < ke; ++k) {
        const auto c = static_cast<std::uint64_t>(static_cast<std::int64_t>(cl[k]));
        if (c < ubound) sum += v[k] * x[c];
        else if (badcol < 0) badcol = k;
      }
      y[r] = sum;
    } else {
      real_t sr = 0, si = 0;
      for (; k < ke; ++k) {
        const auto c = static_cast<std::uint64_t>(static_cast<std::int64_t>(cl[k]));
        if (c >= ubound) {
          if (badcol < 0) badcol = k;
          continue;
        }
        const real_t ar = v[2 * k], ai = v[2 * k + 1], xr = x[2 * c], xi = x[2 * c + 1];
        sr += ar * xr - ai * xi;
        si += ar * xi + ai * xr;
      }
      y[2 * r] = sr;
      y[2 * r + 1] = si;
    }
  }
}

py::array spmv(const py::array& crows, const py::array& cols, const py::array& values, const py::array& x) {
  const char* op = "sparse_spmv";
  check_common(crows, cols, values, op);
  check_ndim(x, 1, op, "x");
  check_same_dtype(x, "x", values, "values", op);
  check_contiguous(x, op, "x");
  const std::int64_t nrows = crows.shape(0) - 1, nnz = cols.shape(0), ncols = x.shape(0);
  py::array out(values.dtype(), std::vector<py::ssize_t>{nrows});
  dispatch(IndexTypes{}, crows, op, "crows", [&](auto itag) {
    using index_t = typename decltype(itag)::type;
    const auto* cr = static_cast<const index_t*>(crows.data());
    const auto* cl = static_cast<const index_t*>(cols.data());
    if (static_cast<std::int64_t>(cr[0]) != 0 || static_cast<std::int64_t>(cr[nrows]) != nnz)
      check_crows_spmm(cr, nrows, nnz, op);
    std::int64_t badcol = -1;
    bool badrow = false;
    dispatch(FloatingComplexTypes{}, values, op, "values", [&](auto vtag) {
      using scalar_t = typename decltype(vtag)::type;
      using real_t = real_of_t<scalar_t>;
      const auto* v = static_cast<const real_t*>(values.data());
      const auto* xd = static_cast<const real_t*>(x.data());
      auto* y = static_cast<real_t*>(out.mutable_data());
      py::gil_scoped_release nogil;
      const int nchunks = plan_tasks(nnz + nrows, kFlopGrain, kChunksPerThread);
      const auto cut = split_rows(cr, nrows, nchunks);  // any cut is safe: rows are bound-checked as read
      std::vector<std::int64_t> bad(static_cast<std::size_t>(nchunks), -1);
      std::vector<char> badr(static_cast<std::size_t>(nchunks), 0);
      parallel_chunks(0, nchunks, nchunks, [&](int, std::int64_t cb, std::int64_t) {
        const auto c = static_cast<std::size_t>(cb);
        bool br = false;
        spmv_rows<index_t, real_t, components_v<scalar_t>>(cr, cl, v, xd, y, cut[c], cut[c + 1], nnz,
                                                           static_cast<std::uint64_t>(ncols), bad[c], br);
        badr[c] = br;
      });
      badrow = std::find(badr.begin(), badr.end(), 1) != badr.end();
      for (const std::int64_t b : bad)
        if (b >= 0) { badcol = b; break; }  // chunks are in entry order: the first is the smallest
    });
    if (badrow) {
      check_crows_spmm(cr, nrows, nnz, op);  // names the first decreasing pair
      value_error(op, "crows is not a valid row-pointer array for ", nnz, " entries");
    }
    if (badcol >= 0)
      index_error(op, "cols[", badcol, "] = ", static_cast<std::int64_t>(cl[badcol]), " is out of range [0, ",
                  ncols, ") for the entries of x");
  });
  return out;
}

// ---------------------------------------------------------------------------------
// sddmm(crows [R+1], cols [nnz], a [R, N], b [C, N]) -> s [nnz], s[k] = sum_j a[row(k), j] b[cols[k], j]

py::array sddmm(const py::array& crows, const py::array& cols, const py::array& a, const py::array& b) {
  const char* op = "sparse_sddmm";
  check_csr_pattern(crows, cols, op);
  check_ndim(a, 2, op, "a");
  check_dtype(FloatingComplexTypes{}, a, op, "a");
  check_contiguous(a, op, "a");
  check_dense(b, "b", a, op);
  const std::int64_t nrows = crows.shape(0) - 1, nnz = cols.shape(0);
  if (a.shape(0) != nrows) value_error(op, "a has ", a.shape(0), " rows but crows describes ", nrows);
  if (b.shape(1) != a.shape(1)) value_error(op, "a has ", a.shape(1), " columns but b has ", b.shape(1));
  const std::int64_t ncols = b.shape(0), n = a.shape(1);
  py::array out(a.dtype(), std::vector<py::ssize_t>{nnz});
  dispatch(IndexTypes{}, crows, op, "crows", [&](auto itag) {
    using index_t = typename decltype(itag)::type;
    const auto* cr = static_cast<const index_t*>(crows.data());
    const auto* cl = static_cast<const index_t*>(cols.data());
    check_crows_spmm(cr, nrows, nnz, op);
    check_index_range(cl, nnz, ncols, op, "cols", "the rows of b");
    dispatch(FloatingComplexTypes{}, a, op, "a", [&](auto vtag) {
      using scalar_t = typename decltype(vtag)::type;
      using real_t = real_of_t<scalar_t>;
      constexpr std::int64_t comp = components_v<scalar_t>;
      const auto* ad = static_cast<const real_t*>(a.data());
      const auto* bd = static_cast<const real_t*>(b.data());
      auto* s = static_cast<real_t*>(out.mutable_data());
      const std::int64_t w = n * comp;
      py::gil_scoped_release nogil;
      parallel_for(0, nnz, std::max<std::int64_t>(1, kFlopGrain / std::max<std::int64_t>(n, 1)),
                   [&](std::int64_t kb, std::int64_t ke) {
        // the row holding entry kb: last r with cr[r] <= kb
        std::int64_t r = std::upper_bound(cr, cr + nrows + 1, static_cast<index_t>(kb)) - cr - 1;
        for (std::int64_t k = kb; k < ke; ++k) {
          while (static_cast<std::int64_t>(cr[r + 1]) <= k) ++r;
          if (k + kPrefetch < ke)
            prefetch_row(bd + static_cast<std::int64_t>(cl[k + kPrefetch]) * w, w * static_cast<std::int64_t>(sizeof(real_t)));
          const real_t* arow = ad + r * w;
          const real_t* brow = bd + static_cast<std::int64_t>(cl[k]) * w;
          if constexpr (comp == 1) s[k] = dot(arow, brow, w);
          else dot_c(arow, brow, w, s + 2 * k);
        }
      });
    });
  });
  return out;
}

}  // namespace

void bind_sparse_spmm(py::module_& m) {
  m.def("sparse_spmm", &spmm, py::arg("crows").noconvert(), py::arg("cols").noconvert(),
        py::arg("values").noconvert(), py::arg("y").noconvert(),
        R"doc(sparse_spmm(crows, cols, values, y) -> out [R, N] = A @ y

A is the R x C CSR matrix (crows [R+1], cols [nnz] int32/int64 of one dtype,
values [nnz] float32/float64/complex64/complex128); y is C-contiguous [C, N] of
values' dtype.  Columns need not be sorted and duplicates add up.  Row-parallel,
deterministic.
)doc");
  m.def("sparse_spmv", &spmv, py::arg("crows").noconvert(), py::arg("cols").noconvert(),
        py::arg("values").noconvert(), py::arg("x").noconvert(),
        R"doc(sparse_spmv(crows, cols, values, x) -> y [R] = A @ x

A is the R x C CSR matrix as for sparse_spmm; x is a C-contiguous vector [C] of
values' dtype.  Columns need not be sorted and duplicates add up.  Row-parallel
with rows split by stored entries; each row is summed by one thread in a fixed
order, so results do not depend on the thread count.
)doc");
  m.def("sparse_sddmm", &sddmm, py::arg("crows").noconvert(), py::arg("cols").noconvert(),
        py::arg("a").noconvert(), py::arg("b").noconvert(),
        R"doc(sparse_sddmm(crows, cols, a, b) -> s [nnz]

s[k] = sum_j a[row(k), j] * b[cols[k], j] for every stored entry k of the CSR
pattern (crows [R+1], cols [nnz]); a [R, N] and b [C, N] C-contiguous of one
float32/float64/complex64/complex128 dtype.  No conjugation.  Parallel over entries.
)doc");
}

}  // namespace weft
