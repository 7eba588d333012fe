// Shape derivatives of the regularized incomplete beta I_x(a, b), first and second
// order, scaled: d^(i+j) I / da^i db^j = exp(lp) * r with lp = a log x + b log(1-x)
// - log B(a, b). The CPU twin of weft/ops/_ibeta_shape.py (whose array code also
// serves CuPy), with the same methods: I is evaluated on *jets* -- a value with its
// partial derivatives in (a, b) -- so the power series (b x <= 1, x <= 0.9) and the
// continued fraction (its Wallis recurrences, rescaled every step) are differentiated
// term by term, on the side of I_x(a, b) = 1 - I_{1-x}(b, a) where x <= (a+1)/(a+b+2).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "common/checks.h"
#include "common/parallel.h"
#include "special/psi.h"

namespace py = pybind11;

namespace weft {
namespace {

using special::digamma;
using special::log_gamma;
using special::stirling_tail;
using special::trigamma;

constexpr int kMaxSeries = 4000;     // x <= 0.9: terms fall like 0.9^n n^-b
constexpr int kMaxCf = 500000;       // about 1.6 sqrt(max(a, b)) steps near the switch point
constexpr double kSeriesX = 0.9;
constexpr double kTinyProduct = 1e-300;  // shapes whose product is below: NaN
constexpr double kHalfLog2Pi = 0.91893853320467274178;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// A value with its partial derivatives in (a, b): (v, a, b) at order 1,
// (v, a, b, aa, ab, bb) at order 2.
template <int O>
struct Jet {
  static constexpr int N = O == 1 ? 3 : 6;
  double c[N] = {};
};

template <int O>
Jet<O> constant(double v) {
  Jet<O> j;
  j.c[0] = v;
  return j;
}

template <int O>
Jet<O> variable(double v, int which) {  // which: 1 for a, 2 for b
  Jet<O> j = constant<O>(v);
  j.c[which] = 1.0;
  return j;
}

template <int O>
Jet<O> plus(Jet<O> x, double s) {
  x.c[0] += s;
  return x;
}

template <int O>
Jet<O> operator+(Jet<O> x, const Jet<O>& y) {
  for (int i = 0; i < Jet<O>::N; ++i) x.c[i] += y.c[i];
  return x;
}

template <int O>
Jet<O> operator*(Jet<O> x, double s) {
  for (int i = 0; i < Jet<O>::N; ++i) x.c[i] *= s;
  return x;
}

template <int O>
Jet<O> operator*(const Jet<O>& x, const Jet<O>& y) {
  Jet<O> r;
  const double* u = x.c;
  const double* v = y.c;
  r.c[0] = u[0] * v[0];
  r.c[1] = u[0] * v[1] + u[1] * v[0];
  r.c[2] = u[0] * v[2] + u[2] * v[0];
  if constexpr (O == 2) {
    r.c[3] = u[0] * v[3] + 2.0 * u[1] * v[1] + u[3] * v[0];
    r.c[4] = u[0] * v[4] + u[1] * v[2] + u[2] * v[1] + u[4] * v[0];
    r.c[5] = u[0] * v[5] + 2.0 * u[2] * v[2] + u[5] * v[0];
  }
  return r;
}

// f(x) for a jet x given f, f', f'' at its value (the chain rule)
template <int O>
Jet<O> compose(const Jet<O>& x, double f0, double f1, double f2) {
  Jet<O> r;
  r.c[0] = f0;
  r.c[1] = f1 * x.c[1];
  r.c[2] = f1 * x.c[2];
  if constexpr (O == 2) {
    r.c[3] = f1 * x.c[3] + f2 * x.c[1] * x.c[1];
    r.c[4] = f1 * x.c[4] + f2 * x.c[1] * x.c[2];
    r.c[5] = f1 * x.c[5] + f2 * x.c[2] * x.c[2];
  }
  return r;
}

template <int O>
Jet<O> recip(const Jet<O>& x) {
  const double r = 1.0 / x.c[0];
  return compose(x, r, -r * r, 2.0 * r * r * r);
}

// log x (a+b)/a with d = x (a+b) - a: log1p near the mean, where the quotient is near 1
double log_ratio(double d, double a, double log_x, double log_s) {
  return std::fabs(d) < 0.5 * a ? std::log1p(d / a) : log_x + log_s - std::log(a);
}

// lp = a log x + b log y - log B(a, b), y = 1 - x. For a, b >= 10 Stirling's formula
// takes the large terms out analytically (a log(x (a+b)/a) + b log(y (a+b)/b) + ...),
// so nothing of size a cancels; below, lgamma, with lgamma(b) - lgamma(a+b) expanded
// the same way when only b is large.
double log_scale(double a, double b, double x, double log_x, double log_y) {
  const double s = a + b;
  if (a >= 10.0 && b >= 10.0) {
    const double d = std::fma(x, s, -a), log_s = std::log(s);
    return a * log_ratio(d, a, log_x, log_s) + b * log_ratio(-d, b, log_y, log_s) +
           0.5 * (std::log(a / s) + std::log(b)) - kHalfLog2Pi - stirling_tail(a) -
           stirling_tail(b) + stirling_tail(s);
  }
  double lo = a, hi = b;
  if (lo > hi) std::swap(lo, hi);
  double log_beta;
  if (hi < 10.0) {
    log_beta = log_gamma(lo) + log_gamma(hi) - log_gamma(s);
  } else {
    log_beta = log_gamma(lo) - (hi - 0.5) * std::log1p(lo / hi) - lo * std::log(s) + lo +
               stirling_tail(hi) - stirling_tail(s);
  }
  return a * log_x + b * log_y - log_beta;
}

// psi(p+q) - psi(p+1) and psi'(p+q) - psi'(p+1) without the cancellation of two values
// of size log p when q << p: for p >= 10 the first is log((p+q)/p) + Gap::psi, the log
// left to the caller, who folds it into log x (log_ratio); below 10, directly. (p + 1,
// not p: the prefix is written with p B(p, q) = Gamma(p+1) Gamma(q) / Gamma(p+q), which
// has no pole at p = 0, so no terms of size 1/p^2 cancel for tiny shapes.)
struct Gap {
  double psi, tri;
};

Gap gap(double p, double s, int order) {
  Gap g{0.0, 0.0};
  if (p >= 10.0) {
    const double q = s - p;
    g.psi = q / (2.0 * p * s) - special::digamma_tail(s) + special::digamma_tail(p) - 1.0 / p;
    if (order == 2)
      g.tri = -q / (p * s) - q * (s + p) / (2.0 * p * p * s * s) + special::trigamma_tail(s) -
              special::trigamma_tail(p) + 1.0 / (p * p);
  } else {
    g.psi = digamma(s) - digamma(p + 1.0);
    if (order == 2) g.tri = trigamma(s) - trigamma(p + 1.0);
  }
  return g;
}

// What depends on the shapes alone: computed once per run of equal (a, b) (a cdf over
// many values of one law broadcasts one pair).
struct Shapes {
  double a = kNaN, b = kNaN, log_s = 0.0, tri_s = 0.0;
  Gap ga{}, gb{};
  void set(double va, double vb, int order) {
    if (va == a && vb == b) return;
    a = va;
    b = vb;
    const double s = va + vb;
    log_s = std::log(s);
    ga = gap(va, s, order);
    gb = gap(vb, s, order);
    if (order == 2) tri_s = trigamma(s);
  }
};

// exp of the jet of p log x [+ q log(1-x)] - log(p q B(p, q)) less its value, in the
// frame (p, q) = (a, b) or, swapped, (b, a); d = x (p+q) - p
template <int O>
Jet<O> prefix(const Shapes& sh, bool swap, double p, double q, double d, double log_x, double log_y,
              bool with_y) {
  const Gap& gp = swap ? sh.gb : sh.ga;
  const Gap& gq = swap ? sh.ga : sh.gb;
  Jet<O> j;
  // d/dp: log x + psi(s) - psi(p+1); d/dq: [log y] + psi(s) - psi(q+1)
  j.c[1] = (p >= 10.0 ? log_ratio(d, p, log_x, sh.log_s) : log_x) + gp.psi;
  if (with_y)
    j.c[2] = (q >= 10.0 ? log_ratio(-d, q, log_y, sh.log_s) : log_y) + gq.psi;
  else
    j.c[2] = (q >= 10.0 ? std::log1p(p / q) : 0.0) + gq.psi;
  if constexpr (O == 2) {
    j.c[3] = gp.tri;
    j.c[4] = sh.tri_s;
    j.c[5] = gq.tri;
  }
  return compose(j, 1.0, 1.0, 1.0);
}

// 1 + p sum_{n>=1} (1-q)_n x^n / (n! (p+n)), differentiated term by term
template <int O>
Jet<O> series(double p, double q, double x, double eps) {
  const Jet<O> pj = variable<O>(p, 1), qj = variable<O>(q, 2);
  Jet<O> t = constant<O>(1.0), s = constant<O>(0.0);
  for (int k = 1; k <= kMaxSeries; ++k) {
    t = (t * plus(qj * -1.0, double(k))) * (x / k);
    const Jet<O> term = t * recip(plus(pj, double(k)));
    s = s + term;
    bool done = true;
    for (int i = 0; i < Jet<O>::N; ++i) done = done && std::fabs(term.c[i]) <= eps * std::fabs(s.c[i]);
    if (done) break;
  }
  return plus(pj * s, 1.0);
}

// 1/(1 + d1/(1 + d2/(1 + ...))), d_{2m+1} = -(p+m)(p+q+m) x / ((p+2m)(p+2m+1)),
// d_{2m} = m (q-m) x / ((p+2m-1)(p+2m)), by its Wallis recurrences
template <int O>
Jet<O> cfrac(double p, double q, double x, double eps) {
  const Jet<O> pj = variable<O>(p, 1), qj = variable<O>(q, 2), sj = pj + qj;
  Jet<O> A0 = constant<O>(0.0), B0 = constant<O>(1.0), A1 = B0, B1 = B0, f = B0;
  for (int k = 1; k <= kMaxCf; ++k) {
    const double m = k / 2;
    Jet<O> d;
    if (k == 1)  // p cancels: -(p+q) x / (p+1), finite as p -> 0
      d = sj * recip(plus(pj, 1.0)) * -x;
    else if (k % 2)
      d = (plus(pj, m) * plus(sj, m)) * recip(plus(pj, 2.0 * m) * plus(pj, 2.0 * m + 1.0)) * -x;
    else
      d = plus(qj, -m) * recip(plus(pj, 2.0 * m - 1.0) * plus(pj, 2.0 * m)) * (m * x);
    const Jet<O> A2 = A1 + d * A0, B2 = B1 + d * B0;
    // rescale both steps by 1/B_k (the recurrence is linear and homogeneous)
    const double r = 1.0 / B2.c[0];
    A0 = A1 * r;
    B0 = B1 * r;
    A1 = A2 * r;
    B1 = B2 * r;
    const Jet<O> fn = A1 * recip(B1);
    // a derivative may sit at a zero crossing while the parts it is formed from
    // (A's and f B's components) do not: their size bounds the rounding noise
    bool done = true;
    for (int i = 0; i < Jet<O>::N; ++i)
      done = done && std::fabs(fn.c[i] - f.c[i]) <=
                         eps * (std::fabs(fn.c[i]) + std::fabs(A1.c[i]) + std::fabs(fn.c[0] * B1.c[i]));
    f = fn;
    if (done) return f;
    if (!std::isfinite(fn.c[0])) break;
  }
  // not converged within kMaxCf steps (shapes beyond ~1e11) or overflowed: no result
  return constant<O>(kNaN);
}

constexpr int component(int da, int db) { return da == 1 ? (db == 0 ? 1 : 4) : da == 2 ? 3 : db == 1 ? 2 : 5; }

template <int O>
void one(Shapes& sh, double a, double b, double x, int da, int db, double eps, double& lp, double& r) {
  if (!(a > 0.0) || !(b > 0.0) || std::isinf(a) || std::isinf(b) || !(x >= 0.0 && x <= 1.0)) {
    lp = kNaN;
    r = kNaN;
    return;
  }
  if (x == 0.0 || x == 1.0) {
    lp = -kInf;
    r = 0.0;
    return;
  }
  if (!(a * b >= kTinyProduct)) {  // R carries 1/(a b): it would overflow
    lp = kNaN;
    r = kNaN;
    return;
  }
  sh.set(a, b, O);
  const double log_x = std::log(x), log_y = std::log1p(-x);
  lp = log_scale(a, b, x, log_x, log_y);
  // I_x(a, b) = 1 - I_{1-x}(b, a): the derivative (da, db) is minus (db, da) there
  const bool swap = x > (a + 1.0) / (a + b + 2.0);
  const double p = swap ? b : a, q = swap ? a : b, xs = swap ? 1.0 - x : x;
  const double lxs = swap ? log_y : log_x, lys = swap ? log_x : log_y;
  const double d = std::fma(x, a + b, -a), ds = swap ? -d : d;
  // I = x^p [(1-x)^q] / (p q B) * q * G: the prefix is smooth as p or q -> 0, and so are
  // q and G (the series, or (1-x)^q times the fraction); exp(lp) / (p q) is left out
  Jet<O> rj;
  if (q * xs <= 1.0 && xs <= kSeriesX)
    rj = prefix<O>(sh, swap, p, q, ds, lxs, lys, false) * series<O>(p, q, xs, eps) *
         (std::exp(-q * lys) / (p * q));
  else
    rj = prefix<O>(sh, swap, p, q, ds, lxs, lys, true) * cfrac<O>(p, q, xs, eps) * (1.0 / (p * q));
  rj = rj * variable<O>(q, 2);
  r = swap ? -rj.c[component(db, da)] : rj.c[component(da, db)];
}

// beta_shape_derivs(a, b, x, da, db, lp_out, r_out, eps): contiguous float64 arrays of
// one size; (da, db) one of (1,0), (0,1), (2,0), (1,1), (0,2); eps is the relative size
// of the last term kept (1e-16 for float64 results; float32 results need far fewer)
void beta_shape_derivs(const py::array& a, const py::array& b, const py::array& x, int da, int db,
                       py::array& lp_out, py::array& r_out, double eps) {
  const char* op = "beta_shape_derivs";
  const char* names[] = {"a", "b", "x", "lp_out", "r_out"};
  const py::array* arrays[] = {&a, &b, &x, &lp_out, &r_out};
  for (int k = 0; k < 5; ++k) {
    if (!arrays[k]->dtype().is(py::dtype::of<double>()))
      type_error(op, names[k], " must be float64, got ", std::string(py::str(arrays[k]->dtype())));
    check_contiguous(*arrays[k], op, names[k]);
  }
  check_writeable(lp_out, op, "lp_out");
  check_writeable(r_out, op, "r_out");
  const std::int64_t n = static_cast<std::int64_t>(a.size());
  if (b.size() != a.size() || x.size() != a.size() || lp_out.size() != a.size() ||
      r_out.size() != a.size())
    value_error(op, "a, b, x, lp_out and r_out must have the same size, got ", a.size(), ", ",
                b.size(), ", ", x.size(), ", ", lp_out.size(), ", ", r_out.size());
  if (da < 0 || db < 0 || da + db < 1 || da + db > 2)
    value_error(op, "(da, db) must be (1, 0), (0, 1), (2, 0), (1, 1) or (0, 2), got (", da, ", ",
                db, ")");
  if (!(eps >= 1e-17 && eps <= 1e-3)) value_error(op, "eps must be in [1e-17, 1e-3], got ", eps);
  const double* pa = static_cast<const double*>(a.data());
  const double* pb = static_cast<const double*>(b.data());
  const double* px = static_cast<const double*>(x.data());
  double* plp = static_cast<double*>(lp_out.mutable_data());
  double* pr = static_cast<double*>(r_out.mutable_data());
  py::gil_scoped_release nogil;
  parallel_for(0, n, 256, [&](std::int64_t s, std::int64_t e) {
    Shapes sh;
    for (std::int64_t i = s; i < e; ++i) {
      if (da + db == 1)
        one<1>(sh, pa[i], pb[i], px[i], da, db, eps, plp[i], pr[i]);
      else
        one<2>(sh, pa[i], pb[i], px[i], da, db, eps, plp[i], pr[i]);
    }
  });
}

}  // namespace

void bind_ibeta_shape(py::module_& m) {
  m.def("beta_shape_derivs", &beta_shape_derivs, py::arg("a").noconvert(), py::arg("b").noconvert(),
        py::arg("x").noconvert(), py::arg("da"), py::arg("db"), py::arg("lp_out").noconvert(),
        py::arg("r_out").noconvert(), py::arg("eps"),
        "Scaled shape derivatives of the regularized incomplete beta (float64).");
}

}  // namespace weft
