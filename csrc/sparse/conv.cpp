// Sparse convolution on a rulebook (conv_rulebook.cpp): gather -> GEMM -> scatter-add
// per kernel offset.
//
//   sparse_conv_gemm:  out[dst[p]] += x[src[p]] @ W[k]      (forward: src = in, dst = out)
//                      out[dst[p]] += x[src[p]] @ W[k]^T    (transpose: the feature gradient,
//                                                            src = out rows, dst = in rows)
//   sparse_conv_wgrad: dW[k] = sum_p x[in[p]]^T g[out[p]]   (the weight gradient)
//
// Why gather + GEMM: a convolution offset touches rows scattered over the feature
// matrix, and a per-row matrix-vector product reads W[k] once per row; copying the
// offset's rows into a contiguous block turns the work into one dense product that
// a BLAS runs near peak (W[k] stays in cache), for the price of one extra pass over
// the rows.  The BLAS is the one scipy links (sgemm/dgemm of scipy.linalg.cython_blas,
// handed in as PyCapsules), so the extension gains no link dependency.
//
// Determinism: within one offset no destination row repeats (checked), so the
// scatter of a block runs in parallel without atomics; offsets are added one after
// the other in a fixed order, blocks have a size that depends on the channel counts
// only, and the weight gradient sums its blocks in order.  The result therefore does
// not depend on weft's thread count (the BLAS splits its product over the output,
// never over the summed dimension).  For a submanifold rulebook the centre offset
// pairs every row with itself: that product runs on x directly, without a gather.
//
// Threads: every block of rows is a task of weft's pool, gathered, multiplied and
// scattered by one thread while its rows are in that core's cache, and blocks are
// small enough (rows * A * B <= 2**18) that the BLAS computes each on the calling
// thread: OpenBLAS threads only larger products, and its small-matrix kernels cover
// exactly this size.  Letting the BLAS thread big products instead (its workers spin
// between calls) was measured 30 to 150 times slower on a loaded two-core machine,
// and limiting its threads per call costs as much (it restarts its workers).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/checked_math.h"
#include "common/checks.h"
#include "common/dtype.h"
#include "common/parallel.h"
#include "common/scratch.h"
#include "common/simd.h"

namespace py = pybind11;

namespace weft {
namespace {

template <class T>
using gemm_fn = void (*)(char*, char*, int*, int*, int*, T*, T*, int*, T*, int*, T*, T*, int*);

constexpr std::int64_t kRowGrain = 1024;  // rows per chunk of a gather or scatter

// The Fortran gemm from scipy.linalg.cython_blas: its capsule name spells the C
// signature, which tells the precision and guards against any other capsule.
template <class T>
gemm_fn<T> gemm_from(const py::object& cap, const char* op) {
  if (!py::isinstance<py::capsule>(cap))
    type_error(op, "gemm must be the PyCapsule scipy.linalg.cython_blas.__pyx_capi__['",
               sizeof(T) == 4 ? "sgemm" : "dgemm", "'], got ", py::str(py::type::of(cap)).cast<std::string>());
  const char* name = PyCapsule_GetName(cap.ptr());
  const std::string want = sizeof(T) == 4 ? "cython_blas_s *" : "cython_blas_d *";
  const std::string got = name ? name : "";
  if (got.rfind("void (char *, char *, int *, int *, int *, ", 0) != 0 || got.find(want) == std::string::npos ||
      std::count(got.begin(), got.end(), '*') != 13)
    type_error(op, "gemm is not scipy's ", sizeof(T) == 4 ? "sgemm" : "dgemm", " capsule (its signature is '", got, "')");
  void* p = PyCapsule_GetPointer(cap.ptr(), name);
  if (!p) throw py::error_already_set();
  return reinterpret_cast<gemm_fn<T>>(p);
}

// Row-major C[m, n] = op(A) @ op(B) (+ C when accumulate), via the column-major BLAS:
// C^T = op(B)^T op(A)^T, so the operands swap places.  ta/tb: A/B transposed.
template <class T>
void gemm_rm(gemm_fn<T> f, bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const T* A,
             std::int64_t lda, const T* B, std::int64_t ldb, T* C, std::int64_t ldc, bool accumulate) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (!accumulate)
      for (std::int64_t i = 0; i < m; ++i) std::fill(C + i * ldc, C + i * ldc + n, T(0));
    return;
  }
  char cb = tb ? 'T' : 'N', ca = ta ? 'T' : 'N';
  int M = static_cast<int>(n), N = static_cast<int>(m), Kk = static_cast<int>(k);
  int LB = static_cast<int>(ldb), LA = static_cast<int>(lda), LC = static_cast<int>(ldc);
  T one = 1, beta = accumulate ? T(1) : T(0);
  f(&cb, &ca, &M, &N, &Kk, &one, const_cast<T*>(B), &LB, const_cast<T*>(A), &LA, &beta, C, &LC);
}

