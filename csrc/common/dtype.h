// dtype dispatch: maps a numpy dtype to a C++ scalar type and calls a generic
// lambda with a type tag, the way AT_DISPATCH_* does in PyTorch, but listing
// the admissible types per call site so the error can name them.
//
//   weft::dispatch(weft::FloatingComplexTypes{}, src, "segment_sum", "src", [&](auto tag) {
//     using scalar_t = typename decltype(tag)::type;
//     ...
//   });
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

namespace weft {

namespace py = pybind11;

enum class ScalarType {
  Bool, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64,
  Float16, Float32, Float64, Complex64, Complex128, Other,
};

template <class T> struct type_tag { using type = T; };
template <class... Ts> struct type_list {};

template <class T> struct scalar_traits;  // only the types kernels may be instantiated for
#define WEFT_SCALAR_TRAITS(T, ST, NAME)                            \
  template <> struct scalar_traits<T> {                            \
    static constexpr ScalarType value = ScalarType::ST;            \
    static constexpr const char* name = NAME;                      \
  };
WEFT_SCALAR_TRAITS(float, Float32, "float32")
WEFT_SCALAR_TRAITS(double, Float64, "float64")
WEFT_SCALAR_TRAITS(std::complex<float>, Complex64, "complex64")
WEFT_SCALAR_TRAITS(std::complex<double>, Complex128, "complex128")
WEFT_SCALAR_TRAITS(std::int8_t, Int8, "int8")
WEFT_SCALAR_TRAITS(std::int16_t, Int16, "int16")
WEFT_SCALAR_TRAITS(std::int32_t, Int32, "int32")
WEFT_SCALAR_TRAITS(std::int64_t, Int64, "int64")
WEFT_SCALAR_TRAITS(std::uint8_t, UInt8, "uint8")
WEFT_SCALAR_TRAITS(bool, Bool, "bool")
// float16 has no portable C++17 arithmetic type; a kernel that wants it adds a
// storage struct (uint16_t + float conversions) and a traits line here.
#undef WEFT_SCALAR_TRAITS

using FloatingTypes = type_list<float, double>;
using ComplexTypes = type_list<std::complex<float>, std::complex<double>>;
using FloatingComplexTypes = type_list<float, double, std::complex<float>, std::complex<double>>;
using IndexTypes = type_list<std::int32_t, std::int64_t>;
using FloatingComplexIntTypes =
    type_list<float, double, std::complex<float>, std::complex<double>, std::int32_t, std::int64_t>;

// Kind and itemsize rather than the type number: int64 is NPY_LONG on Linux and
// NPY_LONGLONG on Windows, and both must map to int64_t.
inline ScalarType scalar_type(const py::dtype& dt) {
  const char kind = dt.kind();
  const py::ssize_t size = dt.itemsize();
  switch (kind) {
    case 'b': return size == 1 ? ScalarType::Bool : ScalarType::Other;
    case 'i':
      switch (size) {
        case 1: return ScalarType::Int8;
        case 2: return ScalarType::Int16;
        case 4: return ScalarType::Int32;
        case 8: return ScalarType::Int64;
      }
      return ScalarType::Other;
    case 'u':
      switch (size) {
        case 1: return ScalarType::UInt8;
        case 2: return ScalarType::UInt16;
        case 4: return ScalarType::UInt32;
        case 8: return ScalarType::UInt64;
      }
      return ScalarType::Other;
    case 'f':
      switch (size) {
        case 2: return ScalarType::Float16;
        case 4: return ScalarType::Float32;
        case 8: return ScalarType::Float64;
      }
      return ScalarType::Other;
    case 'c':
      switch (size) {
        case 8: return ScalarType::Complex64;
        case 16: return ScalarType::Complex128;
      }
      return ScalarType::Other;
  }
  return ScalarType::Other;
}

// str(dtype) as numpy prints it: "float64", ">f8", "[('a', '<i4')]".
inline std::string dtype_name(const py::dtype& dt) { return py::str(dt).cast<std::string>(); }

inline bool is_native_byteorder(const py::dtype& dt) {
  return py::cast<bool>(dt.attr("isnative"));
}

namespace detail {

template <class... Ts>
std::string type_names(type_list<Ts...>) {
  std::string out;
  ((out += (out.empty() ? "" : ", "), out += scalar_traits<Ts>::name), ...);
  return out;
}

template <class F, class T, class... Rest>
decltype(auto) dispatch_impl(ScalarType st, F&& f) {
  if constexpr (sizeof...(Rest) == 0) {
    (void)st;  // dispatch() has already verified st is one of the list
    return std::forward<F>(f)(type_tag<T>{});
  } else {
    if (st == scalar_traits<T>::value) return std::forward<F>(f)(type_tag<T>{});
    return dispatch_impl<F, Rest...>(st, std::forward<F>(f));
  }
}

}  // namespace detail

template <class... Ts>
bool dtype_in(type_list<Ts...>, const py::dtype& dt) {
  const ScalarType st = scalar_type(dt);
  return ((st == scalar_traits<Ts>::value) || ...);
}

// Raises TypeError "op: arg has dtype X, expected one of ..." unless the dtype
// of `arr` is in the list (and in native byte order).
template <class... Ts>
void check_dtype(type_list<Ts...> types, const py::array& arr, const char* op, const char* arg) {
  const py::dtype dt = arr.dtype();
  if (!dtype_in(types, dt))
    throw py::type_error(std::string(op) + ": " + arg + " has dtype " + dtype_name(dt) +
                         ", expected one of " + detail::type_names(types));
  if (!is_native_byteorder(dt))
    throw py::type_error(std::string(op) + ": " + arg + " has non-native byte order dtype " +
                         dtype_name(dt) + "; convert it with .astype(" + arg +
                         ".dtype.newbyteorder('='))");
}

// Calls f(type_tag<T>{}) for the T in `types` matching arr's dtype; TypeError otherwise.
template <class... Ts, class F>
decltype(auto) dispatch(type_list<Ts...> types, const py::array& arr, const char* op,
                        const char* arg, F&& f) {
  check_dtype(types, arr, op, arg);
  return detail::dispatch_impl<F, Ts...>(scalar_type(arr.dtype()), std::forward<F>(f));
}

// Addition kernels only need the real storage: a complex<T> array is an array
// of interleaved T, and complex + is componentwise.  Halves the instantiations
// and lets the compiler vectorise as plain T.
template <class T> struct real_of { using type = T; };
template <class T> struct real_of<std::complex<T>> { using type = T; };
template <class T> using real_of_t = typename real_of<T>::type;
template <class T> constexpr std::int64_t components_v = std::is_same_v<T, real_of_t<T>> ? 1 : 2;

}  // namespace weft
