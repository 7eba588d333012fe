// Sparse format conversions: COO coalesce, COO -> CSR, CSR canonicalisation,
// CSR -> COO row expansion.  CSR transpose (CSR -> CSC) is COO -> CSR applied to
// (cols, expanded rows), so it needs no kernel of its own.
//
// Coalesce and COO -> CSR share one algorithm:
//   1. a stable counting sort of the entries by their first index ("row"),
//      with per-chunk histograms so the scatter is parallel and deterministic;
//   2. per row, a sort of (key, position) pairs, key = the remaining sparse
//      indices linearised row-major; position breaks ties, so duplicates stay
//      in input order and are summed in that order (results do not depend on
//      the thread count);
//   3. a prefix sum of the unique counts per row, then a parallel write of the
//      output indices, summed values and (optionally) the entry -> slot map the
//      gradient needs.
// CSR canonicalisation is steps 2-3 with the rows given by crows.
//
// Rows are split among threads by stored entries, not by row count, so a
// power-law matrix with a few very long rows still balances.  Pairs are 32-bit
// when keys and positions fit, which halves the memory traffic of the sort.
//
// Every argument is checked (dtype, rank, contiguity, bounds, crows monotone)
// before a data pointer is read, and raises ValueError/TypeError naming it.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "common/checks.h"
#include "common/dtype.h"
#include "common/parallel.h"
#include "sparse/csr_checks.h"

namespace py = pybind11;

