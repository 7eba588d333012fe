// index_add_(out, index, src): out[index[i], :] += src[i, :] for i = 0 .. m-1.
//
// Determinism: every element of out receives its contributions in increasing i,
// exactly like the sequential loop (and np.add.at), whatever the thread count.
// No atomics; threads own disjoint row ranges of out instead.  index is bucketed
// by destination row range with a stable parallel counting sort, and each thread
// then replays its bucket in increasing i.
//
// The sort costs about two sequential-loop passes, so it only pays when rows are
// wide (the sort is amortised over the row) or when there are enough threads.
// Owning column blocks instead (no sort) was measured slower than the
// sequential loop on 2 cores: every thread still streams all of src, and the
// hardware prefetcher pulls the other threads' halves of each row too.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "common/checks.h"
#include "common/dtype.h"
#include "common/parallel.h"

namespace py = pybind11;

namespace weft {
namespace {

constexpr std::int64_t kMinParallelWork = 1 << 15;  // elements added; below this a team costs more than it saves
constexpr std::int64_t kWideRowBytes = 256;         // from here on 2 threads beat the sequential loop
constexpr int kManyThreads = 4;                      // from here on any row width does

// Integer += wraps like numpy's instead of being undefined behaviour.
template <class T>
inline void add_row(T* __restrict o, const T* __restrict s, std::int64_t w) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    for (std::int64_t k = 0; k < w; ++k) o[k] = static_cast<T>(static_cast<U>(o[k]) + static_cast<U>(s[k]));
  } else {
    for (std::int64_t k = 0; k < w; ++k) o[k] += s[k];
  }
}

template <class T, class I>
void add_rows_sequential(T* out, const I* index, const T* src, std::int64_t m, std::int64_t w) {
  if (w == 1) {  // scalar scatter-add: no inner trip count in the hot loop
    for (std::int64_t i = 0; i < m; ++i) add_row(out + static_cast<std::int64_t>(index[i]), src + i, 1);
    return;
  }
  for (std::int64_t i = 0; i < m; ++i) add_row(out + static_cast<std::int64_t>(index[i]) * w, src + i * w, w);
}

// Rows [0, n) split into nb near-equal ranges; the bucket of a row by a float
// multiply, since an integer division per entry costs more than the add it
// feeds.  Any monotone map works: only "each row has exactly one owner" matters.
struct RowBuckets {
  double scale;
  int nb;
  RowBuckets(std::int64_t n, int nb) : scale(static_cast<double>(nb) / static_cast<double>(n)), nb(nb) {}
  int operator()(std::int64_t r) const { return std::min(static_cast<int>(static_cast<double>(r) * scale), nb - 1); }
};

// P: type of a position in [0, m), uint32 when it fits to halve the scratch.
template <class T, class I, class P>
void add_rows_bucketed(T* out, const I* index, const T* src, std::int64_t n, std::int64_t m, std::int64_t w,
                       int nb) {
  const RowBuckets bucket_of(n, nb);
  const int nchunks = nb;  // slices of i; count[c * nb + b] = entries of slice c in bucket b
  std::vector<std::int64_t> count(static_cast<std::size_t>(nchunks) * nb, 0);
  std::unique_ptr<std::uint16_t[]> bucket(new std::uint16_t[static_cast<std::size_t>(m)]);
  parallel_chunks(0, m, nchunks, [&](int c, std::int64_t b, std::int64_t e) {
    std::vector<std::int64_t> local(nb, 0);  // private: a shared row of count would false-share
    for (std::int64_t i = b; i < e; ++i) {
      const int bk = bucket_of(index[i]);
      bucket[i] = static_cast<std::uint16_t>(bk);
      ++local[bk];
    }
    std::copy(local.begin(), local.end(), count.begin() + static_cast<std::ptrdiff_t>(c) * nb);
  });
  // Bucket-major exclusive scan with slices in order inside a bucket makes the
  // scatter below a stable sort: each bucket lists its i in increasing order.
  std::vector<std::int64_t> bucket_start(nb + 1);
  std::int64_t running = 0;
  for (int bk = 0; bk < nb; ++bk) {
    bucket_start[bk] = running;
    for (int c = 0; c < nchunks; ++c) {
      std::int64_t& k = count[static_cast<std::size_t>(c) * nb + bk];
      const std::int64_t here = k;
      k = running;
      running += here;
    }
  }
  bucket_start[nb] = running;
  std::unique_ptr<P[]> order(new P[static_cast<std::size_t>(m)]);  // uninitialised: the scatter writes all of it
  parallel_chunks(0, m, nchunks, [&](int c, std::int64_t b, std::int64_t e) {
    std::vector<std::int64_t> pos(count.begin() + static_cast<std::ptrdiff_t>(c) * nb,
                                  count.begin() + static_cast<std::ptrdiff_t>(c + 1) * nb);
    for (std::int64_t i = b; i < e; ++i) order[pos[bucket[i]]++] = static_cast<P>(i);
  });
  parallel_chunks(0, nb, nb, [&](int bk, std::int64_t, std::int64_t) {
    const P* ord = order.get();
    const std::int64_t k0 = bucket_start[bk], k1 = bucket_start[bk + 1];
    if (w == 1) {
      for (std::int64_t k = k0; k < k1; ++k) {
        const std::int64_t i = static_cast<std::int64_t>(ord[k]);
        add_row(out + static_cast<std::int64_t>(index[i]), src + i, 1);
      }
      return;
    }
    for (std::int64_t k = k0; k < k1; ++k) {
      const std::int64_t i = static_cast<std::int64_t>(ord[k]);
      add_row(out + static_cast<std::int64_t>(index[i]) * w, src + i * w, w);
    }
  });
}

