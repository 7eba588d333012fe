// Fused message passing (weft.geometric send_u_recv, send_ue_recv, send_uv).
//
// send_u_recv / send_ue_recv never build the E x F array of messages: the edges
// are counting-sorted by destination once per call (O(E + R), stable), and each
// output row is then reduced by one thread that walks its in-edges, gathering
// x[src] (and y[e]) and combining them into a row-sized accumulator (see
// gather_reduce.h).  The transposed problems of the backward pass (scatter by
// src) are the same kernels run on a CSR keyed by src, and the max/min gradient
// is routed by re-reading x and the output instead of storing an argmax.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "common/checks.h"
#include "common/dtype.h"
#include "common/parallel.h"
#include "graph/gather_reduce.h"

namespace py = pybind11;

namespace weft {
namespace {

using namespace graph;  // NOLINT: this file is the graph kernels' other half

enum Message { kAdd = 0, kSub = 1, kMul = 2, kDiv = 3 };
enum Layout { kFull = 0, kXScalar = 1, kYScalar = 2, kGeneral = 3 };

int parse_message(const std::string& s, const char* op) {
  if (s == "add") return kAdd;
  if (s == "sub") return kSub;
  if (s == "mul") return kMul;
  if (s == "div") return kDiv;
  value_error(op, "message_op should be `add`, `sub`, `mul`, `div`, but received ", s);
}

// ------------------------------------------------------------------ feature broadcasting

// How the features of x (per node) and y (per edge or node) map onto the F
// output features: both full, one a single value, or index maps.
struct Feat {
  std::int64_t F = 1, Fx = 1, Fy = 1;
  int layout = kFull;
  std::vector<std::int64_t> xo, yo;
};

// The offset tables of the general layout hold F entries each; they are built only
// when `work` is set (some message will be computed), so empty inputs with a huge
// broadcast feature shape ([0, 65536, 1] x [0, 1, 65536]) allocate nothing.
// F, Fx and Fy are products computed with overflow detection.
Feat make_feat(const std::vector<std::int64_t>& xs, const std::vector<std::int64_t>& ys, bool work,
               const char* op) {
  if (xs.size() != ys.size()) value_error(op, "feature shapes must have the same rank after padding");
  Feat ft;
  const std::size_t L = xs.size();
  std::vector<std::int64_t> out(L);
  for (std::size_t d = 0; d < L; ++d) {
    if (xs[d] < 0 || ys[d] < 0) value_error(op, "feature shapes must be non-negative");
    if (xs[d] != ys[d] && xs[d] != 1 && ys[d] != 1)
      value_error(op, "the feature shapes of x and y cannot be broadcast together");
    out[d] = xs[d] == 1 ? ys[d] : xs[d];
  }
  ft.F = checked_prod(out.begin(), out.end(), op, "the broadcast feature size");
  ft.Fx = checked_prod(xs.begin(), xs.end(), op, "the feature size of x");
  ft.Fy = checked_prod(ys.begin(), ys.end(), op, "the feature size of y");
  if (ft.Fx == ft.F && ft.Fy == ft.F) ft.layout = kFull;
  else if (ft.Fx == 1 && ft.Fy == ft.F) ft.layout = kXScalar;
  else if (ft.Fy == 1 && ft.Fx == ft.F) ft.layout = kYScalar;
  else {
    ft.layout = kGeneral;
    if (!work || ft.F == 0) return ft;
    ft.xo.assign(static_cast<std::size_t>(ft.F), 0);
    ft.yo.assign(static_cast<std::size_t>(ft.F), 0);
    // strides from the last axis; every partial product divides F, Fx or Fy, so none wraps
    std::int64_t sx = 1, sy = 1, so = 1;
    std::vector<std::int64_t> stx(L), sty(L), sto(L);
    for (std::size_t d = L; d-- > 0;) {
      stx[d] = xs[d] == 1 ? 0 : sx;
      sty[d] = ys[d] == 1 ? 0 : sy;
      sto[d] = so;
      sx *= xs[d];
      sy *= ys[d];
      so *= out[d];
    }
    for (std::int64_t f = 0; f < ft.F; ++f) {
      std::int64_t rem = f, ox = 0, oy = 0;
      for (std::size_t d = 0; d < L; ++d) {
        const std::int64_t i = rem / sto[d];
        rem %= sto[d];
        ox += i * stx[d];
        oy += i * sty[d];
      }
      ft.xo[static_cast<std::size_t>(f)] = ox;
      ft.yo[static_cast<std::size_t>(f)] = oy;
    }
  }
  return ft;
}

template <class T> using MsgFn = void (*)(const T*, const T*, acc_t<T>*, const Feat&);

template <class T, int OP, int LAYOUT>
void message(const T* __restrict xr, const T* __restrict yr, acc_t<T>* __restrict m, const Feat& ft) {
  using A = acc_t<T>;
  const std::int64_t F = ft.F;
  const std::int64_t* xo = ft.xo.data();
  const std::int64_t* yo = ft.yo.data();
  for (std::int64_t f = 0; f < F; ++f) {
    const A a = ld(xr[LAYOUT == kXScalar ? 0 : LAYOUT == kGeneral ? xo[f] : f]);
    const A b = ld(yr[LAYOUT == kYScalar ? 0 : LAYOUT == kGeneral ? yo[f] : f]);
    if constexpr (OP == kAdd) m[f] = add_(a, b);
    else if constexpr (OP == kSub) m[f] = sub_(a, b);
    else if constexpr (OP == kMul) m[f] = mul_(a, b);
    else m[f] = div_(a, b);
  }
}

template <class T, int OP>
MsgFn<T> pick_layout(int layout) {
  switch (layout) {
    case kFull: return &message<T, OP, kFull>;
    case kXScalar: return &message<T, OP, kXScalar>;
    case kYScalar: return &message<T, OP, kYScalar>;
    default: return &message<T, OP, kGeneral>;
  }
}

template <class T>
MsgFn<T> pick_message(int op, int layout) {
  switch (op) {
    case kAdd: return pick_layout<T, kAdd>(layout);
    case kSub: return pick_layout<T, kSub>(layout);
    case kMul: return pick_layout<T, kMul>(layout);
    default: return pick_layout<T, kDiv>(layout);
  }
}

// Stable parallel counting sort: chunk c of the edges counts into its own
// histogram row, a bucket-major scan turns counts into start positions, and
// each chunk then places its edges in order: a chunk split only changes which
// thread writes a slot, never the slot.
template <class I, class G>
void counting_sort(const I* key, const I* payload, std::int64_t E, std::int64_t R, int nch, std::int64_t* rowptr,
                   std::int64_t* hist, G* order, G* gather) {
  parallel_chunks(0, E, nch, [&](int c, std::int64_t b, std::int64_t e) {
    std::int64_t* h = hist + static_cast<std::int64_t>(c) * R;
    std::fill(h, h + R, 0);
    for (std::int64_t i = b; i < e; ++i) ++h[static_cast<std::int64_t>(key[i])];
  });
  std::int64_t running = 0;
  for (std::int64_t r = 0; r < R; ++r) {
    rowptr[r] = running;
    for (int c = 0; c < nch; ++c) {
      std::int64_t& h = hist[static_cast<std::int64_t>(c) * R + r];
      const std::int64_t here = h;
      h = running;
      running += here;
    }
  }
  rowptr[R] = running;
  parallel_chunks(0, E, nch, [&](int c, std::int64_t b, std::int64_t e) {
    std::int64_t* pos = hist + static_cast<std::int64_t>(c) * R;
    for (std::int64_t i = b; i < e; ++i) {
      const std::int64_t k = pos[static_cast<std::int64_t>(key[i])]++;
      if (order) order[k] = static_cast<G>(i);
      if (gather) gather[k] = static_cast<G>(payload[i]);
    }
  });
}

// Calls fn(csr) with a Csr<G> of the edges keyed by `key` (values < R and payload
// values < payload_bound, already checked).  Call with the GIL held: it allocates
// (numpy arrays, so that tracemalloc accounts for the scratch).  want_order: the
// caller reads the edge id of each slot (per-edge features).
template <class I, class Fn>
void with_csr(const I* key, const I* payload, std::int64_t payload_bound, std::int64_t E, std::int64_t R,
              bool want_order, Fn&& fn) {
  auto alloc = [](std::int64_t n, const py::dtype& dt) {
    return py::array(dt, std::vector<py::ssize_t>{static_cast<py::ssize_t>(n)});
  };
  py::array rp = alloc(R + 1, py::dtype::of<std::int64_t>());
  auto* rowptr = data_of<std::int64_t>(rp);
  std::int64_t bad;
  {
    py::gil_scoped_release nogil;
    bad = first_unsorted(key, E);
    if (bad < 0) rowptr_from_sorted(key, E, R, rowptr);
  }
  if (bad < 0) {
    Csr<I> csr;
    csr.rows = R;
    csr.rowptr = rowptr;
    csr.gather = payload;
    csr.keep_rowptr = rp;
    fn(csr);
    return;
  }
  auto build = [&](auto gtag) {
    using G = typename decltype(gtag)::type;
    Csr<G> csr;
    csr.rows = R;
    csr.rowptr = rowptr;
    csr.keep_rowptr = rp;
    if (want_order || !payload) {
      csr.keep_order = alloc(E, py::dtype::of<G>());
      csr.order = data_of<G>(csr.keep_order);
    }
    if (payload) {
      csr.keep_gather = alloc(E, py::dtype::of<G>());
      csr.gather = data_of<G>(csr.keep_gather);
    }
    // a private histogram per chunk: only worth it while it is small next to E
    int nch = plan_chunks(E, 1 << 16);
    while (nch > 1 && static_cast<std::int64_t>(nch) * R > E / 2) --nch;
    py::array hist =
        alloc(static_cast<std::int64_t>(nch) * std::max<std::int64_t>(R, 1), py::dtype::of<std::int64_t>());
    {
      py::gil_scoped_release nogil;
      counting_sort<I, G>(key, payload, E, R, nch, rowptr, data_of<std::int64_t>(hist), const_cast<G*>(csr.order),
                          const_cast<G*>(csr.gather));
    }
    hist = py::array();
    fn(csr);
  };
  // 32-bit slots halve the scratch whenever every edge id and payload fits
  constexpr std::int64_t i32max = std::numeric_limits<std::int32_t>::max();
  if (E <= i32max && payload_bound <= i32max)
    build(type_tag<std::int32_t>{});
  else
    build(type_tag<std::int64_t>{});
}

template <class T, class G, int RED>
void reduce_messages(const T* x, const T* y, T* out, const Feat& ft, const Csr<G>& csr, MsgFn<T> msg) {
  using A = acc_t<T>;
  const std::int64_t F = ft.F;
  for_row_ranges(csr.rowptr, csr.rows, F, [&](std::int64_t r0, std::int64_t r1) {
    std::vector<A> acc(F), m(F);
    for (std::int64_t r = r0; r < r1; ++r) {
      T* o = out + r * F;
      const std::int64_t k0 = csr.rowptr[r], k1 = csr.rowptr[r + 1];
      if (k0 == k1) {
        std::fill(o, o + F, st<T>(A(0)));
        continue;
      }
      msg(x + csr.row(k0) * ft.Fx, y + csr.edge(k0) * ft.Fy, acc.data(), ft);
      for (std::int64_t k = k0 + 1; k < k1; ++k) {
        if (k + kPrefetch < k1) {
          prefetch_row(x + csr.row(k + kPrefetch) * ft.Fx, ft.Fx);
          prefetch_row(y + csr.edge(k + kPrefetch) * ft.Fy, ft.Fy);
        }
        msg(x + csr.row(k) * ft.Fx, y + csr.edge(k) * ft.Fy, m.data(), ft);
        combine<RED>(acc.data(), m.data(), F);
      }
      finish<RED>(acc.data(), F, k1 - k0);
      for (std::int64_t f = 0; f < F; ++f) o[f] = st<T>(acc[f]);
    }
  });
}

// Gradient routing of max/min: res[r] = sum over the slots of row r of
// [x[s] == out[d]] * h[other], with (s, d) = (r, other) when the CSR is keyed by
// src and (other, r) when keyed by dst.  Re-reads x and out instead of keeping
// an E x F argmax; every tied edge gets the full gradient.
template <class T, class A>
inline void route_add(A* __restrict acc, const T* __restrict xa, const T* __restrict ob, const T* __restrict hr,
                      std::int64_t F) {
  // h is loaded unconditionally: a conditional load is control flow, which blocks vectorising
  for (std::int64_t f = 0; f < F; ++f) {
    const A a = ld(xa[f]), b = ld(ob[f]), g = ld(hr[f]);
    acc[f] += same_(a, b) ? g : A(0);
  }
}

template <class T, class G>
void route_rows(const T* h, const T* x, const T* out, T* res, std::int64_t F, const Csr<G>& csr, bool by_src) {
  using A = acc_t<T>;
  const std::int64_t E = csr.rowptr[csr.rows];
  for_row_ranges(csr.rowptr, csr.rows, F, [&](std::int64_t r0, std::int64_t r1) {
    std::vector<A> acc(F);
    for (std::int64_t r = r0; r < r1; ++r) {
      std::fill(acc.begin(), acc.end(), A(0));
      for (std::int64_t k = csr.rowptr[r]; k < csr.rowptr[r + 1]; ++k) {
        if (k + kPrefetch < E) {
          const std::int64_t ahead = csr.row(k + kPrefetch);
          prefetch_row(h + ahead * F, F);
          prefetch_row((by_src ? out : x) + ahead * F, F);
        }
        const std::int64_t other = csr.row(k);
        const T* xa = x + (by_src ? r : other) * F;
        const T* ob = out + (by_src ? other : r) * F;
        const T* hr = h + other * F;
        route_add(acc.data(), xa, ob, hr, F);
      }
      T* o = res + r * F;
      for (std::int64_t f = 0; f < F; ++f) o[f] = st<T>(acc[f]);
    }
  });
}

// ------------------------------------------------------------------ bindings

// src (optional) and dst: same dtype, 1-D, length E, in range [0, N) and [0, R).
void check_pair(const py::object& src, const py::array& dst, std::int64_t N, std::int64_t R, const char* op,
                const char* src_name, const char* dst_name, const char* rows_what) {
  check_ndim(dst, 1, op, dst_name);
  check_contiguous(dst, op, dst_name);
  check_dtype(IndexTypes{}, dst, op, dst_name);
  const std::int64_t E = dst.shape(0);
  if (!src.is_none()) {
    const py::array s = src.cast<py::array>();
    check_ndim(s, 1, op, src_name);
    check_contiguous(s, op, src_name);
    check_dtype(IndexTypes{}, s, op, src_name);
    if (!s.dtype().equal(dst.dtype()))
      value_error(op, src_name, " has dtype ", dtype_name(s.dtype()), " but ", dst_name, " has dtype ",
                  dtype_name(dst.dtype()), "; they must be the same");
    if (s.shape(0) != E)
      value_error(op, src_name, " and ", dst_name, " should have the same shape, got ", s.shape(0), " and ", E,
                  " entries");
  }
  dispatch_index(dst, op, dst_name, [&](auto itag) {
    using I = typename decltype(itag)::type;
    if (!src.is_none()) check_index_range(cdata_of<I>(src.cast<py::array>()), E, N, op, src_name, "the rows of x");
    check_index_range(cdata_of<I>(dst), E, R, op, dst_name, rows_what);
  });
}

// out[r] = reduce over edges e with dst[e] == r of x[src[e]] (src None: x[e]).
py::array send_recv(const py::array& x, const py::object& src, const py::array& dst, std::int64_t rows,
                    const std::string& reduce, const std::string& opname) {
  const char* op = opname.c_str();
  check_2d(x, op, "x");
  if (rows < 0) value_error(op, "out_size must be non-negative, got ", rows);
  const int red = parse_reduce(reduce, op);
  const std::int64_t N = x.shape(0), F = x.shape(1), E = dst.shape(0);
  if (src.is_none() && N != E) value_error(op, "x has ", N, " rows but the index has ", E, " entries");
  check_pair(src, dst, N, rows, op, "src_index", "dst_index", "the output rows");
  py::array out = new_rows(x.dtype(), rows, F, op);
  dispatch_index(dst, op, "dst_index", [&](auto itag) {
    using I = typename decltype(itag)::type;
    const I* payload = src.is_none() ? nullptr : cdata_of<I>(src.cast<py::array>());
    with_csr(cdata_of<I>(dst), payload, N, E, rows, false, [&](const auto& csr) {
      using G = std::remove_cv_t<std::remove_pointer_t<decltype(csr.order)>>;
      dispatch_value(x, op, "x", [&](auto vtag) {
        using T = typename decltype(vtag)::type;
        const T* xp = cdata_of<T>(x);
        T* op_ = data_of<T>(out);
        py::gil_scoped_release nogil;
        switch (red) {
          case kSum: reduce_rows<T, G, kSum>(xp, op_, F, csr); break;
          case kMean: reduce_rows<T, G, kMean>(xp, op_, F, csr); break;
          case kMax: reduce_rows<T, G, kMax>(xp, op_, F, csr); break;
          default: reduce_rows<T, G, kMin>(xp, op_, F, csr); break;
        }
      });
    });
  });
  return out;
}

void check_xy(const py::array& x, const py::array& y, const Feat& ft, const char* op) {
  check_2d(x, op, "x");
  check_2d(y, op, "y");
  if (!x.dtype().equal(y.dtype()))
    value_error(op, "x has dtype ", dtype_name(x.dtype()), " but y has dtype ", dtype_name(y.dtype()),
                "; they must be the same");
  if (x.shape(1) != ft.Fx || y.shape(1) != ft.Fy)
    value_error(op, "the feature sizes of x and y do not match the given feature shapes");
}

// out[r] = reduce over edges e with dst[e] == r of (x[src[e]] op y[e]).
py::array send_ue_recv(const py::array& x, const py::array& y, const py::array& src, const py::array& dst,
                       std::int64_t rows, const std::string& message, const std::string& reduce,
                       const std::vector<std::int64_t>& xshape, const std::vector<std::int64_t>& yshape,
                       const std::string& opname) {
  const char* op = opname.c_str();
  const int red = parse_reduce(reduce, op), msg = parse_message(message, op);
  const Feat ft = make_feat(xshape, yshape, dst.ndim() >= 1 && dst.shape(0) > 0, op);
  check_xy(x, y, ft, op);
  if (rows < 0) value_error(op, "out_size must be non-negative, got ", rows);
  const std::int64_t N = x.shape(0), E = dst.shape(0);
  if (y.shape(0) != E)
    value_error(op, "Expect Input Y to have size ", E, " as Src_index on the first dimension, but we get ",
                y.shape(0));
  check_pair(src, dst, N, rows, op, "src_index", "dst_index", "the output rows");
  py::array out = new_rows(x.dtype(), rows, ft.F, op);
  dispatch_index(dst, op, "dst_index", [&](auto itag) {
    using I = typename decltype(itag)::type;
    with_csr(cdata_of<I>(dst), cdata_of<I>(src), N, E, rows, true, [&](const auto& csr) {
      using G = std::remove_cv_t<std::remove_pointer_t<decltype(csr.order)>>;
      dispatch_value(x, op, "x", [&](auto vtag) {
        using T = typename decltype(vtag)::type;
        const MsgFn<T> fn = pick_message<T>(msg, ft.layout);
        const T* xp = cdata_of<T>(x);
        const T* yp = cdata_of<T>(y);
        T* o = data_of<T>(out);
        py::gil_scoped_release nogil;
        switch (red) {
          case kSum: reduce_messages<T, G, kSum>(xp, yp, o, ft, csr, fn); break;
          case kMean: reduce_messages<T, G, kMean>(xp, yp, o, ft, csr, fn); break;
          case kMax: reduce_messages<T, G, kMax>(xp, yp, o, ft, csr, fn); break;
          default: reduce_messages<T, G, kMin>(xp, yp, o, ft, csr, fn); break;
        }
      });
    });
  });
  return out;
}

// Per-edge work with no reduction (edge-parallel): with `out_rows` = None,
// out[e] = x[src[e]] op y[dst[e]] (send_uv); otherwise a uint8 mask
// out[e] = (x[src[e]] op y[e] == out_rows[dst[e]]), the max/min routing of send_ue_recv.
py::array edge_messages(const py::array& x, const py::array& y, const py::array& src, const py::array& dst,
                        const std::string& message, const std::vector<std::int64_t>& xshape,
                        const std::vector<std::int64_t>& yshape, const py::object& reduced,
                        const std::string& opname) {
  const char* op = opname.c_str();
  const int msg = parse_message(message, op);
  const Feat ft = make_feat(xshape, yshape, dst.ndim() >= 1 && dst.shape(0) > 0, op);
  check_xy(x, y, ft, op);
  const std::int64_t N = x.shape(0), E = dst.shape(0);
  const bool mask = !reduced.is_none();
  py::array red_arr;
  std::int64_t R;
  if (mask) {
    red_arr = reduced.cast<py::array>();
    check_2d(red_arr, op, "out");
    check_same_dtype(red_arr, "out", x, "x", op);
    if (red_arr.shape(1) != ft.F) value_error(op, "out has ", red_arr.shape(1), " features, expected ", ft.F);
    if (y.shape(0) != E) value_error(op, "y has ", y.shape(0), " rows but there are ", E, " edges");
    R = red_arr.shape(0);
  } else {
    R = y.shape(0);
  }
  check_pair(src, dst, N, R, op, "src_index", "dst_index", mask ? "the rows of out" : "the rows of y");
  py::array out = mask ? new_rows(py::dtype::of<std::uint8_t>(), E, ft.F, op) : new_rows(x.dtype(), E, ft.F, op);
  dispatch_index(dst, op, "dst_index", [&](auto itag) {
    using I = typename decltype(itag)::type;
    const I* s = cdata_of<I>(src);
    const I* d = cdata_of<I>(dst);
    dispatch_value(x, op, "x", [&](auto vtag) {
      using T = typename decltype(vtag)::type;
      using A = acc_t<T>;
      const MsgFn<T> fn = pick_message<T>(msg, ft.layout);
      const T* xp = cdata_of<T>(x);
      const T* yp = cdata_of<T>(y);
      const T* rp = mask ? cdata_of<T>(red_arr) : nullptr;
      void* o = out.mutable_data();
      const std::int64_t F = ft.F;
      py::gil_scoped_release nogil;
      parallel_for(0, E, std::max<std::int64_t>(1, (1 << 14) / std::max<std::int64_t>(F, 1)),
                   [&](std::int64_t b, std::int64_t e) {
        std::vector<A> m(F);
        for (std::int64_t i = b; i < e; ++i) {
          const std::int64_t si = static_cast<std::int64_t>(s[i]), di = static_cast<std::int64_t>(d[i]);
          if (mask) {
            fn(xp + si * ft.Fx, yp + i * ft.Fy, m.data(), ft);
            const T* orow = rp + di * F;
            auto* mk = static_cast<std::uint8_t*>(o) + i * F;
            for (std::int64_t f = 0; f < F; ++f) mk[f] = same_(ld(st<T>(m[f])), ld(orow[f]));
          } else {
            fn(xp + si * ft.Fx, yp + di * ft.Fy, m.data(), ft);
            T* orow = static_cast<T*>(o) + i * F;
            for (std::int64_t f = 0; f < F; ++f) orow[f] = st<T>(m[f]);
          }
        }
      });
    });
  });
  return out;
}

// Max/min gradient routing for send_u_recv: by_src -> res [N, F] (the vjp for x),
// otherwise res [R, F] (its transpose, the vjp of the former for h).
py::array route(const py::array& h, const py::array& x, const py::array& reduced, const py::array& src,
                const py::array& dst, bool by_src, const std::string& opname) {
  const char* op = opname.c_str();
  check_2d(h, op, "grad");
  check_2d(x, op, "x");
  check_2d(reduced, op, "out");
  check_same_dtype(h, "grad", x, "x", op);
  check_same_dtype(reduced, "out", x, "x", op);
  const std::int64_t N = x.shape(0), R = reduced.shape(0), F = x.shape(1), E = dst.shape(0);
  if (reduced.shape(1) != F || h.shape(1) != F) value_error(op, "grad, x and out must have the same row length");
  if (h.shape(0) != (by_src ? R : N)) value_error(op, "grad has ", h.shape(0), " rows, expected ", by_src ? R : N);
  check_pair(src, dst, N, R, op, "src_index", "dst_index", "the output rows");
  const std::int64_t rows = by_src ? N : R;
  py::array res = new_rows(x.dtype(), rows, F, op);
  dispatch_index(dst, op, "dst_index", [&](auto itag) {
    using I = typename decltype(itag)::type;
    const I* key = by_src ? cdata_of<I>(src) : cdata_of<I>(dst);
    const I* other = by_src ? cdata_of<I>(dst) : cdata_of<I>(src);
    with_csr(key, other, by_src ? R : N, E, rows, false, [&](const auto& csr) {
      using G = std::remove_cv_t<std::remove_pointer_t<decltype(csr.order)>>;
      dispatch_value<true>(x, op, "x", [&](auto vtag) {
        using T = typename decltype(vtag)::type;
        const T* hp = cdata_of<T>(h);
        const T* xp = cdata_of<T>(x);
        const T* rp = cdata_of<T>(reduced);
        T* o = data_of<T>(res);
        py::gil_scoped_release nogil;
        route_rows<T, G>(hp, xp, rp, o, F, csr, by_src);
      });
    });
  });
  return res;
}

}  // namespace

void bind_message_passing(py::module_& m) {
  bind_segment_reduce(m);
  m.def("graph_send_recv", &send_recv, py::arg("x").noconvert(), py::arg("src").noconvert(),
        py::arg("dst").noconvert(), py::arg("rows"), py::arg("reduce"), py::arg("op") = "send_u_recv",
        R"doc(graph_send_recv(x, src, dst, rows, reduce, op) -> out [rows, F]

out[r] = reduce({x[src[e]] : dst[e] == r}) for reduce in sum, mean, max, min;
src=None gathers x[e] (a scatter-reduce of the rows of x).  Rows without
messages are 0.  x: C-contiguous [N, F] float16, bfloat16 (uint16 bits),
float32, float64, int32 or int64; src/dst: int32 or int64 (same dtype).
Deterministic for any thread count.)doc");
  m.def("graph_send_ue_recv", &send_ue_recv, py::arg("x").noconvert(), py::arg("y").noconvert(),
        py::arg("src").noconvert(), py::arg("dst").noconvert(), py::arg("rows"), py::arg("message"),
        py::arg("reduce"), py::arg("xshape"), py::arg("yshape"), py::arg("op") = "send_ue_recv",
        R"doc(graph_send_ue_recv(x, y, src, dst, rows, message, reduce, xshape, yshape, op) -> out [rows, F]

out[r] = reduce({x[src[e]] message y[e] : dst[e] == r}), the messages combined
on the fly.  x [N, prod(xshape)], y [E, prod(yshape)]; xshape and yshape are
feature shapes of equal rank broadcast numpy-style to F.)doc");
  m.def("graph_edge_messages", &edge_messages, py::arg("x").noconvert(), py::arg("y").noconvert(),
        py::arg("src").noconvert(), py::arg("dst").noconvert(), py::arg("message"), py::arg("xshape"),
        py::arg("yshape"), py::arg("reduced") = py::none(), py::arg("op") = "send_uv",
        R"doc(graph_edge_messages(x, y, src, dst, message, xshape, yshape, reduced=None, op) -> [E, F]

reduced=None: out[e] = x[src[e]] message y[dst[e]] (send_uv).  Otherwise a uint8
mask, out[e] = (x[src[e]] message y[e] == reduced[dst[e]]) elementwise.)doc");
  m.def("graph_route", &route, py::arg("grad").noconvert(), py::arg("x").noconvert(), py::arg("out").noconvert(),
        py::arg("src").noconvert(), py::arg("dst").noconvert(), py::arg("by_src"), py::arg("op") = "send_u_recv",
        R"doc(graph_route(grad, x, out, src, dst, by_src, op) -> res

Max/min gradient routing with M_e = [x[src[e]] == out[dst[e]]] (elementwise):
by_src: res[n] = sum_{src[e]=n} M_e * grad[dst[e]]  ([N, F]);
else:   res[r] = sum_{dst[e]=r} M_e * grad[src[e]]  ([R, F]).)doc");
}

}  // namespace weft
