// Sparse @ sparse products on CSR patterns.
//
// sparse_spgemm: C = A @ B by Gustavson's row-by-row method.  Row i of C is the
// sum of the rows B[k, :] scaled by A[i, k]; it is accumulated in a dense row of
// width ncols, with a bitmap of the columns present (and a summary bit per bitmap
// word), so each product costs O(1), no hashing is needed, and the row's columns
// come out of the bitmap already in order (short rows are simply sorted).  For very wide
// outputs (ncols above kDenseMaxCols) a dense row per thread would cost too much
// memory, and each row is formed by expand-sort-compress instead (its products
// stable-sorted by column, then merged), which gives the same sums in the same order.
// Every path starts each sum from +0, as the accumulator does, so even the sign of a
// zero does not depend on the path a row takes (a lone -0.0 product gives +0.0, as in scipy).
//
// Two passes over the rows: a symbolic one counts each output row (columns only,
// no values), the prefix sum gives the row pointers, and the numeric pass writes
// every row straight into the output arrays.  Counting first costs a pass over
// the pattern but needs no intermediate buffers: with them, fresh pages and the
// final copy cost more than the count (measured on a power-law A @ A), and an
// output that int32 indices cannot address is refused before anything is filled.
//
// sparse_spgemm_sampled: out[e] = sum_j X[i, j] * Y[k, j] for each stored entry
// e = (i, k) of a pattern P, i.e. (X @ Yᵀ) read only at P.  With X = dC, Y = B and
// P = A's pattern this is the masked gradient of A in C = A @ B, without forming
// dC @ Bᵀ; the gradient of B is the same kernel on transposed patterns.  Row i of
// X is scattered into a dense row, then each Y row named by P's row i is dotted
// against it (wide outputs: X's row sorted, and looked up by binary search).
//
// Rows are split among threads by the multiply-adds they need (plus one per row),
// not by row count, so the heavy rows of a power-law matrix spread over threads.
// Each row is computed by one thread in a fixed order: results do not depend on
// the thread count.  Every argument is checked before a data pointer is read.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/checks.h"
#include "common/dtype.h"
#include "common/parallel.h"
#include "common/scratch.h"

namespace py = pybind11;

