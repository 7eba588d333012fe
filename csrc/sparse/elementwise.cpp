// Pattern union and intersection for the sparse element-wise ops (add, subtract,
// multiply, divide and the masked ops built on them).
//
// The kernels only compute the output PATTERN and, for each output slot, the slot
// it reads in x and in y (-1 where that operand has no entry).  Output values are
// then computed in Python with differentiable weft ops on the values (a gather with
// zeros at -1), so the gradients are masked to each operand's pattern and every
// order of derivative works without a kernel per op and dtype.
//
// sparse_pick is that gather (the forward of the values step and, with the inverse
// slot map, its own vjp).
//
// Both merge kernels merge sorted, duplicate-free key lists row by row:
//   * sparse_csr_merge: canonical CSR (cols strictly increasing in every row);
//     rows are independent, so the work is row-parallel;
//   * sparse_merge_sorted: two strictly increasing key arrays (COO row-major linear
//     positions); the key range is cut at splitter keys drawn from the longer
//     array, which turns one long list into as many independent "rows" as threads.
// Each is two passes: count the output entries of every row, prefix-sum, then
// write.  Rows are split among threads by stored entries, so results (and their
// order) never depend on the thread count.
//
// Inputs that are not strictly increasing inside a row make the kernel return None
// (the caller canonicalises and calls again); malformed inputs (dtype, rank,
// contiguity, crows not monotone, cols out of range) raise before the merge runs.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/checks.h"
#include "common/dtype.h"
#include "common/parallel.h"

namespace py = pybind11;

namespace weft {
namespace {

constexpr std::int64_t kGrain = 1 << 15;  // entries per chunk below which a team costs more than it saves

// Walks the merge of the strictly increasing lists a[0:na] and b[0:nb]; calls
// emit(n, key, ia, ib) for the n-th output entry (ia / ib = -1 where absent).
// The union step is branch-free (selects, not jumps): which list holds the next
// key is a coin flip for random patterns, and mispredicted branches would cost
// more than the merge itself.
template <class key_t, class Emit>
inline std::int64_t merge_row(const key_t* a, std::int64_t na, const key_t* b, std::int64_t nb,
                              bool intersect, const Emit& emit) {
  std::int64_t i = 0, j = 0, n = 0;
  if (intersect) {
    while (i < na && j < nb) {
      const key_t ka = a[i], kb = b[j];
      if (ka == kb) {
        emit(n, ka, i, j);
        ++n;
      }
      i += ka <= kb;
      j += kb <= ka;
    }
    return n;
  }
  while (i < na && j < nb) {
    const key_t ka = a[i], kb = b[j];
    const bool ta = ka <= kb, tb = kb <= ka;
    emit(n, ta ? ka : kb, ta ? i : std::int64_t{-1}, tb ? j : std::int64_t{-1});
    i += ta;
    j += tb;
    ++n;
  }
  for (; i < na; ++i, ++n) emit(n, a[i], i, std::int64_t{-1});
  for (; j < nb; ++j, ++n) emit(n, b[j], std::int64_t{-1}, j);
  return n;
}

template <class key_t>
inline bool strictly_increasing(const key_t* a, std::int64_t n) {
  bool ok = true;
  for (std::int64_t i = 1; i < n; ++i) ok &= a[i - 1] < a[i];
  return ok;
}

// Row pointers of both operands as int64 (whatever their storage type).
struct Rows {
  std::int64_t nrows;
  std::vector<std::int64_t> x, y;  // [nrows + 1] each
};

// [b, e) row ranges holding about equal numbers of entries (plus one per row, so
// runs of empty rows are split too).
std::vector<std::int64_t> split_rows(const Rows& rp, int nchunks) {
  std::vector<std::int64_t> cut(static_cast<std::size_t>(nchunks) + 1, rp.nrows);
  cut[0] = 0;
  auto weight = [&](std::int64_t r) { return rp.x[static_cast<std::size_t>(r)] + rp.y[static_cast<std::size_t>(r)] + r; };
  const std::int64_t total = weight(rp.nrows);
  for (int c = 1; c < nchunks; ++c) {
    const std::int64_t target = total / nchunks * c;
    std::int64_t lo = cut[static_cast<std::size_t>(c) - 1], hi = rp.nrows;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (weight(mid) < target) lo = mid + 1; else hi = mid;
    }
    cut[static_cast<std::size_t>(c)] = lo;
  }
  return cut;
}

// The merged pattern of two row-structured key lists (GIL released inside).
template <class key_t, class out_t>
struct Merger {
  const Rows& rp;
  const key_t* kx;
  const key_t* ky;
  bool intersect;
  std::vector<std::int64_t> orp;  // [nrows + 1] output row pointers
  std::vector<std::int64_t> cut;