template <class T>
WEFT_SIMD_CLONES void add_row(T* __restrict d, const T* __restrict s, std::int64_t n) {
  for (std::int64_t j = 0; j < n; ++j) d[j] += s[j];
}

// Rows per block, from the channel counts only (never the thread count, so that
// the sums do not depend on it): rows * width_product <= 2**18, the size below which
// OpenBLAS runs a product on the calling thread (SMP_THRESHOLD_MIN * 4).
std::int64_t block_rows(std::int64_t width_product) {
  return std::clamp<std::int64_t>((std::int64_t{1} << 18) / std::max<std::int64_t>(1, width_product), 16, 4096);
}

// Runs run(p, n) over the blocks of rows [p0, p1) as tasks of weft's pool.
template <class F>
void for_blocks(std::int64_t p0, std::int64_t p1, std::int64_t R, const F& run) {
  const std::int64_t nb = (p1 - p0 + R - 1) / R;
  parallel_chunks(0, nb, plan_tasks(nb, 4, 4), [&](int, std::int64_t b, std::int64_t e) {
    for (std::int64_t bl = b; bl < e; ++bl) run(p0 + bl * R, std::min(R, p1 - p0 - bl * R));
  });
}

struct Book {
  std::int64_t K = 0, P = 0;
  const std::int64_t* off = nullptr;
  const std::int64_t* a = nullptr;  // rows read
  const std::int64_t* b = nullptr;  // rows written (unique within an offset) or read
  bool identity_ok(std::int64_t k, std::int64_t n) const {
    if (k < 0 || k >= K || off[k + 1] - off[k] != n) return false;
    for (std::int64_t p = 0; p < n; ++p)
      if (a[off[k] + p] != p || b[off[k] + p] != p) return false;
    return true;
  }
};

// Checks shared by both kernels: offsets monotone from 0 to P, rows in range, and
// (for the rows a kernel writes) no row twice within one offset.
Book check_book(const py::array& offsets, const py::array& ra, const py::array& rb, std::int64_t na,
                std::int64_t nb, bool b_unique, const char* op, const char* a_name, const char* b_name) {
  for (auto* arr : {&offsets, &ra, &rb}) {
    const char* nm = arr == &offsets ? "offsets" : arr == &ra ? a_name : b_name;
    check_ndim(*arr, 1, op, nm);
    check_dtype(type_list<std::int64_t>{}, *arr, op, nm);
    check_contiguous(*arr, op, nm);
  }
  Book bk;
  if (offsets.shape(0) < 2) value_error(op, "offsets must have K + 1 >= 2 entries, got ", offsets.shape(0));
  bk.K = offsets.shape(0) - 1;
  bk.off = static_cast<const std::int64_t*>(offsets.data());
  bk.P = ra.shape(0);
  if (rb.shape(0) != bk.P) value_error(op, a_name, " has ", bk.P, " entries but ", b_name, " has ", rb.shape(0));
  if (bk.off[0] != 0) value_error(op, "offsets[0] must be 0, got ", bk.off[0]);
  for (std::int64_t k = 0; k < bk.K; ++k)
    if (bk.off[k + 1] < bk.off[k])
      value_error(op, "offsets must not decrease, but offsets[", k + 1, "] = ", bk.off[k + 1], " < offsets[", k,
                  "] = ", bk.off[k]);
  if (bk.off[bk.K] != bk.P)
    value_error(op, "offsets[-1] = ", bk.off[bk.K], " must equal the number of pairs ", bk.P);
  bk.a = static_cast<const std::int64_t*>(ra.data());
  bk.b = static_cast<const std::int64_t*>(rb.data());
  check_index_range(bk.a, bk.P, na, op, a_name);
  check_index_range(bk.b, bk.P, nb, op, b_name);
  if (b_unique) {
    std::int64_t bad = -1;
    {
      py::gil_scoped_release nogil;
      ScratchVector<std::int64_t, 40> stamp_buf;
      auto& stamp = stamp_buf.get();
      stamp.assign(static_cast<std::size_t>(nb), -1);
      for (std::int64_t k = 0; k < bk.K && bad < 0; ++k)
        for (std::int64_t p = bk.off[k]; p < bk.off[k + 1]; ++p) {
          auto& s = stamp[static_cast<std::size_t>(bk.b[p])];
          if (s == k) {
            bad = p;
            break;
          }
          s = k;
        }
    }
    if (bad >= 0)
      value_error(op, b_name, "[", bad, "] = ", bk.b[bad], " appears twice within one kernel offset; a rulebook "
                  "pairs each row with at most one row per offset");
  }
  return bk;
}

