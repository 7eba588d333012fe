// Digamma, trigamma and log-gamma helpers shared by the special-function kernels
// (igamma_shape.cpp, ibeta_shape.cpp): scalar, thread-safe, no global state.
#pragma once

#include <cmath>

namespace weft {
namespace special {

inline double log_gamma(double a) {
  int sign = 1;
  return lgamma_r(a, &sign);  // lgamma_r: no write to the global signgam
}

// The asymptotic tails of psi and psi', x >= 10: psi(x) = log x - 1/(2x) - digamma_tail(x),
// psi'(x) = 1/x + 1/(2x^2) + trigamma_tail(x); the first omitted terms are below 5e-17
// and 1e-16 there.
inline double digamma_tail(double x) {
  const double i2 = 1.0 / (x * x);
  return i2 * (1.0 / 12 - i2 * (1.0 / 120 - i2 * (1.0 / 252 - i2 * (1.0 / 240 - i2 * (1.0 / 132 -
         i2 * (691.0 / 32760 - i2 * (1.0 / 12)))))));
}

inline double trigamma_tail(double x) {
  const double i1 = 1.0 / x, i2 = i1 * i1;
  return i1 * i2 * (1.0 / 6 - i2 * (1.0 / 30 - i2 * (1.0 / 42 - i2 * (1.0 / 30 - i2 * (5.0 / 66 -
         i2 * (691.0 / 2730 - i2 * (7.0 / 6)))))));
}

// psi and psi' by recurrence up to 10, then their asymptotic series
inline double digamma(double x) {
  double acc = 0.0;
  while (x < 10.0) {
    acc -= 1.0 / x;
    x += 1.0;
  }
  return acc + std::log(x) - 0.5 / x - digamma_tail(x);
}

inline double trigamma(double x) {
  double acc = 0.0;
  while (x < 10.0) {
    acc += 1.0 / (x * x);
    x += 1.0;
  }
  return acc + 1.0 / x + 0.5 / (x * x) + trigamma_tail(x);
}

// Stirling's correction lgamma(x) - [(x - 1/2) log x - x + log(2 pi)/2], x >= 10
// (the first omitted term, 3617/122400 x^-15, is below 3e-17 there)
inline double stirling_tail(double x) {
  const double i1 = 1.0 / x, i2 = i1 * i1;
  return i1 * (1.0 / 12 - i2 * (1.0 / 360 - i2 * (1.0 / 1260 - i2 * (1.0 / 1680 -
         i2 * (1.0 / 1188 - i2 * (691.0 / 360360 - i2 * (1.0 / 156)))))));
}

}  // namespace special
}  // namespace weft