  // Counts every row's output; false when some row of x or y is not strictly increasing.
  bool count() {
    py::gil_scoped_release nogil;
    const std::int64_t nrows = rp.nrows;
    const int nchunks = std::max(1, plan_chunks(rp.x[nrows] + rp.y[nrows] + nrows, kGrain));
    cut = split_rows(rp, nchunks);
    orp.assign(static_cast<std::size_t>(nrows) + 1, 0);
    std::vector<char> sorted(static_cast<std::size_t>(nchunks), 1);
    parallel_chunks(0, nchunks, nchunks, [&](int c, std::int64_t, std::int64_t) {
      bool ok = true;
      for (std::int64_t r = cut[static_cast<std::size_t>(c)]; r < cut[static_cast<std::size_t>(c) + 1]; ++r) {
        const key_t* a = kx + rp.x[r];
        const key_t* b = ky + rp.y[r];
        const std::int64_t na = rp.x[r + 1] - rp.x[r], nb = rp.y[r + 1] - rp.y[r];
        ok &= strictly_increasing(a, na) && strictly_increasing(b, nb);
        orp[r + 1] = merge_row(a, na, b, nb, intersect, [](std::int64_t, key_t, std::int64_t, std::int64_t) {});
      }
      sorted[static_cast<std::size_t>(c)] = ok;
    });
    for (std::int64_t r = 0; r < nrows; ++r) orp[r + 1] += orp[r];
    return std::all_of(sorted.begin(), sorted.end(), [](char s) { return s != 0; });
  }