// One block of an offset: gather n rows of x, multiply by w_k, add into out.
template <class T>
void gemm_block(gemm_fn<T> f, const T* xp, std::int64_t A, std::int64_t B, const std::int64_t* src,
                const std::int64_t* dst, std::int64_t n, const T* wk, bool transpose, T* o) {
  ScratchVector<T, 41> gbuf(static_cast<std::size_t>(n * A));
  ScratchVector<T, 42> ybuf(static_cast<std::size_t>(n * B));
  T* g = gbuf.get().data();
  T* y = ybuf.get().data();
  for (std::int64_t r = 0; r < n; ++r) std::memcpy(g + r * A, xp + src[r] * A, sizeof(T) * static_cast<std::size_t>(A));
  gemm_rm<T>(f, false, transpose, n, B, A, g, A, wk, transpose ? A : B, y, B, false);
  for (std::int64_t r = 0; r < n; ++r) add_row(o + dst[r] * B, y + r * B, B);
}

py::array conv_gemm(const py::array& x, const py::array& w, const py::array& offsets, const py::array& src,
                    const py::array& dst, std::int64_t n_dst, std::int64_t identity, bool transpose,
                    const py::object& gemm) {
  const char* op = "sparse_conv_gemm";
  check_ndim(x, 2, op, "x");
  check_ndim(w, 3, op, "weight");
  check_dtype(FloatingTypes{}, x, op, "x");
  check_same_dtype(x, "x", w, "weight", op);
  check_contiguous(x, op, "x");
  check_contiguous(w, op, "weight");
  if (n_dst < 0) value_error(op, "n_dst must be >= 0, got ", n_dst);
  const std::int64_t n_src = x.shape(0), A = x.shape(1);
  const std::int64_t wa = transpose ? w.shape(2) : w.shape(1), B = transpose ? w.shape(1) : w.shape(2);
  if (wa != A)
    value_error(op, "x has ", A, " channels but weight", transpose ? "[k]^T" : "[k]", " takes ", wa,
                " (weight shape ", shape_str(w), ")");
  if (A > INT_MAX || B > INT_MAX) value_error(op, "channel counts above 2**31 - 1 are not supported");
  const Book bk = check_book(offsets, src, dst, n_src, n_dst, true, op, "src", "dst");
  if (w.shape(0) != bk.K) value_error(op, "weight has ", w.shape(0), " kernel offsets but offsets describes ", bk.K);
  checked_mul(n_dst, B, op, "n_dst * channels");
  return dispatch(FloatingTypes{}, x, op, "x", [&](auto tag) -> py::array {
    using T = typename decltype(tag)::type;
    const gemm_fn<T> f = gemm_from<T>(gemm, op);
    py::array_t<T> out({static_cast<py::ssize_t>(n_dst), static_cast<py::ssize_t>(B)});
    T* o = out.mutable_data();
    const T* xp = static_cast<const T*>(x.data());
    const T* wp = static_cast<const T*>(w.data());
    {
      py::gil_scoped_release nogil;
      const std::int64_t WK = A * B;  // one offset's weight slice
      const bool ident = identity >= 0 && n_src == n_dst && bk.identity_ok(identity, n_dst);
      const std::int64_t R = block_rows(A * B);
      if (ident) {
        for_blocks(0, n_dst, R, [&](std::int64_t p, std::int64_t n) {
          gemm_rm<T>(f, false, transpose, n, B, A, xp + p * A, A, wp + identity * WK, transpose ? A : B, o + p * B,
                     B, false);
        });
      } else {
        parallel_for(0, n_dst, kRowGrain, [&](std::int64_t b, std::int64_t e) { std::fill(o + b * B, o + e * B, T(0)); });
      }
      // offsets one after the other: a row's sum has the same order for any thread count
      for (std::int64_t k = 0; k < bk.K; ++k) {
        if (ident && k == identity) continue;
        for_blocks(bk.off[k], bk.off[k + 1], R, [&](std::int64_t p, std::int64_t n) {
          gemm_block<T>(f, xp, A, B, bk.a + p, bk.b + p, n, wp + k * WK, transpose, o);
        });
      }
    }
    return out;
  });
}

