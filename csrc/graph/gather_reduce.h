// Shared pieces of the weft.geometric kernels (message_passing.cpp, segment.cpp):
// 16-bit float storage, the reduce loop over a CSR view of the edges, dispatch.
//
// An output row is reduced by exactly one thread, walking its slots in order, so
// every element sees its contributions in increasing edge order whatever the
// thread count: deterministic without atomics.  float16 / bfloat16 are stored as
// 16-bit patterns and accumulated in float32; integer sums and products wrap
// like numpy's; integer division truncates and gives 0 for a zero divisor (no
// SIGFPE from malformed input).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "common/checked_math.h"
#include "common/checks.h"
#include "common/dtype.h"
#include "common/parallel.h"

namespace weft {
namespace graph {

namespace py = pybind11;

// ------------------------------------------------------------------ 16-bit floats

struct half_t { std::uint16_t bits; };
struct bhalf_t { std::uint16_t bits; };  // arrives as uint16: ml_dtypes' bfloat16 viewed by the caller

inline float bits_to_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline std::uint32_t float_to_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

inline float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t man = h & 0x3ffu;
  if (exp == 0x1f) return bits_to_float(sign | 0x7f800000u | (man << 13));
  if (exp != 0) return bits_to_float(sign | ((exp + 112) << 23) | (man << 13));
  if (man == 0) return bits_to_float(sign);
  std::uint32_t e = 113;  // a subnormal half is a normal float: shift the leading 1 out
  while (!(man & 0x400u)) {
    man <<= 1;
    --e;
  }
  return bits_to_float(sign | (e << 23) | ((man & 0x3ffu) << 13));
}

// Round to nearest, ties to even, done on the integer pattern so that the result
// does not depend on the FPU rounding mode or on excess precision.
inline std::uint16_t float_to_half(float f) {
  const std::uint32_t x = float_to_bits(f);
  const std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return sign | 0x7e00u;        // NaN stays a (quiet) NaN
  if (ax >= 0x47800000u) return sign | 0x7c00u;       // >= 65536 (or inf): inf
  if (ax >= 0x38800000u) {                            // normal half
    std::uint32_t h = (((ax >> 23) - 112) << 10) | ((ax & 0x7fffffu) >> 13);
    const std::uint32_t rem = ax & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // a carry correctly bumps the exponent
    return static_cast<std::uint16_t>(sign | h);
  }
  const std::uint32_t e = ax >> 23;                   // subnormal half: round(|f| * 2^24)
  const std::uint32_t s = 126 - e;
  if (e == 0 || s >= 25) return sign;
  const std::uint32_t m = (ax & 0x7fffffu) | 0x800000u;
  std::uint32_t q = m >> s;
  const std::uint32_t rem = m & ((1u << s) - 1), tie = 1u << (s - 1);
  if (rem > tie || (rem == tie && (q & 1u))) ++q;
  return static_cast<std::uint16_t>(sign | q);
}

inline float bhalf_to_float(std::uint16_t b) { return bits_to_float(static_cast<std::uint32_t>(b) << 16); }

inline std::uint16_t float_to_bhalf(float f) {
  const std::uint32_t x = float_to_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  return static_cast<std::uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

template <class T> struct acc_of { using type = T; };
template <> struct acc_of<half_t> { using type = float; };
template <> struct acc_of<bhalf_t> { using type = float; };
template <class T> using acc_t = typename acc_of<T>::type;

template <class T> inline acc_t<T> ld(T v) {
  if constexpr (std::is_same_v<T, half_t>) return half_to_float(v.bits);
  else if constexpr (std::is_same_v<T, bhalf_t>) return bhalf_to_float(v.bits);
  else return v;
}
template <class T> inline T st(acc_t<T> a) {
  if constexpr (std::is_same_v<T, half_t>) return half_t{float_to_half(a)};
  else if constexpr (std::is_same_v<T, bhalf_t>) return bhalf_t{float_to_bhalf(a)};
  else return a;
}

// ------------------------------------------------------------------ arithmetic

template <class A> inline A add_(A a, A b) {
  if constexpr (std::is_integral_v<A>) {
    using U = std::make_unsigned_t<A>;
    return static_cast<A>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <class A> inline A sub_(A a, A b) {
  if constexpr (std::is_integral_v<A>) {
    using U = std::make_unsigned_t<A>;
    return static_cast<A>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return a - b;
  }
}
template <class A> inline A mul_(A a, A b) {
  if constexpr (std::is_integral_v<A>) {
    using U = std::make_unsigned_t<A>;
    return static_cast<A>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}
template <class A> inline A div_(A a, A b) {
  if constexpr (std::is_integral_v<A>) {
    using U = std::make_unsigned_t<A>;
    if (b == 0) return 0;
    if (b == -1) return static_cast<A>(U(0) - static_cast<U>(a));  // MIN / -1 traps in hardware
    return a / b;
  } else {
    return a / b;
  }
}
// a NaN compares unequal to itself, but a NaN message did produce a NaN maximum
template <class A> inline bool same_(A a, A b) {
  if constexpr (std::is_integral_v<A>) return a == b;
  else return (a == b) | ((a != a) & (b != b));
}

enum Reduce { kSum = 0, kMean = 1, kMax = 2, kMin = 3 };


inline int parse_reduce(const std::string& s, const char* op) {
  if (s == "sum") return kSum;
  if (s == "mean") return kMean;
  if (s == "max") return kMax;
  if (s == "min") return kMin;
  value_error(op, "reduce_op should be `sum`, `mean`, `max` or `min`, but received ", s);
}
// acc op= message, elementwise; max/min propagate NaN like numpy.maximum
template <int RED, class A, class S>
inline void combine(A* __restrict acc, const S* __restrict m, std::int64_t F) {
  if constexpr (RED == kSum || RED == kMean) {
    for (std::int64_t f = 0; f < F; ++f) acc[f] = add_(acc[f], static_cast<A>(ld(m[f])));
  } else if constexpr (RED == kMax) {
    // non-short-circuit | keeps the loop branch-free, so it vectorises to compare + select
    for (std::int64_t f = 0; f < F; ++f) {
      const A v = ld(m[f]), a = acc[f];
      acc[f] = ((v > a) | (v != v)) ? v : a;
    }
  } else {
    for (std::int64_t f = 0; f < F; ++f) {
      const A v = ld(m[f]), a = acc[f];
      acc[f] = ((v < a) | (v != v)) ? v : a;
    }
  }
}

template <int RED, class A>
inline void finish(A* acc, std::int64_t F, std::int64_t count) {
  if constexpr (RED == kMean) {
    if (count == 1) return;
    if constexpr (std::is_integral_v<A>) {
      for (std::int64_t f = 0; f < F; ++f) acc[f] = static_cast<A>(static_cast<std::int64_t>(acc[f]) / count);
    } else {
      const A c = static_cast<A>(count);
      for (std::int64_t f = 0; f < F; ++f) acc[f] /= c;
    }
  }
}

// ------------------------------------------------------------------ dtype dispatch

// Feature dtypes: float16, bfloat16 (as uint16 bits), float32, float64, int32, int64.
template <bool FloatOnly = false, class Fn>
void dispatch_value(const py::array& a, const char* op, const char* arg, Fn&& fn) {
  const py::dtype dt = a.dtype();
  if (!is_native_byteorder(dt)) type_error(op, arg, " has non-native byte order dtype ", dtype_name(dt));
  switch (scalar_type(dt)) {
    case ScalarType::Float16: fn(type_tag<half_t>{}); return;
    case ScalarType::UInt16: fn(type_tag<bhalf_t>{}); return;
    case ScalarType::Float32: fn(type_tag<float>{}); return;
    case ScalarType::Float64: fn(type_tag<double>{}); return;
    default: break;
  }
  if constexpr (!FloatOnly) {
    switch (scalar_type(dt)) {
      case ScalarType::Int32: fn(type_tag<std::int32_t>{}); return;
      case ScalarType::Int64: fn(type_tag<std::int64_t>{}); return;
      default: break;
    }
  }
  type_error(op, arg, " has dtype ", dtype_name(dt), ", expected one of float16, bfloat16, float32, float64",
             FloatOnly ? "" : ", int32, int64");
}

template <class Fn>
void dispatch_index(const py::array& a, const char* op, const char* arg, Fn&& fn) {
  dispatch(IndexTypes{}, a, op, arg, std::forward<Fn>(fn));
}

// A [rows, F] array; its byte size is computed without wrapping, so an impossible
// size is a ValueError naming the op rather than numpy's anonymous one.
inline py::array new_rows(const py::dtype& dt, std::int64_t rows, std::int64_t F, const char* op) {
  checked_mul(checked_mul(rows, F, op, "the output size rows * features"), dt.itemsize(), op,
              "the output's byte size");
  return py::array(dt,
                   std::vector<py::ssize_t>{static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(F)});
}

template <class T>
T* data_of(py::array& a) { return static_cast<T*>(a.mutable_data()); }
template <class T>
const T* cdata_of(const py::array& a) { return static_cast<const T*>(a.data()); }

inline void check_2d(const py::array& a, const char* op, const char* name) {
  check_ndim(a, 2, op, name);
  check_contiguous(a, op, name);
}

// ------------------------------------------------------------------ CSR by a key index

// The edges ordered by key row (stable), as slot ranges rowptr[r] .. rowptr[r+1].
// Slot k holds edge order[k] (k itself when order is null: the key was already
// sorted) and gathers row gather[k] (the caller's payload index, used in place
// when the key was sorted; the edge id when gather is null).
template <class G>
struct Csr {
  std::int64_t rows = 0;
  const std::int64_t* rowptr = nullptr;
  const G* order = nullptr;
  const G* gather = nullptr;
  py::array keep_rowptr, keep_order, keep_gather;  // owners (numpy, so tracemalloc sees them)

  std::int64_t edge(std::int64_t k) const { return order ? static_cast<std::int64_t>(order[k]) : k; }
  std::int64_t row(std::int64_t k) const { return gather ? static_cast<std::int64_t>(gather[k]) : edge(k); }
};

// Smallest k with key[k] > key[k + 1], or -1.  Blocks are scanned without an early
// exit (so the compare vectorises) and only a block with a violation is searched.
template <class I>
std::int64_t first_unsorted(const I* key, std::int64_t n) {
  constexpr std::int64_t kBlock = 4096;
  for (std::int64_t b = 0; b + 1 < n; b += kBlock) {
    const std::int64_t e = std::min(b + kBlock, n - 1);
    std::int64_t bad = 0;
    for (std::int64_t k = b; k < e; ++k) bad += key[k] > key[k + 1];
    if (!bad) continue;
    for (std::int64_t k = b; k < e; ++k)
      if (key[k] > key[k + 1]) return k;
  }
  return -1;
}

template <class I>
void rowptr_from_sorted(const I* key, std::int64_t n, std::int64_t rows, std::int64_t* rowptr) {
  std::int64_t r = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    const std::int64_t v = static_cast<std::int64_t>(key[k]);
    while (r <= v) rowptr[r++] = k;
  }
  while (r <= rows) rowptr[r++] = n;
}

// f(r0, r1) over row ranges with about the same number of (edges * F + rows) each,
// so a hub node with many in-edges does not serialise the pass.
template <class Fn>
void for_row_ranges(const std::int64_t* rowptr, std::int64_t R, std::int64_t F, const Fn& fn) {
  if (R <= 0) return;
  const std::int64_t E = rowptr[R];
  const std::int64_t w = std::max<std::int64_t>(F, 1);
  const double total = static_cast<double>(E) * static_cast<double>(w) + static_cast<double>(R);
  const int nthreads = plan_chunks(static_cast<std::int64_t>(std::min(total, 9e18)), 1 << 15);
  if (nthreads <= 1) {
    fn(std::int64_t(0), R);
    return;
  }
  const int nch = static_cast<int>(std::min<std::int64_t>(static_cast<std::int64_t>(nthreads) * 4, R));
  std::vector<std::int64_t> rb(nch + 1, R);
  rb[0] = 0;
  for (int c = 1; c < nch; ++c) {
    const double target = total * c / nch;
    std::int64_t lo = rb[c - 1], hi = R;  // first r with rowptr[r]*w + r >= target
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (static_cast<double>(rowptr[mid]) * w + static_cast<double>(mid) >= target) hi = mid;
      else lo = mid + 1;
    }
    rb[c] = lo;
  }
  parallel_chunks(0, nch, nch, [&](int c, std::int64_t, std::int64_t) {
    if (rb[c] < rb[c + 1]) fn(rb[c], rb[c + 1]);
  });
}

// ------------------------------------------------------------------ kernels

constexpr int kPrefetch = 8;  // edges ahead: hides the latency of the random row gathers

// Every cache line of a row about to be gathered (the hardware prefetcher does not
// follow random rows); capped so very wide rows do not flood the queue.
template <class T>
inline void prefetch_row(const T* p, std::int64_t F) {
  const char* c = reinterpret_cast<const char*>(p);
  const std::int64_t bytes = std::min<std::int64_t>(F * static_cast<std::int64_t>(sizeof(T)), 512);
  for (std::int64_t off = 0; off < bytes; off += 64) __builtin_prefetch(c + off);
}

template <class T, class G, int RED>
void reduce_rows(const T* x, T* out, std::int64_t F, const Csr<G>& csr) {
  using A = acc_t<T>;
  constexpr bool direct = std::is_same_v<T, A>;
  const std::int64_t E = csr.rowptr[csr.rows];
  for_row_ranges(csr.rowptr, csr.rows, F, [&](std::int64_t r0, std::int64_t r1) {
    std::vector<A> buf(direct ? 0 : F);
    for (std::int64_t r = r0; r < r1; ++r) {
      T* o = out + r * F;
      const std::int64_t k0 = csr.rowptr[r], k1 = csr.rowptr[r + 1];
      if (k0 == k1) {
        std::fill(o, o + F, st<T>(A(0)));
        continue;
      }
      A* acc;
      if constexpr (direct) acc = o;
      else acc = buf.data();
      // prefetching runs across row boundaries: most rows have only a few edges
      if (k0 + kPrefetch < E) prefetch_row(x + csr.row(k0 + kPrefetch) * F, F);
      const T* xr = x + csr.row(k0) * F;
      for (std::int64_t f = 0; f < F; ++f) acc[f] = ld(xr[f]);
      for (std::int64_t k = k0 + 1; k < k1; ++k) {
        if (k + kPrefetch < E) prefetch_row(x + csr.row(k + kPrefetch) * F, F);
        combine<RED>(acc, x + csr.row(k) * F, F);
      }
      finish<RED>(acc, F, k1 - k0);
      if constexpr (!direct)
        for (std::int64_t f = 0; f < F; ++f) o[f] = st<T>(acc[f]);
    }
  });
}

}  // namespace graph

// segment.cpp's binder; bind_message_passing calls it (one registration line in module.cpp)
void bind_segment_reduce(pybind11::module_& m);

}  // namespace weft