  template <class slot_t>
  void write(out_t* keys, slot_t* sx, slot_t* sy) {
    py::gil_scoped_release nogil;
    const int nchunks = static_cast<int>(cut.size()) - 1;
    parallel_chunks(0, nchunks, nchunks, [&](int c, std::int64_t, std::int64_t) {
      for (std::int64_t r = cut[static_cast<std::size_t>(c)]; r < cut[static_cast<std::size_t>(c) + 1]; ++r) {
        const std::int64_t bx = rp.x[r], by = rp.y[r], o = orp[r];
        merge_row(kx + bx, rp.x[r + 1] - bx, ky + by, rp.y[r + 1] - by, intersect,
                  [&](std::int64_t n, key_t key, std::int64_t i, std::int64_t j) {
                    keys[o + n] = static_cast<out_t>(key);
                    sx[o + n] = static_cast<slot_t>(i < 0 ? -1 : bx + i);
                    sy[o + n] = static_cast<slot_t>(j < 0 ? -1 : by + j);
                  });
      }
    });
  }
};

// Slots index the operands' values: int32 when both operands have fewer than 2^31
// entries (half the memory traffic of the merge output and of every gather after it).
bool narrow_slots(std::int64_t nx, std::int64_t ny) {
  return std::max(nx, ny) < static_cast<std::int64_t>(std::numeric_limits<std::int32_t>::max());
}

template <class slot_t>
py::array_t<slot_t> new_slots(std::int64_t n) { return py::array_t<slot_t>(std::vector<py::ssize_t>{n}); }

void check_index_array(const py::array& a, const char* op, const char* name) {
  check_ndim(a, 1, op, name);
  check_dtype(IndexTypes{}, a, op, name);
  check_contiguous(a, op, name);
}

template <class index_t>
void check_crows(const index_t* cr, std::int64_t nrows, std::int64_t nnz, const char* op, const char* name) {
  if (static_cast<std::int64_t>(cr[0]) != 0)
    value_error(op, name, "[0] must be 0, got ", static_cast<std::int64_t>(cr[0]));
  std::int64_t bad = -1;
  {
    py::gil_scoped_release nogil;
    for (std::int64_t r = 0; r < nrows && bad < 0; ++r)
      if (cr[r + 1] < cr[r]) bad = r + 1;
  }
  if (bad >= 0)
    value_error(op, name, " must not decrease, but ", name, "[", bad, "] = ", static_cast<std::int64_t>(cr[bad]),
                " < ", name, "[", bad - 1, "] = ", static_cast<std::int64_t>(cr[bad - 1]));
  if (static_cast<std::int64_t>(cr[nrows]) != nnz)
    value_error(op, "the last value of ", name, " (", static_cast<std::int64_t>(cr[nrows]),
                ") must equal the number of stored entries (", nnz, ")");
}

// ---------------------------------------------------------------------------------
// csr_merge(crows_x, cols_x, crows_y, cols_y, ncols, intersect)
//   -> (crows [M+1], cols [u], slot_x [u], slot_y [u]) or None

py::object csr_merge(const py::array& crows_x, const py::array& cols_x, const py::array& crows_y,
                     const py::array& cols_y, std::int64_t ncols, bool intersect) {
  const char* op = "sparse_csr_merge";
  check_index_array(crows_x, op, "crows_x");
  check_index_array(cols_x, op, "cols_x");
  check_index_array(crows_y, op, "crows_y");
  check_index_array(cols_y, op, "cols_y");
  check_same_dtype(cols_x, "cols_x", crows_x, "crows_x", op);
  check_same_dtype(crows_y, "crows_y", crows_x, "crows_x", op);
  check_same_dtype(cols_y, "cols_y", crows_x, "crows_x", op);
  if (crows_x.shape(0) < 1) value_error(op, "crows_x must have at least one entry, got shape ", shape_str(crows_x));
  if (crows_y.shape(0) != crows_x.shape(0))
    value_error(op, "crows_x has ", crows_x.shape(0), " entries but crows_y has ", crows_y.shape(0),
                "; both operands must have the same number of rows");
  if (ncols < 0) value_error(op, "ncols must be >= 0, got ", ncols);
  const std::int64_t nrows = crows_x.shape(0) - 1;
  return dispatch(IndexTypes{}, crows_x, op, "crows_x", [&](auto itag) -> py::object {
    using index_t = typename decltype(itag)::type;
    const auto* crx = static_cast<const index_t*>(crows_x.data());
    const auto* cry = static_cast<const index_t*>(crows_y.data());
    const auto* clx = static_cast<const index_t*>(cols_x.data());
    const auto* cly = static_cast<const index_t*>(cols_y.data());
    check_crows(crx, nrows, cols_x.shape(0), op, "crows_x");
    check_crows(cry, nrows, cols_y.shape(0), op, "crows_y");
    check_index_range(clx, cols_x.shape(0), ncols, op, "cols_x", "ncols");
    check_index_range(cly, cols_y.shape(0), ncols, op, "cols_y", "ncols");
    Rows rp{nrows, std::vector<std::int64_t>(crx, crx + nrows + 1), std::vector<std::int64_t>(cry, cry + nrows + 1)};
    Merger<index_t, index_t> m{rp, clx, cly, intersect, {}, {}};
    if (!m.count()) return py::none();
    const std::int64_t u = m.orp[static_cast<std::size_t>(nrows)];
    if (u > static_cast<std::int64_t>(std::numeric_limits<index_t>::max()))
      value_error(op, "the result has ", u, " entries, more than its index dtype can count; ",
                  "pass int64 crows/cols");
    py::array_t<index_t> crows(std::vector<py::ssize_t>{nrows + 1});
    py::array_t<index_t> cols(std::vector<py::ssize_t>{u});
    index_t* cr = crows.mutable_data();
    for (std::int64_t r = 0; r <= nrows; ++r) cr[r] = static_cast<index_t>(m.orp[static_cast<std::size_t>(r)]);
    auto finish = [&](auto stag) {
      using slot_t = typename decltype(stag)::type;
      auto sx = new_slots<slot_t>(u), sy = new_slots<slot_t>(u);
      m.write(cols.mutable_data(), sx.mutable_data(), sy.mutable_data());
      return py::make_tuple(crows, cols, sx, sy);
    };
    if (narrow_slots(cols_x.shape(0), cols_y.shape(0))) return finish(type_tag<std::int32_t>{});
    return finish(type_tag<std::int64_t>{});
  });
}

// ---------------------------------------------------------------------------------
// merge_sorted(keys_x, keys_y, intersect) -> (keys [u], slot_x [u], slot_y [u]) or None

py::object merge_sorted(const py::array& keys_x, const py::array& keys_y, bool intersect) {
  const char* op = "sparse_merge_sorted";
  check_index_array(keys_x, op, "keys_x");
  check_index_array(keys_y, op, "keys_y");
  check_same_dtype(keys_y, "keys_y", keys_x, "keys_x", op);
  const std::int64_t nx = keys_x.shape(0), ny = keys_y.shape(0);
  return dispatch(IndexTypes{}, keys_x, op, "keys_x", [&](auto itag) -> py::object {
    using key_t = typename decltype(itag)::type;
    const auto* kx = static_cast<const key_t*>(keys_x.data());
    const auto* ky = static_cast<const key_t*>(keys_y.data());
    Rows rp{0, {}, {}};
    {
      py::gil_scoped_release nogil;
      // the splitters below need sorted lists, so sortedness is checked first here
      const int nchunks = std::max(1, plan_chunks(nx + ny, kGrain));
      std::vector<char> ok(static_cast<std::size_t>(nchunks), 1);
      parallel_chunks(0, nchunks, nchunks, [&](int c, std::int64_t, std::int64_t) {
        for (auto [k, n] : {std::pair{kx, nx}, std::pair{ky, ny}}) {
          const std::int64_t b = n * c / nchunks, e = n * (c + 1) / nchunks;
          // each chunk also checks the pair straddling its left edge
          ok[static_cast<std::size_t>(c)] &= strictly_increasing(k + std::max<std::int64_t>(b - 1, 0), e - std::max<std::int64_t>(b - 1, 0));
        }
      });
      if (std::any_of(ok.begin(), ok.end(), [](char s) { return s == 0; })) {
        rp.nrows = -1;
      } else {
        const key_t* lng = nx >= ny ? kx : ky;
        const std::int64_t nl = std::max(nx, ny);
        rp.nrows = nchunks;
        rp.x.assign(static_cast<std::size_t>(nchunks) + 1, nx);
        rp.y.assign(static_cast<std::size_t>(nchunks) + 1, ny);
        rp.x[0] = rp.y[0] = 0;
        for (int c = 1; c < nchunks; ++c) {
          const key_t split = lng[nl * c / nchunks];
          rp.x[static_cast<std::size_t>(c)] = std::lower_bound(kx, kx + nx, split) - kx;
          rp.y[static_cast<std::size_t>(c)] = std::lower_bound(ky, ky + ny, split) - ky;
        }
      }
    }
    if (rp.nrows < 0) return py::none();
    Merger<key_t, key_t> m{rp, kx, ky, intersect, {}, {}};
    m.count();
    const std::int64_t u = m.orp[static_cast<std::size_t>(rp.nrows)];
    py::array_t<key_t> keys(std::vector<py::ssize_t>{u});
    auto finish = [&](auto stag) {
      using slot_t = typename decltype(stag)::type;
      auto sx = new_slots<slot_t>(u), sy = new_slots<slot_t>(u);
      m.write(keys.mutable_data(), sx.mutable_data(), sy.mutable_data());
      return py::make_tuple(keys, sx, sy);
    };
    if (narrow_slots(nx, ny)) return finish(type_tag<std::int32_t>{});
    return finish(type_tag<std::int64_t>{});
  });
}

// ---------------------------------------------------------------------------------
// pick(values [n, w], slot [u]) -> out [u, w], out[k] = values[slot[k]] or 0 at slot -1

using PickTypes = type_list<float, double, std::complex<float>, std::complex<double>, std::int32_t, std::int64_t>;

py::array pick(const py::array& values, const py::array& slot) {
  const char* op = "sparse_pick";
  check_ndim(values, 2, op, "values");
  check_contiguous(values, op, "values");
  check_dtype(PickTypes{}, values, op, "values");
  check_index_array(slot, op, "slot");
  const std::int64_t n = values.shape(0), u = slot.shape(0);
  py::array out(values.dtype(), std::vector<py::ssize_t>{u, values.shape(1)});
  std::int64_t bad = -1;
  dispatch(IndexTypes{}, slot, op, "slot", [&](auto itag) {
    using slot_t = typename decltype(itag)::type;
    const auto* sl = static_cast<const slot_t*>(slot.data());
    dispatch(PickTypes{}, values, op, "values", [&](auto vtag) {
      using real_t = real_of_t<typename decltype(vtag)::type>;
      const std::int64_t w = values.shape(1) * components_v<typename decltype(vtag)::type>;
      const auto* v = static_cast<const real_t*>(values.data());
      auto* o = static_cast<real_t*>(out.mutable_data());
      // with no rows, the row the selects below read (never keep) is a local zero row
      std::vector<real_t> zero_row(static_cast<std::size_t>(n ? 0 : w));
      const real_t* src = n ? v : zero_row.data();
      py::gil_scoped_release nogil;
      const int nchunks = std::max(1, plan_chunks(u * std::max<std::int64_t>(w, 1), kGrain * 4));
      std::vector<std::int64_t> first_bad(static_cast<std::size_t>(nchunks), -1);
      parallel_chunks(0, u, nchunks, [&](int c, std::int64_t b, std::int64_t e) {
        // branch-free: a slot of -1 reads row 0 and is zeroed by a select (-1 slots
        // interleave at random with real ones); a bad slot is flagged, then located
        std::uint64_t anybad = 0;
        for (std::int64_t k = b; k < e; ++k) {
          const std::int64_t s = static_cast<std::int64_t>(sl[k]);
          const bool hit = static_cast<std::uint64_t>(s) < static_cast<std::uint64_t>(n);
          anybad |= static_cast<std::uint64_t>(s + 1) > static_cast<std::uint64_t>(n);
          const real_t* vk = src + (hit ? s : 0) * w;
          real_t* ok = o + k * w;
          for (std::int64_t j = 0; j < w; ++j) ok[j] = hit ? vk[j] : real_t(0);
        }
        std::int64_t fb = -1;
        if (anybad)
          for (std::int64_t k = b; k < e && fb < 0; ++k)
            if (static_cast<std::uint64_t>(static_cast<std::int64_t>(sl[k]) + 1) > static_cast<std::uint64_t>(n)) fb = k;
        first_bad[static_cast<std::size_t>(c)] = fb;
      });
      for (const std::int64_t fb : first_bad)
        if (fb >= 0) { bad = fb; break; }  // chunks are in slot order: the first is the smallest
    });
    if (bad >= 0)
      index_error(op, "slot[", bad, "] = ", static_cast<std::int64_t>(sl[bad]), " is out of range [-1, ", n, ")");
  });
  return out;
}

}  // namespace