py::array conv_wgrad(const py::array& x, const py::array& g, const py::array& offsets, const py::array& in_rows,
                     const py::array& out_rows, std::int64_t identity, const py::object& gemm) {
  const char* op = "sparse_conv_wgrad";
  check_ndim(x, 2, op, "x");
  check_ndim(g, 2, op, "grad");
  check_dtype(FloatingTypes{}, x, op, "x");
  check_same_dtype(x, "x", g, "grad", op);
  check_contiguous(x, op, "x");
  check_contiguous(g, op, "grad");
  const std::int64_t n_in = x.shape(0), C = x.shape(1), n_out = g.shape(0), M = g.shape(1);
  if (C > INT_MAX || M > INT_MAX) value_error(op, "channel counts above 2**31 - 1 are not supported");
  const Book bk = check_book(offsets, in_rows, out_rows, n_in, n_out, false, op, "in_rows", "out_rows");
  checked_mul(checked_mul(bk.K, C, op, "K * C"), M, op, "K * C * M");
  return dispatch(FloatingTypes{}, x, op, "x", [&](auto tag) -> py::array {
    using T = typename decltype(tag)::type;
    const gemm_fn<T> f = gemm_from<T>(gemm, op);
    py::array_t<T> out({static_cast<py::ssize_t>(bk.K), static_cast<py::ssize_t>(C), static_cast<py::ssize_t>(M)});
    T* o = out.mutable_data();
    const T* xp = static_cast<const T*>(x.data());
    const T* gp = static_cast<const T*>(g.data());
    {
      py::gil_scoped_release nogil;
      const bool ident = identity >= 0 && n_in == n_out && bk.identity_ok(identity, n_in);
      // Blocks of R rows are grouped into fixed groups of G blocks: each group sums its
      // blocks' products in order into its own partial dW[k], and the partials are
      // added in group order, so the sum does not depend on the thread count.
      const std::int64_t R = block_rows(C * M), CM = C * M, G = std::max<std::int64_t>(1, 4096 / R);
      // dst (C x M) (+)= x-rows^T (C x n) @ g-rows (n x M) over rows [p, p + n) of offset k
      auto block = [&](std::int64_t k, std::int64_t p, std::int64_t n, T* dst, bool acc) {
        if (ident && k == identity) {
          gemm_rm<T>(f, true, false, C, M, n, xp + p * C, C, gp + p * M, M, dst, M, acc);
          return;
        }
        ScratchVector<T, 43> xbuf(static_cast<std::size_t>(n * C));
        ScratchVector<T, 44> gbuf(static_cast<std::size_t>(n * M));
        const std::int64_t *ia = bk.a + bk.off[k] + p, *ib = bk.b + bk.off[k] + p;
        for (std::int64_t r = 0; r < n; ++r) {
          std::memcpy(xbuf.get().data() + r * C, xp + ia[r] * C, sizeof(T) * static_cast<std::size_t>(C));
          std::memcpy(gbuf.get().data() + r * M, gp + ib[r] * M, sizeof(T) * static_cast<std::size_t>(M));
        }
        gemm_rm<T>(f, true, false, C, M, n, xbuf.get().data(), C, gbuf.get().data(), M, dst, M, acc);
      };
      ScratchVector<T, 45> part_buf;
      for (std::int64_t k = 0; k < bk.K; ++k) {
        T* ok = o + k * CM;
        const std::int64_t P = bk.off[k + 1] - bk.off[k], rows = R * G, ng = (P + rows - 1) / rows;
        auto group = [&](std::int64_t gi, T* dst) {
          const std::int64_t g0 = gi * rows, g1 = std::min(P, g0 + rows);
          for (std::int64_t p = g0; p < g1; p += R) block(k, p, std::min(R, g1 - p), dst, p > g0);
        };
        if (P == 0) {
          std::fill(ok, ok + CM, T(0));
        } else if (ng == 1) {
          group(0, ok);
        } else {
          auto& part = part_buf.get();
          part.resize(static_cast<std::size_t>(ng * CM));
          parallel_chunks(0, ng, plan_tasks(ng, 1, 4), [&](int, std::int64_t b, std::int64_t e) {
            for (std::int64_t gi = b; gi < e; ++gi) group(gi, part.data() + gi * CM);
          });
          parallel_for(0, CM, 1024, [&](std::int64_t b, std::int64_t e) {
            for (std::int64_t j = b; j < e; ++j) {
              T sum = part[static_cast<std::size_t>(j)];
              for (std::int64_t gi = 1; gi < ng; ++gi) sum += part[static_cast<std::size_t>(gi * CM + j)];
              ok[j] = sum;
            }
          });
        }
      }
    }
    return out;
  });
}

}  // namespace

