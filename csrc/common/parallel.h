// Thread pool front end.  Kernels only see parallel_for / parallel_chunks; the
// thread count is ours (not OpenMP's per-thread ICV) so that a kernel called
// from any Python thread honours weft.set_num_threads().
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>

#ifdef WEFT_HAVE_OPENMP
#include <omp.h>
#endif

namespace weft {

// Default: OMP_NUM_THREADS if set, else the CPUs in this process's affinity mask.
// Returns 1 in a child forked after the parent used the pool (see parallel.cpp).
int get_num_threads();
// n >= 1; raises ValueError otherwise.
void set_num_threads(int n);

namespace detail {
bool parallel_allowed();  // false in a forked child, in a nested region, or without OpenMP
void note_pool_used();
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
// deterministic.  Exceptions thrown by
// f are rethrown on the calling thread (first one wins).  f must not touch
// Python: kernels run with the GIL released.
template <class F>
void parallel_chunks(std::int64_t begin, std::int64_t end, int nchunks, const F& f) {
  if (begin >= end || nchunks <= 0) return;
  const std::int64_t range = end - begin;
  nchunks = static_cast<int>(std::min<std::int64_t>(nchunks, range));
  auto bounds = [&](int c, std::int64_t& b, std::int64_t& e) {
    // c * range may overflow for huge ranges; split as q*c + min(c, r) instead.
    const std::int64_t q = range / nchunks, r = range % nchunks;
    b = begin + q * c + std::min<std::int64_t>(c, r);
    e = b + q + (c < r ? 1 : 0);
  };
#ifdef WEFT_HAVE_OPENMP
  if (nchunks > 1 && detail::parallel_allowed()) {
    detail::note_pool_used();
    const int nthreads = std::min(nchunks, get_num_threads());
    std::exception_ptr error;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads)
    for (int c = 0; c < nchunks; ++c) {
      try {
        std::int64_t b, e;
        bounds(c, b, e);
        f(c, b, e);
      } catch (...) {
#pragma omp critical(weft_parallel_error)
        if (!error) error = std::current_exception();
      }
    }
    if (error) std::rethrow_exception(error);
    return;
  }
#endif
  for (int c = 0; c < nchunks; ++c) {
    std::int64_t b, e;
    bounds(c, b, e);
    f(c, b, e);
  }
}

// f(begin, end) over slices of [begin, end) of at least `grain` items; serial
// when the range is below grain, OpenMP is missing or only one thread is set.
template <class F>
void parallel_for(std::int64_t begin, std::int64_t end, std::int64_t grain, const F& f) {
  parallel_chunks(begin, end, plan_chunks(end - begin, grain),
                  [&](int, std::int64_t b, std::int64_t e) { f(b, e); });
}

}  // namespace weft
