"""Sparse benchmarks (area "sparse"): COO -> CSR conversion and coalesce against scipy;
SpMM (CSR @ dense, k = 64) and SpMV against scipy and torch.sparse CSR; the
element-wise sum of two CSR matrices against scipy's ``A + B``; SpGEMM A @ A
(n = 50,000, same generator and nnz/n) against scipy and torch.sparse CSR.

Workload (issue 4): a power-law matrix, n = 200,000, nnz = 2,000,000 float32,
entries in random order with duplicates. Goal: weft at least 2x faster than
scipy's ``coo.tocsr()`` and ``coo.sum_duplicates()``; issue 16 adds the row
"weft (grad)", ``to_sparse_csr()`` of a COO tensor that requires grad. Timed at the kernel level
(``weft._C``) and through the public API (``to_sparse_csr`` / ``coalesce``, which
add validation-free wrapping only).

Bandwidth: every kernel row carries the bytes one ideal pass must move (the
components read plus the result written); the summary prints bytes / median time
in GB/s next to the machine's copy bandwidth, measured in the same run as a
single-threaded numpy copy of a buffer well beyond the last-level cache (read +
write counted, as STREAM's copy does). A fraction near 1 means the kernel is
limited by memory, not by its code; above 1 means its working set (about 27 MB
for the SpMV) stayed in the last-level cache between calls.
"""
from __future__ import annotations

import numpy as np

from ._harness import Report, timeit, timeit_pair, timeit_round

N = 200_000
NNZ = 2_000_000


def power_law_coo(n, nnz, rng, alpha=1.2):
    """Rows with a power-law (Pareto) degree distribution, uniform random columns."""
    rows = np.minimum((rng.pareto(alpha, nnz) * n / 2000).astype(np.int64), n - 1)
    rows = rng.permutation(n)[rows]  # heavy rows scattered over the row range
    cols = rng.integers(0, n, nnz)
    vals = rng.standard_normal(nnz).astype(np.float32)
    return np.stack([rows, cols]), vals


COPY_BYTES = 256 << 20