void bind_sparse_conv(py::module_& m) {
  m.def("sparse_conv_gemm", &conv_gemm, py::arg("x").noconvert(), py::arg("weight").noconvert(),
        py::arg("offsets").noconvert(), py::arg("src").noconvert(), py::arg("dst").noconvert(), py::arg("n_dst"),
        py::arg("identity"), py::arg("transpose"), py::arg("gemm"),
        R"doc(sparse_conv_gemm(x, weight, offsets, src, dst, n_dst, identity, transpose, gemm) -> out [n_dst, B]

x: C-contiguous float32/float64 [n_src, A]; weight [K, Cin, Cout] of x's dtype
(A = Cin, B = Cout; transpose=True: A = Cout, B = Cin and weight[k]^T is used);
offsets int64 [K + 1], src/dst int64 [P] (a rulebook, dst unique within each
offset).  out[dst[p]] += x[src[p]] @ weight[k] for p in offset k.  identity: an
offset whose pairs are (i, i) for every row (its product skips the gather), or -1.
gemm: scipy.linalg.cython_blas.__pyx_capi__['sgemm'] (float32) or ['dgemm'].
)doc");
  m.def("sparse_conv_wgrad", &conv_wgrad, py::arg("x").noconvert(), py::arg("grad").noconvert(),
        py::arg("offsets").noconvert(), py::arg("in_rows").noconvert(), py::arg("out_rows").noconvert(),
        py::arg("identity"), py::arg("gemm"),
        R"doc(sparse_conv_wgrad(x, grad, offsets, in_rows, out_rows, identity, gemm) -> dW [K, C, M]

dW[k] = sum over the pairs p of offset k of outer(x[in_rows[p]], grad[out_rows[p]]);
x [n_in, C], grad [n_out, M], float32/float64, C-contiguous; gemm as for
sparse_conv_gemm.
)doc");
}

}  // namespace weft