template <class T, class I>
void index_add_kernel(T* out, const I* index, const T* src, std::int64_t n, std::int64_t m, std::int64_t w) {
  if (m == 0 || w == 0) return;
  const int nthreads = plan_chunks(m * w, kMinParallelWork);
  const int nb = static_cast<int>(std::min<std::int64_t>({nthreads, n, UINT16_MAX}));
  const bool wide = w * static_cast<std::int64_t>(sizeof(T)) >= kWideRowBytes;
  if (nb <= 1 || (!wide && nthreads < kManyThreads)) {
    add_rows_sequential(out, index, src, m, w);
  } else if (m <= static_cast<std::int64_t>(UINT32_MAX)) {
    add_rows_bucketed<T, I, std::uint32_t>(out, index, src, n, m, w, nb);
  } else {
    add_rows_bucketed<T, I, std::int64_t>(out, index, src, n, m, w, nb);
  }
}

void index_add_(py::array out, const py::array& index, const py::array& src) {
  constexpr const char* op = "index_add_";
  check_ndim(out, 2, op, "out");
  check_ndim(index, 1, op, "index");
  check_ndim(src, 2, op, "src");
  check_dtype(FloatingComplexIntTypes{}, out, op, "out");
  check_same_dtype(src, "src", out, "out", op);
  check_dtype(IndexTypes{}, index, op, "index");
  const std::int64_t n = out.shape(0), inner = out.shape(1), m = index.shape(0);
  if (src.shape(0) != m) value_error(op, "index has ", m, " entries but src has ", src.shape(0), " rows");
  if (src.shape(1) != inner)
    value_error(op, "src has shape ", shape_str(src), " but out has shape ", shape_str(out),
                "; their rows must have the same length");
  check_contiguous(out, op, "out");
  check_contiguous(index, op, "index");
  check_contiguous(src, op, "src");
  check_writeable(out, op, "out");
  check_no_overlap(out, "out", src, "src", op);
  check_no_overlap(out, "out", index, "index", op);

  dispatch(IndexTypes{}, index, op, "index", [&](auto itag) {
    using index_t = typename decltype(itag)::type;
    const auto* idx = static_cast<const index_t*>(index.data());
    check_index_range(idx, m, n, op, "index");
    dispatch(FloatingComplexIntTypes{}, out, op, "out", [&](auto vtag) {
      using scalar_t = typename decltype(vtag)::type;
      using real_t = real_of_t<scalar_t>;
      auto* o = static_cast<real_t*>(out.mutable_data());
      const auto* s = static_cast<const real_t*>(src.data());
      py::gil_scoped_release nogil;
      index_add_kernel<real_t, index_t>(o, idx, s, n, m, inner * components_v<scalar_t>);
    });
  });
}

}  // namespace

void bind_index_add(py::module_& m) {
  m.def("index_add_", &index_add_, py::arg("out").noconvert(), py::arg("index").noconvert(),
        py::arg("src").noconvert(),
        R"doc(index_add_(out, index, src) -> None

In place: out[index[i], :] += src[i, :] for every i, duplicates accumulated in
increasing i (bit-identical to np.add.at, for any thread count).

out:   C-contiguous writeable [n, inner] array of float32, float64, complex64,
       complex128, int32 or int64 (integers wrap on overflow like numpy).
index: C-contiguous [m] int32 or int64 array with entries in [0, n).
src:   C-contiguous [m, inner] array of out's dtype, not overlapping out.
)doc");
}

}  // namespace weft