void bind_sparse_elementwise(py::module_& m) {
  m.def("sparse_csr_merge", &csr_merge, py::arg("crows_x").noconvert(), py::arg("cols_x").noconvert(),
        py::arg("crows_y").noconvert(), py::arg("cols_y").noconvert(), py::arg("ncols"),
        py::arg("intersect") = false,
        R"doc(sparse_csr_merge(crows_x, cols_x, crows_y, cols_y, ncols, intersect=False)

Union (or intersection) of the patterns of two CSR matrices with the same number
of rows.  All four arrays are 1-D, C-contiguous and share one int32/int64 dtype;
crows start at 0, do not decrease and end at the length of their cols; cols lie
in [0, ncols).  Returns (crows, cols, slot_x, slot_y): the canonical result
pattern and, per result entry, its position in x's and y's cols (-1 where absent;
int32 when both operands have fewer than 2^31 entries, else int64); or None when the cols of some row are not strictly increasing (the
caller canonicalises first).
)doc");
  m.def("sparse_merge_sorted", &merge_sorted, py::arg("keys_x").noconvert(), py::arg("keys_y").noconvert(),
        py::arg("intersect") = false,
        R"doc(sparse_merge_sorted(keys_x, keys_y, intersect=False)

Union (or intersection) of two strictly increasing 1-D int32/int64 key arrays of
one dtype.  Returns (keys, slot_x, slot_y) with the slots as in sparse_csr_merge,
or None when an input is not strictly increasing.
)doc");
  m.def("sparse_pick", &pick, py::arg("values").noconvert(), py::arg("slot").noconvert(),
        R"doc(sparse_pick(values, slot) -> out

out[k] = values[slot[k]] (rows of a C-contiguous [n, w] float32/float64/complex64/
complex128/int32/int64 array), or a zero row where slot[k] == -1.  slot: 1-D int32
or int64 in [-1, n) (IndexError naming the first bad entry otherwise).
)doc");
}

}  // namespace weft
