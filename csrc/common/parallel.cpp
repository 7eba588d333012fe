#include "common/parallel.h"

#include <pybind11/pybind11.h>

#include "common/simd.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#ifndef _WIN32
#include <pthread.h>
#endif
#if defined(__linux__)
#include <sched.h>
#endif

namespace py = pybind11;

namespace weft {

namespace {

std::atomic<int> g_num_threads{0};  // 0: not resolved yet
std::atomic<bool> g_pool_started{false};
// A forked child has only the forking thread: the pool's workers (and any lock
// they held) are gone.  Such a child runs serially, as PyTorch's does
// (multiprocessing's default start method on Linux, DataLoader-style workers).
std::atomic<bool> g_bad_fork{false};
// Set on pool workers, and on a caller while it runs chunks: a kernel called
// from inside a chunk runs serially instead of waiting on the pool it is part of.
thread_local bool t_in_chunk = false;

#ifndef _WIN32
void on_fork_child() {
  if (g_pool_started.load(std::memory_order_relaxed)) g_bad_fork.store(true, std::memory_order_relaxed);
}
[[maybe_unused]] const bool g_atfork_registered = [] {
  pthread_atfork(nullptr, nullptr, on_fork_child);
  return true;
}();
#endif

int default_num_threads() {
  // OMP_NUM_THREADS is "n" or a per-nesting-level list "n,m,..."; the first entry counts.
  if (const char* env = std::getenv("OMP_NUM_THREADS")) {
    char* stop = nullptr;
    const long n = std::strtol(env, &stop, 10);
    if (stop != env && n > 0) return static_cast<int>(std::min<long>(n, 1024));
  }
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
#endif
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

// Workers sleep on a condition variable between regions (a futex wait: no
// spinning), so an idle weft never takes a core from the Python thread, numpy's
// BLAS, another library's threads or another process.  One region runs at a
// time; its chunks are claimed from an atomic counter by the caller and the
// workers it asked for.
class Pool {
 public:
  std::exception_ptr run(int nchunks, int nthreads, void (*fn)(void*, int), void* ctx) {
    std::unique_lock<std::mutex> caller(caller_mu_, std::try_to_lock);
    int helpers = 0;
    if (caller.owns_lock()) helpers = start_workers(nthreads - 1);
    if (helpers == 0) return run_serially(nchunks, fn, ctx);
    {
      std::lock_guard<std::mutex> lk(mu_);
      fn_ = fn;
      ctx_ = ctx;
      nchunks_ = nchunks;
      next_.store(0, std::memory_order_relaxed);
      error_ = nullptr;
      helpers_ = busy_ = helpers;
      ++generation_;
    }
    wake_.notify_all();
    t_in_chunk = true;
    claim_chunks();
    t_in_chunk = false;
    std::unique_lock<std::mutex> lk(mu_);
    done_.wait(lk, [&] { return busy_ == 0; });
    return error_;
  }

 private:
  static std::exception_ptr run_serially(int nchunks, void (*fn)(void*, int), void* ctx) {
    const bool outer = t_in_chunk;
    t_in_chunk = true;
    std::exception_ptr error;
    for (int c = 0; c < nchunks; ++c) {
      try {
        fn(ctx, c);
      } catch (...) {
        if (!error) error = std::current_exception();
      }
    }
    t_in_chunk = outer;
    return error;
  }

  // Ensures `wanted` workers exist (fewer if the system refuses threads); returns
  // how many can help.  Called with caller_mu_ held.
  int start_workers(int wanted) {
    while (static_cast<int>(workers_.size()) < wanted) {
      try {
        const int index = static_cast<int>(workers_.size());
        workers_.emplace_back([this, index] { work(index); });
        g_pool_started.store(true, std::memory_order_relaxed);
      } catch (const std::system_error&) {
        break;
      }
    }
    return std::min(wanted, static_cast<int>(workers_.size()));
  }

  void claim_chunks() {
    for (;;) {
      const int c = next_.fetch_add(1, std::memory_order_relaxed);
      if (c >= nchunks_) return;
      try {
        fn_(ctx_, c);
      } catch (...) {
        std::lock_guard<std::mutex> lk(error_mu_);
        if (!error_) error_ = std::current_exception();
      }
    }
  }

  [[noreturn]] void work(int index) {
    t_in_chunk = true;
    std::uint64_t seen = 0;
    std::unique_lock<std::mutex> lk(mu_);
    for (;;) {
      wake_.wait(lk, [&] { return generation_ != seen; });
      seen = generation_;
      // A region that asked for fewer helpers does not wait for this one.  It
      // cannot miss a region that needs it: that region does not finish (and no
      // later one is posted) before this worker has counted itself out.
      if (index >= helpers_) continue;
      lk.unlock();
      claim_chunks();
      lk.lock();
      if (--busy_ == 0) done_.notify_one();
    }
  }

  std::mutex caller_mu_;  // one region at a time
  std::mutex mu_;         // guards the fields below except next_
  std::mutex error_mu_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;  // detached in effect: the pool is never destroyed
  std::uint64_t generation_ = 0;
  void (*fn_)(void*, int) = nullptr;
  void* ctx_ = nullptr;
  int nchunks_ = 0;
  int helpers_ = 0, busy_ = 0;
  std::atomic<int> next_{0};
  std::exception_ptr error_;
};

// Never destroyed: workers blocked in wait() at interpreter exit must not see
// their pool's mutex and condition variables torn down under them.
Pool& pool() {
  static Pool* p = new Pool();
  return *p;
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

bool parallel_allowed() { return !g_bad_fork.load(std::memory_order_relaxed) && !t_in_chunk; }

std::exception_ptr run_in_pool(int nchunks, int nthreads, void (*run)(void*, int), void* ctx) {
  return pool().run(nchunks, nthreads, run, ctx);
}

}  // namespace detail

void bind_parallel(py::module_& m) {
  m.def("get_num_threads", &get_num_threads,
        "Number of threads native kernels use (default: OMP_NUM_THREADS or the CPU count).");
  m.def("set_num_threads", &set_num_threads, py::arg("n"),
        "Set the number of threads native kernels use; results do not depend on it.");
  // Kept for callers of earlier versions: the kernels no longer use OpenMP.
  m.def("has_openmp", [] { return false; },
        "Always False: native kernels run on weft's own thread pool, not on OpenMP.");
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
    // The kernels run on weft's own pool (parallel.h); no OpenMP runtime is linked.
    d["openmp"] = py::none();
    d["thread_pool"] = "weft";
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
