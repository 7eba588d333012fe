#include "common/parallel.h"

#include <pybind11/pybind11.h>

#include "common/simd.h"

#include <atomic>
#include <string>

#ifndef _WIN32
#include <pthread.h>
#endif

namespace py = pybind11;

namespace weft {

namespace {

std::atomic<int> g_num_threads{0};  // 0: not resolved yet
std::atomic<bool> g_pool_used{false};
// GNU libgomp is not fork-safe: a child forked after the parent started the
// OpenMP team deadlocks in its first parallel region (multiprocessing's default
// start method on Linux, DataLoader-style workers).  Such a child runs serially,
// as PyTorch does.
std::atomic<bool> g_bad_fork{false};

#ifndef _WIN32
void on_fork_child() {
  if (g_pool_used.load(std::memory_order_relaxed)) g_bad_fork.store(true, std::memory_order_relaxed);
}
[[maybe_unused]] const bool g_atfork_registered = [] {
  pthread_atfork(nullptr, nullptr, on_fork_child);
  return true;
}();
#endif

int default_num_threads() {
#ifdef WEFT_HAVE_OPENMP
  return std::max(1, omp_get_max_threads());
#else
  return 1;
#endif
}

}  // namespace

int get_num_threads() {
  if (g_bad_fork.load(std::memory_order_relaxed)) return 1;
  int n = g_num_threads.load(std::memory_order_relaxed);
  if (n == 0) {
    n = default_num_threads();
    int expected = 0;
    if (!g_num_threads.compare_exchange_strong(expected, n)) n = expected;
  }
  return n;
}

void set_num_threads(int n) {
  if (n < 1)
    throw py::value_error("set_num_threads: expected a positive number of threads, got " +
                          std::to_string(n));
  g_num_threads.store(n, std::memory_order_relaxed);
}

namespace detail {

bool parallel_allowed() {
#ifdef WEFT_HAVE_OPENMP
  return !g_bad_fork.load(std::memory_order_relaxed) && !omp_in_parallel();
#else
  return false;
#endif
}

void note_pool_used() { g_pool_used.store(true, std::memory_order_relaxed); }

}  // namespace detail

void bind_parallel(py::module_& m) {
  m.def("get_num_threads", &get_num_threads,
        "Number of threads native kernels use (default: OMP_NUM_THREADS or the CPU count).");
  m.def("set_num_threads", &set_num_threads, py::arg("n"),
        "Set the number of threads native kernels use; results do not depend on it.");
  m.def("has_openmp", [] {
#ifdef WEFT_HAVE_OPENMP
    return true;
#else
    return false;
#endif
  }, "Whether weft._C was built with OpenMP.");
  m.def("build_info", [] {
    py::dict d;
#if defined(__clang__)
    d["compiler"] = "clang";
#elif defined(__GNUC__)
    d["compiler"] = "gcc";
#elif defined(_MSC_VER)
    d["compiler"] = "msvc";
#else
    d["compiler"] = "unknown";
#endif
#if defined(__VERSION__)
    d["compiler_version"] = std::string(__VERSION__);
#elif defined(_MSC_FULL_VER)
    d["compiler_version"] = std::to_string(_MSC_FULL_VER);
#else
    d["compiler_version"] = py::none();
#endif
    // _OPENMP is the date (yyyymm) of the OpenMP spec the compiler implements.
#if defined(WEFT_HAVE_OPENMP) && defined(_OPENMP)
    d["openmp"] = static_cast<long>(_OPENMP);
#else
    d["openmp"] = py::none();
#endif
#if defined(_MSVC_LANG)
    d["cplusplus"] = static_cast<long>(_MSVC_LANG);  // MSVC leaves __cplusplus at 199711L
#else
    d["cplusplus"] = static_cast<long>(__cplusplus);
#endif
    py::list clones;
    const std::string targets = WEFT_SIMD_CLONE_TARGETS;
    for (std::size_t b = 0; b < targets.size();) {
      std::size_t e = targets.find(',', b);
      if (e == std::string::npos) e = targets.size();
      clones.append(targets.substr(b, e - b));
      b = e + 1;
    }
    d["simd_clones"] = clones;
    // Which clone the loader picks on this CPU (GNU ifunc resolves on the same test).
#if defined(__GNUC__) && defined(__x86_64__)
    d["cpu_avx2"] = static_cast<bool>(__builtin_cpu_supports("avx2"));
#else
    d["cpu_avx2"] = py::none();
#endif
    return d;
  }, "How weft._C was built: compiler, OpenMP spec date (None without OpenMP), C++ standard, "
     "the SIMD clones of the vectorised kernels and whether this CPU takes the AVX2 one.");
}

}  // namespace weft