namespace weft {
namespace {

// The [nnz] int64 map from each input entry to its output slot when the caller
// wants it (for gradients), else None; ``inv`` is left pointing at its data.
py::object optional_inverse(bool want, std::int64_t nnz, std::int64_t*& inv) {
  if (!want) return py::none();
  py::array_t<std::int64_t> a(std::vector<py::ssize_t>{nnz});
  inv = a.mutable_data();
  return std::move(a);
}

constexpr std::int64_t kGrain = 1 << 14;  // entries per chunk below which a team costs more than it saves
constexpr std::int64_t kGatherAhead = 16;  // sorted entries ahead whose value is prefetched (a hint: never faults)

template <class U>
struct Pair {
  U key;
  U pos;
  bool operator<(const Pair& o) const { return key < o.key || (key == o.key && pos < o.pos); }
};

using SparseValueTypes = type_list<float, double, std::complex<float>, std::complex<double>,
                                   std::int32_t, std::int64_t>;

// [b, e) of rows such that chunks hold about equal numbers of entries.
std::vector<std::int64_t> row_split(const std::int64_t* rp, std::int64_t nrows, int nchunks) {
  std::vector<std::int64_t> cut(static_cast<std::size_t>(nchunks) + 1, nrows);
  cut[0] = 0;
  const std::int64_t nnz = rp[nrows];
  for (int c = 1; c < nchunks; ++c) {
    const std::int64_t target = nnz / nchunks * c + std::min<std::int64_t>(c, nnz % nchunks);
    cut[c] = std::upper_bound(rp, rp + nrows + 1, target) - rp - 1;
    cut[c] = std::max(cut[c], cut[c - 1]);
  }
  return cut;
}

// Pairs arrive in increasing position within a segment, so a stable LSD radix
// sort on the key alone yields (key, position) order.  Only as many 11-bit
// digits as the segment's largest key needs.
template <class U>
void radix_segment(Pair<U>* p, std::int64_t n, std::vector<Pair<U>>& scratch) {
  constexpr int kBits = 11;
  constexpr std::int64_t kRadix = std::int64_t{1} << kBits;
  U maxk = 0;
  for (std::int64_t i = 0; i < n; ++i) maxk = std::max(maxk, p[i].key);
  int bits = 0;
  while (bits < 64 && (static_cast<std::uint64_t>(maxk) >> bits) != 0) ++bits;
  if (static_cast<std::int64_t>(scratch.size()) < n) scratch.resize(static_cast<std::size_t>(n));
  Pair<U>* src = p;
  Pair<U>* dst = scratch.data();
  std::vector<std::int64_t> cnt(static_cast<std::size_t>(kRadix));
  for (int shift = 0; shift < bits; shift += kBits) {
    std::fill(cnt.begin(), cnt.end(), 0);
    for (std::int64_t i = 0; i < n; ++i) ++cnt[static_cast<std::size_t>((src[i].key >> shift) & (kRadix - 1))];
    std::int64_t run = 0;
    for (auto& c : cnt) {
      const std::int64_t h = c;
      c = run;
      run += h;
    }
    for (std::int64_t i = 0; i < n; ++i) dst[cnt[static_cast<std::size_t>((src[i].key >> shift) & (kRadix - 1))]++] = src[i];
    std::swap(src, dst);
  }
  if (src != p) std::copy(src, src + n, p);
}

template <class U>
void sort_segment(Pair<U>* p, std::int64_t n, std::vector<Pair<U>>& scratch) {
  if (n < 2) return;
  bool sorted = true;
  for (std::int64_t i = 1; i < n && sorted; ++i) sorted = !(p[i] < p[i - 1]);
  if (sorted) return;
  if (n > 256) {
    radix_segment(p, n, scratch);
    return;
  }
  if (n <= 24) {
    for (std::int64_t i = 1; i < n; ++i) {
      const Pair<U> v = p[i];
      std::int64_t j = i - 1;
      while (j >= 0 && v < p[j]) {
        p[j + 1] = p[j];
        --j;
      }
      p[j + 1] = v;
    }
    return;
  }
  std::sort(p, p + n);
}

// Result of the sort phase: pairs grouped by row and sorted within rows, the
// input row pointer, the unique count per row and its prefix sum.
template <class U>
struct Sorted {
  std::unique_ptr<Pair<U>[]> pairs;
  std::vector<std::int64_t> rp;   // [nrows + 1] over input entries
  std::vector<std::int64_t> urp;  // [nrows + 1] over unique entries
};

// Steps 2 and the prefix sum of step 3.
template <class U>
void sort_rows_and_count(Sorted<U>& s, std::int64_t nrows) {
  const std::int64_t nnz = s.rp[nrows];
  const int nchunks = plan_chunks(nnz, kGrain);
  const auto cut = row_split(s.rp.data(), nrows, std::max(nchunks, 1));
  s.urp.assign(static_cast<std::size_t>(nrows) + 1, 0);
  Pair<U>* pairs = s.pairs.get();
  const std::int64_t* rp = s.rp.data();
  std::int64_t* urp = s.urp.data();
  parallel_chunks(0, std::max(nchunks, 1), std::max(nchunks, 1), [&](int c, std::int64_t, std::int64_t) {
    std::vector<Pair<U>> scratch;
    for (std::int64_t r = cut[c]; r < cut[c + 1]; ++r) {
      Pair<U>* p = pairs + rp[r];
      const std::int64_t n = rp[r + 1] - rp[r];
      sort_segment(p, n, scratch);
      std::int64_t u = n ? 1 : 0;
      for (std::int64_t i = 1; i < n; ++i) u += p[i].key != p[i - 1].key;
      urp[r + 1] = u;
    }
  });
  for (std::int64_t r = 0; r < nrows; ++r) urp[r + 1] += urp[r];
}

// Step 1: stable counting sort of entries by row; keys computed by `key_of(k)`.
template <class U, class index_t, class KeyOf>
void bucket_by_row(Sorted<U>& s, const index_t* rows, std::int64_t nnz, std::int64_t nrows,
                   const KeyOf& key_of) {
  s.pairs.reset(new Pair<U>[static_cast<std::size_t>(std::max<std::int64_t>(nnz, 1))]);
  s.rp.assign(static_cast<std::size_t>(nrows) + 1, 0);
  int nchunks = plan_chunks(nnz, kGrain);
  // private histograms cost nchunks * nrows; past a few times nnz a serial count is cheaper
  if (static_cast<double>(nchunks) * static_cast<double>(nrows) > 4.0 * static_cast<double>(nnz) + (1 << 20))
    nchunks = 1;
  nchunks = std::max(nchunks, 1);
  std::vector<std::vector<std::int64_t>> hist(static_cast<std::size_t>(nchunks));
  parallel_chunks(0, std::max<std::int64_t>(nnz, 1), nchunks, [&](int c, std::int64_t b, std::int64_t e) {
    auto& h = hist[static_cast<std::size_t>(c)];
    h.assign(static_cast<std::size_t>(nrows), 0);
    e = std::min(e, nnz);
    for (std::int64_t k = b; k < e; ++k) ++h[static_cast<std::size_t>(rows[k])];
  });
  // row-major, chunk-minor exclusive scan: each chunk's entries of a row follow the previous chunk's
  std::int64_t run = 0;
  for (std::int64_t r = 0; r < nrows; ++r) {
    s.rp[static_cast<std::size_t>(r)] = run;
    for (int c = 0; c < nchunks; ++c) {
      auto& h = hist[static_cast<std::size_t>(c)];
      if (h.empty()) continue;
      const std::int64_t here = h[static_cast<std::size_t>(r)];
      h[static_cast<std::size_t>(r)] = run;
      run += here;
    }
  }
  s.rp[static_cast<std::size_t>(nrows)] = run;
  Pair<U>* pairs = s.pairs.get();
  parallel_chunks(0, std::max<std::int64_t>(nnz, 1), nchunks, [&](int c, std::int64_t b, std::int64_t e) {
    auto& h = hist[static_cast<std::size_t>(c)];
    e = std::min(e, nnz);
    for (std::int64_t k = b; k < e; ++k) {
      // each entry lands in its row's bucket, far from the last one: claim the line ahead
      if (k + kGatherAhead < e) __builtin_prefetch(pairs + h[static_cast<std::size_t>(rows[k + kGatherAhead])], 1);
      const std::int64_t dst = h[static_cast<std::size_t>(rows[k])]++;
      pairs[dst] = Pair<U>{static_cast<U>(key_of(k)), static_cast<U>(k)};
    }
  });
}

// Step 3: values summed per unique (row, key) in input order, the slot of every
// input entry, and the output keys through `emit(slot, row, key)`.
template <class U, class real_t, class Emit>
void write_output(const Sorted<U>& s, std::int64_t nrows, const real_t* vals, real_t* out,
                  std::int64_t w, std::int64_t* inverse, const Emit& emit) {
  const std::int64_t nnz = s.rp[static_cast<std::size_t>(nrows)];
  const int nchunks = std::max(plan_chunks(nnz, kGrain), 1);
  const auto cut = row_split(s.rp.data(), nrows, nchunks);
  const Pair<U>* pairs = s.pairs.get();
  parallel_chunks(0, nchunks, nchunks, [&](int c, std::int64_t, std::int64_t) {
    for (std::int64_t r = cut[c]; r < cut[c + 1]; ++r) {
      std::int64_t slot = s.urp[static_cast<std::size_t>(r)] - 1;
      const std::int64_t b = s.rp[static_cast<std::size_t>(r)], e = s.rp[static_cast<std::size_t>(r) + 1];
      for (std::int64_t i = b; i < e; ++i) {
        // values are read in sorted order, i.e. scattered over the input: fetch ahead
        if (i + kGatherAhead < nnz) __builtin_prefetch(vals + static_cast<std::int64_t>(pairs[i + kGatherAhead].pos) * w);
        const Pair<U> p = pairs[i];
        const std::int64_t k = static_cast<std::int64_t>(p.pos);
        real_t* o;
        if (i == b || p.key != pairs[i - 1].key) {
          ++slot;
          emit(slot, r, static_cast<std::int64_t>(p.key));
          o = out + slot * w;
          const real_t* v = vals + k * w;
          for (std::int64_t j = 0; j < w; ++j) o[j] = v[j];
        } else {
          o = out + slot * w;
          const real_t* v = vals + k * w;
          for (std::int64_t j = 0; j < w; ++j) o[j] += v[j];
        }
        if (inverse) {
          if (i + kGatherAhead < nnz) __builtin_prefetch(inverse + pairs[i + kGatherAhead].pos, 1);
          inverse[k] = slot;
        }
      }
    }
  });
}

std::vector<std::int64_t> check_shape(const std::vector<std::int64_t>& shape, const char* op) {
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (shape[d] < 0) value_error(op, "shape[", d, "] = ", shape[d], " is negative");
  return shape;
}

void check_values(const py::array& values, std::int64_t nnz, const char* op) {
  check_ndim(values, 2, op, "values");
  if (values.shape(0) != nnz)
    value_error(op, "values has ", values.shape(0), " rows but there are ", nnz, " stored entries");
  check_contiguous(values, op, "values");
  check_dtype(SparseValueTypes{}, values, op, "values");
}

// Bounds of one index row; ValueError (constructors' contract) with position and value.
template <class index_t>
void check_index_row(const index_t* idx, std::int64_t n, std::int64_t bound, const char* op,
                     const char* name, std::int64_t d) {
  std::int64_t pos;
  {
    py::gil_scoped_release nogil;
    pos = first_out_of_range(idx, n, bound);
  }
  if (pos >= 0) {
    if (d >= 0)
      value_error(op, name, "[", d, "][", pos, "] = ", static_cast<std::int64_t>(idx[pos]),
                  " is out of range [0, ", bound, ")");
    value_error(op, name, "[", pos, "] = ", static_cast<std::int64_t>(idx[pos]), " is out of range [0, ",
                bound, ")");
  }
}

// crows[0] == 0, non-decreasing, crows[-1] == nnz.
template <class index_t>
void check_crows(const index_t* cr, std::int64_t nrows, std::int64_t nnz, const char* op) {
  if (static_cast<std::int64_t>(cr[0]) != 0)
    value_error(op, "crows[0] = ", static_cast<std::int64_t>(cr[0]), ", expected 0");
  std::int64_t bad = -1;
  {
    py::gil_scoped_release nogil;
    for (std::int64_t r = 0; r < nrows; ++r)
      if (cr[r + 1] < cr[r]) {
        bad = r + 1;
        break;
      }
  }
  if (bad >= 0)
    value_error(op, "crows must be non-decreasing, but crows[", bad, "] = ", static_cast<std::int64_t>(cr[bad]),
                " < crows[", bad - 1, "] = ", static_cast<std::int64_t>(cr[bad - 1]));
  if (static_cast<std::int64_t>(cr[nrows]) != nnz)
    value_error(op, "the last value of crows (", static_cast<std::int64_t>(cr[nrows]),
                ") must equal the number of stored entries (", nnz, ")");
}

template <class index_t>
py::array_t<index_t> new_index(std::vector<py::ssize_t> shape) {
  return py::array_t<index_t>(shape);
}

// ---------------------------------------------------------------------------------
// coo_coalesce(indices, values, shape, to_csr, want_inverse)
//   to_csr=False -> (indices [sd, u], values [u, w], inverse or None)
//   to_csr=True  -> (crows [shape[0]+1], cols [u], values [u, w], inverse or None), sd == 2

py::tuple coo_coalesce(const py::array& indices, const py::array& values, std::vector<std::int64_t> shape,
                       bool to_csr, bool want_inverse) {
  const char* op = to_csr ? "coo_to_csr" : "coalesce";
  check_ndim(indices, 2, op, "indices");
  check_dtype(IndexTypes{}, indices, op, "indices");
  check_contiguous(indices, op, "indices");
  const std::int64_t sd = indices.shape(0), nnz = indices.shape(1);
  if (sd < 1) value_error(op, "indices must have at least one row (sparse dimension), got shape ", shape_str(indices));
  if (static_cast<std::int64_t>(shape.size()) != sd)
    value_error(op, "shape has ", shape.size(), " entries but indices has ", sd, " rows (sparse dimensions)");
  check_shape(shape, op);
  if (to_csr && sd != 2) value_error(op, "indices must have 2 rows for a 2-D CSR result, got ", sd);
  check_values(values, nnz, op);
  // key = row-major linearisation of indices[1:]; must fit in int64
  std::int64_t key_range = 1;
  for (std::int64_t d = 1; d < sd; ++d) {
    if (shape[d] && key_range > std::numeric_limits<std::int64_t>::max() / shape[d])
      value_error(op, "the sparse shape after the first axis has more than 2^63 positions");
    key_range *= shape[d];
  }
  const std::int64_t nrows = shape[0];
  // the counting sort allocates per row: refuse (instead of exhausting memory) a first
  // axis far longer than nnz; weft.sparse then takes its sort-based generic path
  if (nrows > std::max<std::int64_t>(8 * nnz, std::int64_t{1} << 22))
    value_error(op, "shape[0] = ", nrows, " is too large for the counting sort (more than ",
                "max(8 * nnz, 2^22) rows)");

  return dispatch(IndexTypes{}, indices, op, "indices", [&](auto itag) -> py::tuple {
    using index_t = typename decltype(itag)::type;
    const auto* idx = static_cast<const index_t*>(indices.data());
    for (std::int64_t d = 0; d < sd; ++d) check_index_row(idx + d * nnz, nnz, shape[d], op, "indices", d);
    if (std::is_same_v<index_t, std::int32_t> && to_csr && nnz > std::numeric_limits<std::int32_t>::max())
      value_error(op, "nnz = ", nnz, " does not fit the int32 crows of an int32-indexed result");
    const std::int64_t w = values.shape(1);
    const bool narrow = key_range <= (std::int64_t{1} << 32) && nnz <= (std::int64_t{1} << 32);

    auto run = [&](auto utag) -> py::tuple {
      using U = typename decltype(utag)::type;
      Sorted<U> s;
      {
        py::gil_scoped_release nogil;
        if (sd == 1) {
          bucket_by_row(s, idx, nnz, nrows, [](std::int64_t) { return std::int64_t{0}; });
        } else if (sd == 2) {
          const index_t* c = idx + nnz;
          bucket_by_row(s, idx, nnz, nrows, [c](std::int64_t k) { return static_cast<std::int64_t>(c[k]); });
        } else {
          bucket_by_row(s, idx, nnz, nrows, [&](std::int64_t k) {
            std::int64_t key = 0;
            for (std::int64_t d = 1; d < sd; ++d) key = key * shape[d] + static_cast<std::int64_t>(idx[d * nnz + k]);
            return key;
          });
        }
        sort_rows_and_count(s, nrows);
      }
      const std::int64_t u = s.urp[static_cast<std::size_t>(nrows)];
      std::int64_t* inv = nullptr;
      py::object inverse = optional_inverse(want_inverse, nnz, inv);
      py::array out_values(values.dtype(), std::vector<py::ssize_t>{u, w});
      py::array out_idx = to_csr ? new_index<index_t>({u}) : new_index<index_t>({sd, u});
      auto* oi = static_cast<index_t*>(out_idx.mutable_data());
      dispatch(SparseValueTypes{}, values, op, "values", [&](auto vtag) {
        using scalar_t = typename decltype(vtag)::type;
        using real_t = real_of_t<scalar_t>;
        const auto* v = static_cast<const real_t*>(values.data());
        auto* o = static_cast<real_t*>(out_values.mutable_data());
        const std::int64_t ww = w * components_v<scalar_t>;
        py::gil_scoped_release nogil;
        if (to_csr) {
          write_output(s, nrows, v, o, ww, inv,
                       [oi](std::int64_t slot, std::int64_t, std::int64_t key) { oi[slot] = static_cast<index_t>(key); });
        } else {
          write_output(s, nrows, v, o, ww, inv, [&](std::int64_t slot, std::int64_t r, std::int64_t key) {
            oi[slot] = static_cast<index_t>(r);
            for (std::int64_t d = sd - 1; d >= 1; --d) {
              oi[d * u + slot] = static_cast<index_t>(key % shape[d]);
              key /= shape[d];
            }
          });
        }
      });
      if (!to_csr) return py::make_tuple(out_idx, out_values, inverse);
      auto crows = new_index<index_t>({nrows + 1});
      auto* cr = crows.mutable_data();
      for (std::int64_t r = 0; r <= nrows; ++r) cr[r] = static_cast<index_t>(s.urp[static_cast<std::size_t>(r)]);
      return py::make_tuple(crows, out_idx, out_values, inverse);
    };
    if (narrow) return run(type_tag<std::uint32_t>{});
    return run(type_tag<std::uint64_t>{});
  });
}

// ---------------------------------------------------------------------------------
// csr_canonical(crows, cols, values, ncols, want_inverse)
//   -> (crows, cols, values, inverse or None): cols sorted within rows, duplicates summed

py::tuple csr_canonical(const py::array& crows, const py::array& cols, const py::array& values,
                        std::int64_t ncols, bool want_inverse) {
  const char* op = "csr_canonical";
  check_csr_pattern(crows, cols, op);
  if (ncols < 0) value_error(op, "ncols = ", ncols, " is negative");
  const std::int64_t nrows = crows.shape(0) - 1, nnz = cols.shape(0);
  check_values(values, nnz, op);
  return dispatch(IndexTypes{}, crows, op, "crows", [&](auto itag) -> py::tuple {
    using index_t = typename decltype(itag)::type;
    const auto* cr = static_cast<const index_t*>(crows.data());
    const auto* cl = static_cast<const index_t*>(cols.data());
    check_crows(cr, nrows, nnz, op);
    check_index_row(cl, nnz, ncols, op, "cols", -1);
    const std::int64_t w = values.shape(1);
    auto run = [&](auto utag) -> py::tuple {
      using U = typename decltype(utag)::type;
      Sorted<U> s;
      {
        py::gil_scoped_release nogil;
        s.rp.resize(static_cast<std::size_t>(nrows) + 1);
        for (std::int64_t r = 0; r <= nrows; ++r) s.rp[static_cast<std::size_t>(r)] = static_cast<std::int64_t>(cr[r]);
        s.pairs.reset(new Pair<U>[static_cast<std::size_t>(std::max<std::int64_t>(nnz, 1))]);
        Pair<U>* p = s.pairs.get();
        parallel_for(0, nnz, kGrain, [&](std::int64_t b, std::int64_t e) {
          for (std::int64_t k = b; k < e; ++k) p[k] = Pair<U>{static_cast<U>(cl[k]), static_cast<U>(k)};
        });
        sort_rows_and_count(s, nrows);
      }
      const std::int64_t u = s.urp[static_cast<std::size_t>(nrows)];
      std::int64_t* inv = nullptr;
      py::object inverse = optional_inverse(want_inverse, nnz, inv);
      py::array out_values(values.dtype(), std::vector<py::ssize_t>{u, w});
      auto out_cols = new_index<index_t>({u});
      auto* oc = out_cols.mutable_data();
      dispatch(SparseValueTypes{}, values, op, "values", [&](auto vtag) {
        using scalar_t = typename decltype(vtag)::type;
        using real_t = real_of_t<scalar_t>;
        const auto* v = static_cast<const real_t*>(values.data());
        auto* o = static_cast<real_t*>(out_values.mutable_data());
        py::gil_scoped_release nogil;
        write_output(s, nrows, v, o, w * components_v<scalar_t>, inv,
                     [oc](std::int64_t slot, std::int64_t, std::int64_t key) { oc[slot] = static_cast<index_t>(key); });
      });
      auto out_crows = new_index<index_t>({nrows + 1});
      auto* ocr = out_crows.mutable_data();
      for (std::int64_t r = 0; r <= nrows; ++r) ocr[r] = static_cast<index_t>(s.urp[static_cast<std::size_t>(r)]);
      return py::make_tuple(out_crows, out_cols, out_values, inverse);
    };
    if (ncols <= (std::int64_t{1} << 32) && nnz <= (std::int64_t{1} << 32)) return run(type_tag<std::uint32_t>{});
    return run(type_tag<std::uint64_t>{});
  });
}

// ---------------------------------------------------------------------------------
// csr_rows(crows, nnz) -> rows [nnz]: row of every stored entry (crows validated)

py::array csr_rows(const py::array& crows, std::int64_t nnz) {
  const char* op = "csr_to_coo";
  check_ndim(crows, 1, op, "crows");
  check_dtype(IndexTypes{}, crows, op, "crows");
  check_contiguous(crows, op, "crows");
  if (crows.shape(0) < 1) value_error(op, "crows must have at least one entry, got shape ", shape_str(crows));
  if (nnz < 0) value_error(op, "nnz = ", nnz, " is negative");
  const std::int64_t nrows = crows.shape(0) - 1;
  return dispatch(IndexTypes{}, crows, op, "crows", [&](auto itag) -> py::array {
    using index_t = typename decltype(itag)::type;
    const auto* cr = static_cast<const index_t*>(crows.data());
    check_crows(cr, nrows, nnz, op);
    auto rows = new_index<index_t>({nnz});
    auto* out = rows.mutable_data();
    {
      py::gil_scoped_release nogil;
      parallel_for(0, nrows, std::max<std::int64_t>(1, kGrain * nrows / std::max<std::int64_t>(nnz, 1)),
                   [&](std::int64_t b, std::int64_t e) {
                     for (std::int64_t r = b; r < e; ++r)
                       std::fill(out + static_cast<std::int64_t>(cr[r]), out + static_cast<std::int64_t>(cr[r + 1]),
                                 static_cast<index_t>(r));
                   });
    }
    return rows;
  });
}

}  // namespace

void bind_sparse_convert(py::module_& m) {
  m.def("sparse_coalesce", &coo_coalesce, py::arg("indices").noconvert(), py::arg("values").noconvert(),
        py::arg("shape"), py::arg("to_csr") = false, py::arg("want_inverse") = false,
        R"doc(sparse_coalesce(indices, values, shape, to_csr=False, want_inverse=False)

Sort COO entries row-major and sum duplicates (in input order, so results do not
depend on the thread count).

indices: C-contiguous [sparse_dim, nnz] int32 or int64 array, each row d in
         [0, shape[d]) (ValueError naming the first bad position otherwise).
values:  C-contiguous [nnz, w] float32/float64/complex64/complex128/int32/int64.
shape:   the sparse shape (sparse_dim entries).
to_csr=False -> (indices [sparse_dim, u], values [u, w], inverse)
to_csr=True  -> (crows [shape[0]+1], cols [u], values [u, w], inverse); needs sparse_dim == 2.
inverse: int64 [nnz] slot of every input entry when want_inverse, else None.
)doc");
  m.def("sparse_csr_canonical", &csr_canonical, py::arg("crows").noconvert(), py::arg("cols").noconvert(),
        py::arg("values").noconvert(), py::arg("ncols"), py::arg("want_inverse") = false,
        R"doc(sparse_csr_canonical(crows, cols, values, ncols, want_inverse=False)

Sort the columns inside every row and sum duplicates.  crows [M+1] and cols [nnz]
share an int32/int64 dtype; crows must start at 0, not decrease and end at nnz;
cols in [0, ncols).  Returns (crows, cols, values [u, w], inverse or None).
)doc");
  m.def("sparse_csr_rows", &csr_rows, py::arg("crows").noconvert(), py::arg("nnz"),
        R"doc(sparse_csr_rows(crows, nnz) -> rows [nnz] with crows' dtype (crows validated).)doc");
}

}  // namespace weft
