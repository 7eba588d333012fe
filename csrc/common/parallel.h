// Thread pool front end.  Kernels only see parallel_for / parallel_chunks.
//
// The pool is weft's own (std::thread workers that block on a condition
// variable between regions), not OpenMP: the OpenMP runtime (libgomp) is one
// per process and shared with PyTorch, scikit-learn and numpy's BLAS, and its
// settings (wait policy, spin count, thread count) are read once for the whole
// process.  A passive wait that keeps weft's kernels fast on a busy machine
// could only be had there by changing those settings for every library (see
// parallel.cpp and tests/native/test_wait_policy.py).  The extension therefore
// does not link an OpenMP runtime at all.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>

namespace weft {

// Default: OMP_NUM_THREADS if set (read, never written: the common knob for
// "threads per process"), else the CPUs in this process's affinity mask.
// Returns 1 in a child forked after the parent used the pool (see parallel.cpp).
int get_num_threads();
// n >= 1; raises ValueError otherwise.
void set_num_threads(int n);

namespace detail {
// false in a forked child of a process that used the pool, and inside a chunk
// (a kernel called from a kernel runs serially on the calling thread).
bool parallel_allowed();

// Runs run(ctx, c) for every chunk c in [0, nchunks) on up to `nthreads` threads
// (the caller included), chunks handed out one at a time to whichever thread is
// free.  Returns the first exception a chunk threw (the other chunks still run),
// or null.  A second caller arriving while the pool is busy (kernels called from
// two Python threads at once) runs its chunks serially on its own thread.
std::exception_ptr run_in_pool(int nchunks, int nthreads, void (*run)(void*, int), void* ctx);
}  // namespace detail

// Number of chunks parallel_for would split [0, range) into: at most one per
// thread and none smaller than `grain`.
inline int plan_chunks(std::int64_t range, std::int64_t grain) {
  if (range <= 0) return 0;
  grain = std::max<std::int64_t>(grain, 1);
  if (!detail::parallel_allowed()) return 1;
  const std::int64_t by_grain = (range + grain - 1) / grain;
  return static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(get_num_threads(), by_grain)));
}

// plan_chunks over-split for load balance: per_thread chunks per thread when a
// team is worth starting, else 1.  Chunks are handed out dynamically, so when one
// core is shared with another process (or one chunk holds heavier rows than its
// estimate said) the other threads take over its remaining chunks instead of
// waiting for it.
inline int plan_tasks(std::int64_t range, std::int64_t grain, int per_thread) {
  const int teams = plan_chunks(range, grain);
  return teams > 1 ? teams * per_thread : std::max(teams, 1);
}

// Runs f(chunk, begin, end) for chunk = 0 .. nchunks-1, chunk c covering the
// c-th equal slice of [begin, end).  The split depends only on nchunks, never on
// which thread runs a chunk (chunks go to whichever thread is free), so a kernel
// that gives each chunk its own output (or its own scratch indexed by chunk) is
// deterministic.  Exceptions thrown by f are rethrown on the calling thread
// (first one wins).  f must not touch Python: kernels run with the GIL released.
template <class F>
void parallel_chunks(std::int64_t begin, std::int64_t end, int nchunks, const F& f) {
  if (begin >= end || nchunks <= 0) return;
  const std::int64_t range = end - begin;
  nchunks = static_cast<int>(std::min<std::int64_t>(nchunks, range));
  auto run_chunk = [&](int c) {
    // c * range may overflow for huge ranges; split as q*c + min(c, r) instead.
    const std::int64_t q = range / nchunks, r = range % nchunks;
    const std::int64_t b = begin + q * c + std::min<std::int64_t>(c, r);
    const std::int64_t e = b + q + (c < r ? 1 : 0);
    f(c, b, e);
  };
  if (nchunks > 1 && detail::parallel_allowed()) {
    const int nthreads = std::min(nchunks, get_num_threads());
    if (nthreads > 1) {
      using R = decltype(run_chunk);
      std::exception_ptr error = detail::run_in_pool(
          nchunks, nthreads, [](void* ctx, int c) { (*static_cast<R*>(ctx))(c); },
          static_cast<void*>(&run_chunk));
      if (error) std::rethrow_exception(error);
      return;
    }
  }
  for (int c = 0; c < nchunks; ++c) run_chunk(c);
}

// f(begin, end) over slices of [begin, end) of at least `grain` items; serial
// when the range is below grain or only one thread is set.
template <class F>
void parallel_for(std::int64_t begin, std::int64_t end, std::int64_t grain, const F& f) {
  parallel_chunks(begin, end, plan_chunks(end - begin, grain),
                  [&](int, std::int64_t b, std::int64_t e) { f(b, e); });
}

}  // namespace weft
