// tri_mahalanobis_rows(L, D) -> m with m[i] = ||L^-1 D[i]||^2: one lower-triangular
// L [k, k] and the rows of D [n, k], float32 or float64, all C-contiguous.
//
// Why a kernel: MultivariateNormal.log_prob of many vectors under one covariance was a
// triangular solve of L against the n rows (LAPACK trtrs on their transposed view)
// and a sum of squares. OpenBLAS's trsm runs that shape (k = 64, n = 1e4, float32) at
// about 15 GFLOP/s on one core. Here forward substitution runs on a block of rows at
// once, one row per SIMD lane, with the block's partial solutions (k vectors) in L1
// and L streamed once per block; the squares are summed as the entries are found, so
// L^-1 D is never stored.
//
// Accuracy: the same substitution as trsm (z_j = (d_j - sum_{m<j} L_jm z_m) / L_jj);
// the sum over m is split into four interleaved partial sums (for throughput), added
// in a fixed order, so each row's result is fixed whatever the thread count or block.
// A zero on L's diagonal gives inf/NaN (the caller checks the diagonal first).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "bindings.h"
#include "common/checks.h"
#include "common/dtype.h"
#include "common/parallel.h"
#include "common/simd.h"

namespace py = pybind11;

namespace weft {
namespace {

using i64 = std::int64_t;

template <class T> struct Lanes {
  typedef T vec __attribute__((vector_size(32)));  // 8 floats or 4 doubles
  static constexpr int n = 32 / sizeof(T);
};
constexpr int kVecs = 2;  // vectors per block: independent chains for the pipeline

// rows [r0, r0 + kVecs * lanes) of D (fewer at the end: missing rows are zeros)
template <class T>
WEFT_SIMD_CLONES void mahalanobis_block(const T* __restrict L, i64 k, const T* __restrict D, i64 n,
                                        i64 r0, typename Lanes<T>::vec* __restrict z,
                                        T* __restrict out) {
  using V = typename Lanes<T>::vec;
  constexpr int W = Lanes<T>::n;
  // gather: z[j * kVecs + v][l] = D[r0 + v * W + l][j]
  for (i64 j = 0; j < k; ++j)
    for (int v = 0; v < kVecs; ++v) {
      V col = {};
      for (int l = 0; l < W; ++l) {
        const i64 r = r0 + v * W + l;
        col[l] = r < n ? D[r * k + j] : T(0);
      }
      z[j * kVecs + v] = col;
    }
  V ss[kVecs] = {};
  for (i64 j = 0; j < k; ++j) {
    const T* Lj = L + j * k;
    V acc[4][kVecs] = {};
    i64 m = 0;
    for (; m + 4 <= j; m += 4)
      for (int p = 0; p < 4; ++p)
        for (int v = 0; v < kVecs; ++v) acc[p][v] += Lj[m + p] * z[(m + p) * kVecs + v];
    for (; m < j; ++m)
      for (int v = 0; v < kVecs; ++v) acc[0][v] += Lj[m] * z[m * kVecs + v];
    for (int v = 0; v < kVecs; ++v) {
      const V dot = (acc[0][v] + acc[1][v]) + (acc[2][v] + acc[3][v]);
      const V zj = (z[j * kVecs + v] - dot) / Lj[j];
      z[j * kVecs + v] = zj;
      ss[v] += zj * zj;
    }
  }
  for (int v = 0; v < kVecs; ++v)
    for (int l = 0; l < W; ++l) {
      const i64 r = r0 + v * W + l;
      if (r < n) out[r] = ss[v][l];
    }
}

py::array tri_mahalanobis_rows(const py::array& L, const py::array& D) {
  const char* op = "tri_mahalanobis_rows";
  check_ndim(L, 2, op, "L");
  check_ndim(D, 2, op, "D");
  check_dtype(FloatingTypes{}, L, op, "L");
  check_same_dtype(L, "L", D, "D", op);
  check_contiguous(L, op, "L");
  check_contiguous(D, op, "D");
  const i64 k = L.shape(0), n = D.shape(0);
  if (L.shape(1) != k) value_error(op, "L must be square, got shape ", shape_str(L));
  if (D.shape(1) != k) value_error(op, "D has shape ", shape_str(D), " but L has shape ", shape_str(L));
  py::array out(L.dtype(), std::vector<py::ssize_t>{static_cast<py::ssize_t>(n)});
  dispatch(FloatingTypes{}, L, op, "L", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using V = typename Lanes<T>::vec;
    const i64 rows = kVecs * Lanes<T>::n;
    const i64 blocks = (n + rows - 1) / rows;
    const T* l = static_cast<const T*>(L.data());
    const T* d = static_cast<const T*>(D.data());
    T* o = static_cast<T*>(out.mutable_data());
    py::gil_scoped_release nogil;
    // about k^2 * rows flops a block: a few blocks make a task worth a thread
    const i64 grain = std::max<i64>(1, 16384 / std::max<i64>(1, k * k));
    parallel_for(0, blocks, grain, [&](i64 b, i64 e) {
      // scratch of k * kVecs vectors on a 32-byte boundary (a std::vector of the vector
      // type would not be: the type's alignment is dropped as a template argument)
      const size_t nv = static_cast<size_t>(std::max<i64>(k, 1) * kVecs);
      std::vector<T> buf(nv * Lanes<T>::n + Lanes<T>::n);
      void* p = buf.data();
      size_t space = buf.size() * sizeof(T);
      V* z = static_cast<V*>(std::align(32, nv * sizeof(V), p, space));
      for (i64 blk = b; blk < e; ++blk) mahalanobis_block<T>(l, k, d, n, blk * rows, z, o);
    });
  });
  return out;
}

}  // namespace

void bind_mahalanobis(py::module_& m) {
  m.def("tri_mahalanobis_rows", &tri_mahalanobis_rows, py::arg("L").noconvert(),
        py::arg("D").noconvert(),
        "tri_mahalanobis_rows(L [k, k] lower, D [n, k]) -> m [n]: ||L^-1 D[i]||^2 (float32/64, "
        "C-contiguous; only L's lower triangle is read)");
}

}  // namespace weft