namespace weft {
namespace {

constexpr std::int64_t kWorkGrain = 1 << 15;      // multiply-adds per chunk below which a team costs more than it saves
constexpr std::int64_t kDenseMaxCols = 1 << 21;   // widest output row kept as a dense accumulator per thread
constexpr int kChunksPerThread = 4;               // over-split, taken dynamically: errors in the work estimate even out
constexpr std::int64_t kPrefetch = 8;             // entries of A ahead whose row of B is prefetched (a hint: never faults)
constexpr std::size_t kSortMax = 16;              // rows with up to this many products are sorted as a list, longer ones read off a bitmap

// complex * complex without the Annex G inf/nan recovery of std::complex's operator*,
// which is a library call per product
template <class T>
inline T mul(T a, T b) { return a * b; }
template <class R>
inline std::complex<R> mul(std::complex<R> a, std::complex<R> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

struct CsrArg {
  const py::array& crows;
  const py::array& cols;
  const char* crows_name;
  const char* cols_name;
};

// Structure, dtype and layout of one CSR pattern (values are checked separately).
void check_pattern(const CsrArg& m, const py::array& ref_index, const char* op) {
  check_ndim(m.crows, 1, op, m.crows_name);
  check_ndim(m.cols, 1, op, m.cols_name);
  check_dtype(IndexTypes{}, m.crows, op, m.crows_name);
  check_same_dtype(m.crows, m.crows_name, ref_index, "a_crows", op);
  check_same_dtype(m.cols, m.cols_name, ref_index, "a_crows", op);
  check_contiguous(m.crows, op, m.crows_name);
  check_contiguous(m.cols, op, m.cols_name);
  if (m.crows.shape(0) < 1)
    value_error(op, m.crows_name, " must have at least one entry, got shape ", shape_str(m.crows));
}

void check_values(const py::array& v, const char* name, const py::array& cols, const char* cols_name,
                  const py::array& ref, const char* ref_name, const char* op) {
  check_ndim(v, 1, op, name);
  check_dtype(FloatingComplexTypes{}, v, op, name);
  check_same_dtype(v, name, ref, ref_name, op);
  check_contiguous(v, op, name);
  if (v.shape(0) != cols.shape(0))
    value_error(op, name, " has ", v.shape(0), " entries but ", cols_name, " has ", cols.shape(0));
}

// crows starts at 0, never decreases and ends at nnz; cols lie in [0, bound).
template <class index_t>
void check_csr_ranges(const CsrArg& m, std::int64_t bound, const char* bound_what, const char* op) {
  const auto* cr = static_cast<const index_t*>(m.crows.data());
  const std::int64_t nrows = m.crows.shape(0) - 1, nnz = m.cols.shape(0);
  if (static_cast<std::int64_t>(cr[0]) != 0)
    value_error(op, m.crows_name, "[0] must be 0, got ", static_cast<std::int64_t>(cr[0]));
  for (std::int64_t r = 0; r < nrows; ++r)
    if (cr[r + 1] < cr[r])
      value_error(op, m.crows_name, " must not decrease, but ", m.crows_name, "[", r + 1, "] = ",
                  static_cast<std::int64_t>(cr[r + 1]), " < ", m.crows_name, "[", r, "] = ",
                  static_cast<std::int64_t>(cr[r]));
  if (static_cast<std::int64_t>(cr[nrows]) != nnz)
    value_error(op, "the last value of ", m.crows_name, " (", static_cast<std::int64_t>(cr[nrows]),
                ") must equal the number of entries of ", m.cols_name, " (", nnz, ")");
  check_index_range(static_cast<const index_t*>(m.cols.data()), nnz, bound, op, m.cols_name, bound_what);
}

// Row ranges [cut[c], cut[c+1]) of about equal work; work(r) >= 0 is the cost of row r.
// prefix[r + 1] - prefix[r] = work(r) + 1 is left for the caller.
template <class F>
std::vector<std::int64_t> split_by_work(std::int64_t nrows, const F& work, int& nchunks,
                                        std::vector<std::int64_t>& prefix) {
  prefix.assign(static_cast<std::size_t>(nrows) + 1, 0);
  for (std::int64_t r = 0; r < nrows; ++r) prefix[r + 1] = prefix[r] + work(r) + 1;
  const std::int64_t total = prefix[nrows];
  nchunks = plan_tasks(total, kWorkGrain, kChunksPerThread);
  std::vector<std::int64_t> cut(static_cast<std::size_t>(nchunks) + 1, nrows);
  cut[0] = 0;
  for (int c = 1; c < nchunks; ++c) {
    const std::int64_t target = total / nchunks * c + (total % nchunks) * c / nchunks;
    cut[c] = std::lower_bound(prefix.begin() + cut[c - 1], prefix.end(), target) - prefix.begin();
  }
  return cut;
}

// ---------------------------------------------------------------------------------
// spgemm

// Columns of the current output row as a bitmap, plus a summary bit per bitmap
// word, so that the row's columns are listed in order in O(ncols / 4096 + words
// touched) instead of by a comparison sort.  Adding a column is two unconditional
// ORs: a test-and-set would branch on whether the column is new, which a power-law
// product makes unpredictable (measured: the mispredictions cost more than the
// memory traffic).  Per-thread scratch, all zero between rows and between calls:
// every row that sets bits drains them (std::vector::resize zeroes what it adds).
struct ColumnSet {
  ScratchVector<std::uint64_t, 31> bits_s;
  ScratchVector<std::uint64_t, 32> summary_s;
  // raw pointers, so that the hot loops need not reload them from the vectors
  // after every store (the compiler cannot prove the stores do not alias them)
  std::uint64_t* __restrict bits;
  std::uint64_t* __restrict summary;
  std::size_t nsummary;

  explicit ColumnSet(std::int64_t ncols)
      : bits_s(static_cast<std::size_t>((ncols + 63) / 64)),
        summary_s(static_cast<std::size_t>((ncols + 4095) / 4096)),
        bits(bits_s.get().data()),
        summary(summary_s.get().data()),
        nsummary(summary_s.get().size()) {}
  void add(std::uint64_t j) {
    bits[j >> 6] |= std::uint64_t(1) << (j & 63);
    summary[j >> 12] |= std::uint64_t(1) << ((j >> 6) & 63);
  }
  // g(word index) for every nonzero bitmap word in increasing order, then the set is empty
  template <class G>
  void drain_words(const G& g) {
    for (std::size_t s = 0; s < nsummary; ++s) {
      for (std::uint64_t sb = summary[s]; sb; sb &= sb - 1) {
        const std::size_t word = s * 64 + static_cast<std::size_t>(__builtin_ctzll(sb));
        g(word);
        bits[word] = 0;
      }
      summary[s] = 0;
    }
  }
  // number of columns in the set, leaving it empty
  std::int64_t count_clear() {
    std::int64_t n = 0;
    drain_words([&](std::size_t word) { n += __builtin_popcountll(bits[word]); });
    return n;
  }
  // f(j) for every column in increasing order, leaving the set empty
  template <class F>
  void drain(const F& f) {
    drain_words([&](std::size_t word) {
      for (std::uint64_t b = bits[word]; b; b &= b - 1)
        f(word * 64 + static_cast<std::size_t>(__builtin_ctzll(b)));
    });
  }
};

// Whether each row of B has strictly increasing columns: a row of A with one entry
// then gives an output row that is that row of B, scaled, with no accumulation.
template <class index_t>
std::vector<char> canonical_rows(const index_t* bcr, const index_t* bcl, std::int64_t ninner) {
  std::vector<char> ok(static_cast<std::size_t>(ninner), 1);
  parallel_for(0, ninner, 1 << 12, [&](std::int64_t kb, std::int64_t ke) {
    for (std::int64_t k = kb; k < ke; ++k)
      for (index_t q = bcr[k] + 1; q < bcr[k + 1]; ++q)
        if (bcl[q - 1] >= bcl[q]) { ok[k] = 0; break; }
  });
  return ok;
}

// How row r of A @ B is formed: the multiply-adds it needs are known up front
// (from the work split), so the choice costs nothing per product.
enum class RowKind { kEmpty, kScaledRow, kShort, kBitmap };

// A row with at most kSortMax products is sorted as a list: cheaper than
// scanning the bitmap's summary, which costs ncols / 4096 words per row.
template <class index_t>
RowKind row_kind(std::int64_t r, std::int64_t products, const index_t* acr, const index_t* acl,
                 const std::vector<char>& canonical) {
  if (products == 0) return RowKind::kEmpty;
  if (acr[r + 1] - acr[r] == 1 && canonical[acl[acr[r]]]) return RowKind::kScaledRow;
  return products <= static_cast<std::int64_t>(kSortMax) ? RowKind::kShort : RowKind::kBitmap;
}

// Symbolic pass: count[r + 1] = stored entries of row r of A @ B.
template <class index_t>
void count_rows(const index_t* acr, const index_t* acl, const index_t* bcr, const index_t* bcl,
                const std::vector<char>& canonical, std::int64_t ncols, const std::vector<std::int64_t>& work,
                const std::vector<std::int64_t>& cut, int nchunks, std::int64_t* count) {
  const bool dense = ncols <= kDenseMaxCols;
  parallel_chunks(0, nchunks, nchunks, [&](int, std::int64_t c, std::int64_t) {
    const std::int64_t rb = cut[c], re = cut[c + 1];
    if (rb == re) return;
    if (dense) {
      ColumnSet set(ncols);
      index_t few[kSortMax];
      for (std::int64_t r = rb; r < re; ++r) {
        switch (row_kind(r, work[r + 1] - work[r] - 1, acr, acl, canonical)) {
          case RowKind::kEmpty:
            count[r + 1] = 0;
            break;
          case RowKind::kScaledRow: {
            const index_t k = acl[acr[r]];
            count[r + 1] = static_cast<std::int64_t>(bcr[k + 1] - bcr[k]);
            break;
          }
          case RowKind::kShort: {
            std::size_t n = 0;
            for (index_t p = acr[r]; p < acr[r + 1]; ++p)
              for (index_t q = bcr[acl[p]]; q < bcr[acl[p] + 1]; ++q) few[n++] = bcl[q];
            std::sort(few, few + n);
            count[r + 1] = std::unique(few, few + n) - few;
            break;
          }
          case RowKind::kBitmap:
            for (index_t p = acr[r], pe = acr[r + 1]; p < pe; ++p)
              for (index_t q = bcr[acl[p]], qe = bcr[acl[p] + 1]; q < qe; ++q)
                set.add(static_cast<std::uint64_t>(bcl[q]));
            count[r + 1] = set.count_clear();
            break;
        }
      }
    } else {
      std::vector<index_t> seen;
      for (std::int64_t r = rb; r < re; ++r) {
        seen.clear();
        for (index_t p = acr[r]; p < acr[r + 1]; ++p)
          for (index_t q = bcr[acl[p]]; q < bcr[acl[p] + 1]; ++q) seen.push_back(bcl[q]);
        std::sort(seen.begin(), seen.end());
        count[r + 1] = std::unique(seen.begin(), seen.end()) - seen.begin();
      }
    }
  });
}

// Numeric pass: row r of A @ B written at ocl/ov + crows[r], columns in order.
// Every path adds a column's products in the order (entry of A, entry of B).
template <class index_t, class scalar_t>
void fill_rows(const index_t* acr, const index_t* acl, const scalar_t* av, const index_t* bcr, const index_t* bcl,
               const scalar_t* bv, const std::vector<char>& canonical, std::int64_t ncols,
               const std::vector<std::int64_t>& work, const std::vector<std::int64_t>& cut, int nchunks,
               const std::int64_t* crows, index_t* ocl, scalar_t* ovl) {
  const bool dense = ncols <= kDenseMaxCols;
  parallel_chunks(0, nchunks, nchunks, [&](int, std::int64_t c, std::int64_t) {
    const std::int64_t rb = cut[c], re = cut[c + 1];
    if (rb == re) return;
    const std::int64_t pend = static_cast<std::int64_t>(acr[re]);
    if (dense) {
      ColumnSet set(ncols);
      // all zero between rows, and between calls: every row that adds to acc
      // resets what it touched when it reads it out, so no per-call fill of
      // ncols values is needed (std::vector::resize zeroes what it adds)
      ScratchVector<scalar_t, 30> acc_s(static_cast<std::size_t>(ncols));
      scalar_t* __restrict acc = acc_s.get().data();
      std::pair<index_t, scalar_t> few[kSortMax];
      for (std::int64_t r = rb; r < re; ++r) {
        index_t* oc = ocl + crows[r];
        scalar_t* ov = ovl + crows[r];
        switch (row_kind(r, work[r + 1] - work[r] - 1, acr, acl, canonical)) {
          case RowKind::kEmpty:
            break;
          case RowKind::kScaledRow: {
            const index_t p = acr[r], k = acl[p];
            for (index_t q = bcr[k]; q < bcr[k + 1]; ++q, ++oc, ++ov) {
              *oc = bcl[q];
              *ov = scalar_t(0) + mul(av[p], bv[q]);
            }
            break;
          }
          case RowKind::kShort: {
            std::size_t n = 0;
            for (index_t p = acr[r]; p < acr[r + 1]; ++p)
              for (index_t q = bcr[acl[p]]; q < bcr[acl[p] + 1]; ++q) few[n++] = {bcl[q], mul(av[p], bv[q])};
            // insertion sort: stable, so equal columns keep their order of addition
            for (std::size_t t = 1; t < n; ++t)
              for (std::size_t u = t; u > 0 && few[u - 1].first > few[u].first; --u) std::swap(few[u - 1], few[u]);
            std::size_t w = 0;
            for (std::size_t t = 0; t < n; ++t) {
              if (w && oc[w - 1] == few[t].first) {
                ov[w - 1] += few[t].second;
              } else {
                oc[w] = few[t].first;
                ov[w++] = scalar_t(0) + few[t].second;
              }
            }
            break;
          }
          case RowKind::kBitmap: {
            for (index_t p = acr[r], pe = acr[r + 1]; p < pe; ++p) {
              // rows of B are scattered in memory: fetching them is the main cost, not the arithmetic
              if (p + kPrefetch < pend) {
                const index_t kn = acl[p + kPrefetch];
                __builtin_prefetch(bcl + bcr[kn]);
                __builtin_prefetch(bv + bcr[kn]);
              }
              const scalar_t x = av[p];
              const index_t k = acl[p];
              for (index_t q = bcr[k], qe = bcr[k + 1]; q < qe; ++q) {
                const auto j = static_cast<std::uint64_t>(bcl[q]);
                set.add(j);
                acc[j] += mul(x, bv[q]);
              }
            }
            std::size_t w = 0;
            set.drain([&](std::size_t j) {
              oc[w] = static_cast<index_t>(j);
              ov[w++] = acc[j];
              acc[j] = scalar_t(0);
            });
            break;
          }
        }
      }
    } else {
      std::vector<std::pair<index_t, scalar_t>> prod;
      for (std::int64_t r = rb; r < re; ++r) {
        prod.clear();
        for (index_t p = acr[r]; p < acr[r + 1]; ++p) {
          const index_t k = acl[p];
          for (index_t q = bcr[k]; q < bcr[k + 1]; ++q) prod.emplace_back(bcl[q], mul(av[p], bv[q]));
        }
        std::stable_sort(prod.begin(), prod.end(), [](const auto& u, const auto& v) { return u.first < v.first; });
        index_t* oc = ocl + crows[r];
        scalar_t* ov = ovl + crows[r];
        std::size_t n = 0;
        for (std::size_t t = 0; t < prod.size(); ++t) {
          if (n && prod[t].first == oc[n - 1]) {
            ov[n - 1] += prod[t].second;
          } else {
            oc[n] = prod[t].first;
            ov[n++] = scalar_t(0) + prod[t].second;
          }
        }
      }
    }
  });
}

template <class index_t, class scalar_t>
py::tuple spgemm_impl(const CsrArg& a, const py::array& a_values, const CsrArg& b,
                      const py::array& b_values, std::int64_t ncols, const char* op) {
  const std::int64_t nrows = a.crows.shape(0) - 1;
  const auto* acr = static_cast<const index_t*>(a.crows.data());
  const auto* acl = static_cast<const index_t*>(a.cols.data());
  const auto* bcr = static_cast<const index_t*>(b.crows.data());
  const auto* bcl = static_cast<const index_t*>(b.cols.data());
  std::vector<std::int64_t> count(static_cast<std::size_t>(nrows) + 1, 0);
  std::vector<std::int64_t> cut, work;
  std::vector<char> canonical;
  int nchunks = 1;
  {
    py::gil_scoped_release nogil;
    auto flops = [&](std::int64_t r) {
      std::int64_t f = 0;
      for (index_t k = acr[r]; k < acr[r + 1]; ++k) f += static_cast<std::int64_t>(bcr[acl[k] + 1] - bcr[acl[k]]);
      return f;
    };
    cut = split_by_work(nrows, flops, nchunks, work);
    canonical = canonical_rows(bcr, bcl, b.crows.shape(0) - 1);
    count_rows(acr, acl, bcr, bcl, canonical, ncols, work, cut, nchunks, count.data());
    for (std::int64_t r = 0; r < nrows; ++r) count[r + 1] += count[r];
  }
  const std::int64_t nnz = count[nrows];
  if (nnz > static_cast<std::int64_t>(std::numeric_limits<index_t>::max()))
    value_error(op, "the product has ", nnz, " stored entries, more than ", dtype_name(a.crows.dtype()),
                " indices can address; cast the operands' indices to int64");
  py::array crows(a.crows.dtype(), std::vector<py::ssize_t>{nrows + 1});
  py::array cols(a.crows.dtype(), std::vector<py::ssize_t>{nnz});
  py::array vals(a_values.dtype(), std::vector<py::ssize_t>{nnz});
  {
    auto* ocr = static_cast<index_t*>(crows.mutable_data());
    auto* ocl = static_cast<index_t*>(cols.mutable_data());
    auto* ov = static_cast<scalar_t*>(vals.mutable_data());
    const auto* av = static_cast<const scalar_t*>(a_values.data());
    const auto* bv = static_cast<const scalar_t*>(b_values.data());
    py::gil_scoped_release nogil;
    for (std::int64_t r = 0; r <= nrows; ++r) ocr[r] = static_cast<index_t>(count[r]);
    fill_rows(acr, acl, av, bcr, bcl, bv, canonical, ncols, work, cut, nchunks, count.data(), ocl, ov);
  }
  return py::make_tuple(crows, cols, vals);
}

// spgemm(a_crows, a_cols, a_values, b_crows, b_cols, b_values, ncols) -> (crows, cols, values)
py::tuple spgemm(const py::array& a_crows, const py::array& a_cols, const py::array& a_values,
                 const py::array& b_crows, const py::array& b_cols, const py::array& b_values,
                 std::int64_t ncols) {
  const char* op = "sparse_spgemm";
  const CsrArg a{a_crows, a_cols, "a_crows", "a_cols"};
  const CsrArg b{b_crows, b_cols, "b_crows", "b_cols"};
  check_pattern(a, a_crows, op);
  check_pattern(b, a_crows, op);
  check_values(a_values, "a_values", a_cols, "a_cols", a_values, "a_values", op);
  check_values(b_values, "b_values", b_cols, "b_cols", a_values, "a_values", op);
  if (ncols < 0) value_error(op, "ncols must be >= 0, got ", ncols);
  const std::int64_t inner = b_crows.shape(0) - 1;
  return dispatch(IndexTypes{}, a_crows, op, "a_crows", [&](auto itag) -> py::tuple {
    using index_t = typename decltype(itag)::type;
    check_csr_ranges<index_t>(a, inner, "the rows of b", op);
    check_csr_ranges<index_t>(b, ncols, "ncols", op);
    return dispatch(FloatingComplexTypes{}, a_values, op, "a_values", [&](auto vtag) -> py::tuple {
      return spgemm_impl<index_t, typename decltype(vtag)::type>(a, a_values, b, b_values, ncols, op);
    });
  });
}

// ---------------------------------------------------------------------------------
// sampled product

template <class index_t, class scalar_t>
void sampled_impl(const CsrArg& p, const CsrArg& x, const py::array& x_values, const CsrArg& y,
                  const py::array& y_values, std::int64_t ncols, scalar_t* out) {
  const std::int64_t nrows = p.crows.shape(0) - 1;
  const auto* pcr = static_cast<const index_t*>(p.crows.data());
  const auto* pcl = static_cast<const index_t*>(p.cols.data());
  const auto* xcr = static_cast<const index_t*>(x.crows.data());
  const auto* xcl = static_cast<const index_t*>(x.cols.data());
  const auto* xv = static_cast<const scalar_t*>(x_values.data());
  const auto* ycr = static_cast<const index_t*>(y.crows.data());
  const auto* ycl = static_cast<const index_t*>(y.cols.data());
  const auto* yv = static_cast<const scalar_t*>(y_values.data());
  const bool dense = ncols <= kDenseMaxCols;
  py::gil_scoped_release nogil;
  auto work = [&](std::int64_t r) {
    std::int64_t f = static_cast<std::int64_t>(xcr[r + 1] - xcr[r]);
    for (index_t e = pcr[r]; e < pcr[r + 1]; ++e) f += static_cast<std::int64_t>(ycr[pcl[e] + 1] - ycr[pcl[e]]);
    return f;
  };
  int nchunks = 1;
  std::vector<std::int64_t> prefix;
  const auto cut = split_by_work(nrows, work, nchunks, prefix);
  parallel_chunks(0, nchunks, nchunks, [&](int, std::int64_t c, std::int64_t) {
    const std::int64_t rb = cut[c], re = cut[c + 1];
    if (rb == re) return;
    const std::int64_t pend = static_cast<std::int64_t>(pcr[re]);
    if (dense) {
      ScratchVector<scalar_t, 33> acc_s(static_cast<std::size_t>(ncols));
      auto& acc = acc_s.get();
      std::fill(acc.begin(), acc.end(), scalar_t(0));
      for (std::int64_t r = rb; r < re; ++r) {
        if (pcr[r] == pcr[r + 1]) continue;
        for (index_t t = xcr[r]; t < xcr[r + 1]; ++t) acc[xcl[t]] += xv[t];
        for (index_t e = pcr[r]; e < pcr[r + 1]; ++e) {
          if (e + kPrefetch < pend) {
            const index_t kn = pcl[e + kPrefetch];
            __builtin_prefetch(ycl + ycr[kn]);
            __builtin_prefetch(yv + ycr[kn]);
          }
          const index_t k = pcl[e];
          scalar_t s = 0;
          for (index_t q = ycr[k]; q < ycr[k + 1]; ++q) s += mul(acc[ycl[q]], yv[q]);
          out[e] = s;
        }
        for (index_t t = xcr[r]; t < xcr[r + 1]; ++t) acc[xcl[t]] = scalar_t(0);
      }
    } else {
      std::vector<std::pair<index_t, scalar_t>> row;
      for (std::int64_t r = rb; r < re; ++r) {
        if (pcr[r] == pcr[r + 1]) continue;
        row.clear();
        for (index_t t = xcr[r]; t < xcr[r + 1]; ++t) row.emplace_back(xcl[t], xv[t]);
        std::stable_sort(row.begin(), row.end(), [](const auto& u, const auto& v) { return u.first < v.first; });
        std::size_t w = 0;  // merge duplicate columns of X's row
        for (std::size_t t = 0; t < row.size(); ++t) {
          if (w && row[w - 1].first == row[t].first) row[w - 1].second += row[t].second;
          else row[w++] = row[t];
        }
        row.resize(w);
        for (index_t e = pcr[r]; e < pcr[r + 1]; ++e) {
          const index_t k = pcl[e];
          scalar_t s = 0;
          for (index_t q = ycr[k]; q < ycr[k + 1]; ++q) {
            const index_t j = ycl[q];
            auto it = std::lower_bound(row.begin(), row.end(), j,
                                       [](const auto& u, index_t v) { return u.first < v; });
            if (it != row.end() && it->first == j) s += mul(it->second, yv[q]);
          }
          out[e] = s;
        }
      }
    }
  });
}

// sampled(p_crows, p_cols, x_crows, x_cols, x_values, y_crows, y_cols, y_values, ncols) -> out [p_nnz]
py::array sampled(const py::array& p_crows, const py::array& p_cols, const py::array& x_crows,
                  const py::array& x_cols, const py::array& x_values, const py::array& y_crows,
                  const py::array& y_cols, const py::array& y_values, std::int64_t ncols) {
  const char* op = "sparse_spgemm_sampled";
  const CsrArg p{p_crows, p_cols, "p_crows", "p_cols"};
  const CsrArg x{x_crows, x_cols, "x_crows", "x_cols"};
  const CsrArg y{y_crows, y_cols, "y_crows", "y_cols"};
  // check_pattern names a_crows as the reference dtype; here p_crows is the reference
  check_ndim(p_crows, 1, op, "p_crows");
  check_dtype(IndexTypes{}, p_crows, op, "p_crows");
  for (const CsrArg* m : {&p, &x, &y}) {
    check_ndim(m->crows, 1, op, m->crows_name);
    check_ndim(m->cols, 1, op, m->cols_name);
    check_same_dtype(m->crows, m->crows_name, p_crows, "p_crows", op);
    check_same_dtype(m->cols, m->cols_name, p_crows, "p_crows", op);
    check_contiguous(m->crows, op, m->crows_name);
    check_contiguous(m->cols, op, m->cols_name);
    if (m->crows.shape(0) < 1)
      value_error(op, m->crows_name, " must have at least one entry, got shape ", shape_str(m->crows));
  }
  check_values(x_values, "x_values", x_cols, "x_cols", x_values, "x_values", op);
  check_values(y_values, "y_values", y_cols, "y_cols", x_values, "x_values", op);
  if (x_crows.shape(0) != p_crows.shape(0))
    value_error(op, "x_crows describes ", x_crows.shape(0) - 1, " rows but p_crows describes ",
                p_crows.shape(0) - 1);
  if (ncols < 0) value_error(op, "ncols must be >= 0, got ", ncols);
  py::array out(x_values.dtype(), std::vector<py::ssize_t>{p_cols.shape(0)});
  dispatch(IndexTypes{}, p_crows, op, "p_crows", [&](auto itag) {
    using index_t = typename decltype(itag)::type;
    check_csr_ranges<index_t>(p, y_crows.shape(0) - 1, "the rows of y", op);
    check_csr_ranges<index_t>(x, ncols, "ncols", op);
    check_csr_ranges<index_t>(y, ncols, "ncols", op);
    dispatch(FloatingComplexTypes{}, x_values, op, "x_values", [&](auto vtag) {
      using scalar_t = typename decltype(vtag)::type;
      sampled_impl<index_t, scalar_t>(p, x, x_values, y, y_values, ncols,
                                      static_cast<scalar_t*>(out.mutable_data()));
    });
  });
  return out;
}

}  // namespace

void bind_sparse_spgemm(py::module_& m) {
  m.def("sparse_spgemm", &spgemm, py::arg("a_crows").noconvert(), py::arg("a_cols").noconvert(),
        py::arg("a_values").noconvert(), py::arg("b_crows").noconvert(), py::arg("b_cols").noconvert(),
        py::arg("b_values").noconvert(), py::arg("ncols"),
        R"doc(sparse_spgemm(a_crows, a_cols, a_values, b_crows, b_cols, b_values, ncols) -> (crows, cols, values)

C = A @ B for CSR A [R, K] (K = len(b_crows) - 1) and CSR B [K, ncols]; index
arrays int32/int64 of one dtype (kept in the result), values float32/float64/
complex64/complex128 of one dtype.  Input columns need not be sorted and
duplicates add up; C is canonical (columns sorted in each row, no duplicates)
and holds every structurally nonzero product, even where it sums to 0.
Row-parallel, balanced by multiply-adds, deterministic.
)doc");
  m.def("sparse_spgemm_sampled", &sampled, py::arg("p_crows").noconvert(), py::arg("p_cols").noconvert(),
        py::arg("x_crows").noconvert(), py::arg("x_cols").noconvert(), py::arg("x_values").noconvert(),
        py::arg("y_crows").noconvert(), py::arg("y_cols").noconvert(), py::arg("y_values").noconvert(),
        py::arg("ncols"),
        R"doc(sparse_spgemm_sampled(p_crows, p_cols, x_crows, x_cols, x_values, y_crows, y_cols, y_values, ncols) -> out [p_nnz]

out[e] = sum_j X[i, j] * Y[k, j] for every stored entry e = (i, k) of the CSR
pattern P, i.e. (X @ Yᵀ) sampled at P without forming it.  X has P's rows, Y
has at least max(p_cols) + 1 rows, both have ncols columns; one index dtype,
one value dtype.  Duplicates in X or Y add up; no conjugation.
)doc");
}

}  // namespace weft
