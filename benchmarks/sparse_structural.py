"""Structural sparse benchmarks: CSR ``slice``, CSR ``sum(axis=-1)`` and the CSR row
softmax, against scipy (slicing, row sums) and torch (``torch.sparse.softmax`` on COO,
its only sparse softmax) when installed.

Workload: the power-law matrix of ``benchmarks.sparse`` (n = 200,000, nnz = 2,000,000
float32, canonical CSR). Run with ``python -m benchmarks sparse_structural [--quick]``.
"""
from __future__ import annotations

import numpy as np

from ._harness import Report, optional_import, timeit
from .sparse import NNZ, N, power_law_coo


def run(report=None, quick=False):
    import scipy.sparse as sp

    import weft
    from weft import _C
    from weft import sparse as S
    from weft.sparse.structural import _csr_row_softmax

    rep = report or Report("sparse_structural")
    rng = np.random.default_rng(0)
    n, nnz = (N // 4, NNZ // 4) if quick else (N, NNZ)
    repeat = 3 if quick else 7
    idx, vals = power_law_coo(n, nnz, rng)
    csr = sp.coo_array((vals, (idx[0], idx[1])), shape=(n, n)).tocsr()
    csr.sum_duplicates()
    x = S.from_scipy(csr)
    rep.note(f"workload: power-law n={n}, nnz={csr.nnz}, float32; weft threads: "
             f"{weft.get_num_threads()}")

    r0, r1, c0, c1 = n // 4, 3 * n // 4, 0, n // 2
    case = "CSR slice rows 1/2, cols 1/2"
    cr = np.ascontiguousarray(x.crows().numpy())
    cl = np.ascontiguousarray(x.cols().numpy())
    rep.add(case, "weft kernel", timeit(lambda: _C.sparse_csr_slice(
        cr, cl, [1, n, n], [0, r0, c0], [1, r1, c1]), repeat))
    rep.add(case, "weft", timeit(lambda: S.slice(x, [0, 1], [r0, c0], [r1, c1]), repeat))
    rep.add(case, "scipy", timeit(lambda: csr[r0:r1, c0:c1], repeat))

    case = "CSR sum(axis=-1)"
    rep.add(case, "weft", timeit(lambda: S.sum(x, axis=-1), repeat))
    rep.add(case, "scipy", timeit(lambda: csr.sum(axis=1), repeat))

    case = "CSR row softmax"
    rep.add(case, "weft", timeit(lambda: _csr_row_softmax(x), repeat))
    torch = optional_import("torch")
    if torch is not None:
        tc = torch.sparse_coo_tensor(torch.from_numpy(np.stack(csr.nonzero()).astype(np.int64)),
                                     torch.from_numpy(csr.data), csr.shape).coalesce()
        rep.add(case, "torch", timeit(lambda: torch.sparse.softmax(tc, 1), repeat))
    return rep


def summary(rep):
    lines = []
    for case, peer in (("CSR slice rows 1/2, cols 1/2", "scipy"), ("CSR sum(axis=-1)", "scipy"),
                       ("CSR row softmax", "torch")):
        r = rep.ratio(case, peer, "weft")
        if r is not None:
            lines.append(f"{case}: {peer}/weft = {r:.2f}x")
    return lines

