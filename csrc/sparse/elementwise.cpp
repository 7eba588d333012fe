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
// Each is one parallel merge pass writing every chunk of rows at an upper bound
// of its offset, then a left move of the chunks' blocks (see Merger).  Rows are
// split among threads by stored entries, and the output order is fixed by the
// rows, so results never depend on the thread count.
//
// Inputs that are not strictly increasing inside a row make the kernel return None
// (the caller canonicalises and calls again); malformed inputs (dtype, rank,
// contiguity, crows not monotone, cols out of range) raise before the merge runs.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstring>
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
// emit(n, key, i, in_a, j, in_b) for the n-th output entry (in_a: the key is a[i]).
// The union step is branch-free (selects and masks, not jumps): which list holds
// the next key is a coin flip for random patterns, and mispredicted branches
// would cost more than the merge itself.
template <class key_t, class Emit>
inline std::int64_t merge_row(const key_t* a, std::int64_t na, const key_t* b, std::int64_t nb,
                              bool intersect, const Emit& emit) {
  std::int64_t i = 0, j = 0, n = 0;
  if (intersect) {
    while (i < na && j < nb) {
      const key_t ka = a[i], kb = b[j];
      if (ka == kb) {
        emit(n, ka, i, true, j, true);
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
    emit(n, std::min(ka, kb), i, ta, j, tb);
    i += ta;
    j += tb;
    ++n;
  }
  for (; i < na; ++i, ++n) emit(n, a[i], i, true, j, false);
  for (; j < nb; ++j, ++n) emit(n, b[j], i, false, j, true);
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

// The merged pattern of two row-structured key lists, in one merge pass: a chunk
// of rows emits at most as many entries as its inputs hold, so chunk c writes its
// output contiguously from the sum of its inputs' first offsets (an upper bound
// of its final offset) while counting rows; then the chunks' blocks are moved
// left to their final offsets in chunk order (a block's destination never
// overlaps a later block's source).  The merge is latency-bound and the move a
// streaming copy, so this beats counting in one merge pass and writing in a
// second.  The output buffers have room for nx + ny entries.
template <class key_t, class out_t, class slot_t>
struct Merger {
  const Rows& rp;
  const key_t* kx;
  const key_t* ky;
  bool intersect;
  std::vector<std::int64_t> orp;  // [nrows + 1] output row pointers

  // False when some row of x or y is not strictly increasing (outputs then unspecified).
  bool run(out_t* keys, slot_t* sx, slot_t* sy) {
    py::gil_scoped_release nogil;
    const std::int64_t nrows = rp.nrows;
    const int nchunks = std::max(1, plan_chunks(rp.x[nrows] + rp.y[nrows] + nrows, kGrain));
    const auto cut = split_rows(rp, nchunks);
    orp.assign(static_cast<std::size_t>(nrows) + 1, 0);
    std::vector<char> sorted(static_cast<std::size_t>(nchunks), 1);
    parallel_chunks(0, nchunks, nchunks, [&](int c, std::int64_t, std::int64_t) {
      bool ok = true;
      const std::int64_t r0 = cut[static_cast<std::size_t>(c)], r1 = cut[static_cast<std::size_t>(c) + 1];
      std::int64_t o = rp.x[r0] + rp.y[r0];
      for (std::int64_t r = r0; r < r1; ++r) {
        const std::int64_t bx = rp.x[r], by = rp.y[r];
        const std::int64_t na = rp.x[r + 1] - bx, nb = rp.y[r + 1] - by;
        ok &= strictly_increasing(kx + bx, na) && strictly_increasing(ky + by, nb);
        const std::int64_t n = merge_row(
            kx + bx, na, ky + by, nb, intersect,
            [&](std::int64_t k, key_t key, std::int64_t i, bool in_x, std::int64_t j, bool in_y) {
              // absent: OR with all ones gives -1 without a branch
              keys[o + k] = static_cast<out_t>(key);
              sx[o + k] = static_cast<slot_t>((bx + i) | (static_cast<std::int64_t>(in_x) - 1));
              sy[o + k] = static_cast<slot_t>((by + j) | (static_cast<std::int64_t>(in_y) - 1));
            });
        orp[static_cast<std::size_t>(r) + 1] = n;
        o += n;
      }
      sorted[static_cast<std::size_t>(c)] = ok;
    });
    if (!std::all_of(sorted.begin(), sorted.end(), [](char v) { return v != 0; })) return false;
    for (std::int64_t r = 0; r < nrows; ++r) orp[static_cast<std::size_t>(r) + 1] += orp[static_cast<std::size_t>(r)];
    for (int c = 1; c < nchunks; ++c) {
      const std::int64_t r0 = cut[static_cast<std::size_t>(c)], r1 = cut[static_cast<std::size_t>(c) + 1];
      const std::int64_t from = rp.x[r0] + rp.y[r0], to = orp[static_cast<std::size_t>(r0)];
      const std::int64_t len = orp[static_cast<std::size_t>(r1)] - to;
      if (from == to || len == 0) continue;
      std::memmove(keys + to, keys + from, static_cast<std::size_t>(len) * sizeof(out_t));
      std::memmove(sx + to, sx + from, static_cast<std::size_t>(len) * sizeof(slot_t));
      std::memmove(sy + to, sy + from, static_cast<std::size_t>(len) * sizeof(slot_t));
    }
    return true;
  }
};

// The first u entries of a 1-D buffer: a view when little is wasted, else a copy
// (an intersection can be far smaller than the nx + ny entries reserved for it).
py::array shrink(const py::array& a, std::int64_t u) {
  py::array head = a[py::slice(0, static_cast<py::ssize_t>(u), 1)];
  if (4 * u >= 3 * a.shape(0)) return head;
  return py::array(head.attr("copy")());
}

// (keys, slot_x, slot_y) of the merge with slot_t slots, the output row pointers
// in `orp`; None when an input row is not strictly increasing.
template <class slot_t, class key_t, class out_t>
py::object merge_to_arrays(const Rows& rp, const key_t* kx, const key_t* ky, bool intersect,
                           std::vector<std::int64_t>& orp) {
  const std::int64_t cap = rp.x[static_cast<std::size_t>(rp.nrows)] + rp.y[static_cast<std::size_t>(rp.nrows)];
  py::array_t<out_t> keys(std::vector<py::ssize_t>{cap});
  py::array_t<slot_t> sx(std::vector<py::ssize_t>{cap}), sy(std::vector<py::ssize_t>{cap});
  Merger<key_t, out_t, slot_t> m{rp, kx, ky, intersect, {}};
  if (!m.run(keys.mutable_data(), sx.mutable_data(), sy.mutable_data())) return py::none();
  orp = std::move(m.orp);
  const std::int64_t u = orp[static_cast<std::size_t>(rp.nrows)];
  return py::make_tuple(shrink(keys, u), shrink(sx, u), shrink(sy, u));
}

// Slots index the operands' values: int32 when both operands have fewer than 2^31
// entries (half the memory traffic of the merge output and of every gather after it).
bool narrow_slots(std::int64_t nx, std::int64_t ny) {
  return std::max(nx, ny) < static_cast<std::int64_t>(std::numeric_limits<std::int32_t>::max());
}


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
    if (cols_x.shape(0) + cols_y.shape(0) > static_cast<std::int64_t>(std::numeric_limits<index_t>::max()))
      value_error(op, "the result may hold ", cols_x.shape(0) + cols_y.shape(0), " entries, more than its ",
                  "index dtype can count; pass int64 crows/cols");
    std::vector<std::int64_t> orp;
    const py::object res = narrow_slots(cols_x.shape(0), cols_y.shape(0))
                               ? merge_to_arrays<std::int32_t, index_t, index_t>(rp, clx, cly, intersect, orp)
                               : merge_to_arrays<std::int64_t, index_t, index_t>(rp, clx, cly, intersect, orp);
    if (res.is_none()) return res;
    py::array_t<index_t> crows(std::vector<py::ssize_t>{nrows + 1});
    index_t* cr = crows.mutable_data();
    for (std::int64_t r = 0; r <= nrows; ++r) cr[r] = static_cast<index_t>(orp[static_cast<std::size_t>(r)]);
    const py::tuple t = res;
    return py::make_tuple(crows, t[0], t[1], t[2]);
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
    std::vector<std::int64_t> orp;
    if (narrow_slots(nx, ny)) return merge_to_arrays<std::int32_t, key_t, key_t>(rp, kx, ky, intersect, orp);
    return merge_to_arrays<std::int64_t, key_t, key_t>(rp, kx, ky, intersect, orp);
  });
}

