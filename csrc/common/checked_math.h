// Size arithmetic that cannot wrap.  Every product or sum that sizes an
// allocation or is compared against an array length goes through these: a wrapped
// B*(M+1) once matched an empty crows array and sent a kernel reading far past it.
// On overflow they raise ValueError naming the op and the quantity, so the caller
// never sees a wrapped size.
#pragma once

#include <cstdint>
#include <limits>

#include "common/checks.h"

namespace weft {

// a * b and a + b, or false when the exact result does not fit int64.
inline bool mul_fits(std::int64_t a, std::int64_t b, std::int64_t* out) {
#if defined(__GNUC__) || defined(__clang__)
  return !__builtin_mul_overflow(a, b, out);
#else
  if (a != 0 && b != 0) {
    const auto lim = std::numeric_limits<std::int64_t>::max();
    const auto lo = std::numeric_limits<std::int64_t>::min();
    if ((a > 0 && b > 0 && a > lim / b) || (a < 0 && b < 0 && a < lim / b) ||
        (a > 0 && b < 0 && b < lo / a) || (a < 0 && b > 0 && a < lo / b))
      return false;
  }
  *out = a * b;
  return true;
#endif
}

inline bool add_fits(std::int64_t a, std::int64_t b, std::int64_t* out) {
#if defined(__GNUC__) || defined(__clang__)
  return !__builtin_add_overflow(a, b, out);
#else
  if ((b > 0 && a > std::numeric_limits<std::int64_t>::max() - b) ||
      (b < 0 && a < std::numeric_limits<std::int64_t>::min() - b))
    return false;
  *out = a + b;
  return true;
#endif
}

// `what` names the quantity in the error, e.g. "B*(M+1)".
inline std::int64_t checked_mul(std::int64_t a, std::int64_t b, const char* op, const char* what) {
  std::int64_t r;
  if (!mul_fits(a, b, &r)) value_error(op, what, " = ", a, " * ", b, " does not fit in int64");
  return r;
}

inline std::int64_t checked_add(std::int64_t a, std::int64_t b, const char* op, const char* what) {
  std::int64_t r;
  if (!add_fits(a, b, &r)) value_error(op, what, " = ", a, " + ", b, " does not fit in int64");
  return r;
}

// Product of a shape's entries (each already known non-negative).  A zero entry
// makes it 0 however large the others are, as numpy sizes such arrays.
template <class It>
std::int64_t checked_prod(It first, It last, const char* op, const char* what) {
  for (It i = first; i != last; ++i)
    if (*i == 0) return 0;
  std::int64_t p = 1;
  for (; first != last; ++first) p = checked_mul(p, static_cast<std::int64_t>(*first), op, what);
  return p;
}

}  // namespace weft
