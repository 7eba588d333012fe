// Batch-parallel LAPACK driver: one loop over a batch of matrices [B, m, n], each
// matrix factorised by one LAPACK call on weft's thread pool, the GIL released.
//
// LAPACK itself is not linked.  Its routines are reached through function pointers
// that Python registers once per provider (lapack_register): provider 0 is the
// LAPACK scipy ships (scipy.linalg.cython_lapack exports C-callable pointers in its
// __pyx_capi__ capsules), provider 1 MKL's runtime library, loaded by weft.linalg
// when the mkl backend is chosen.  Both use 32-bit LAPACK integers (LP64), so every
// dimension and workspace size is checked against INT_MAX before a call: a size that
// wraps would make LAPACK write past the buffers it was given.
//
// Layout.  numpy matrices are row-major and LAPACK's column-major, so each matrix is
// copied into a column-major scratch buffer and its results copied back: O(m n)
// against the O(m n min(m,n)) of the factorisation, and it leaves the caller's
// arrays untouched (LAPACK overwrites its input).
//
// Determinism.  Matrices are independent and each is computed by the same call
// whatever chunk it falls in, so results do not depend on the thread count as long
// as the BLAS inside LAPACK runs the same way for every call: weft.linalg limits it
// to one thread while a batch runs (threadpoolctl), and leaves a single matrix to
// the multithreaded BLAS, with weft's loop serial.
//
// info.  Every entry point returns LAPACK's per-matrix info (int32 [B]) and leaves
// the messages ("Input is not invertible", "... the 3-th input matrix might not be
// positive definite") to Python, which knows the batch shape.  For the iterative
// routines (syevd/heevd, gesdd, geev, gelsd) a matrix holding NaN or infinity is not
// passed to LAPACK, whose convergence loops are not guaranteed to end on it: its
// info is -1 and its outputs NaN.  A negative info from LAPACK itself would mean a
// wrong argument from this file and raises.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/checked_math.h"
#include "common/checks.h"
#include "common/dtype.h"
#include "common/parallel.h"
#include "common/simd.h"

namespace py = pybind11;

