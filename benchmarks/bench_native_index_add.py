"""weft._C.index_add_ against np.add.at.

    python benchmarks/bench_native_index_add.py [--repeat 7] [--threads 1 2 ...]

Prints the median of `repeat` timed runs (after one warm-up) for each case and
thread count, and the ratio np.add.at / weft (> 1: weft is faster).  The same
`out` is accumulated into across runs; the work per run does not change.
"""

import argparse
import os
import sys
import time

import numpy as np

from weft import _native

CASES = [
    # name, out shape, m, dtype
    ("a: out[100000, 1], m=1e6, float64", (100000, 1), 1_000_000, np.float64),
    ("b: out[10000, 64], m=2e5, float64", (10000, 64), 200_000, np.float64),
    ("c: out[1000], m=1e6, float64", (1000,), 1_000_000, np.float64),
    ("d: out[10000, 16], m=1e6, float32", (10000, 16), 1_000_000, np.float32),
    ("e: out[2000, 32], m=1e5, complex128", (2000, 32), 100_000, np.complex128),
]


def median_time(fn, repeat):
    fn()  # warm-up: page in scratch buffers and the OpenMP team
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def make_case(shape, m, dtype, rng):
    out = np.zeros(shape, dtype=dtype)
    index = rng.integers(0, shape[0], size=m, dtype=np.int64)
    src = rng.standard_normal((m,) + shape[1:])
    if np.dtype(dtype).kind == "c":
        src = src + 1j * rng.standard_normal(src.shape)
    return out, index, src.astype(dtype)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--threads", type=int, nargs="*", default=None,
                        help="thread counts to try (default: 1 and the default count)")
    args = parser.parse_args(argv)
    default_threads = _native.get_num_threads()
    threads = args.threads or sorted({1, default_threads})
    rng = np.random.default_rng(0)

    print(f"numpy {np.__version__}, {os.cpu_count()} CPUs, default threads {default_threads}, "
          f"median of {args.repeat}")
    print(f"{'case':40s} {'np.add.at ms':>13s} " + " ".join(f"{'weft T=' + str(t) + ' ms':>13s}" for t in threads)
          + " " + " ".join(f"{'ratio T=' + str(t):>10s}" for t in threads))
    for name, shape, m, dtype in CASES:
        out, index, src = make_case(shape, m, dtype, rng)
        ref = out.copy()
        t_np = median_time(lambda: np.add.at(ref, index, src), args.repeat)
        t_weft = []
        for t in threads:
            _native.set_num_threads(t)
            t_weft.append(median_time(lambda: _native.index_add_(out, index, src), args.repeat))
        _native.set_num_threads(default_threads)
        # Both accumulated the same number of runs in the same order per element.
        check = np.zeros(shape, dtype)
        np.add.at(check, index, src)
        mine = np.zeros(shape, dtype)
        _native.index_add_(mine, index, src)
        assert np.array_equal(check, mine), name
        print(f"{name:40s} {t_np * 1e3:13.2f} " + " ".join(f"{x * 1e3:13.2f}" for x in t_weft)
              + " " + " ".join(f"{t_np / x:10.1f}" for x in t_weft))
    return 0


if __name__ == "__main__":
    sys.exit(main())