// ---------------------------------------------------------------------------------
// pick(values [n, w], slot [u]) -> out [u, w], out[k] = values[slot[k]] or 0 at slot -1
// pick_add(vx, sx, vy, sy, subtract) -> pick(vx, sx) +/- pick(vy, sy) in one pass

using PickTypes = type_list<float, double, std::complex<float>, std::complex<double>, std::int32_t, std::int64_t>;

// Address of row s of a [n, w] array, or of a zero row when s is not in [0, n).
// Branch-free: the address is chosen by a bit mask (-1 slots interleave at random
// with real ones, so a branch would mispredict half the time); a slot outside
// [-1, n) is flagged in `bad` and located afterwards.
template <class real_t>
struct RowSelect {
  std::uintptr_t base, zero, row_bytes;
  std::uint64_t n;

  const real_t* operator()(std::int64_t s, std::uint64_t& bad) const {
    const bool hit = static_cast<std::uint64_t>(s) < n;
    bad |= static_cast<std::uint64_t>(s) + 1 > n;  // unsigned: -1 -> 0, and s + 1 cannot overflow
    const std::uintptr_t mask = std::uintptr_t{0} - static_cast<std::uintptr_t>(hit);
    const std::uintptr_t row = base + static_cast<std::uintptr_t>(s) * row_bytes;  // wraps harmlessly when masked off
    return reinterpret_cast<const real_t*>((row & mask) | (zero & ~mask));
  }
};

