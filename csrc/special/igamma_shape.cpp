// Shape derivatives of the regularized lower incomplete gamma P(a, x), first and
// second order, scaled: d^k P / da^k = exp(lp) * r with lp = a log x - x - lgamma(a).
// The CPU twin of weft/ops/_igamma_shape.py (whose array code also serves CuPy); the
// methods are the same -- power series for x < a + 1, the continued fraction of
// Q = 1 - P differentiated through its Wallis recurrences for x >= a + 1, and
// Gauss-Legendre quadrature of E[m_k(log T) 1{T < x}] for large a -- but scalar
// code runs the series and the fraction far further before quadrature pays:
// their loops hold no transcendental function, so the O(sqrt(a)) terms they need
// near the mode cost less than quadrature's ~100 exponentials up to a ~ 600 (measured).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <limits>
#include <vector>

#include "common/checks.h"
#include "common/parallel.h"
#include "special/psi.h"

namespace py = pybind11;

namespace weft {
namespace {

constexpr double kQuadA = 600.0;
constexpr int kMaxSeries = 100000;
constexpr int kMaxCf = 100000;
constexpr double kDrop = 46.0;  // the quadrature covers the integrand down to e^-46
constexpr int kNodes = 48;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Gauss-Legendre nodes and weights on [-1, 1], by Newton's method on P_n.
struct Legendre {
  double x[kNodes], w[kNodes];
  Legendre() {
    const double pi = 3.14159265358979323846;
    for (int i = 0; i < kNodes; ++i) {
      double z = std::cos(pi * (i + 0.75) / (kNodes + 0.5)), dp = 0.0;
      for (int it = 0; it < 100; ++it) {
        double p0 = 1.0, p1 = z;
        for (int k = 2; k <= kNodes; ++k) {
          const double p2 = ((2.0 * k - 1.0) * z * p1 - (k - 1.0) * p0) / k;
          p0 = p1;
          p1 = p2;
        }
        dp = kNodes * (z * p1 - p0) / (z * z - 1.0);
        const double dz = p1 / dp;
        z -= dz;
        if (std::fabs(dz) < 1e-16) break;
      }
      x[i] = z;
      w[i] = 2.0 / ((1.0 - z * z) * dp * dp);
    }
  }
};

const Legendre& legendre() {
  static const Legendre table;  // thread-safe initialisation (C++11)
  return table;
}

using special::digamma;
using special::log_gamma;
using special::trigamma;

// What depends on the shape alone: computed once per run of equal shapes (a sample of
// one Gamma law broadcasts one shape over all its draws).
struct Shape {
  double a = kNaN, lgamma_a = 0.0, psi_a = 0.0, psi_a1 = 0.0, tri_a = 0.0, tri_a1 = 0.0;
  void set(double v, int order) {
    if (v == a) return;
    a = v;
    lgamma_a = log_gamma(v);
    psi_a = digamma(v);
    psi_a1 = psi_a + 1.0 / v;
    if (order == 2) {
      tri_a = trigamma(v);
      tri_a1 = tri_a - 1.0 / (v * v);
    }
  }
};

double series(const Shape& sh, double x, double log_x, int order, double eps) {
  const double a = sh.a;
  double t = 1.0, s = 1.0, h = 0.0, q = 0.0, s1 = 0.0, s2 = 0.0;
  for (int k = 1; k <= kMaxSeries; ++k) {
    const double inv = 1.0 / (a + k);
    t *= x * inv;
    h -= inv;
    const double th = t * h;
    s += t;
    s1 += th;
    if (order == 2) {
      q += inv * inv;
      s2 += t * (h * h + q);
    }
    if (t <= eps * s && std::fabs(th) <= eps * std::fabs(s1)) break;
  }
  const double ell = log_x - sh.psi_a1;
  if (order == 1) return (s * ell + s1) / a;
  return (s * (ell * ell - sh.tri_a1) + 2.0 * ell * s1 + s2) / a;
}

double cfrac(const Shape& sh, double x, double log_x, int order, double eps) {
  const double a = sh.a;
  double A1 = 1.0, B1 = x + 1.0 - a, A0 = 0.0, B0 = 1.0;
  double dA1 = 0.0, dB1 = -1.0, dA0 = 0.0, dB0 = 0.0;
  double eA1 = 0.0, eB1 = 0.0, eA0 = 0.0, eB0 = 0.0;
  double f = 1.0 / B1, df = 1.0 / (B1 * B1), ef = 2.0 / (B1 * B1 * B1);
  for (int k = 2; k <= kMaxCf; ++k) {
    const double bk = x + (2.0 * k - 1.0) - a, ak = (k - 1.0) * (a - (k - 1.0));
    const double A2 = bk * A1 + ak * A0, B2 = bk * B1 + ak * B0;
    const double dA2 = -A1 + bk * dA1 + (k - 1.0) * A0 + ak * dA0;
    const double dB2 = -B1 + bk * dB1 + (k - 1.0) * B0 + ak * dB0;
    double eA2 = 0.0, eB2 = 0.0;
    if (order == 2) {
      eA2 = -2.0 * dA1 + bk * eA1 + 2.0 * (k - 1.0) * dA0 + ak * eA0;
      eB2 = -2.0 * dB1 + bk * eB1 + 2.0 * (k - 1.0) * dB0 + ak * eB0;
    }
    // rescale both steps by 1/B_k (the recurrence is linear and homogeneous)
    const double r = 1.0 / B2;
    A0 = A1 * r; B0 = B1 * r; dA0 = dA1 * r; dB0 = dB1 * r; eA0 = eA1 * r; eB0 = eB1 * r;
    A1 = A2 * r; B1 = 1.0; dA1 = dA2 * r; dB1 = dB2 * r; eA1 = eA2 * r; eB1 = eB2 * r;
    const double fn = A1, dfn = dA1 - fn * dB1;
    bool done = std::fabs(fn - f) <= eps * std::fabs(fn) && std::fabs(dfn - df) <= eps * std::fabs(dfn);
    if (order == 2) {
      const double efn = eA1 - 2.0 * dfn * dB1 - fn * eB1;
      done = done && std::fabs(efn - ef) <= eps * std::fabs(efn);
      ef = efn;
    }
    f = fn;
    df = dfn;
    if (done) break;
  }
  const double m = log_x - sh.psi_a;
  if (order == 1) return -(m * f + df);
  return -((m * m - sh.tri_a) * f + 2.0 * m * df + ef);
}

double quadrature(const Shape& sh, double x, double log_x, int order) {
  const double a = sh.a;
  const bool lower = x <= a;
  // Newton on the convex, increasing log-decrement of the integrand away from log x
  double d = std::sqrt(2.0 * kDrop / x);
  for (int it = 0; it < 60; ++it) {
    const double ed = std::exp(lower ? -d : d);
    const double val = lower ? a * d - x * (1.0 - ed) : x * (ed - 1.0) - a * d;
    const double der = lower ? a - x * ed : x * ed - a;
    const double step = (val - kDrop) / std::fmax(der, 1e-300);
    const double nd = std::fmax(d - step, 0.5 * d);
    if (std::fabs(nd - d) <= 1e-3 * d) {
      d = nd;
      break;
    }
    d = nd;
  }
  const Legendre& gl = legendre();
  const double ux = log_x, half = 0.5 * d, mid = lower ? ux - half : ux + half;
  const double psi = sh.psi_a, tri = sh.tri_a;
  double acc = 0.0;
  for (int i = 0; i < kNodes; ++i) {
    const double u = mid + half * gl.x[i];
    const double w = std::exp(a * (u - ux) - (std::exp(u) - x));
    double m = u - psi;
    if (order == 2) m = m * m - tri;
    acc += gl.w[i] * w * m;
  }
  return lower ? half * acc : -half * acc;
}

void one(Shape& sh, double a, double x, int order, double eps, double& lp, double& r) {
  if (std::isnan(a) || std::isnan(x) || a <= 0.0 || x < 0.0 || std::isinf(a)) {
    lp = kNaN;
    r = kNaN;
    return;
  }
  if (x == 0.0 || std::isinf(x)) {
    lp = -kInf;
    r = 0.0;
    return;
  }
  sh.set(a, order);
  const double log_x = std::log(x);
  lp = a * log_x - x - sh.lgamma_a;
  if (a >= kQuadA)
    r = quadrature(sh, x, log_x, order);
  else if (x < a + 1.0)
    r = series(sh, x, log_x, order, eps);
  else
    r = cfrac(sh, x, log_x, order, eps);
}

// gamma_shape_derivs(a, x, order, lp_out, r_out, eps): contiguous float64 arrays of one
// size; eps is the relative size of the last term kept by the series and the fraction
// (1e-16 for float64 results; float32 results need far fewer terms)
void gamma_shape_derivs(const py::array& a, const py::array& x, int order, py::array& lp_out,
                        py::array& r_out, double eps) {
  const char* op = "gamma_shape_derivs";
  const char* names[] = {"a", "x", "lp_out", "r_out"};
  int k = 0;
  const py::array* arrays[] = {&a, &x, &lp_out, &r_out};
  for (const py::array* arr : arrays) {
    if (!arr->dtype().is(py::dtype::of<double>()))
      throw py::type_error(std::string(op) + ": " + names[k] + " must be float64, got " +
                           std::string(py::str(arr->dtype())));
    check_contiguous(*arr, op, names[k]);
    ++k;
  }
  check_writeable(lp_out, op, "lp_out");
  check_writeable(r_out, op, "r_out");
  const std::int64_t n = static_cast<std::int64_t>(a.size());
  if (x.size() != a.size() || lp_out.size() != a.size() || r_out.size() != a.size())
    throw py::value_error(std::string(op) + ": a, x, lp_out and r_out must have the same size, got " +
                          std::to_string(a.size()) + ", " + std::to_string(x.size()) + ", " +
                          std::to_string(lp_out.size()) + ", " + std::to_string(r_out.size()));
  if (order != 1 && order != 2)
    throw py::value_error(std::string(op) + ": order must be 1 or 2, got " + std::to_string(order));
  if (!(eps >= 1e-17 && eps <= 1e-3))
    throw py::value_error(std::string(op) + ": eps must be in [1e-17, 1e-3], got " + std::to_string(eps));
  const double* pa = static_cast<const double*>(a.data());
  const double* px = static_cast<const double*>(x.data());
  double* plp = static_cast<double*>(lp_out.mutable_data());
  double* pr = static_cast<double*>(r_out.mutable_data());
  legendre();  // initialise the table before the workers start
  py::gil_scoped_release nogil;
  parallel_for(0, n, 1024, [&](std::int64_t b, std::int64_t e) {
    Shape sh;
    for (std::int64_t i = b; i < e; ++i) one(sh, pa[i], px[i], order, eps, plp[i], pr[i]);
  });
}

// ---------------------------------------------------------------------------------
// dz/da of Gamma(a, 1) draws, the hot loop of implicit reparameterisation: the series
// and the fraction of one() (order 1), arranged for speed with the same steps and the
// same stopping rule, so the results are one()'s to the last bit.
// - The series reads 1/(a+k) and the partial sums h_k = -sum_{j<=k} 1/(a+j) from a
//   table filled on first use for the current shape (a sample of one law reuses it
//   for every draw), instead of dividing at every step: some 20% faster, measured.
// - The fraction runs four draws of one shape in lockstep: the division that
//   renormalises a lane's Wallis recurrences at every step sits on that lane's
//   critical path, and the other lanes' work fills its latency (20-40% faster there).
//   Each lane keeps its convergents from the step where it alone converges, then
//   idles along until the slowest is done.

// the terms of the series that depend on the shape alone, kept for the current shape
struct SeriesTable {
  static constexpr int kSize = 256;
  double a = kNaN;
  int n = 0;  // entries filled
  double inv[kSize], h[kSize];
};

// series() for order 1, with the table
double series1(SeriesTable& tb, const Shape& sh, double x, double log_x, double eps) {
  const double a = sh.a;
  if (tb.a != a) {
    tb.a = a;
    tb.n = 0;
  }
  double t = 1.0, s = 1.0, s1 = 0.0, h = 0.0;
  for (int k = 1; k <= kMaxSeries; ++k) {
    double inv;
    if (k <= tb.n) {
      inv = tb.inv[k - 1];
      h = tb.h[k - 1];
    } else {
      inv = 1.0 / (a + k);
      h -= inv;
      if (k <= SeriesTable::kSize) {  // k == tb.n + 1: the table grows in order
        tb.inv[k - 1] = inv;
        tb.h[k - 1] = h;
        tb.n = k;
      }
    }
    t *= x * inv;
    const double th = t * h;
    s += t;
    s1 += th;
    if (t <= eps * s && std::fabs(th) <= eps * std::fabs(s1)) break;
  }
  return (s * (log_x - sh.psi_a1) + s1) / a;
}

constexpr int kLanes = 4;

// the first-order fraction of one() (cfrac with order 1) for four draws of one shape:
// returns r for each, each lane's convergents taken at the step where it converges
void cfrac4(const Shape& sh, const double* x, const double* log_x, double eps, double* r) {
  const double a = sh.a;
  double A1[kLanes], B1[kLanes], A0[kLanes], B0[kLanes], dA1[kLanes], dB1[kLanes], dA0[kLanes],
      dB0[kLanes], f[kLanes], df[kLanes];
  bool fin[kLanes];
  for (int l = 0; l < kLanes; ++l) {
    A1[l] = 1.0; B1[l] = x[l] + 1.0 - a; A0[l] = 0.0; B0[l] = 1.0;
    dA1[l] = 0.0; dB1[l] = -1.0; dA0[l] = 0.0; dB0[l] = 0.0;
    f[l] = 1.0 / B1[l];
    df[l] = 1.0 / (B1[l] * B1[l]);
    fin[l] = false;
  }
  int left = kLanes;
  for (int k = 2; k <= kMaxCf && left; ++k) {
    const double ak = (k - 1.0) * (a - (k - 1.0));
    for (int l = 0; l < kLanes; ++l) {
      const double bk = x[l] + (2.0 * k - 1.0) - a;  // as cfrac() associates it
      const double A2 = bk * A1[l] + ak * A0[l], B2 = bk * B1[l] + ak * B0[l];
      const double dA2 = -A1[l] + bk * dA1[l] + (k - 1.0) * A0[l] + ak * dA0[l];
      const double dB2 = -B1[l] + bk * dB1[l] + (k - 1.0) * B0[l] + ak * dB0[l];
      const double rr = 1.0 / B2;
      A0[l] = A1[l] * rr; B0[l] = B1[l] * rr; dA0[l] = dA1[l] * rr; dB0[l] = dB1[l] * rr;
      A1[l] = A2 * rr; B1[l] = 1.0; dA1[l] = dA2 * rr; dB1[l] = dB2 * rr;
      if (fin[l]) continue;  // converged: its recurrences run on idle, its result is kept
      const double fn = A1[l], dfn = dA1[l] - fn * dB1[l];
      const bool done = std::fabs(fn - f[l]) <= eps * std::fabs(fn) &&
                        std::fabs(dfn - df[l]) <= eps * std::fabs(dfn);
      f[l] = fn;
      df[l] = dfn;
      if (done) {
        fin[l] = true;
        --left;
      }
    }
  }
  for (int l = 0; l < kLanes; ++l) r[l] = -((log_x[l] - sh.psi_a) * f[l] + df[l]);
}

struct Lanes {
  Shape sh;
  int n = 0;
  std::int64_t idx[kLanes];
  double x[kLanes], log_x[kLanes];
};

// the loop of gamma_sample_grad over draws z of type T (float or double); every
// step is in double, the result rounded to T once
template <typename T>
void sample_grad_loop(const double* pa, std::int64_t sa, const T* pz, T* po, std::int64_t n,
                      double eps) {
  parallel_for(0, n, 1024, [&](std::int64_t b, std::int64_t e) {
    Shape sh, ssh;
    SeriesTable tb;
    Lanes cf;  // fraction draws waiting for a full group of lanes
    const auto run = [&]() {
      double r[kLanes];
      if (cf.n == kLanes)
        cfrac4(cf.sh, cf.x, cf.log_x, eps, r);
      else
        for (int l = 0; l < cf.n; ++l) r[l] = cfrac(cf.sh, cf.x[l], cf.log_x[l], 1, eps);
      for (int l = 0; l < cf.n; ++l) po[cf.idx[l]] = static_cast<T>(-cf.x[l] * r[l]);
      cf.n = 0;
    };
    for (std::int64_t i = b; i < e; ++i) {
      const double ai = pa[i * sa], zi = static_cast<double>(pz[i]);
      const bool plain = ai > 0.0 && ai < kQuadA && zi > 0.0 && zi < kInf;  // false for NaN
      if (plain && zi < ai + 1.0) {
        ssh.set(ai, 1);
        po[i] = static_cast<T>(-zi * series1(tb, ssh, zi, std::log(zi), eps));
      } else if (plain) {
        if (cf.n && ai != cf.sh.a) run();  // a new shape: the waiting draws go on their own
        cf.sh.set(ai, 1);
        cf.idx[cf.n] = i;
        cf.x[cf.n] = zi;
        cf.log_x[cf.n] = std::log(zi);
        if (++cf.n == kLanes) run();
      } else {
        double lp, r;
        one(sh, ai, zi, 1, eps, lp, r);
        po[i] = static_cast<T>(lp == -kInf ? 0.0 : -zi * r);
      }
    }
    run();
  });
}

// gamma_sample_grad(a, z, out, eps): out = dz/da = -z r (0 where z is 0 or inf) for
// Gamma(a, 1) draws z, the implicit reparameterisation gradient, without the scaled
// pair ever reaching Python; a (float64) holds one shape for all draws or one per
// draw; z and out are both float64 or both float32 (float32 draws need no widened
// copy, and their gradient is rounded to float32 once, as a cast of the float64
// result would be).
void gamma_sample_grad(const py::array& a, const py::array& z, py::array& out, double eps) {
  const char* op = "gamma_sample_grad";
  if (!a.dtype().is(py::dtype::of<double>()))
    throw py::type_error(std::string(op) + ": a must be float64, got " + std::string(py::str(a.dtype())));
  const bool f32 = z.dtype().is(py::dtype::of<float>());
  if (!f32 && !z.dtype().is(py::dtype::of<double>()))
    throw py::type_error(std::string(op) + ": z must be float64 or float32, got " +
                         std::string(py::str(z.dtype())));
  if (!out.dtype().is(z.dtype()))
    throw py::type_error(std::string(op) + ": out must have z's dtype " + std::string(py::str(z.dtype())) +
                         ", got " + std::string(py::str(out.dtype())));
  check_contiguous(a, op, "a");
  check_contiguous(z, op, "z");
  check_contiguous(out, op, "out");
  check_writeable(out, op, "out");
  const std::int64_t n = static_cast<std::int64_t>(z.size());
  if (out.size() != z.size() || (a.size() != 1 && a.size() != z.size()))
    throw py::value_error(std::string(op) + ": a must have 1 entry or as many as z, and out as many "
                          "as z; got " + std::to_string(a.size()) + ", " + std::to_string(z.size()) +
                          ", " + std::to_string(out.size()));
  if (!(eps >= 1e-17 && eps <= 1e-3))
    throw py::value_error(std::string(op) + ": eps must be in [1e-17, 1e-3], got " + std::to_string(eps));
  const double* pa = static_cast<const double*>(a.data());
  const std::int64_t sa = a.size() == 1 ? 0 : 1;
  legendre();
  if (f32) {
    const float* pz = static_cast<const float*>(z.data());
    float* po = static_cast<float*>(out.mutable_data());
    py::gil_scoped_release nogil;
    sample_grad_loop(pa, sa, pz, po, n, eps);
  } else {
    const double* pz = static_cast<const double*>(z.data());
    double* po = static_cast<double*>(out.mutable_data());
    py::gil_scoped_release nogil;
    sample_grad_loop(pa, sa, pz, po, n, eps);
  }
}

}  // namespace

void bind_special(py::module_& m) {
  m.def("gamma_sample_grad", &gamma_sample_grad, py::arg("a").noconvert(), py::arg("z").noconvert(),
        py::arg("out").noconvert(), py::arg("eps"),
        "dz/da of Gamma(a, 1) draws z (implicit reparameterisation; a float64, z and out float64 "
        "or float32).");
  m.def("gamma_shape_derivs", &gamma_shape_derivs, py::arg("a").noconvert(), py::arg("x").noconvert(),
        py::arg("order"), py::arg("lp_out").noconvert(), py::arg("r_out").noconvert(), py::arg("eps"),
        "Scaled shape derivatives of the regularized lower incomplete gamma (float64).");
}

}  // namespace weft