namespace weft {
namespace {

using lint = int;  // LAPACK's INTEGER in the LP64 interface both providers export
using i64 = std::int64_t;

constexpr int kProviders = 2;
enum Routine { GETRF, GETRS, GETRI, POTRF, POTRS, TRTRS, GEQRF, ORGQR, ORMQR, SYEVD, GESDD, GEEV,
               GELSD, kRoutines };
// Real names; the complex routines differ for three (ungqr, unmqr, heevd).
const char* const kReal[kRoutines] = {"getrf", "getrs", "getri", "potrf", "potrs", "trtrs", "geqrf",
                                      "orgqr", "ormqr", "syevd", "gesdd", "geev", "gelsd"};
const char* const kComplex[kRoutines] = {"getrf", "getrs", "getri", "potrf", "potrs", "trtrs",
                                         "geqrf", "ungqr", "unmqr", "heevd", "gesdd", "geev",
                                         "gelsd"};
const char kPrefix[4] = {'s', 'd', 'c', 'z'};

void* g_table[kProviders][kRoutines][4] = {};

template <class T> constexpr int type_index() {
  if constexpr (std::is_same_v<T, float>) return 0;
  else if constexpr (std::is_same_v<T, double>) return 1;
  else if constexpr (std::is_same_v<T, std::complex<float>>) return 2;
  else return 3;
}
// Stands in for the arrays of a workspace query (lwork = -1), which LAPACK does not
// read; a real buffer rather than null, for implementations that check pointers.
struct Dummy {
  alignas(16) unsigned char buf[64] = {};
  template <class P> operator P*() { return reinterpret_cast<P*>(buf); }
};

template <class T> constexpr bool is_complex_v = !std::is_same_v<T, real_of_t<T>>;

std::string routine_name(int r, int t) {
  return std::string(1, kPrefix[t]) + (t < 2 ? kReal[r] : kComplex[r]);
}

// The registered pointer, fetched with the GIL held so a missing one raises cleanly.
template <class Fn, class T>
Fn* fn(const char* op, int provider, Routine r) {
  void* p = g_table[provider][r][type_index<T>()];
  if (!p)
    value_error(op, "LAPACK provider ", provider, " has no ", routine_name(r, type_index<T>()),
                " registered (weft.linalg registers it on first use)");
  return reinterpret_cast<Fn*>(p);
}

template <class T> struct Sig {
  using R = real_of_t<T>;
  using getrf = void(lint*, lint*, T*, lint*, lint*, lint*);
  using getrs = void(char*, lint*, lint*, T*, lint*, lint*, T*, lint*, lint*);
  using getri = void(lint*, T*, lint*, lint*, T*, lint*, lint*);
  using potrf = void(char*, lint*, T*, lint*, lint*);
  using potrs = void(char*, lint*, lint*, T*, lint*, T*, lint*, lint*);
  using trtrs = void(char*, char*, char*, lint*, lint*, T*, lint*, T*, lint*, lint*);
  using geqrf = void(lint*, lint*, T*, lint*, T*, T*, lint*, lint*);
  using orgqr = void(lint*, lint*, lint*, T*, lint*, T*, T*, lint*, lint*);
  using ormqr = void(char*, char*, lint*, lint*, lint*, T*, lint*, T*, T*, lint*, T*, lint*, lint*);
  using syevd = void(char*, char*, lint*, T*, lint*, R*, T*, lint*, lint*, lint*, lint*);
  using heevd = void(char*, char*, lint*, T*, lint*, R*, T*, lint*, R*, lint*, lint*, lint*, lint*);
  using gesdd = void(char*, lint*, lint*, T*, lint*, R*, T*, lint*, T*, lint*, T*, lint*, lint*, lint*);
  using zgesdd = void(char*, lint*, lint*, T*, lint*, R*, T*, lint*, T*, lint*, T*, lint*, R*, lint*,
                      lint*);
  using geev = void(char*, char*, lint*, T*, lint*, T*, T*, T*, lint*, T*, lint*, T*, lint*, lint*);
  using zgeev = void(char*, char*, lint*, T*, lint*, T*, T*, lint*, T*, lint*, T*, lint*, R*, lint*);
  using gelsd = void(lint*, lint*, lint*, T*, lint*, T*, lint*, R*, R*, lint*, T*, lint*, lint*, lint*);
  using zgelsd = void(lint*, lint*, lint*, T*, lint*, T*, lint*, R*, R*, lint*, T*, lint*, R*, lint*,
                      lint*);
};

// ---------------------------------------------------------------------------------
// checks and sizes

struct Mats {  // a C-contiguous batch of matrices [B, rows, cols]
  i64 batch, rows, cols;
};

Mats mats(const py::array& a, const char* op, const char* name) {
  check_ndim(a, 3, op, name);
  check_contiguous(a, op, name);
  return {a.shape(0), a.shape(1), a.shape(2)};
}

// A LAPACK integer argument, refused when it does not fit: LAPACK would wrap it.
lint lint_of(i64 v, const char* op, const char* what) {
  if (v > std::numeric_limits<lint>::max())
    value_error(op, what, " = ", v, " exceeds the 32-bit integer range of LAPACK (",
                std::numeric_limits<lint>::max(), ")");
  return static_cast<lint>(v);
}

// The optimal workspace a query (lwork = -1) reported in work[0].
template <class T>
lint lwork_of(T w, const char* op) {
  const double v = std::real(w);
  if (!(v <= static_cast<double>(std::numeric_limits<lint>::max())))
    value_error(op, "the LAPACK workspace (", v, " elements) exceeds the 32-bit integer range");
  return std::max<lint>(1, static_cast<lint>(std::ceil(v)));
}

void check_same_batch(const Mats& a, const Mats& b, const char* op, const char* an,
                      const char* bn) {
  if (a.batch != b.batch)
    value_error(op, an, " holds ", a.batch, " matrices but ", bn, " holds ", b.batch);
}

// The checks every solve shares: batches of matrices `a` [B, m, n] (square when
// `square`) and right-hand sides `b` [B, m, k] of the same count, rows and dtype.
// (Callers unpack the pair by hand: C++17 lambdas cannot capture structured bindings.)
std::pair<Mats, Mats> system_args(const py::array& a, const py::array& b, const char* op,
                                  const char* an, bool square) {
  const Mats s = mats(a, op, an), t = mats(b, op, "b");
  if (square && s.rows != s.cols) value_error(op, an, " must hold square matrices, got ", shape_str(a));
  check_same_batch(s, t, op, an, "b");
  if (t.rows != s.rows) value_error(op, "b must have ", s.rows, " rows, got ", shape_str(b));
  check_same_dtype(a, an, b, "b", op);
  return {s, t};
}

template <class T>
py::array_t<T> new_array(std::initializer_list<i64> shape) {
  std::vector<py::ssize_t> s(shape.begin(), shape.end());
  return py::array_t<T>(s);
}

i64 elems(std::initializer_list<i64> shape, const char* op) {
  i64 n = 1;
  for (i64 d : shape) n = checked_mul(n, d, op, "the result size");
  return n;
}

// MKL's per-thread thread count (mkl_set_num_threads_local), registered with the mkl
// provider.  While a batch runs, weft.linalg holds every BLAS to one thread with
// threadpoolctl, but that global setting did not reach MKL calls made from weft's pool
// threads: each still ran MKL's own threads, and a batch on two workers was no faster
// than on one (eigh [256, 64, 64]: 62 ms either way, 30 ms with the per-thread count).
using MklLocalThreads = int (*)(int);
MklLocalThreads g_mkl_local_threads = nullptr;

// Sets MKL's count for the calling thread to 1 and restores it (0: MKL's global) on exit.
struct OneMklThread {
  int prev = 0;
  bool on;
  explicit OneMklThread(bool want) : on(want && g_mkl_local_threads) {
    if (on) prev = g_mkl_local_threads(1);
  }
  ~OneMklThread() {
    if (on) g_mkl_local_threads(prev);
  }
};

// Runs body(b, e) over slices of [0, batch) with the GIL released.  Chunks hold
// enough matrices to be worth a hand-off (~1e5 flops each).  With several matrices
// each call of MKL runs on its worker's thread alone, as the BLAS does.
template <class Body>
void over_batch(i64 batch, double flops_each, const Body& body) {
  const double per = std::max(flops_each, 1.0);
  const i64 grain = std::max<i64>(1, static_cast<i64>(1e5 / per));
  const int nchunks = plan_tasks(batch, grain, 2);
  py::gil_scoped_release nogil;
  parallel_chunks(0, batch, nchunks, [&](int, i64 b, i64 e) {
    OneMklThread one(batch > 1);
    body(b, e);
  });
}

void lapack_failed(const char* routine, lint info) {
  // Only a wrong argument from this file gives info < 0; say so rather than guess.
  throw std::logic_error(std::string("weft LAPACK driver: ") + routine + " rejected argument " +
                         std::to_string(-info) + " (a weft bug; please report it)");
}

// row-major [rows, cols] <-> column-major with leading dimension ld >= rows
template <class T>
void to_cm(const T* src, i64 rows, i64 cols, T* dst, i64 ld) {
  for (i64 r = 0; r < rows; ++r)
    for (i64 c = 0; c < cols; ++c) dst[c * ld + r] = src[r * cols + c];
}
template <class T>
void from_cm(const T* src, i64 ld, i64 rows, i64 cols, T* dst) {
  for (i64 r = 0; r < rows; ++r)
    for (i64 c = 0; c < cols; ++c) dst[r * cols + c] = src[c * ld + r];
}

template <class T>
bool finite(const T* a, i64 n) {
  for (i64 i = 0; i < n; ++i)
    if (!std::isfinite(std::real(a[i])) || !std::isfinite(std::imag(a[i]))) return false;
  return true;
}
// Finite over the triangle LAPACK reads (row-major: lower = r >= c).
template <class T>
bool finite_triangle(const T* a, i64 n, bool lower) {
  for (i64 r = 0; r < n; ++r)
    for (i64 c = lower ? 0 : r; c < (lower ? r + 1 : n); ++c)
      if (!std::isfinite(std::real(a[r * n + c])) || !std::isfinite(std::imag(a[r * n + c])))
        return false;
  return true;
}
template <class T>
void fill_nan(T* a, i64 n) {
  std::fill(a, a + n, T(std::numeric_limits<real_of_t<T>>::quiet_NaN()));
}

int provider_of(int p, const char* op) {
  if (p < 0 || p >= kProviders) value_error(op, "provider must be 0 or 1, got ", p);
  return p;
}

// ---------------------------------------------------------------------------------
// Small LU.  For a 16 x 16 matrix LAPACK's per-call overhead (OpenBLAS's getrf makes a
// dozen kernel calls per column and takes a work buffer from its allocator) is several
// times the arithmetic, so up to kSmallLU rows and columns the driver runs getf2's
// algorithm itself: the same pivot rule as LAPACK (the first entry of largest
// |re| + |im|, as i?amax), hence the same pivots and info, and the same results up to
// rounding.  getrs's substitutions likewise.

constexpr i64 kSmallLU = 32;

template <class T>
inline real_of_t<T> cabs1(const T& v) {
  if constexpr (is_complex_v<T>) return std::abs(v.real()) + std::abs(v.imag());
  else return std::abs(v);
}

// y[0:n] -= f * x[0:n] for two distinct rows or columns (restrict: so the loop
// vectorises).  V may be a GCC vector of F's (f then scales every lane).
template <class V, class F>
[[gnu::always_inline]] inline void sub_scaled(i64 n, F f, const V* __restrict x,
                                              V* __restrict y) {
  for (i64 i = 0; i < n; ++i) y[i] -= f * x[i];
}

// y_t[0:n] -= f[t] * x[0:n] for four rows t at once: each load of x serves all four
// (these small updates are bound by loads and loop overhead, not by the flops).
template <class V, class F>
[[gnu::always_inline]] inline void sub_scaled4(i64 n, const F (&f)[4], const V* __restrict x,
                                               V* __restrict y0, V* __restrict y1,
                                               V* __restrict y2, V* __restrict y3) {
  for (i64 i = 0; i < n; ++i) {
    const V s = x[i];
    y0[i] -= f[0] * s;
    y1[i] -= f[1] * s;
    y2[i] -= f[2] * s;
    y3[i] -= f[3] * s;
  }
}

// Column-major m x n `a` (leading dimension lda) in place; ipiv 1-based, info as getrf.
template <class T>
void small_getrf(i64 m, i64 n, T* a, i64 lda, lint* ipiv, lint* info) {
  using R = real_of_t<T>;
  *info = 0;
  const i64 k = std::min(m, n);
  for (i64 j = 0; j < k; ++j) {
    T* cj = a + j * lda;
    i64 p = j;
    R best = cabs1(cj[j]);
    for (i64 i = j + 1; i < m; ++i) {
      const R v = cabs1(cj[i]);
      if (v > best) { best = v; p = i; }
    }
    ipiv[j] = static_cast<lint>(p + 1);
    if (cj[p] != T(0)) {
      if (p != j)
        for (i64 c = 0; c < n; ++c) std::swap(a[c * lda + j], a[c * lda + p]);
      if (std::abs(cj[j]) >= std::numeric_limits<R>::min()) {
        const T r = T(1) / cj[j];
        for (i64 i = j + 1; i < m; ++i) cj[i] *= r;
      } else {
        for (i64 i = j + 1; i < m; ++i) cj[i] /= cj[j];
      }
    } else if (*info == 0) {
      *info = static_cast<lint>(j + 1);
    }
    for (i64 c = j + 1; c < n; ++c) {  // rank-1 update of the trailing block
      T* cc = a + c * lda;
      sub_scaled(m - j - 1, cc[j], cj + j + 1, cc + j + 1);
    }
  }
}

// A X = B for the factors of small_getrf (n x n, column-major), with B row-major
// [n, k] in place (the caller's layout, so no transposition): each step updates a
// whole row of B, k contiguous entries, and every entry receives its updates in the
// order getrs's column sweeps give it.
template <class T>
void small_getrs(i64 n, i64 k, const T* a, i64 lda, const lint* ipiv, T* x) {
  for (i64 i = 0; i < n; ++i) {
    const i64 p = ipiv[i] - 1;
    if (p != i) std::swap_ranges(x + i * k, x + (i + 1) * k, x + p * k);
  }
  for (i64 i = 1; i < n; ++i)  // L (unit lower)
    for (i64 j = 0; j < i; ++j) sub_scaled(k, a[j * lda + i], x + j * k, x + i * k);
  for (i64 i = n - 1; i >= 0; --i) {  // U
    T* row = x + i * k;
    for (i64 j = i + 1; j < n; ++j) sub_scaled(k, a[j * lda + i], x + j * k, row);
    const T d = a[i * lda + i];
    for (i64 c = 0; c < k; ++c) row[c] /= d;
  }
}

// ---------------------------------------------------------------------------------
// Small real solve, fused.  For real n <= kSmallLU the solve runs as one elimination
// on the row-major augmented matrix W = [A | B] (each row: A's n entries, zeros up to
// a multiple of the vector width, B's k entries, zeros again): partial pivoting swaps
// whole rows, which are contiguous here, and each elimination step updates the rows
// below with whole-vector operations that carry B along (L⁻¹ P B for free, in the
// order getrs's forward substitution would apply it), then a back substitution of
// column sweeps.  No transposition of the caller's row-major data, one workspace per
// chunk kept in cache, and the multipliers kept apart from W so that the eliminated
// part of W is exactly zero: an update may then start at the vector holding column
// j+1 instead of at column j+1 itself (0 - f·0 leaves the zeros to its left alone).
// The pivots and info are getf2's (first entry of largest magnitude; info the first
// zero pivot), the results LAPACK's up to rounding.  Written with GCC vector
// extensions (plain scalar code elsewhere); no FMA, so every clone rounds alike.

#if defined(__GNUC__)
#define WEFT_VEC_LU 1
template <class R> struct Vec {
  // 32 bytes (4 doubles, 8 floats), aligned loads: W must start on a 32-byte boundary
  typedef R type __attribute__((vector_size(32)));
  static constexpr i64 lanes = 32 / sizeof(R);
};
#else
#define WEFT_VEC_LU 0
#endif

// Layout of W for an n x n system with k right-hand sides: B starts at column `boff`,
// each row is `ld` entries (both multiples of the vector width).
struct AugLayout {
  i64 boff, ld;
};
template <class R> AugLayout aug_layout(i64 n, i64 k) {
  // the vector width of aug_gesv (32 bytes of a real type); 1 where it does not run
  const i64 L = WEFT_VEC_LU && !is_complex_v<R> ? static_cast<i64>(32 / sizeof(R)) : 1;
  const i64 boff = (n + L - 1) / L * L;
  return {boff, boff + (k + L - 1) / L * L};
}

#if WEFT_VEC_LU
// A 32-byte aligned start inside `buf` (sized with 32 bytes to spare).
template <class R> R* aligned32(std::vector<R>& buf) {
  void* p = buf.data();
  std::size_t space = buf.size() * sizeof(R);
  return static_cast<R*>(std::align(32, sizeof(R), p, space));
}

// W (n rows of `ld`, 32-byte aligned) in place: on return W's upper triangle holds U, its B part X,
// `lo` (n x n row-major, strictly lower part) the multipliers L.  Returns info.
template <class R>
WEFT_SIMD_CLONES lint aug_gesv(i64 n, i64 boff, i64 ld, R* __restrict w, R* __restrict lo,
                               lint* __restrict ipiv) {
  using V = typename Vec<R>::type;
  constexpr i64 L = Vec<R>::lanes;
  const i64 nv = ld / L;
  auto vrow = [&](i64 r) { return reinterpret_cast<V*>(w + r * ld); };
  for (i64 j = 0; j < n; ++j) {
    // the largest |w[i, j]|, i >= j, by four independent maxima (no compare chain), then
    // the first row holding it: i?amax's pivot.  NaNs are passed over as i?amax does.
    R m[4] = {R(0), R(0), R(0), R(0)};
    i64 i = j;
    for (; i + 3 < n; i += 4)
      for (int t = 0; t < 4; ++t) {
        const R v = std::abs(w[(i + t) * ld + j]);
        m[t] = v > m[t] ? v : m[t];
      }
    for (; i < n; ++i) {
      const R v = std::abs(w[i * ld + j]);
      m[0] = v > m[0] ? v : m[0];
    }
    const R best = std::max(std::max(m[0], m[1]), std::max(m[2], m[3]));
    if (!(best > R(0))) {  // a zero column: singular, nothing more to solve
      ipiv[j] = static_cast<lint>(j + 1);
      return static_cast<lint>(j + 1);
    }
    i64 p = j;
    while (std::abs(w[p * ld + j]) != best) ++p;
    ipiv[j] = static_cast<lint>(p + 1);
    if (p != j) {
      V* a = vrow(j);
      V* b = vrow(p);
      for (i64 v = 0; v < nv; ++v) std::swap(a[v], b[v]);
      for (i64 c = 0; c < j; ++c) std::swap(lo[j * n + c], lo[p * n + c]);
    }
    const R piv = w[j * ld + j];
    const bool recip = std::abs(piv) >= std::numeric_limits<R>::min();  // as getf2
    const R r = R(1) / piv;
    const V* __restrict src = vrow(j);
    const i64 v0 = (j + 1) / L;
    // four rows at a time share the pivot row's loads and the loop overhead
    for (i = j + 1; i + 3 < n; i += 4) {
      R f[4];
      for (int t = 0; t < 4; ++t) {
        R* ri = w + (i + t) * ld;
        f[t] = recip ? ri[j] * r : ri[j] / piv;
        lo[(i + t) * n + j] = f[t];
      }
      sub_scaled4(nv - v0, f, src + v0, vrow(i) + v0, vrow(i + 1) + v0, vrow(i + 2) + v0,
                  vrow(i + 3) + v0);
      for (int t = 0; t < 4; ++t) w[(i + t) * ld + j] = R(0);
    }
    for (; i < n; ++i) {
      R* ri = w + i * ld;
      const R f = recip ? ri[j] * r : ri[j] / piv;
      lo[i * n + j] = f;
      sub_scaled(nv - v0, f, src + v0, vrow(i) + v0);
      ri[j] = R(0);
    }
  }
  // U X = L⁻¹ P B by column sweeps (x_j final, then removed from the rows above): the
  // updates of one row are a whole sweep apart, so no store waits on the one before
  const i64 b0 = boff / L;
  for (i64 j = n - 1; j >= 0; --j) {
    V* __restrict xj = vrow(j);
    const R d = w[j * ld + j];
    for (i64 v = b0; v < nv; ++v) xj[v] /= d;
    for (i64 i = 0; i < j; ++i) sub_scaled(nv - b0, w[i * ld + j], xj + b0, vrow(i) + b0);
  }
  return 0;
}
#endif

// A X = B for one real matrix (row-major A [n,n], B and X [n,k]) through aug_gesv, with
// workspaces w (n x ld, 32-byte aligned) and lo (n x n); the factors (row-major combined LU, as `lu`
// returns them) and 1-based pivots also go to `lu`/`piv` when they are not null.
template <class R>
lint small_gesv(i64 n, i64 k, const R* a, const R* b, R* x, R* w, R* lo, lint* ipiv, R* lu,
                std::int32_t* piv) {
#if WEFT_VEC_LU
  const AugLayout g = aug_layout<R>(n, k);
  for (i64 r = 0; r < n; ++r) {
    R* row = w + r * g.ld;
    std::copy(a + r * n, a + (r + 1) * n, row);
    std::fill(row + n, row + g.boff, R(0));
    std::copy(b + r * k, b + (r + 1) * k, row + g.boff);
    std::fill(row + g.boff + k, row + g.ld, R(0));
  }
  const lint info = aug_gesv(n, g.boff, g.ld, w, lo, ipiv);
  if (info) return info;
  for (i64 r = 0; r < n; ++r) std::copy(w + r * g.ld + g.boff, w + r * g.ld + g.boff + k, x + r * k);
  if (lu) {
    for (i64 r = 0; r < n; ++r)
      for (i64 c = 0; c < n; ++c) lu[r * n + c] = c < r ? lo[r * n + c] : w[r * g.ld + c];
    std::copy(ipiv, ipiv + n, piv);
  }
  return 0;
#else
  (void)w; (void)lo;
  std::vector<R> cm(static_cast<std::size_t>(n * n));
  lint info = 0;
  to_cm(a, n, n, cm.data(), n);
  small_getrf(n, n, cm.data(), n, ipiv, &info);
  if (info) return info;
  std::copy(b, b + n * k, x);
  small_getrs(n, k, cm.data(), n, ipiv, x);
  if (lu) {
    from_cm(cm.data(), n, n, n, lu);
    std::copy(ipiv, ipiv + n, piv);
  }
  return 0;
#endif
}

#if WEFT_VEC_LU
// rm_getrs for a real type on rows of `nv` vectors (x 32-byte aligned, rows padded):
// the same sweeps, each row update one or a few vector operations.
template <class R>
WEFT_SIMD_CLONES void vec_getrs(i64 n, i64 nv, const R* __restrict lu, const std::int32_t* ipiv,
                                int trans, R* __restrict x) {
  using V = typename Vec<R>::type;
  auto row = [&](i64 r) { return reinterpret_cast<V*>(x + r * nv * Vec<R>::lanes); };
  auto swap_rows = [&](i64 i) {
    const i64 p = ipiv[i] - 1;
    if (p != i) {
      V* a = row(i);
      V* b = row(p);
      for (i64 v = 0; v < nv; ++v) std::swap(a[v], b[v]);
    }
  };
  // rows i in [i0, i1) -= c(i) * row src; four rows share each load of row src
  auto axpy = [&](i64 src, i64 i0, i64 i1, auto c) __attribute__((always_inline)) {
    const V* __restrict s = row(src);
    i64 i = i0;
    for (; i + 3 < i1; i += 4) {
      const R f[4] = {c(i), c(i + 1), c(i + 2), c(i + 3)};
      sub_scaled4(nv, f, s, row(i), row(i + 1), row(i + 2), row(i + 3));
    }
    for (; i < i1; ++i) sub_scaled(nv, c(i), s, row(i));
  };
  auto scale = [&](i64 r, R d) {
    V* __restrict a = row(r);
    for (i64 v = 0; v < nv; ++v) a[v] /= d;
  };
  if (trans == 0) {
    for (i64 i = 0; i < n; ++i) swap_rows(i);
    for (i64 j = 0; j < n; ++j) axpy(j, j + 1, n, [&](i64 i) { return lu[i * n + j]; });
    for (i64 j = n - 1; j >= 0; --j) {
      scale(j, lu[j * n + j]);
      axpy(j, 0, j, [&](i64 i) { return lu[i * n + j]; });
    }
    return;
  }
  for (i64 j = 0; j < n; ++j) {
    scale(j, lu[j * n + j]);
    axpy(j, j + 1, n, [&](i64 i) { return lu[j * n + i]; });
  }
  for (i64 j = n - 1; j >= 0; --j) axpy(j, 0, j, [&](i64 i) { return lu[j * n + i]; });
  for (i64 i = n - 1; i >= 0; --i) swap_rows(i);
}
#endif

// op(A) X = B for row-major combined factors `lu` of A = P L U (as `lu` returns them)
// and 1-based pivots, X row-major [n, k] in place; trans 0 A, 1 Aᵀ, 2 Aᴴ (getrs).
// Column sweeps throughout (see aug_gesv); each reads a row of lu, contiguous.
template <class T>
void rm_getrs(i64 n, i64 k, const T* lu, const std::int32_t* ipiv, int trans, T* x) {
  auto cf = [&](const T& v) -> T {
    if constexpr (is_complex_v<T>) return trans == 2 ? std::conj(v) : v;
    else return v;
  };
  if (trans == 0) {
    for (i64 i = 0; i < n; ++i) {
      const i64 p = ipiv[i] - 1;
      if (p != i) std::swap_ranges(x + i * k, x + (i + 1) * k, x + p * k);
    }
    for (i64 j = 0; j < n; ++j)  // L, unit lower: x_i -= L_ij x_j
      for (i64 i = j + 1; i < n; ++i) sub_scaled(k, lu[i * n + j], x + j * k, x + i * k);
    for (i64 j = n - 1; j >= 0; --j) {  // U
      T* xj = x + j * k;
      const T d = lu[j * n + j];
      for (i64 c = 0; c < k; ++c) xj[c] /= d;
      for (i64 i = 0; i < j; ++i) sub_scaled(k, lu[i * n + j], xj, x + i * k);
    }
    return;
  }
  // Aᵀ = Uᵀ Lᵀ Pᵀ (conjugated for Aᴴ): Uᵀ forward, Lᵀ backward, then the swaps reversed
  for (i64 j = 0; j < n; ++j) {
    T* xj = x + j * k;
    const T* uj = lu + j * n;
    const T d = cf(uj[j]);
    for (i64 c = 0; c < k; ++c) xj[c] /= d;
    for (i64 i = j + 1; i < n; ++i) sub_scaled(k, cf(uj[i]), xj, x + i * k);
  }
  for (i64 j = n - 1; j >= 0; --j) {
    const T* lj = lu + j * n;
    for (i64 i = 0; i < j; ++i) sub_scaled(k, cf(lj[i]), x + j * k, x + i * k);
  }
  for (i64 i = n - 1; i >= 0; --i) {
    const i64 p = ipiv[i] - 1;
    if (p != i) std::swap_ranges(x + i * k, x + (i + 1) * k, x + p * k);
  }
}

// ---------------------------------------------------------------------------------
// LU: getrf.  lu [B,m,n], pivots int32 [B,min(m,n)] (1-based), info [B]

py::tuple lu(int provider, const py::array& a) {
  const char* op = "lapack_lu";
  provider_of(provider, op);
  const Mats s = mats(a, op, "a");
  return dispatch(FloatingComplexTypes{}, a, op, "a", [&](auto tag) -> py::tuple {
    using T = typename decltype(tag)::type;
    auto* getrf = fn<typename Sig<T>::getrf, T>(op, provider, GETRF);
    const i64 m = s.rows, n = s.cols, k = std::min(m, n), ld = std::max<i64>(1, m);
    lint_of(m, op, "m");
    lint_of(n, op, "n");
    auto out = new_array<T>({s.batch, m, n});
    auto piv = new_array<std::int32_t>({s.batch, k});
    auto info = new_array<std::int32_t>({s.batch});
    const T* A = static_cast<const T*>(a.data());
    T* O = out.mutable_data();
    std::int32_t* P = piv.mutable_data();
    std::int32_t* I = info.mutable_data();
    const i64 mn = elems({m, n}, op);
    over_batch(s.batch, 2.0 * m * n * k / 3, [&](i64 b, i64 e) {
      std::vector<T> w(static_cast<std::size_t>(ld * n));
      std::vector<lint> ip(static_cast<std::size_t>(k) + 1);
      for (i64 i = b; i < e; ++i) {
        lint M = static_cast<lint>(m), N = static_cast<lint>(n), L = static_cast<lint>(ld), inf = 0;
        if (k > 0) {
          to_cm(A + i * mn, m, n, w.data(), ld);
          if (std::max(m, n) <= kSmallLU) small_getrf(m, n, w.data(), ld, ip.data(), &inf);
          else getrf(&M, &N, w.data(), &L, ip.data(), &inf);
          if (inf < 0) lapack_failed("getrf", inf);
          from_cm(w.data(), ld, m, n, O + i * mn);
        }
        for (i64 j = 0; j < k; ++j) P[i * k + j] = ip[j];
        I[i] = inf;
      }
    });
    return py::make_tuple(out, piv, info);
  });
}

// slogdet from getrf: sign [B] (x's dtype), log|det| [B] (real)
py::tuple slogdet(int provider, const py::array& a) {
  const char* op = "lapack_slogdet";
  provider_of(provider, op);
  const Mats s = mats(a, op, "a");
  if (s.rows != s.cols) value_error(op, "a must hold square matrices, got ", shape_str(a));
  return dispatch(FloatingComplexTypes{}, a, op, "a", [&](auto tag) -> py::tuple {
    using T = typename decltype(tag)::type;
    using R = real_of_t<T>;
    auto* getrf = fn<typename Sig<T>::getrf, T>(op, provider, GETRF);
    const i64 n = s.rows, ld = std::max<i64>(1, n), nn = elems({n, n}, op);
    lint_of(n, op, "n");
    auto sign = new_array<T>({s.batch});
    auto logabs = new_array<R>({s.batch});
    const T* A = static_cast<const T*>(a.data());
    T* S = sign.mutable_data();
    R* L = logabs.mutable_data();
    over_batch(s.batch, 2.0 * n * n * n / 3, [&](i64 b, i64 e) {
      std::vector<T> w(static_cast<std::size_t>(ld * n));
      std::vector<lint> ip(static_cast<std::size_t>(n) + 1);
      for (i64 i = b; i < e; ++i) {
        lint N = static_cast<lint>(n), LD = static_cast<lint>(ld), inf = 0;
        T sg = T(1);
        R la = 0;
        if (n > 0) {
          to_cm(A + i * nn, n, n, w.data(), ld);
          if (n <= kSmallLU) small_getrf(n, n, w.data(), ld, ip.data(), &inf);
          else getrf(&N, &N, w.data(), &LD, ip.data(), &inf);
          if (inf < 0) lapack_failed("getrf", inf);
          // A row swap flips the sign; each diagonal entry adds its phase and log.
          for (i64 j = 0; j < n; ++j) {
            const T d = w[j * ld + j];
            const R ad = std::abs(d);
            if (ip[j] != j + 1) sg = -sg;
            if constexpr (is_complex_v<T>) sg *= (ad == 0 ? T(0) : d / ad);
            else sg *= (d < 0 ? T(-1) : (d > 0 ? T(1) : d));  // NaN stays NaN
            la += std::log(ad);
          }
          if (inf > 0) { sg = T(0); la = -std::numeric_limits<R>::infinity(); }
        }
        S[i] = sg;
        L[i] = la;
      }
    });
    return py::make_tuple(sign, logabs);
  });
}

// solve (getrf + getrs): x [B,n,k], info [B]; with `keep` also the factors of every
// matrix, lu [B,n,n] (row-major combined L and U, as `lu` returns them) and pivots
// int32 [B,n] (1-based), which lu_solve takes for more solves with the same matrices
// (the backward of a solve needs one with Aᴴ).  A singular matrix gets a NaN solution
// (its factors are then unspecified: Python raises).
py::tuple solve(int provider, const py::array& a, const py::array& rhs, bool keep) {
  const char* op = "lapack_solve";
  provider_of(provider, op);
  const std::pair<Mats, Mats> st = system_args(a, rhs, op, "a", true);
  const Mats s = st.first, t = st.second;
  return dispatch(FloatingComplexTypes{}, a, op, "a", [&](auto tag) -> py::tuple {
    using T = typename decltype(tag)::type;
    auto* getrf = fn<typename Sig<T>::getrf, T>(op, provider, GETRF);
    auto* getrs = fn<typename Sig<T>::getrs, T>(op, provider, GETRS);
    const i64 n = s.rows, k = t.cols, ld = std::max<i64>(1, n);
    const i64 nn = elems({n, n}, op), nk = elems({n, k}, op);
    lint_of(n, op, "n");
    lint_of(k, op, "k");
    const bool fused = !is_complex_v<T> && n <= kSmallLU;
    const AugLayout g = aug_layout<T>(n, k);
    if (fused) elems({n, g.ld}, op);
    auto out = new_array<T>({s.batch, n, k});
    auto info = new_array<std::int32_t>({s.batch});
    auto lu = new_array<T>({keep ? s.batch : 0, n, n});
    auto piv = new_array<std::int32_t>({keep ? s.batch : 0, n});
    const T* A = static_cast<const T*>(a.data());
    const T* B = static_cast<const T*>(rhs.data());
    T* X = out.mutable_data();
    T* LU = lu.mutable_data();
    std::int32_t* P = piv.mutable_data();
    std::int32_t* I = info.mutable_data();
    over_batch(s.batch, 2.0 * n * n * n / 3 + 2.0 * n * n * k, [&](i64 b, i64 e) {
      std::vector<T> w(static_cast<std::size_t>(fused ? n * g.ld + 32 / sizeof(T) : ld * n)),
          lo(static_cast<std::size_t>(fused ? nn : 0)), x(static_cast<std::size_t>(fused ? 0 : ld * k));
      T* wa = fused ? aligned32(w) : w.data();
      std::vector<lint> ip(static_cast<std::size_t>(n) + 1);
      for (i64 i = b; i < e; ++i) {
        lint N = static_cast<lint>(n), K = static_cast<lint>(k), LD = static_cast<lint>(ld), inf = 0;
        char tr = 'N';
        if (n > 0 && fused) {
          if constexpr (!is_complex_v<T>)
            inf = small_gesv(n, k, A + i * nn, B + i * nk, X + i * nk, wa, lo.data(), ip.data(),
                             keep ? LU + i * nn : nullptr, keep ? P + i * n : nullptr);
          if (inf > 0) fill_nan(X + i * nk, nk);
        } else if (n > 0) {
          const bool small = n <= kSmallLU;
          to_cm(A + i * nn, n, n, w.data(), ld);
          if (small) small_getrf(n, n, w.data(), ld, ip.data(), &inf);
          else getrf(&N, &N, w.data(), &LD, ip.data(), &inf);
          if (inf < 0) lapack_failed("getrf", inf);
          if (inf == 0 && keep) {
            from_cm(w.data(), ld, n, n, LU + i * nn);
            std::copy(ip.data(), ip.data() + n, P + i * n);
          }
          if (inf == 0 && k > 0 && small) {
            std::copy(B + i * nk, B + (i + 1) * nk, X + i * nk);
            small_getrs(n, k, w.data(), ld, ip.data(), X + i * nk);
          } else if (inf == 0 && k > 0) {
            to_cm(B + i * nk, n, k, x.data(), ld);
            getrs(&tr, &N, &K, w.data(), &LD, ip.data(), x.data(), &LD, &inf);
            if (inf < 0) lapack_failed("getrs", inf);
            from_cm(x.data(), ld, n, k, X + i * nk);
          } else if (inf > 0) {
            fill_nan(X + i * nk, nk);
          }
        }
        I[i] = inf;
      }
    });
    if (keep) return py::make_tuple(out, info, lu, piv);
    return py::make_tuple(out, info);
  });
}

// op(A) X = B from the factors `solve(keep=True)` or `lu` returned: lu [B,n,n]
// (row-major combined L and U), pivots int32 [B,n] (1-based), b [B,n,k]; trans 0 'N',
// 1 'T', 2 'C'.  The pivots are checked before any is used (a bad one would send the
// row swaps out of bounds); a zero on U's diagonal gives inf/NaN, as getrs does.
py::array lu_solve(int provider, const py::array& lu, const py::array& pivots, const py::array& rhs,
                   int trans) {
  const char* op = "lapack_lu_solve";
  provider_of(provider, op);
  const std::pair<Mats, Mats> st = system_args(lu, rhs, op, "lu", true);
  const Mats s = st.first, t = st.second;
  if (trans < 0 || trans > 2) value_error(op, "trans must be 0 (N), 1 (T) or 2 (C), got ", trans);
  check_ndim(pivots, 2, op, "pivots");
  check_contiguous(pivots, op, "pivots");
  if (!py::isinstance<py::array_t<std::int32_t>>(pivots))
    value_error(op, "pivots must be int32, got ", std::string(py::str(pivots.dtype())));
  if (pivots.shape(0) != s.batch || pivots.shape(1) != s.rows)
    value_error(op, "pivots must have shape [", s.batch, ", ", s.rows, "], got ", shape_str(pivots));
  const std::int32_t* P = static_cast<const std::int32_t*>(pivots.data());
  const i64 n = s.rows;
  for (i64 i = 0; i < s.batch * n; ++i)
    if (P[i] < (i % n) + 1 || P[i] > n)
      value_error(op, "pivot ", i % n, " of matrix ", i / n, " is ", P[i], "; pivots are 1-based "
                  "row indices in [", (i % n) + 1, ", ", n, "] (getrf's)");
  return dispatch(FloatingComplexTypes{}, lu, op, "lu", [&](auto tag) -> py::array {
    using T = typename decltype(tag)::type;
    auto* getrs = fn<typename Sig<T>::getrs, T>(op, provider, GETRS);
    const i64 k = t.cols, ld = std::max<i64>(1, n);
    const i64 nn = elems({n, n}, op), nk = elems({n, k}, op);
    lint N = lint_of(n, op, "n"), K = lint_of(k, op, "k"), LD = static_cast<lint>(ld);
    auto out = new_array<T>({s.batch, n, k});
    const T* F = static_cast<const T*>(lu.data());
    const T* B = static_cast<const T*>(rhs.data());
    T* X = out.mutable_data();
    const bool small = n <= kSmallLU, vec = WEFT_VEC_LU && !is_complex_v<T>;
    const AugLayout g = aug_layout<T>(0, k);  // rows of b, padded to whole vectors
    if (small && vec) elems({n, g.ld}, op);
    over_batch(s.batch, 2.0 * n * n * k, [&](i64 b, i64 e) {
      std::vector<T> w(static_cast<std::size_t>(small ? 0 : ld * n)),
          x(static_cast<std::size_t>(small ? (vec ? n * g.ld + 32 / sizeof(T) : 0) : ld * k));
      T* xa = small && vec ? aligned32(x) : x.data();
      std::vector<lint> ip(static_cast<std::size_t>(n) + 1);
      for (i64 i = b; i < e; ++i) {
        if (n == 0 || k == 0) continue;
        if (small && vec) {
#if WEFT_VEC_LU
          if constexpr (!is_complex_v<T>) {  // through a padded, aligned copy of b
            for (i64 r = 0; r < n; ++r) {
              std::copy(B + i * nk + r * k, B + i * nk + (r + 1) * k, xa + r * g.ld);
              std::fill(xa + r * g.ld + k, xa + (r + 1) * g.ld, T(0));
            }
            vec_getrs(n, g.ld / Vec<T>::lanes, F + i * nn, P + i * n, trans, xa);
            for (i64 r = 0; r < n; ++r)
              std::copy(xa + r * g.ld, xa + r * g.ld + k, X + i * nk + r * k);
          }
#endif
          continue;
        }
        if (small) {
          std::copy(B + i * nk, B + (i + 1) * nk, X + i * nk);
          rm_getrs(n, k, F + i * nn, P + i * n, trans, X + i * nk);
          continue;
        }
        lint inf = 0;
        char tr = "NTC"[trans];
        to_cm(F + i * nn, n, n, w.data(), ld);
        to_cm(B + i * nk, n, k, x.data(), ld);
        std::copy(P + i * n, P + (i + 1) * n, ip.data());
        getrs(&tr, &N, &K, w.data(), &LD, ip.data(), x.data(), &LD, &inf);
        if (inf < 0) lapack_failed("getrs", inf);
        from_cm(x.data(), ld, n, k, X + i * nk);
      }
    });
    return std::move(out);
  });
}

py::tuple inv(int provider, const py::array& a) {
  const char* op = "lapack_inv";
  provider_of(provider, op);
  const Mats s = mats(a, op, "a");
  if (s.rows != s.cols) value_error(op, "a must hold square matrices, got ", shape_str(a));
  return dispatch(FloatingComplexTypes{}, a, op, "a", [&](auto tag) -> py::tuple {
    using T = typename decltype(tag)::type;
    auto* getrf = fn<typename Sig<T>::getrf, T>(op, provider, GETRF);
    auto* getri = fn<typename Sig<T>::getri, T>(op, provider, GETRI);
    const i64 n = s.rows, ld = std::max<i64>(1, n), nn = elems({n, n}, op);
    lint N = lint_of(n, op, "n"), LD = static_cast<lint>(ld), lwork = 1;
    if (n > 0) {  // the workspace depends on n only: one query for the batch
      T q{};
      lint qi = -1, inf = 0;
      std::vector<lint> ip(static_cast<std::size_t>(n));
      getri(&N, Dummy{}, &LD, ip.data(), &q, &qi, &inf);
      lwork = std::max<lint>(lwork_of(q, op), N);
    }
    auto out = new_array<T>({s.batch, n, n});
    auto info = new_array<std::int32_t>({s.batch});
    const T* A = static_cast<const T*>(a.data());
    T* X = out.mutable_data();
    std::int32_t* I = info.mutable_data();
    over_batch(s.batch, 2.0 * n * n * n, [&](i64 b, i64 e) {
      std::vector<T> w(static_cast<std::size_t>(ld * n)), work(static_cast<std::size_t>(lwork));
      std::vector<lint> ip(static_cast<std::size_t>(n) + 1);
      for (i64 i = b; i < e; ++i) {
        lint inf = 0, lw = lwork;
        if (n > 0) {
          to_cm(A + i * nn, n, n, w.data(), ld);
          if (n <= kSmallLU) {  // the columns of the identity through small_getrs
            small_getrf(n, n, w.data(), ld, ip.data(), &inf);
            if (inf == 0) {
              T* xi = X + i * nn;
              std::fill(xi, xi + nn, T(0));
              for (i64 d = 0; d < n; ++d) xi[d * n + d] = T(1);
              small_getrs(n, n, w.data(), ld, ip.data(), xi);
            } else {
              fill_nan(X + i * nn, nn);
            }
            I[i] = inf;
            continue;
          }
          getrf(&N, &N, w.data(), &LD, ip.data(), &inf);
          if (inf < 0) lapack_failed("getrf", inf);
          if (inf == 0) {
            getri(&N, w.data(), &LD, ip.data(), work.data(), &lw, &inf);
            if (inf < 0) lapack_failed("getri", inf);
          }
          if (inf == 0) from_cm(w.data(), ld, n, n, X + i * nn);
          else fill_nan(X + i * nn, nn);
        }
        I[i] = inf;
      }
    });
    return py::make_tuple(out, info);
  });
}

template <class T>
inline T conj_of(const T& v) {
  if constexpr (is_complex_v<T>) return std::conj(v);
  else return v;
}

// Cholesky of a small Hermitian matrix from its lower triangle: potf2's algorithm
// (same pivot test, info and operation order), on the row-major output `x` directly,
// where the dot products of the lower-Cholesky recurrence run along contiguous rows.
template <class T>
lint small_potrf(i64 n, const T* a, T* x) {
  using R = real_of_t<T>;
  for (i64 r = 0; r < n; ++r)
    for (i64 c = 0; c < n; ++c) x[r * n + c] = c <= r ? a[r * n + c] : T(0);
  for (i64 j = 0; j < n; ++j) {
    T* rj = x + j * n;
    R d = std::real(rj[j]);
    for (i64 k = 0; k < j; ++k) d -= std::real(rj[k] * conj_of(rj[k]));
    if (!(d > 0)) {  // not positive definite (or NaN), as potf2 tests it
      rj[j] = T(d);
      return static_cast<lint>(j + 1);
    }
    d = std::sqrt(d);
    rj[j] = T(d);
    const R inv = R(1) / d;
    for (i64 i = j + 1; i < n; ++i) {
      T* ri = x + i * n;
      T acc = ri[j];
      for (i64 k = 0; k < j; ++k) acc -= ri[k] * conj_of(rj[k]);
      ri[j] = acc * inv;
    }
  }
  return 0;
}

// ---------------------------------------------------------------------------------
// Cholesky (lower), its solve, triangular solves

py::tuple cholesky(int provider, const py::array& a) {
  const char* op = "lapack_cholesky";
  provider_of(provider, op);
  const Mats s = mats(a, op, "a");
  if (s.rows != s.cols) value_error(op, "a must hold square matrices, got ", shape_str(a));
  return dispatch(FloatingComplexTypes{}, a, op, "a", [&](auto tag) -> py::tuple {
    using T = typename decltype(tag)::type;
    auto* potrf = fn<typename Sig<T>::potrf, T>(op, provider, POTRF);
    const i64 n = s.rows, ld = std::max<i64>(1, n), nn = elems({n, n}, op);
    lint N = lint_of(n, op, "n"), LD = static_cast<lint>(ld);
    auto out = new_array<T>({s.batch, n, n});
    auto info = new_array<std::int32_t>({s.batch});
    const T* A = static_cast<const T*>(a.data());
    T* X = out.mutable_data();
    std::int32_t* I = info.mutable_data();
    over_batch(s.batch, n * n * n / 3.0, [&](i64 b, i64 e) {
      std::vector<T> w(static_cast<std::size_t>(ld * n));
      for (i64 i = b; i < e; ++i) {
        lint inf = 0;
        char lo = 'L';
        if (n > 0 && n <= kSmallLU) {
          inf = small_potrf(n, A + i * nn, X + i * nn);
        } else if (n > 0) {
          to_cm(A + i * nn, n, n, w.data(), ld);
          potrf(&lo, &N, w.data(), &LD, &inf);
          if (inf < 0) lapack_failed("potrf", inf);
          T* x = X + i * nn;
          for (i64 r = 0; r < n; ++r)  // the factor's lower triangle; LAPACK left the rest as read
            for (i64 c = 0; c < n; ++c) x[r * n + c] = c <= r ? w[c * ld + r] : T(0);
        }
        I[i] = inf;
      }
    });
    return py::make_tuple(out, info);
  });
}

// The backward of the Cholesky factorisation for one matrix, fused (api-linalg.md
// §2.6): gA = ½(Q + Qᴴ) with Q = L⁻ᴴ Φ L⁻¹, Φ = ½(tril P + (tril₋₁ P)ᴴ), P = Lᴴ Ḡ.
// The Hermitian part passes through the outer factors: gA = L⁻ᴴ S L⁻¹ with
// S = ½(Φ + Φᴴ) (lower triangle ½P, diagonal ½Re P, upper its conjugate), and since gA
// is Hermitian only its lower triangle is computed: X = L⁻ᴴ S (a full back
// substitution), then gA = L⁻ᴴ Xᴴ row by row on columns 0..i only (a third of the
// work of a full one), mirrored.  Only the lower triangles of L and Ḡ are read (P's
// lower triangle needs no more).  Rows live in ld x ld workspaces (padded with zeros
// to whole vectors for a real type, 32-byte aligned): g a copy of Ḡ, p, z; every
// step is a sweep of row updates, contiguous, four rows sharing each load, and the
// transpositions go by vector blocks.
#if WEFT_VEC_LU
// dst = srcᵀ for a real ld x ld matrix (ld a multiple of the vector width L, both
// 32-byte aligned), by L x L blocks transposed in registers: the classic three stages
// for 8 floats (two for 4 doubles), each mask one x86 instruction (unpck, shufp,
// perm2f128): pairs of rows interleaved, then pairs of pairs, then 128-bit halves.
template <class R>
inline __attribute__((always_inline)) void block_transpose(i64 ld, const R* __restrict src,
                                                           R* __restrict dst) {
  using V = typename Vec<R>::type;
  constexpr i64 L = Vec<R>::lanes;
  using M = std::conditional_t<sizeof(R) == 4, std::int32_t, std::int64_t>;
  typedef M MV __attribute__((vector_size(32)));
  for (i64 bi = 0; bi < ld; bi += L)
    for (i64 bj = 0; bj < ld; bj += L) {
      V b[L];
      for (i64 r = 0; r < L; ++r) b[r] = *reinterpret_cast<const V*>(src + (bi + r) * ld + bj);
      if constexpr (L == 8) {
        V t[8], u[8];
        for (int r = 0; r < 8; r += 2) {
          t[r] = __builtin_shuffle(b[r], b[r + 1], MV{0, 8, 1, 9, 4, 12, 5, 13});
          t[r + 1] = __builtin_shuffle(b[r], b[r + 1], MV{2, 10, 3, 11, 6, 14, 7, 15});
        }
        for (int r = 0; r < 8; r += 4)
          for (int q = 0; q < 2; ++q) {
            u[r + 2 * q] = __builtin_shuffle(t[r + q], t[r + q + 2], MV{0, 1, 8, 9, 4, 5, 12, 13});
            u[r + 2 * q + 1] =
                __builtin_shuffle(t[r + q], t[r + q + 2], MV{2, 3, 10, 11, 6, 7, 14, 15});
          }
        for (int c = 0; c < 4; ++c) {
          b[c] = __builtin_shuffle(u[c], u[c + 4], MV{0, 1, 2, 3, 8, 9, 10, 11});
          b[c + 4] = __builtin_shuffle(u[c], u[c + 4], MV{4, 5, 6, 7, 12, 13, 14, 15});
        }
      } else {
        static_assert(L == 4, "32-byte vectors of float or double");
        V t[4];
        for (int r = 0; r < 4; r += 2) {
          t[r] = __builtin_shuffle(b[r], b[r + 1], MV{0, 4, 2, 6});
          t[r + 1] = __builtin_shuffle(b[r], b[r + 1], MV{1, 5, 3, 7});
        }
        b[0] = __builtin_shuffle(t[0], t[2], MV{0, 1, 4, 5});
        b[2] = __builtin_shuffle(t[0], t[2], MV{2, 3, 6, 7});
        b[1] = __builtin_shuffle(t[1], t[3], MV{0, 1, 4, 5});
        b[3] = __builtin_shuffle(t[1], t[3], MV{2, 3, 6, 7});
      }
      for (i64 r = 0; r < L; ++r) *reinterpret_cast<V*>(dst + (bj + r) * ld + bi) = b[r];
    }
}
#endif

template <class T>
struct CholBackRows {
#if WEFT_VEC_LU
  using V = std::conditional_t<is_complex_v<T>, T, typename Vec<std::conditional_t<is_complex_v<T>, float, T>>::type>;
  static constexpr i64 L = is_complex_v<T> ? 1 : Vec<std::conditional_t<is_complex_v<T>, float, T>>::lanes;
#else
  using V = T;
  static constexpr i64 L = 1;
#endif
};

template <class T>
WEFT_SIMD_CLONES void chol_backward_one(i64 n, i64 ld, const T* __restrict l, const T* __restrict g,
                                        T* __restrict p, T* __restrict z, T* __restrict out) {
  using R = real_of_t<T>;
  using V = typename CholBackRows<T>::V;
  constexpr i64 L = CholBackRows<T>::L;
  const i64 nv = ld / L;
  const R half = R(0.5);
  auto row = [&](T* base, i64 r) { return reinterpret_cast<V*>(base + r * ld); };
  auto upto = [&](i64 i) { return i / L + 1; };  // the vectors holding columns 0..i
  // tril(Lᴴ Ḡ): row i is Σ_{k>=i} conj(L_ki) Ḡ[k, 0..i], summed k by k over all rows
  // (each step updates different rows: no row waits on its own previous update)
  for (i64 i = 0; i < n; ++i) {
    V* __restrict pi = row(p, i);
    for (i64 v = 0; v < upto(i); ++v) pi[v] = V{};
  }
  for (i64 k = 0; k < n; ++k) {
    const V* __restrict gk = reinterpret_cast<const V*>(g + k * ld);
    const T* lk = l + k * n;
    i64 i = 0;
    for (; i + 3 <= k; i += 4) {  // four rows share the loads of row k
      const T f0 = conj_of(lk[i]), f1 = conj_of(lk[i + 1]), f2 = conj_of(lk[i + 2]),
              f3 = conj_of(lk[i + 3]);
      V* __restrict p0 = row(p, i);
      V* __restrict p1 = row(p, i + 1);
      V* __restrict p2 = row(p, i + 2);
      V* __restrict p3 = row(p, i + 3);
      for (i64 v = 0, w = upto(i + 3); v < w; ++v) {
        const V s = gk[v];
        p0[v] += f0 * s;
        p1[v] += f1 * s;
        p2[v] += f2 * s;
        p3[v] += f3 * s;
      }
    }
    for (; i <= k; ++i) {
      const T f = conj_of(lk[i]);
      V* __restrict pi = row(p, i);
      for (i64 v = 0, w = upto(i); v < w; ++v) pi[v] += f * gk[v];
    }
  }
  // `lower_of(a, at)`: the matrix whose lower triangle (diagonal included) is a's and
  // whose strict upper triangle is at's, written over at (for a real type at = aᵀ by
  // block transposes, then a blend per vector; otherwise element by element)
  auto transpose = [&](const T* a, T* at) __attribute__((always_inline)) {  // at = aᴴ
#if WEFT_VEC_LU
    if constexpr (!is_complex_v<T>) {
      block_transpose(ld, a, at);
      return;
    }
#endif
    for (i64 i = 0; i < n; ++i)
      for (i64 j = 0; j < n; ++j) at[i * ld + j] = conj_of(a[j * ld + i]);
  };
  auto lower_of = [&](const T* a, T* at) __attribute__((always_inline)) {
#if WEFT_VEC_LU
    if constexpr (!is_complex_v<T>) {
      using M = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;
      typedef M MV __attribute__((vector_size(32)));
      MV col;
      for (i64 c = 0; c < L; ++c) col[c] = static_cast<M>(c);
      for (i64 i = 0; i < n; ++i)
        for (i64 v = 0; v < nv; ++v) {
          const MV keep = col + static_cast<M>(v * L) <= static_cast<M>(i);
          V* t = row(at, i) + v;
          *t = keep ? reinterpret_cast<const V*>(a + i * ld)[v] : *t;
        }
      return;
    }
#endif
    for (i64 i = 0; i < n; ++i)
      for (i64 j = 0; j <= i; ++j) at[i * ld + j] = a[i * ld + j];
  };
  // S = ½(tril P + (tril₋₁ P)ᴴ), its diagonal real
  transpose(p, z);
  lower_of(p, z);
  for (i64 i = 0; i < n; ++i) {
    V* zi = row(z, i);
    for (i64 v = 0; v < nv; ++v) zi[v] *= half;
    z[i * ld + i] = T(std::real(z[i * ld + i]));
  }
  // x <- L⁻ᴴ x on the first vectors of each row (all of them, or those up to the row's
  // own column): Lᴴ upper, (Lᴴ)_ik = conj(L_ki), row k of L read contiguously
  auto solve_lh = [&](T* x, bool lower) {
    for (i64 k = n - 1; k >= 0; --k) {
      V* __restrict xk = row(x, k);
      const T r = T(1) / conj_of(l[k * n + k]);  // one division per row, not per entry
      const i64 wk = lower ? upto(k) : nv;
      for (i64 v = 0; v < wk; ++v) xk[v] *= r;
      const T* lk = l + k * n;
      i64 i = 0;
      for (; i + 3 < k; i += 4) {
        const T f[4] = {conj_of(lk[i]), conj_of(lk[i + 1]), conj_of(lk[i + 2]),
                        conj_of(lk[i + 3])};
        const i64 w = lower ? upto(i + 3) : nv;  // rows i..i+3 need no more
        sub_scaled4(w, f, xk, row(x, i), row(x, i + 1), row(x, i + 2), row(x, i + 3));
      }
      for (; i < k; ++i) sub_scaled(lower ? upto(i) : nv, conj_of(lk[i]), xk, row(x, i));
    }
  };
  solve_lh(z, false);  // X = L⁻ᴴ S
  transpose(z, p);
  solve_lh(p, true);  // the lower triangle of L⁻ᴴ Xᴴ = gA
  transpose(p, z);    // gA's upper triangle: the conjugate of its lower one
  lower_of(p, z);
  for (i64 i = 0; i < n; ++i) {
    std::copy(z + i * ld, z + i * ld + n, out + i * n);
    out[i * n + i] = T(std::real(z[i * ld + i]));  // Hermitian: a real diagonal
  }
}

// gA [B,n,n] from the factors l [B,n,n] (lower, C-contiguous) and the cotangent g of L:
// any strides (a cotangent is often a broadcast view, e.g. that of a sum: every matrix
// reads through its strides into the workspace it copies to anyway, so no contiguous
// copy of the batch is made first).
py::array cholesky_backward(int provider, const py::array& l, const py::array& g) {
  const char* op = "lapack_cholesky_backward";
  provider_of(provider, op);
  const Mats s = mats(l, op, "l");
  if (s.rows != s.cols) value_error(op, "l must hold square matrices, got ", shape_str(l));
  check_ndim(g, 3, op, "g");
  if (g.shape(0) != s.batch || g.shape(1) != s.rows || g.shape(2) != s.cols)
    value_error(op, "g must have the shape of l ", shape_str(l), ", got ", shape_str(g));
  check_same_dtype(l, "l", g, "g", op);
  if (!(g.flags() & py::detail::npy_api::NPY_ARRAY_ALIGNED_))
    value_error(op, "g must be aligned to its itemsize (", g.itemsize(), " bytes)");
  i64 gs[3];
  for (int d = 0; d < 3; ++d) {
    if (g.strides(d) % g.itemsize() != 0)
      value_error(op, "g's strides must be whole elements, got ", py::str(g.attr("strides")).cast<std::string>());
    gs[d] = g.strides(d) / g.itemsize();
  }
  return dispatch(FloatingComplexTypes{}, l, op, "l", [&](auto tag) -> py::array {
    using T = typename decltype(tag)::type;
    const i64 n = s.rows, nn = elems({n, n}, op);
    auto out = new_array<T>({s.batch, n, n});
    const T* L = static_cast<const T*>(l.data());
    const T* G = static_cast<const T*>(g.data());
    T* O = out.mutable_data();
    constexpr i64 lanes = CholBackRows<T>::L;
    const i64 ld = (n + lanes - 1) / lanes * lanes, pad = 32 / sizeof(T);
    const i64 ws = elems({3, ld, ld}, op) + 6 * pad;
    over_batch(s.batch, 2.0 * n * n * n, [&](i64 b, i64 e) {
      std::vector<T> buf(static_cast<std::size_t>(ws));
      T* g0 = aligned32(buf);  // three ld x ld workspaces, each on a 32-byte boundary
      const i64 step = (ld * ld + pad - 1) / pad * pad;
      T* p0 = g0 + step;
      T* z0 = p0 + step;
      std::fill(g0, g0 + 3 * step, T(0));  // g's upper triangle and padding stay zero
      for (i64 i = b; i < e; ++i) {
        for (i64 r = 0; r < n; ++r) {  // Ḡ's lower triangle, all that is read
          const T* src = G + i * gs[0] + r * gs[1];
          for (i64 c = 0; c <= r; ++c) g0[r * ld + c] = src[c * gs[2]];
        }
        chol_backward_one(n, ld, L + i * nn, g0, p0, z0, O + i * nn);
      }
    });
    return std::move(out);
  });
}

py::array cholesky_solve(int provider, const py::array& l, const py::array& rhs) {
  const char* op = "lapack_cholesky_solve";
  provider_of(provider, op);
  const std::pair<Mats, Mats> st = system_args(l, rhs, op, "l", true);
  const Mats s = st.first, t = st.second;
  return dispatch(FloatingComplexTypes{}, l, op, "l", [&](auto tag) -> py::array {
    using T = typename decltype(tag)::type;
    auto* potrs = fn<typename Sig<T>::potrs, T>(op, provider, POTRS);
    const i64 n = s.rows, k = t.cols, ld = std::max<i64>(1, n);
    const i64 nn = elems({n, n}, op), nk = elems({n, k}, op);
    lint N = lint_of(n, op, "n"), K = lint_of(k, op, "k"), LD = static_cast<lint>(ld);
    auto out = new_array<T>({s.batch, n, k});
    const T* A = static_cast<const T*>(l.data());
    const T* B = static_cast<const T*>(rhs.data());
    T* X = out.mutable_data();
    over_batch(s.batch, 2.0 * n * n * k, [&](i64 b, i64 e) {
      std::vector<T> w(static_cast<std::size_t>(ld * n)), x(static_cast<std::size_t>(ld * k));
      for (i64 i = b; i < e; ++i) {
        if (n == 0 || k == 0) continue;
        lint inf = 0;
        char lo = 'L';
        to_cm(A + i * nn, n, n, w.data(), ld);
        to_cm(B + i * nk, n, k, x.data(), ld);
        potrs(&lo, &N, &K, w.data(), &LD, x.data(), &LD, &inf);
        if (inf < 0) lapack_failed("potrs", inf);
        from_cm(x.data(), ld, n, k, X + i * nk);
      }
    });
    return std::move(out);
  });
}

// op(A) X = B for a small triangular A read in place (row-major n x n, the caller's
// layout) and B row-major [n, k] in place, as trtrs: info is the first zero on the
// diagonal (then nothing is solved).  op(A)'s entry (i, j) is A[i, j], or A[j, i]
// (conjugated for 'C'); op(A) is lower when A is lower and not transposed, or upper
// and transposed.  Row updates of k contiguous entries, as in small_getrs.
template <class T>
lint small_trtrs(i64 n, i64 k, const T* a, bool upper, int trans, bool unit, T* x) {
  if (!unit)
    for (i64 i = 0; i < n; ++i)
      if (a[i * n + i] == T(0)) return static_cast<lint>(i + 1);
  auto coef = [&](i64 i, i64 j) -> T {
    if (trans == 0) return a[i * n + j];
    if constexpr (is_complex_v<T>) return trans == 2 ? std::conj(a[j * n + i]) : a[j * n + i];
    return a[j * n + i];
  };
  const bool lower = upper == (trans != 0);
  for (i64 step = 0; step < n; ++step) {
    // forward through the rows for a lower op(A), backward for an upper one; row i
    // takes the rows solved before it: [0, i) or (i, n)
    const i64 i = lower ? step : n - 1 - step;
    const i64 j0 = lower ? 0 : i + 1, j1 = lower ? i : n;
    T* row = x + i * k;
    for (i64 j = j0; j < j1; ++j) sub_scaled(k, coef(i, j), x + j * k, row);
    if (!unit) {
      const T d = coef(i, i);
      for (i64 c = 0; c < k; ++c) row[c] /= d;
    }
  }
  return 0;
}

// op(a) x = b for triangular a; trans 0 'N', 1 'T', 2 'C'.  info > 0: a zero on the diagonal
py::tuple triangular_solve(int provider, const py::array& a, const py::array& rhs, bool upper,
                           int trans, bool unit) {
  const char* op = "lapack_triangular_solve";
  provider_of(provider, op);
  const std::pair<Mats, Mats> st = system_args(a, rhs, op, "a", true);
  const Mats s = st.first, t = st.second;
  if (trans < 0 || trans > 2) value_error(op, "trans must be 0 (N), 1 (T) or 2 (C), got ", trans);
  return dispatch(FloatingComplexTypes{}, a, op, "a", [&](auto tag) -> py::tuple {
    using T = typename decltype(tag)::type;
    auto* trtrs = fn<typename Sig<T>::trtrs, T>(op, provider, TRTRS);
    const i64 n = s.rows, k = t.cols, ld = std::max<i64>(1, n);
    const i64 nn = elems({n, n}, op), nk = elems({n, k}, op);
    lint N = lint_of(n, op, "n"), K = lint_of(k, op, "k"), LD = static_cast<lint>(ld);
    auto out = new_array<T>({s.batch, n, k});
    auto info = new_array<std::int32_t>({s.batch});
    const T* A = static_cast<const T*>(a.data());
    const T* B = static_cast<const T*>(rhs.data());
    T* X = out.mutable_data();
    std::int32_t* I = info.mutable_data();
    over_batch(s.batch, 1.0 * n * n * k, [&](i64 b, i64 e) {
      std::vector<T> w(static_cast<std::size_t>(ld * n)), x(static_cast<std::size_t>(ld * k));
      for (i64 i = b; i < e; ++i) {
        lint inf = 0;
        char ul = upper ? 'U' : 'L', tr = "NTC"[trans], dg = unit ? 'U' : 'N';
        if (n > 0 && k > 0 && n <= kSmallLU) {
          std::copy(B + i * nk, B + (i + 1) * nk, X + i * nk);
          inf = small_trtrs(n, k, A + i * nn, upper, trans, unit, X + i * nk);
          if (inf > 0) fill_nan(X + i * nk, nk);
        } else if (n > 0 && k > 0) {
          to_cm(A + i * nn, n, n, w.data(), ld);
          to_cm(B + i * nk, n, k, x.data(), ld);
          trtrs(&ul, &tr, &dg, &N, &K, w.data(), &LD, x.data(), &LD, &inf);
          if (inf < 0) lapack_failed("trtrs", inf);
          if (inf == 0) from_cm(x.data(), ld, n, k, X + i * nk);
          else fill_nan(X + i * nk, nk);
        }
        I[i] = inf;
      }
    });
    return py::make_tuple(out, info);
  });
}

// ---------------------------------------------------------------------------------
// QR: geqrf + orgqr/ungqr, householder_product (orgqr), ormqr/unmqr

// mode 0 reduced (Q [m,k], R [k,n]), 1 complete (Q [m,m], R [m,n]), 2 r only (R [k,n])
py::tuple qr(int provider, const py::array& a, int mode) {
  const char* op = "lapack_qr";
  provider_of(provider, op);
  const Mats s = mats(a, op, "a");
  if (mode < 0 || mode > 2) value_error(op, "mode must be 0, 1 or 2, got ", mode);
  return dispatch(FloatingComplexTypes{}, a, op, "a", [&](auto tag) -> py::tuple {
    using T = typename decltype(tag)::type;
    auto* geqrf = fn<typename Sig<T>::geqrf, T>(op, provider, GEQRF);
    auto* orgqr = mode == 2 ? nullptr : fn<typename Sig<T>::orgqr, T>(op, provider, ORGQR);
    const i64 m = s.rows, n = s.cols, k = std::min(m, n), ld = std::max<i64>(1, m);
    const i64 qc = mode == 1 ? m : k, rr = mode == 1 ? m : k, wc = std::max(n, qc);
    lint M = lint_of(m, op, "m"), N = lint_of(n, op, "n"), K = static_cast<lint>(k),
         QC = static_cast<lint>(qc), LD = static_cast<lint>(ld);
    elems({ld, wc}, op);
    lint lwork = 1;
    if (k > 0) {
      T q{};
      lint qi = -1, inf = 0;
      geqrf(&M, &N, Dummy{}, &LD, Dummy{}, &q, &qi, &inf);
      lwork = std::max(lwork, lwork_of(q, op));
      if (orgqr && qc > 0) {
        orgqr(&M, &QC, &K, Dummy{}, &LD, Dummy{}, &q, &qi, &inf);
        lwork = std::max(lwork, lwork_of(q, op));
      }
    }
    auto qout = new_array<T>({s.batch, mode == 2 ? 0 : m, mode == 2 ? 0 : qc});
    auto rout = new_array<T>({s.batch, rr, n});
    const T* A = static_cast<const T*>(a.data());
    T* Q = qout.mutable_data();
    T* Rr = rout.mutable_data();
    const i64 mn = m * n, mq = mode == 2 ? 0 : m * qc, rn = rr * n;
    over_batch(s.batch, 4.0 * m * n * k, [&](i64 b, i64 e) {
      std::vector<T> w(static_cast<std::size_t>(ld * wc)), tau(static_cast<std::size_t>(k) + 1),
          work(static_cast<std::size_t>(lwork));
      for (i64 i = b; i < e; ++i) {
        T* r = Rr + i * rn;
        std::fill(r, r + rn, T(0));
        lint inf = 0, lw = lwork;
        if (k > 0) {
          to_cm(A + i * mn, m, n, w.data(), ld);
          geqrf(&M, &N, w.data(), &LD, tau.data(), work.data(), &lw, &inf);
          if (inf < 0) lapack_failed("geqrf", inf);
          for (i64 row = 0; row < std::min(rr, m); ++row)
            for (i64 c = row; c < n; ++c) r[row * n + c] = w[c * ld + row];
        }
        if (mode == 2) continue;
        T* q = Q + i * mq;
        if (k > 0) {
          orgqr(&M, &QC, &K, w.data(), &LD, tau.data(), work.data(), &lw, &inf);
          if (inf < 0) lapack_failed("orgqr", inf);
          from_cm(w.data(), ld, m, qc, q);
        } else {  // no reflectors: Q is the identity (numpy's convention for empty input)
          std::fill(q, q + mq, T(0));
          for (i64 d = 0; d < std::min(m, qc); ++d) q[d * qc + d] = T(1);
        }
      }
    });
    return py::make_tuple(qout, rout);
  });
}

// The first n columns of H_1 ... H_k: x [B,m,n] (m >= n >= k), tau [B,k]
py::array householder_product(int provider, const py::array& x, const py::array& tau) {
  const char* op = "lapack_householder_product";
  provider_of(provider, op);
  const Mats s = mats(x, op, "x");
  check_ndim(tau, 2, op, "tau");
  check_contiguous(tau, op, "tau");
  check_same_dtype(x, "x", tau, "tau", op);
  const i64 m = s.rows, n = s.cols, k = tau.shape(1);
  if (tau.shape(0) != s.batch) value_error(op, "tau holds ", tau.shape(0), " rows but x ", s.batch, " matrices");
  if (!(m >= n && n >= k)) value_error(op, "needs m >= n >= k, got x ", shape_str(x), " and tau ", shape_str(tau));
  return dispatch(FloatingComplexTypes{}, x, op, "x", [&](auto tag) -> py::array {
    using T = typename decltype(tag)::type;
    auto* orgqr = fn<typename Sig<T>::orgqr, T>(op, provider, ORGQR);
    const i64 ld = std::max<i64>(1, m), mn = elems({m, n}, op);
    lint M = lint_of(m, op, "m"), N = lint_of(n, op, "n"), K = static_cast<lint>(k),
         LD = static_cast<lint>(ld), lwork = 1;
    if (n > 0) {
      T q{};
      lint qi = -1, inf = 0;
      orgqr(&M, &N, &K, Dummy{}, &LD, Dummy{}, &q, &qi, &inf);
      lwork = std::max(lwork, lwork_of(q, op));
    }
    auto out = new_array<T>({s.batch, m, n});
    const T* X = static_cast<const T*>(x.data());
    const T* TA = static_cast<const T*>(tau.data());
    T* O = out.mutable_data();
    over_batch(s.batch, 4.0 * m * n * k, [&](i64 b, i64 e) {
      std::vector<T> w(static_cast<std::size_t>(ld * n)), work(static_cast<std::size_t>(lwork)),
          t(static_cast<std::size_t>(k) + 1);
      for (i64 i = b; i < e; ++i) {
        if (n == 0) continue;
        lint inf = 0, lw = lwork;
        to_cm(X + i * mn, m, n, w.data(), ld);
        std::copy(TA + i * k, TA + (i + 1) * k, t.begin());
        orgqr(&M, &N, &K, w.data(), &LD, t.data(), work.data(), &lw, &inf);
        if (inf < 0) lapack_failed("orgqr", inf);
        from_cm(w.data(), ld, m, n, O + i * mn);
      }
    });
    return std::move(out);
  });
}

// op(Q) c (left) or c op(Q) (right), Q = H_1 ... H_k of size r x r with r = c's rows
// (left) or columns (right); x [B,r,>=k] holds the reflectors, tau [B,k]; trans: Qᴴ.
py::array ormqr(int provider, const py::array& x, const py::array& tau, const py::array& c,
                bool left, bool trans) {
  const char* op = "lapack_ormqr";
  provider_of(provider, op);
  const Mats s = mats(x, op, "x"), t = mats(c, op, "c");
  check_ndim(tau, 2, op, "tau");
  check_contiguous(tau, op, "tau");
  check_same_dtype(x, "x", tau, "tau", op);
  check_same_dtype(x, "x", c, "c", op);
  check_same_batch(s, t, op, "x", "c");
  const i64 k = tau.shape(1), r = left ? t.rows : t.cols;
  if (tau.shape(0) != s.batch) value_error(op, "tau holds ", tau.shape(0), " rows but x ", s.batch, " matrices");
  if (s.rows != r || k > r || k > s.cols)
    value_error(op, "x ", shape_str(x), ", tau ", shape_str(tau), " and c ", shape_str(c),
                " do not fit: x needs as many rows as c has ", left ? "rows" : "columns",
                " and at least k = tau.shape[-1] columns, with k <= that count");
  return dispatch(FloatingComplexTypes{}, x, op, "x", [&](auto tag) -> py::array {
    using T = typename decltype(tag)::type;
    auto* ormqr = fn<typename Sig<T>::ormqr, T>(op, provider, ORMQR);
    const i64 p = t.rows, q = t.cols, kx = s.cols, lda = std::max<i64>(1, r), ldc = std::max<i64>(1, p);
    const i64 xs = elems({r, kx}, op), cs = elems({p, q}, op);
    lint P = lint_of(p, op, "rows of c"), Q = lint_of(q, op, "columns of c"), K = lint_of(k, op, "k"),
         LDA = lint_of(lda, op, "rows of x"), LDC = static_cast<lint>(ldc), lwork = 1;
    char side = left ? 'L' : 'R', tr = trans ? (is_complex_v<T> ? 'C' : 'T') : 'N';
    if (p > 0 && q > 0) {
      T qq{};
      lint qi = -1, inf = 0;
      ormqr(&side, &tr, &P, &Q, &K, Dummy{}, &LDA, Dummy{}, Dummy{}, &LDC, &qq, &qi, &inf);
      lwork = std::max(lwork, lwork_of(qq, op));
    }
    auto out = new_array<T>({s.batch, p, q});
    const T* X = static_cast<const T*>(x.data());
    const T* TA = static_cast<const T*>(tau.data());
    const T* C = static_cast<const T*>(c.data());
    T* O = out.mutable_data();
    over_batch(s.batch, 4.0 * p * q * k, [&](i64 b, i64 e) {
      std::vector<T> w(static_cast<std::size_t>(lda * std::max<i64>(kx, 1))),
          cw(static_cast<std::size_t>(ldc * q)), work(static_cast<std::size_t>(lwork)),
          tt(static_cast<std::size_t>(k) + 1);
      for (i64 i = b; i < e; ++i) {
        if (p == 0 || q == 0) continue;
        std::copy(C + i * cs, C + (i + 1) * cs, O + i * cs);
        if (k == 0) continue;  // no reflectors: Q is the identity
        lint inf = 0, lw = lwork;
        to_cm(X + i * xs, r, kx, w.data(), lda);
        to_cm(C + i * cs, p, q, cw.data(), ldc);
        std::copy(TA + i * k, TA + (i + 1) * k, tt.begin());
        ormqr(&side, &tr, &P, &Q, &K, w.data(), &LDA, tt.data(), cw.data(), &LDC, work.data(), &lw,
              &inf);
        if (inf < 0) lapack_failed("ormqr", inf);
        from_cm(cw.data(), ldc, p, q, O + i * cs);
      }
    });
    return std::move(out);
  });
}

// ---------------------------------------------------------------------------------
// Hermitian eigenproblem: syevd / heevd.  w [B,n] ascending (real), v [B,n,n]

py::tuple eigh(int provider, const py::array& a, bool lower, bool vectors) {
  const char* op = "lapack_eigh";
  provider_of(provider, op);
  const Mats s = mats(a, op, "a");
  if (s.rows != s.cols) value_error(op, "a must hold square matrices, got ", shape_str(a));
  return dispatch(FloatingComplexTypes{}, a, op, "a", [&](auto tag) -> py::tuple {
    using T = typename decltype(tag)::type;
    using R = real_of_t<T>;
    const i64 n = s.rows, ld = std::max<i64>(1, n), nn = elems({n, n}, op);
    lint N = lint_of(n, op, "n"), LD = static_cast<lint>(ld);
    // The documented minimal workspaces, computed in 64 bits and refused when they
    // do not fit LAPACK's integers; the queries then give the optimal sizes.
    const i64 need = vectors ? (is_complex_v<T> ? 2 * n + n * n : 1 + 6 * n + 2 * n * n)
                             : (is_complex_v<T> ? n + 1 : 2 * n + 1);
    lint_of(need, op, "the eigh workspace");
    if (is_complex_v<T> && vectors) lint_of(1 + 5 * n + 2 * n * n, op, "the eigh real workspace");
    char jobz = vectors ? 'V' : 'N', uplo = lower ? 'U' : 'L';  // row-major lower = column-major upper of Aᵀ
    lint lwork = 1, lrwork = 1, liwork = 1;
    typename Sig<T>::syevd* syevd = nullptr;
    typename Sig<T>::heevd* heevd = nullptr;
    if constexpr (is_complex_v<T>) heevd = fn<typename Sig<T>::heevd, T>(op, provider, SYEVD);
    else syevd = fn<typename Sig<T>::syevd, T>(op, provider, SYEVD);
    if (n > 0) {
      T q{};
      R rq{};
      lint iq = 0, m1 = -1, inf = 0;
      if constexpr (is_complex_v<T>) {
        heevd(&jobz, &uplo, &N, Dummy{}, &LD, Dummy{}, &q, &m1, &rq, &m1, &iq, &m1, &inf);
        lrwork = lwork_of(rq, op);
      } else {
        syevd(&jobz, &uplo, &N, Dummy{}, &LD, Dummy{}, &q, &m1, &iq, &m1, &inf);
      }
      lwork = lwork_of(q, op);
      liwork = std::max<lint>(1, iq);
    }
    auto w = new_array<R>({s.batch, n});
    auto v = new_array<T>({s.batch, vectors ? n : 0, vectors ? n : 0});
    auto info = new_array<std::int32_t>({s.batch});
    const T* A = static_cast<const T*>(a.data());
    R* W = w.mutable_data();
    T* V = v.mutable_data();
    std::int32_t* I = info.mutable_data();
    over_batch(s.batch, (vectors ? 9.0 : 4.0) * n * n * n, [&](i64 b, i64 e) {
      std::vector<T> buf(static_cast<std::size_t>(ld * n)), work(static_cast<std::size_t>(lwork));
      std::vector<R> rwork(static_cast<std::size_t>(lrwork));
      std::vector<lint> iwork(static_cast<std::size_t>(liwork));
      for (i64 i = b; i < e; ++i) {
        lint inf = 0, lw = lwork, lrw = lrwork, liw = liwork;
        const T* src = A + i * nn;
        if (n > 0 && !finite_triangle(src, n, lower)) {
          fill_nan(W + i * n, n);
          if (vectors) fill_nan(V + i * nn, nn);
          I[i] = -1;
          continue;
        }
        if (n > 0) {
          // The row-major buffer read column-major is Aᵀ; its upper triangle holds
          // A's lower one.  For complex A that matrix is conj(A)'s Hermitian: same
          // eigenvalues, conjugated eigenvectors, fixed below.
          std::copy(src, src + nn, buf.begin());
          if constexpr (is_complex_v<T>)
            heevd(&jobz, &uplo, &N, buf.data(), &LD, W + i * n, work.data(), &lw, rwork.data(), &lrw,
                  iwork.data(), &liw, &inf);
          else
            syevd(&jobz, &uplo, &N, buf.data(), &LD, W + i * n, work.data(), &lw, iwork.data(), &liw,
                  &inf);
          if (inf < 0) lapack_failed(is_complex_v<T> ? "heevd" : "syevd", inf);
          if (vectors) {
            T* out = V + i * nn;
            from_cm(buf.data(), ld, n, n, out);
            if constexpr (is_complex_v<T>)
              for (i64 j = 0; j < nn; ++j) out[j] = std::conj(out[j]);
          }
        }
        I[i] = inf;
      }
    });
    return py::make_tuple(w, v, info);
  });
}

// ---------------------------------------------------------------------------------
// SVD: gesdd.  job 0 'N' (s only), 1 'S' (reduced), 2 'A' (full)

py::tuple svd(int provider, const py::array& a, int job) {
  const char* op = "lapack_svd";
  provider_of(provider, op);
  const Mats s = mats(a, op, "a");
  if (job < 0 || job > 2) value_error(op, "job must be 0 (N), 1 (S) or 2 (A), got ", job);
  return dispatch(FloatingComplexTypes{}, a, op, "a", [&](auto tag) -> py::tuple {
    using T = typename decltype(tag)::type;
    using R = real_of_t<T>;
    const i64 m = s.rows, n = s.cols, k = std::min(m, n), mx = std::max(m, n);
    const i64 ucol = job == 2 ? m : (job == 1 ? k : 0), vrow = job == 2 ? n : (job == 1 ? k : 0);
    const i64 lda = std::max<i64>(1, m), ldu = std::max<i64>(1, m), ldvt = std::max<i64>(1, vrow);
    lint M = lint_of(m, op, "m"), N = lint_of(n, op, "n"), LDA = static_cast<lint>(lda),
         LDU = static_cast<lint>(ldu), LDVT = lint_of(ldvt, op, "n");
    const i64 mn = elems({m, n}, op);
    i64 lr = 1;
    if constexpr (is_complex_v<T>)
      lr = job == 0 ? 7 * k : std::max(5 * k * k + 5 * k, 2 * mx * k + 2 * k * k + k);
    lint_of(lr, op, "the SVD real workspace");
    lint_of(3 * k * k + std::max(mx, 4 * k * k + 4 * k), op, "the SVD workspace");
    lint_of(8 * k, op, "the SVD integer workspace");
    char jobz = "NSA"[job];
    typename Sig<T>::gesdd* gesdd = nullptr;
    typename Sig<T>::zgesdd* zgesdd = nullptr;
    if constexpr (is_complex_v<T>) zgesdd = fn<typename Sig<T>::zgesdd, T>(op, provider, GESDD);
    else gesdd = fn<typename Sig<T>::gesdd, T>(op, provider, GESDD);
    lint lwork = 1;
    std::vector<lint> iq(static_cast<std::size_t>(8 * k) + 1);
    if (k > 0) {
      T q{};
      R rq[1] = {};
      lint m1 = -1, inf = 0;
      if constexpr (is_complex_v<T>)
        zgesdd(&jobz, &M, &N, Dummy{}, &LDA, Dummy{}, Dummy{}, &LDU, Dummy{}, &LDVT, &q, &m1, rq,
               iq.data(), &inf);
      else
        gesdd(&jobz, &M, &N, Dummy{}, &LDA, Dummy{}, Dummy{}, &LDU, Dummy{}, &LDVT, &q, &m1,
              iq.data(), &inf);
      lwork = lwork_of(q, op);
    }
    auto u = new_array<T>({s.batch, m, ucol});
    auto sv = new_array<R>({s.batch, k});
    auto vh = new_array<T>({s.batch, vrow, n});
    auto info = new_array<std::int32_t>({s.batch});
    const T* A = static_cast<const T*>(a.data());
    T* U = u.mutable_data();
    R* S = sv.mutable_data();
    T* VH = vh.mutable_data();
    std::int32_t* I = info.mutable_data();
    const i64 us = m * ucol, vs = vrow * n;
    over_batch(s.batch, (job ? 12.0 : 4.0) * m * n * k, [&](i64 b, i64 e) {
      std::vector<T> w(static_cast<std::size_t>(lda * n)), ub(static_cast<std::size_t>(ldu * std::max<i64>(ucol, 1))),
          vb(static_cast<std::size_t>(ldvt * n)), work(static_cast<std::size_t>(lwork));
      std::vector<R> rwork(static_cast<std::size_t>(std::max<i64>(lr, 1)));
      std::vector<lint> iwork(static_cast<std::size_t>(8 * k) + 1);
      for (i64 i = b; i < e; ++i) {
        lint inf = 0, lw = lwork;
        const T* src = A + i * mn;
        T* uo = U + i * us;
        T* vo = VH + i * vs;
        if (k == 0) {  // empty: the full factors are identities, as numpy returns them
          std::fill(uo, uo + us, T(0));
          std::fill(vo, vo + vs, T(0));
          for (i64 d = 0; d < std::min(m, ucol); ++d) uo[d * ucol + d] = T(1);
          for (i64 d = 0; d < std::min(vrow, n); ++d) vo[d * n + d] = T(1);
          I[i] = 0;
          continue;
        }
        if (!finite(src, mn)) {
          fill_nan(S + i * k, k);
          fill_nan(uo, us);
          fill_nan(vo, vs);
          I[i] = -1;
          continue;
        }
        to_cm(src, m, n, w.data(), lda);
        if constexpr (is_complex_v<T>)
          zgesdd(&jobz, &M, &N, w.data(), &LDA, S + i * k, ub.data(), &LDU, vb.data(), &LDVT,
                 work.data(), &lw, rwork.data(), iwork.data(), &inf);
        else
          gesdd(&jobz, &M, &N, w.data(), &LDA, S + i * k, ub.data(), &LDU, vb.data(), &LDVT,
                work.data(), &lw, iwork.data(), &inf);
        if (inf < 0) lapack_failed("gesdd", inf);
        if (job) {
          from_cm(ub.data(), ldu, m, ucol, uo);
          from_cm(vb.data(), ldvt, vrow, n, vo);
        }
        I[i] = inf;
      }
    });
    return py::make_tuple(u, sv, vh, info);
  });
}

// ---------------------------------------------------------------------------------
// General eigenproblem: geev (right vectors).  w, v complex

py::tuple eig(int provider, const py::array& a, bool vectors) {
  const char* op = "lapack_eig";
  provider_of(provider, op);
  const Mats s = mats(a, op, "a");
  if (s.rows != s.cols) value_error(op, "a must hold square matrices, got ", shape_str(a));
  return dispatch(FloatingComplexTypes{}, a, op, "a", [&](auto tag) -> py::tuple {
    using T = typename decltype(tag)::type;
    using R = real_of_t<T>;
    using C = std::complex<R>;
    const i64 n = s.rows, ld = std::max<i64>(1, n), nn = elems({n, n}, op);
    lint N = lint_of(n, op, "n"), LD = static_cast<lint>(ld), one = 1;
    lint_of(4 * n, op, "the eig workspace");
    char jl = 'N', jr = vectors ? 'V' : 'N';
    typename Sig<T>::geev* geev = nullptr;
    typename Sig<T>::zgeev* zgeev = nullptr;
    if constexpr (is_complex_v<T>) zgeev = fn<typename Sig<T>::zgeev, T>(op, provider, GEEV);
    else geev = fn<typename Sig<T>::geev, T>(op, provider, GEEV);
    lint lwork = 1;
    if (n > 0) {
      T q{};
      R rq{};
      lint m1 = -1, inf = 0;
      if constexpr (is_complex_v<T>)
        zgeev(&jl, &jr, &N, Dummy{}, &LD, Dummy{}, Dummy{}, &one, Dummy{}, &LD, &q, &m1, &rq, &inf);
      else
        geev(&jl, &jr, &N, Dummy{}, &LD, Dummy{}, Dummy{}, Dummy{}, &one, Dummy{}, &LD, &q, &m1, &inf);
      lwork = lwork_of(q, op);
    }
    auto w = new_array<C>({s.batch, n});
    auto v = new_array<C>({s.batch, vectors ? n : 0, vectors ? n : 0});
    auto info = new_array<std::int32_t>({s.batch});
    const T* A = static_cast<const T*>(a.data());
    C* W = w.mutable_data();
    C* V = v.mutable_data();
    std::int32_t* I = info.mutable_data();
    over_batch(s.batch, 25.0 * n * n * n, [&](i64 b, i64 e) {
      std::vector<T> buf(static_cast<std::size_t>(ld * n)), vr(static_cast<std::size_t>(vectors ? ld * n : 1)),
          work(static_cast<std::size_t>(lwork)), wr(static_cast<std::size_t>(n) + 1),
          wi(static_cast<std::size_t>(n) + 1);
      std::vector<R> rwork(static_cast<std::size_t>(2 * n) + 1);
      for (i64 i = b; i < e; ++i) {
        lint inf = 0, lw = lwork;
        const T* src = A + i * nn;
        C* wo = W + i * n;
        C* vo = V + (vectors ? i * nn : 0);
        if (n == 0) { I[i] = 0; continue; }
        if (!finite(src, nn)) {
          fill_nan(wo, n);
          if (vectors) fill_nan(vo, nn);
          I[i] = -1;
          continue;
        }
        to_cm(src, n, n, buf.data(), ld);
        if constexpr (is_complex_v<T>) {
          zgeev(&jl, &jr, &N, buf.data(), &LD, wo, nullptr, &one, vr.data(), &LD, work.data(), &lw,
                rwork.data(), &inf);
          if (inf < 0) lapack_failed("geev", inf);
          if (vectors) from_cm(vr.data(), ld, n, n, vo);
        } else {
          geev(&jl, &jr, &N, buf.data(), &LD, wr.data(), wi.data(), nullptr, &one, vr.data(), &LD,
               work.data(), &lw, &inf);
          if (inf < 0) lapack_failed("geev", inf);
          for (i64 j = 0; j < n; ++j) wo[j] = C(wr[j], wi[j]);
          // A complex pair j, j+1 stores Re in column j and Im in column j+1.
          for (i64 j = 0; vectors && j < n; ++j) {
            if (wi[j] != 0 && j + 1 < n) {
              for (i64 r = 0; r < n; ++r) {
                const R re = vr[j * ld + r], im = vr[(j + 1) * ld + r];
                vo[r * n + j] = C(re, im);
                vo[r * n + j + 1] = C(re, -im);
              }
              ++j;
            } else {
              for (i64 r = 0; r < n; ++r) vo[r * n + j] = C(vr[j * ld + r], 0);
            }
          }
        }
        I[i] = inf;
      }
    });
    return py::make_tuple(w, v, info);
  });
}

// ---------------------------------------------------------------------------------
// Least squares: gelsd.  x [B,n,k], rank int32 [B], s [B,min(m,n)], info

py::tuple gelsd(int provider, const py::array& a, const py::array& rhs, double rcond) {
  const char* op = "lapack_gelsd";
  provider_of(provider, op);
  const std::pair<Mats, Mats> st = system_args(a, rhs, op, "a", false);
  const Mats s = st.first, t = st.second;
  return dispatch(FloatingComplexTypes{}, a, op, "a", [&](auto tag) -> py::tuple {
    using T = typename decltype(tag)::type;
    using R = real_of_t<T>;
    const i64 m = s.rows, n = s.cols, k = t.cols, mn = std::min(m, n), mx = std::max(m, n);
    const i64 lda = std::max<i64>(1, m), ldb = std::max<i64>(1, mx);
    lint M = lint_of(m, op, "m"), N = lint_of(n, op, "n"), K = lint_of(k, op, "k"),
         LDA = static_cast<lint>(lda), LDB = static_cast<lint>(ldb);
    elems({ldb, k}, op);
    typename Sig<T>::gelsd* gelsd_r = nullptr;
    typename Sig<T>::zgelsd* gelsd_c = nullptr;
    if constexpr (is_complex_v<T>) gelsd_c = fn<typename Sig<T>::zgelsd, T>(op, provider, GELSD);
    else gelsd_r = fn<typename Sig<T>::gelsd, T>(op, provider, GELSD);
    lint lwork = 1, lrwork = 1, liwork = 1;
    R rc = static_cast<R>(rcond);
    if (mn > 0 && k > 0) {
      T q{};
      R rq{};
      lint iq = 0, m1 = -1, inf = 0, rank = 0;
      if constexpr (is_complex_v<T>) {
        gelsd_c(&M, &N, &K, Dummy{}, &LDA, Dummy{}, &LDB, Dummy{}, &rc, &rank, &q, &m1, &rq, &iq, &inf);
        lrwork = lwork_of(rq, op);
      } else {
        gelsd_r(&M, &N, &K, Dummy{}, &LDA, Dummy{}, &LDB, Dummy{}, &rc, &rank, &q, &m1, &iq, &inf);
      }
      lwork = lwork_of(q, op);
      liwork = std::max<lint>(1, iq);
    }
    auto x = new_array<T>({s.batch, n, k});
    auto rank = new_array<std::int32_t>({s.batch});
    auto sv = new_array<R>({s.batch, mn});
    auto info = new_array<std::int32_t>({s.batch});
    const T* A = static_cast<const T*>(a.data());
    const T* B = static_cast<const T*>(rhs.data());
    T* X = x.mutable_data();
    std::int32_t* RK = rank.mutable_data();
    R* S = sv.mutable_data();
    std::int32_t* I = info.mutable_data();
    const i64 as = m * n, bs = m * k, xs = n * k;
    over_batch(s.batch, 12.0 * m * n * mn, [&](i64 b, i64 e) {
      std::vector<T> w(static_cast<std::size_t>(lda * n)), bb(static_cast<std::size_t>(ldb * k)),
          work(static_cast<std::size_t>(lwork));
      std::vector<R> rwork(static_cast<std::size_t>(lrwork));
      std::vector<lint> iwork(static_cast<std::size_t>(liwork));
      for (i64 i = b; i < e; ++i) {
        lint inf = 0, lw = lwork, rk = 0;
        std::fill(X + i * xs, X + (i + 1) * xs, T(0));
        if (mn == 0 || k == 0) {  // nothing to fit: the minimum-norm solution is 0
          std::fill(S + i * mn, S + (i + 1) * mn, R(0));
          RK[i] = 0;
          I[i] = 0;
          continue;
        }
        if (!finite(A + i * as, as) || !finite(B + i * bs, bs)) {
          fill_nan(X + i * xs, xs);
          fill_nan(S + i * mn, mn);
          RK[i] = 0;
          I[i] = -1;
          continue;
        }
        to_cm(A + i * as, m, n, w.data(), lda);
        std::fill(bb.begin(), bb.end(), T(0));
        to_cm(B + i * bs, m, k, bb.data(), ldb);
        if constexpr (is_complex_v<T>)
          gelsd_c(&M, &N, &K, w.data(), &LDA, bb.data(), &LDB, S + i * mn, &rc, &rk, work.data(), &lw,
                  rwork.data(), iwork.data(), &inf);
        else
          gelsd_r(&M, &N, &K, w.data(), &LDA, bb.data(), &LDB, S + i * mn, &rc, &rk, work.data(), &lw,
                  iwork.data(), &inf);
        if (inf < 0) lapack_failed("gelsd", inf);
        from_cm(bb.data(), ldb, n, k, X + i * xs);
        RK[i] = rk;
        I[i] = inf;
      }
    });
    return py::make_tuple(x, rank, sv, info);
  });
}

// ---------------------------------------------------------------------------------

void lapack_register(int provider, const std::string& name, const py::capsule& cap) {
  const char* op = "lapack_register";
  provider_of(provider, op);
  // Only a capsule made for this purpose is accepted: its name must be
  // "weft.lapack.<routine>", which weft.linalg gives the pointers it wraps.
  const char* tag = cap.name();
  const std::string want = "weft.lapack." + name;
  if (!tag || want != tag)
    value_error(op, "the capsule for ", name, " must be named '", want, "', got '",
                tag ? tag : "(null)", "'");
  if (name == "MKL_Set_Num_Threads_Local") {
    if (provider != 1) value_error(op, "MKL_Set_Num_Threads_Local belongs to provider 1 (mkl)");
    void* p = cap.get_pointer();
    if (!p) value_error(op, "the capsule for ", name, " holds a null pointer");
    g_mkl_local_threads = reinterpret_cast<MklLocalThreads>(p);
    return;
  }
  for (int t = 0; t < 4; ++t)
    for (int r = 0; r < kRoutines; ++r)
      if (routine_name(r, t) == name) {
        void* p = cap.get_pointer();
        if (!p) value_error(op, "the capsule for ", name, " holds a null pointer");
        g_table[provider][r][t] = p;
        return;
      }
  value_error(op, "unknown LAPACK routine '", name, "'");
}

py::list lapack_routines() {
  py::list out;
  for (int t = 0; t < 4; ++t)
    for (int r = 0; r < kRoutines; ++r) out.append(routine_name(r, t));
  return out;
}

}  // namespace

void bind_lapack(py::module_& m) {
  m.def("lapack_register", &lapack_register, py::arg("provider"), py::arg("name"), py::arg("capsule"),
        "Register LAPACK routine `name` (e.g. 'dgetrf') of provider 0 (scipy) or 1 (mkl) from a "
        "capsule named 'weft.lapack.<name>'.");
  m.def("lapack_routines", &lapack_routines, "The routine names the driver calls.");
  m.def("lapack_lu", &lu, py::arg("provider"), py::arg("a"));
  m.def("lapack_slogdet", &slogdet, py::arg("provider"), py::arg("a"));
  m.def("lapack_solve", &solve, py::arg("provider"), py::arg("a"), py::arg("b"),
        py::arg("keep") = false);
  m.def("lapack_lu_solve", &lu_solve, py::arg("provider"), py::arg("lu"), py::arg("pivots"),
        py::arg("b"), py::arg("trans"));
  m.def("lapack_inv", &inv, py::arg("provider"), py::arg("a"));
  m.def("lapack_cholesky", &cholesky, py::arg("provider"), py::arg("a"));
  m.def("lapack_cholesky_solve", &cholesky_solve, py::arg("provider"), py::arg("l"), py::arg("b"));
  m.def("lapack_cholesky_backward", &cholesky_backward, py::arg("provider"), py::arg("l"),
        py::arg("g"));
  m.def("lapack_triangular_solve", &triangular_solve, py::arg("provider"), py::arg("a"),
        py::arg("b"), py::arg("upper"), py::arg("trans"), py::arg("unit"));
  m.def("lapack_qr", &qr, py::arg("provider"), py::arg("a"), py::arg("mode"));
  m.def("lapack_householder_product", &householder_product, py::arg("provider"), py::arg("x"),
        py::arg("tau"));
  m.def("lapack_ormqr", &ormqr, py::arg("provider"), py::arg("x"), py::arg("tau"), py::arg("c"),
        py::arg("left"), py::arg("trans"));
  m.def("lapack_eigh", &eigh, py::arg("provider"), py::arg("a"), py::arg("lower"), py::arg("vectors"));
  m.def("lapack_svd", &svd, py::arg("provider"), py::arg("a"), py::arg("job"));
  m.def("lapack_eig", &eig, py::arg("provider"), py::arg("a"), py::arg("vectors"));
  m.def("lapack_gelsd", &gelsd, py::arg("provider"), py::arg("a"), py::arg("b"), py::arg("rcond"));
}

}  // namespace weft