void check_pick_args(const py::array& values, const char* vname, const py::array& slot, const char* sname,
                     const char* op) {
  check_ndim(values, 2, op, vname);
  check_contiguous(values, op, vname);
  check_dtype(PickTypes{}, values, op, vname);
  check_index_array(slot, op, sname);
}

template <class slot_t>
std::int64_t first_bad_slot(const slot_t* sl, std::int64_t b, std::int64_t e, std::int64_t n) {
  for (std::int64_t k = b; k < e; ++k)
    if (static_cast<std::uint64_t>(static_cast<std::int64_t>(sl[k])) + 1 > static_cast<std::uint64_t>(n)) return k;
  return -1;
}

// Runs f(real_t tag, slot_t tag) for the dtypes of values and slot.
template <class F>
void dispatch_pick(const py::array& values, const py::array& slot, const char* op, const char* vname,
                   const char* sname, F&& f) {
  dispatch(IndexTypes{}, slot, op, sname, [&](auto itag) {
    dispatch(PickTypes{}, values, op, vname, [&](auto vtag) { f(vtag, itag); });
  });
}

py::array pick(const py::array& values, const py::array& slot) {
  const char* op = "sparse_pick";
  check_pick_args(values, "values", slot, "slot", op);
  const std::int64_t n = values.shape(0), u = slot.shape(0);
  py::array out(values.dtype(), std::vector<py::ssize_t>{u, values.shape(1)});
  std::int64_t bad = -1;
  dispatch_pick(values, slot, op, "values", "slot", [&](auto vtag, auto itag) {
    using scalar_t = typename decltype(vtag)::type;
    using real_t = real_of_t<scalar_t>;
    using slot_t = typename decltype(itag)::type;
    const auto* sl = static_cast<const slot_t*>(slot.data());
    const std::int64_t w = values.shape(1) * components_v<scalar_t>;
    auto* o = static_cast<real_t*>(out.mutable_data());
    const std::vector<real_t> zero_row(static_cast<std::size_t>(std::max<std::int64_t>(w, 1)));
    const RowSelect<real_t> row{reinterpret_cast<std::uintptr_t>(values.data()),
                                reinterpret_cast<std::uintptr_t>(zero_row.data()),
                                static_cast<std::uintptr_t>(w) * sizeof(real_t), static_cast<std::uint64_t>(n)};
    py::gil_scoped_release nogil;
    const int nchunks = std::max(1, plan_chunks(u * std::max<std::int64_t>(w, 1), kGrain * 4));
    std::vector<std::int64_t> first_bad(static_cast<std::size_t>(nchunks), -1);
    parallel_chunks(0, u, nchunks, [&](int c, std::int64_t b, std::int64_t e) {
      std::uint64_t anybad = 0;
      for (std::int64_t k = b; k < e; ++k) {
        const real_t* vk = row(static_cast<std::int64_t>(sl[k]), anybad);
        real_t* ok = o + k * w;
        for (std::int64_t j = 0; j < w; ++j) ok[j] = vk[j];
      }
      if (anybad) first_bad[static_cast<std::size_t>(c)] = first_bad_slot(sl, b, e, n);
    });
    for (const std::int64_t fb : first_bad)
      if (fb >= 0) { bad = fb; break; }  // chunks are in slot order: the first is the smallest
  });
  if (bad >= 0)
    index_error(op, "slot[", bad, "] = ", slot.attr("__getitem__")(bad).cast<std::int64_t>(),
                " is out of range [-1, ", n, ")");
  return out;
}