def copy_bandwidth(rep, repeat, nbytes=COPY_BYTES):
    """Add the 'copy' row: a large numpy copy into a buffer already faulted in."""
    src = np.ones(nbytes // 8)
    dst = np.empty_like(src)
    rep.add("memory copy (numpy, 1 thread)", "numpy", timeit(lambda: np.copyto(dst, src), repeat),
            gbps_bytes=2 * src.nbytes)


def run(report=None, quick=False):
    import scipy.sparse as sp

    import weft
    from weft import _C
    from weft import sparse as S

    rep = report or Report("sparse")
    rng = np.random.default_rng(0)
    n, nnz = (N // 4, NNZ // 4) if quick else (N, NNZ)
    repeat = 3 if quick else 7
    idx, vals = power_law_coo(n, nnz, rng)
    v2 = vals[:, None]
    coo = sp.coo_array((vals, (idx[0], idx[1])), shape=(n, n))
    x = S.sparse_coo_tensor(idx, vals, [n, n])
    # issue 16: the same conversion on a tensor that requires grad (it also returns the
    # entry -> slot map and records the gradient)
    xg = S.sparse_coo_tensor(idx, vals, [n, n], stop_gradient=False)
    rep.note(f"workload: power-law n={n}, nnz={nnz}, float32, int64 indices; "
             f"weft threads: {weft.get_num_threads()}")

    def scipy_tocsr():
        return coo.tocsr()

    def scipy_sum_dup():
        c = sp.coo_array((vals, (idx[0], idx[1])), shape=(n, n))
        c.sum_duplicates()
        return c

    def scipy_build():
        return sp.coo_array((vals, (idx[0], idx[1])), shape=(n, n))

    copy_bandwidth(rep, repeat)
    # one pass reads the COO triplets and writes the result: CSR (crows, cols, values)
    # or coalesced COO (indices, values), both with int64 indices
    in_bytes = idx.nbytes + vals.nbytes
    nnz_out = coo.tocsr().nnz
    csr_bytes = in_bytes + (n + 1) * 8 + nnz_out * (8 + vals.itemsize)
    coo_bytes = in_bytes + nnz_out * (16 + vals.itemsize)
    # implementations take turns (A B C A B C ...): the machine's speed drifts over seconds
    case = "COO->CSR"
    fns = {"weft kernel": lambda: _C.sparse_coalesce(idx, v2, [n, n], True, False),
           "weft": lambda: x.to_sparse_csr(), "weft (grad)": lambda: xg.to_sparse_csr(),
           "scipy": scipy_tocsr}
    for impl, t in zip(fns, timeit_round(list(fns.values()), repeat)):
        rep.add(case, impl, t, gbps_bytes=csr_bytes)
    case = "coalesce"
    # scipy's sum_duplicates works in place: time it on a fresh matrix, minus construction
    fns = {"weft kernel": lambda: _C.sparse_coalesce(idx, v2, [n, n], False, False),
           "weft": lambda: S.coalesce(x), "scipy": scipy_sum_dup, "build": scipy_build}
    t = dict(zip(fns, timeit_round(list(fns.values()), repeat)))
    t["scipy"] = max(t["scipy"] - t.pop("build"), 1e-9)
    for impl, ti in t.items():
        rep.add(case, impl, ti, gbps_bytes=coo_bytes)
    _run_products(rep, coo.tocsr(), rng, repeat)
    _run_add(rep, n, nnz, rng, repeat)
    _run_spgemm(rep, rng, repeat, quick)
    return rep


def random_csr(n, nnz, rng):
    """An n x n float32 CSR with exactly ``nnz`` distinct uniformly random positions."""
    import scipy.sparse as sp

    pos = np.unique(rng.integers(0, n * n, nnz + nnz // 8))
    pos = np.sort(rng.permutation(pos)[:nnz])
    vals = rng.standard_normal(nnz).astype(np.float32)
    m = sp.csr_matrix((vals, (pos // n, pos % n)), shape=(n, n))
    m.sort_indices()
    return m


def _run_add(rep, n, nnz, rng, repeat):
    """CSR + CSR (union pattern; ~2 * nnz result entries) against scipy's ``A + B``.

    GB/s counts both operands' components read and the result's written once."""
    from weft import sparse as S

    a, b = random_csr(n, nnz, rng), random_csr(n, nnz, rng)
    x, y = S.from_scipy(a), S.from_scipy(b)
    out = a + b
    moved = sum(m.indptr.nbytes + m.indices.nbytes + m.data.nbytes for m in (a, b, out))
    rep.note(f"CSR+CSR add: two uniform random {n}x{n} float32 CSR with {nnz} nnz each, "
             f"int32 indices, {out.nnz} result entries")
    case = "CSR+CSR add"
    t_weft, t_scipy = timeit_pair(lambda: x + y, lambda: a + b, repeat)
    rep.add(case, "weft", t_weft, gbps_bytes=moved)
    rep.add(case, "scipy", t_scipy, gbps_bytes=moved)


SPGEMM_N = 50_000


def _run_spgemm(rep, rng, repeat, quick):
    """SpGEMM ``A @ A`` on the power-law workload scaled to n = 50,000 (nnz/n kept).

    scipy's product leaves the columns of each row unsorted; weft's (and torch's) are
    canonical, so weft does the sort on top. GB/s is not meaningful here (random
    access dominates); the note gives the flops and the output size."""
    import scipy.sparse as sp

    from weft import _C
    from weft import sparse as S

    n = SPGEMM_N // 2 if quick else SPGEMM_N
    nnz = n * (NNZ // N)
    idx, vals = power_law_coo(n, nnz, rng)
    a = sp.csr_array((vals, (idx[0], idx[1])), shape=(n, n))
    a.sum_duplicates()
    x = S.from_scipy(a)
    out = S.matmul(x, x)
    flops = int(np.diff(a.indptr)[a.indices].sum())
    rep.note(f"SpGEMM workload: power-law n={n}, nnz={a.nnz}, A@A has {out.nnz()} entries "
             f"from {flops} multiply-adds, float32")
    case = "SpGEMM A@A"
    comp = (x.crows().numpy(), x.cols().numpy(), x.values().numpy())
    fns = {"weft kernel": lambda: _C.sparse_spgemm(*comp, *comp, n),
           "weft": lambda: S.matmul(x, x), "scipy": lambda: a @ a}
    try:
        import torch
        tx = torch.sparse_csr_tensor(torch.from_numpy(a.indptr.astype(np.int64)),
                                     torch.from_numpy(a.indices.astype(np.int64)),
                                     torch.from_numpy(a.data), a.shape)
        tx @ tx
        fns["torch"] = lambda: tx @ tx
    except Exception:  # noqa: BLE001  (torch missing or without sparse CSR @ CSR)
        pass
    # taking turns, as for SpMV/SpMM: the machine's speed drifts over seconds
    for impl, t in zip(fns, timeit_round(list(fns.values()), repeat)):
        rep.add(case, impl, t)


def _run_products(rep, csr, rng, repeat, k=64):
    """SpMM (CSR @ dense [n, k]) and SpMV against scipy and torch.sparse CSR.

    Bytes: one pass over the CSR components and the output written, plus the dense
    operand read once (for SpMV the vector stays in cache, so its gather is
    counted once, not per entry; for SpMM the [n, k] rows gathered per entry do
    not fit in cache and are counted per entry)."""
    import weft
    from weft import _C
    from weft import sparse as S

    n = csr.shape[0]
    csr.sum_duplicates()
    x = S.from_scipy(csr)
    y = rng.standard_normal((n, k)).astype(np.float32)
    vec = np.ascontiguousarray(y[:, 0])
    yt, vt = weft.to_tensor(y), weft.to_tensor(vec)
    comp = csr.indptr.nbytes + csr.indices.nbytes + csr.data.nbytes
    try:
        import torch
        tx = torch.sparse_csr_tensor(torch.from_numpy(csr.indptr.astype(np.int64)),
                                     torch.from_numpy(csr.indices.astype(np.int64)),
                                     torch.from_numpy(csr.data), csr.shape)
    except Exception:  # noqa: BLE001  (torch missing or without sparse CSR)
        torch = tx = None
    for case, dense, dense_t, width in (("SpMM k=64", y, yt, k), ("SpMV", vec, vt, 1)):
        gathered = csr.nnz * width * 4 if width > 1 else vec.nbytes
        moved = comp + gathered + n * width * 4
        fw = (lambda: S.matmul(x, dense_t)) if width > 1 else (lambda: S.mv(x, dense_t))
        # weft and scipy alternate, so a change in machine load hits both alike; SpMV
        # takes milliseconds, so it can afford more repeats
        reps = repeat if width > 1 else 5 * repeat
        t_weft, t_scipy = timeit_pair(fw, lambda: csr @ dense, reps)
        rep.add(case, "weft", t_weft, gbps_bytes=moved)
        if width == 1 and hasattr(_C, "sparse_spmv"):
            parts = (csr.indptr, csr.indices, csr.data, vec)
            rep.add(case, "weft kernel", timeit(lambda: _C.sparse_spmv(*parts), reps),
                    gbps_bytes=moved)
        rep.add(case, "scipy", t_scipy, gbps_bytes=moved)
        if tx is not None:
            td = torch.from_numpy(dense)
            rep.add(case, "torch", timeit(lambda: tx @ td, repeat), gbps_bytes=moved)


def bandwidth_lines(rep):
    """Per kernel row: bytes / median time in GB/s and its fraction of the copy row."""
    copy = [r for r in rep.rows if r["case"].startswith("memory copy")]
    if not copy:
        return []
    copy_gbps = copy[0]["gbps_bytes"] / copy[0]["seconds"] / 1e9
    lines = [f"copy bandwidth (numpy, 1 thread, {COPY_BYTES >> 20} MiB): {copy_gbps:.2f} GB/s"]
    for r in rep.rows:
        if "gbps_bytes" in r and r is not copy[0]:
            gbps = r["gbps_bytes"] / r["seconds"] / 1e9
            lines.append(f"  {r['case']:<10} {r['impl']:<12} {r['gbps_bytes'] / 1e6:7.1f} MB "
                         f"{gbps:6.2f} GB/s = {gbps / copy_gbps:4.0%} of copy")
    return lines


def summary(rep):
    lines = bandwidth_lines(rep)
    for case in ("COO->CSR", "coalesce"):
        for impl in ("weft kernel", "weft", "weft (grad)"):
            r = rep.ratio(case, "scipy", impl)
            row = [x for x in rep.rows if x["case"] == case and x["impl"] == impl]
            if r is not None and row:
                gbps = row[0].get("gbps_bytes", 0) / row[0]["seconds"] / 1e9
                lines.append(f"{case}: scipy/{impl} = {r:.2f}x (goal >= 2x), "
                             f"{gbps:.2f} GB/s moved")
    for case, goal in (("SpMM k=64", "goal >= 2.5x scipy, faster than torch"),
                       ("SpMV", "goal >= 1.8x scipy")):
        row = [x for x in rep.rows if x["case"] == case and x["impl"] == "weft"]
        r = rep.ratio(case, "scipy", "weft")
        if r is None or not row:
            continue
        gbps = row[0]["gbps_bytes"] / row[0]["seconds"] / 1e9
        rt = rep.ratio(case, "torch", "weft")
        torch_text = f", torch/weft = {rt:.2f}x" if rt is not None else ""
        lines.append(f"{case}: scipy/weft = {r:.2f}x{torch_text} ({goal}), {gbps:.2f} GB/s")
    r = rep.ratio("CSR+CSR add", "scipy", "weft")
    if r is not None:
        row = [x for x in rep.rows if x["case"] == "CSR+CSR add" and x["impl"] == "weft"][0]
        gbps = row["gbps_bytes"] / row["seconds"] / 1e9
        lines.append(f"CSR+CSR add: scipy/weft = {r:.2f}x, {gbps:.2f} GB/s")
    case = "SpGEMM A@A"
    for impl in ("weft kernel", "weft"):
        r = rep.ratio(case, "scipy", impl)
        if r is not None:
            rt = rep.ratio(case, "torch", impl)
            torch_text = f", torch/{impl} = {rt:.2f}x" if rt is not None else ""
            lines.append(f"{case}: scipy/{impl} = {r:.2f}x{torch_text} (goal >= 1.5x scipy)")
    return lines
