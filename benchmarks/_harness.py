"""A small timing harness: medians of repeated runs, ratio tables, JSON output.

Machines here are noisy, so every figure is the median of several repeats after a
warm-up, and comparisons are ratios taken in the same run.
"""
from __future__ import annotations

import json
import os
import platform
import statistics
import time


def timeit(fn, repeat=7, number=1, warmup=1):
    """Median seconds per call of ``fn`` over ``repeat`` runs of ``number`` calls."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times)


def timeit_pair(fa, fb, repeat=7, number=1, warmup=1):
    """Medians of ``fa`` and ``fb`` timed alternately (A B A B ...), so that drifts in
    machine speed and cache state affect both alike."""
    return tuple(timeit_round([fa, fb], repeat, number, warmup))


def timeit_round(fns, repeat=7, number=1, warmup=1):
    """Medians of every function in ``fns``, timed in turn, the order rotated each round
    (A B C, B C A, C A B ...): a library whose idle threads keep spinning after its
    call (OpenMP, MKL) slows whatever runs next, so no function always follows the
    same one."""
    for _ in range(warmup):
        for f in fns:
            f()
    times = [[] for _ in fns]
    n = len(fns)
    for r in range(repeat):
        for j in range(n):
            i = (j + r) % n
            f = fns[i]
            t0 = time.perf_counter()
            for _ in range(number):
                f()
            times[i].append((time.perf_counter() - t0) / number)
    return [statistics.median(t) for t in times]


def optional_import(name):
    """The module, or None when it is not installed (peers are never dependencies)."""
    try:
        return __import__(name)
    except Exception:
        return None


class Report:
    """Rows of (case, impl, seconds) turned into a table with ratios to a baseline."""

    def __init__(self, area):
        self.area = area
        self.rows = []
        self.notes = []

    def add(self, case, impl, seconds, **extra):
        self.rows.append(dict(case=case, impl=impl, seconds=seconds, **extra))

    def note(self, text):
        self.notes.append(text)

    def ratio(self, case, a, b):
        """seconds(a) / seconds(b) for one case, or None if either is missing."""
        ta = [r["seconds"] for r in self.rows if r["case"] == case and r["impl"] == a]
        tb = [r["seconds"] for r in self.rows if r["case"] == case and r["impl"] == b]
        if not ta or not tb:
            return None
        return ta[0] / tb[0]

    def print_table(self):
        cases = []
        for r in self.rows:
            if r["case"] not in cases:
                cases.append(r["case"])
        print(f"\n== benchmarks: {self.area} ==")
        print(f"{'case':<44} {'impl':<10} {'median':>12} {'vs weft':>9}")
        for c in cases:
            base = [r["seconds"] for r in self.rows if r["case"] == c and r["impl"] == "weft"]
            for r in (r for r in self.rows if r["case"] == c):
                rel = f"{r['seconds'] / base[0]:.2f}x" if base and r["impl"] != "weft" else ""
                print(f"{c:<44} {r['impl']:<10} {_fmt(r['seconds']):>12} {rel:>9}")
        for n in self.notes:
            print(f"note: {n}")

    def write_json(self, path=None):
        path = path or os.path.join(os.path.dirname(__file__), "results", f"{self.area}.json")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        data = dict(area=self.area, machine=platform.platform(), python=platform.python_version(),
                    cpu_count=os.cpu_count(), rows=self.rows, notes=self.notes)
        with open(path, "w") as f:
            json.dump(data, f, indent=2)
        print(f"wrote {path}")
        return path


def _fmt(s):
    if s >= 1:
        return f"{s:.3f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.3f} ms"
    return f"{s * 1e6:.2f} us"