py::array pick_add(const py::array& vx, const py::array& sx, const py::array& vy, const py::array& sy,
                   bool subtract) {
  const char* op = "sparse_pick_add";
  check_pick_args(vx, "values_x", sx, "slot_x", op);
  check_pick_args(vy, "values_y", sy, "slot_y", op);
  check_same_dtype(vy, "values_y", vx, "values_x", op);
  check_same_dtype(sy, "slot_y", sx, "slot_x", op);
  if (vy.shape(1) != vx.shape(1))
    value_error(op, "values_x has rows of ", vx.shape(1), " elements but values_y of ", vy.shape(1));
  if (sy.shape(0) != sx.shape(0))
    value_error(op, "slot_x has ", sx.shape(0), " entries but slot_y has ", sy.shape(0));
  const std::int64_t nx = vx.shape(0), ny = vy.shape(0), u = sx.shape(0);
  py::array out(vx.dtype(), std::vector<py::ssize_t>{u, vx.shape(1)});
  std::int64_t bad_x = -1, bad_y = -1;
  dispatch_pick(vx, sx, op, "values_x", "slot_x", [&](auto vtag, auto itag) {
    using scalar_t = typename decltype(vtag)::type;
    using real_t = real_of_t<scalar_t>;
    using slot_t = typename decltype(itag)::type;
    const auto* slx = static_cast<const slot_t*>(sx.data());
    const auto* sly = static_cast<const slot_t*>(sy.data());
    const std::int64_t w = vx.shape(1) * components_v<scalar_t>;
    auto* o = static_cast<real_t*>(out.mutable_data());
    const std::vector<real_t> zero_row(static_cast<std::size_t>(std::max<std::int64_t>(w, 1)));
    const auto zaddr = reinterpret_cast<std::uintptr_t>(zero_row.data());
    const auto row_bytes = static_cast<std::uintptr_t>(w) * sizeof(real_t);
    const RowSelect<real_t> rx{reinterpret_cast<std::uintptr_t>(vx.data()), zaddr, row_bytes, static_cast<std::uint64_t>(nx)};
    const RowSelect<real_t> ry{reinterpret_cast<std::uintptr_t>(vy.data()), zaddr, row_bytes, static_cast<std::uint64_t>(ny)};
    py::gil_scoped_release nogil;
    const int nchunks = std::max(1, plan_chunks(u * std::max<std::int64_t>(w, 1), kGrain * 4));
    std::vector<std::int64_t> fbx(static_cast<std::size_t>(nchunks), -1), fby(static_cast<std::size_t>(nchunks), -1);
    parallel_chunks(0, u, nchunks, [&](int c, std::int64_t b, std::int64_t e) {
      std::uint64_t badx = 0, bady = 0;
      for (std::int64_t k = b; k < e; ++k) {
        const real_t* a = rx(static_cast<std::int64_t>(slx[k]), badx);
        const real_t* d = ry(static_cast<std::int64_t>(sly[k]), bady);
        real_t* ok = o + k * w;
        if (subtract) {
          for (std::int64_t j = 0; j < w; ++j) ok[j] = a[j] - d[j];
        } else {
          for (std::int64_t j = 0; j < w; ++j) ok[j] = a[j] + d[j];
        }
      }
      if (badx) fbx[static_cast<std::size_t>(c)] = first_bad_slot(slx, b, e, nx);
      if (bady) fby[static_cast<std::size_t>(c)] = first_bad_slot(sly, b, e, ny);
    });
    for (std::size_t c = 0; c < fbx.size(); ++c) {
      if (bad_x < 0) bad_x = fbx[c];
      if (bad_y < 0) bad_y = fby[c];
    }
  });
  if (bad_x >= 0)
    index_error(op, "slot_x[", bad_x, "] = ", sx.attr("__getitem__")(bad_x).cast<std::int64_t>(),
                " is out of range [-1, ", nx, ")");
  if (bad_y >= 0)
    index_error(op, "slot_y[", bad_y, "] = ", sy.attr("__getitem__")(bad_y).cast<std::int64_t>(),
                " is out of range [-1, ", ny, ")");
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
  m.def("sparse_pick_add", &pick_add, py::arg("values_x").noconvert(), py::arg("slot_x").noconvert(),
        py::arg("values_y").noconvert(), py::arg("slot_y").noconvert(), py::arg("subtract") = false,
        R"doc(sparse_pick_add(values_x, slot_x, values_y, slot_y, subtract=False) -> out

sparse_pick(values_x, slot_x) + sparse_pick(values_y, slot_y) (or minus) in one
pass.  values_x/values_y: [nx, w] and [ny, w] of one dtype; slot_x/slot_y: one
int32/int64 dtype and length.
)doc");
}

}  // namespace weft
