// Argument checks for bindings.  Every check runs before a kernel touches a
// data pointer and raises the Python exception a numpy user would expect,
// naming the op, the argument, what was expected and what was given:
//   index_add_: index has 12 entries but src has 10 rows
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <atomic>
#include <cstdint>
#include <limits>
#include <cstdio>
#include <type_traits>
#include <string>

#include "common/dtype.h"
#include "common/parallel.h"

namespace weft {

namespace py = pybind11;

// Message text is built by appending, not with a std::ostringstream: where another
// copy of libstdc++'s locale machinery is in the process (seen on a machine whose
// toolchain linked libstdc++ into weft._C while the interpreter had the shared one
// loaded), the stream's num_put facet crashed on the first number formatted, so
// every error message with a number in it ended in a segmentation fault.
namespace detail {
inline void put(std::string& s, const char* v) { s += v; }
inline void put(std::string& s, const std::string& v) { s += v; }
inline void put(std::string& s, char v) { s += v; }
inline void put(std::string& s, bool v) { s += v ? "1" : "0"; }  // as a stream prints it
template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
void put(std::string& s, T v) {
  s += std::to_string(v);
}
template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
void put(std::string& s, T v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));  // a stream's default
  s += buf;
}
}  // namespace detail

template <class... Args>
std::string cat(const Args&... args) {
  std::string s;
  (detail::put(s, args), ...);
  return s;
}

// "(3, 4)" / "(5,)" / "()", as numpy prints shapes.
inline std::string shape_str(const py::array& a) {
  std::string s = "(";
  for (py::ssize_t d = 0; d < a.ndim(); ++d) {
    if (d) s += ", ";
    s += std::to_string(a.shape(d));
  }
  if (a.ndim() == 1) s += ",";
  return s + ")";
}

template <class... Args>
[[noreturn]] void value_error(const char* op, const Args&... msg) {
  throw py::value_error(cat(op, ": ", msg...));
}
template <class... Args>
[[noreturn]] void type_error(const char* op, const Args&... msg) {
  throw py::type_error(cat(op, ": ", msg...));
}
template <class... Args>
[[noreturn]] void index_error(const char* op, const Args&... msg) {
  throw py::index_error(cat(op, ": ", msg...));
}

inline void check_ndim(const py::array& a, py::ssize_t ndim, const char* op, const char* name) {
  if (a.ndim() != ndim)
    value_error(op, name, " must be ", ndim, "-D, got an array of shape ", shape_str(a));
}

// Kernels index with raw pointer arithmetic, so layout must be plain row-major
// and elements naturally aligned (numpy allows neither to be true).
inline void check_contiguous(const py::array& a, const char* op, const char* name) {
  const int flags = a.flags();
  if (!(flags & py::array::c_style))
    value_error(op, name, " must be C-contiguous (got an array of shape ", shape_str(a),
                " with strides ", py::str(a.attr("strides")).cast<std::string>(), ")");
  if (!(flags & py::detail::npy_api::NPY_ARRAY_ALIGNED_))
    value_error(op, name, " must be aligned to its itemsize (", a.itemsize(), " bytes)");
}

inline void check_writeable(const py::array& a, const char* op, const char* name) {
  if (!a.writeable()) value_error(op, name, " is read-only; it is written in place");
}

inline void check_same_dtype(const py::array& a, const char* a_name, const py::array& b,
                             const char* b_name, const char* op) {
  if (!a.dtype().equal(b.dtype()))
    type_error(op, a_name, " has dtype ", dtype_name(a.dtype()), " but ", b_name, " has dtype ",
               dtype_name(b.dtype()), "; they must match");
}

// In-place kernels read one array while writing another; if their bytes overlap
// the result would depend on the traversal order (and on the thread count).
inline void check_no_overlap(const py::array& out, const char* out_name, const py::array& in,
                             const char* in_name, const char* op) {
  if (out.nbytes() == 0 || in.nbytes() == 0) return;
  const auto* o = static_cast<const char*>(out.data());
  const auto* i = static_cast<const char*>(in.data());
  if (o < i + in.nbytes() && i < o + out.nbytes())
    value_error(op, in_name, " shares memory with ", out_name, ", which is written in place; pass a copy");
}

// Position of the first entry outside [0, bound), or -1.  Scans in parallel but
// reports the smallest position, so the error does not depend on thread count.
template <class index_t>
std::int64_t first_out_of_range(const index_t* idx, std::int64_t n, std::int64_t bound) {
  std::atomic<std::int64_t> first{std::numeric_limits<std::int64_t>::max()};
  const std::uint64_t ubound = static_cast<std::uint64_t>(bound);
  // Large grain: a serial scan runs at memory bandwidth (~1 ms per 2^20 entries),
  // and waking a team costs more than it saves below that on a busy machine.
  parallel_for(0, n, 1 << 20, [&](std::int64_t b, std::int64_t e) {
    // One unsigned compare catches negatives too; the loop has no early exit so
    // it vectorises, and the error path is the rare one.
    std::int64_t bad = 0;
    for (std::int64_t k = b; k < e; ++k)
      bad += static_cast<std::uint64_t>(static_cast<std::int64_t>(idx[k])) >= ubound;
    if (!bad) return;
    for (std::int64_t k = b; k < e; ++k) {
      if (static_cast<std::uint64_t>(static_cast<std::int64_t>(idx[k])) >= ubound) {
        std::int64_t cur = first.load();
        while (k < cur && !first.compare_exchange_weak(cur, k)) {
        }
        return;
      }
    }
  });
  const std::int64_t pos = first.load();
  return pos == std::numeric_limits<std::int64_t>::max() ? -1 : pos;
}

// IndexError "op: name[k] = v is out of range [0, bound)" for the first bad entry.
// Reads idx without the GIL; call it with the GIL held (it raises).
template <class index_t>
void check_index_range(const index_t* idx, std::int64_t n, std::int64_t bound, const char* op,
                       const char* name, const char* bound_what = nullptr) {
  std::int64_t pos;
  {
    py::gil_scoped_release nogil;
    pos = first_out_of_range(idx, n, bound);
  }
  if (pos >= 0) {
    if (bound_what)
      index_error(op, name, "[", pos, "] = ", static_cast<std::int64_t>(idx[pos]),
                  " is out of range [0, ", bound, ") for ", bound_what);
    index_error(op, name, "[", pos, "] = ", static_cast<std::int64_t>(idx[pos]),
                " is out of range [0, ", bound, ")");
  }
}

}  // namespace weft
