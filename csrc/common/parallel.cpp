#include "common/parallel.h"

#include <pybind11/pybind11.h>

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
}

}  // namespace weft
