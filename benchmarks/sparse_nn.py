"""Sparse convolution benchmarks (weft.sparse.nn) against Paddle's CPU sparse
convolution and a dense ``torch.nn.functional.conv3d`` on the same grid.

Workload: a LiDAR-like scene, voxels on a smooth 2-D surface (a height field)
inside a 3-D grid of depth 128, 20,000 and 100,000 active voxels (occupancy about
0.6 %), C = 16, 32, 64 in and out channels, kernel 3x3x3:

* rulebook construction (submanifold; regular with stride 2),
* ``subm_conv3d`` forward (rulebook built in the call, and cached by ``key``) and
  forward + backward (gradients to the features and the weight),
* ``conv3d`` (stride 2, padding 1) forward and forward + backward,

with Paddle's ``paddle.sparse.nn.functional.subm_conv3d`` / ``conv3d`` (CPU) and the
dense convolution where it fits a 1.5 GiB budget, timed in the same rounds. The same
run measures the SGEMM rate of one large ``numpy.matmul`` (2048 x 2048 float32) and
the rate of the forward's GEMM part: the kernel's own blocked products over as many
rows as the submanifold forward has pairs, without gather or scatter (``_gemm_part``).
Paddle's and torch's OpenMP threads spin after their calls; weft's rows are timed in
rounds of their own, apart from the peers.

``python -m benchmarks sparse_nn [--quick]`` (--quick: 20,000 voxels, C = 16 and 32,
fewer repeats).
"""
from __future__ import annotations

import numpy as np

from ._harness import Report, optional_import, timeit, timeit_round

DEPTH = 128
DENSE_BUDGET = 1.5 * 2 ** 30  # bytes of dense input + output the torch reference may use
DENSE_FLOP_BUDGET = 2e11      # above this the dense convolution would take minutes here


def lidar_scene(nnz, rng, depth=DEPTH):
    """``(indices [4, nnz] int64, spatial [g, g, depth])``: voxels of a smooth height
    field (two crossed sine waves), 80 % of the surface's cells kept at random."""
    g = int(np.ceil(np.sqrt(nnz / 0.8)))
    xs, ys = np.meshgrid(np.arange(g), np.arange(g), indexing="ij")
    z = depth / 2 + depth / 4 * np.sin(xs / g * 3 * np.pi) * np.cos(ys / g * 2 * np.pi)
    pts = np.stack([xs.ravel(), ys.ravel(), np.clip(np.round(z.ravel()), 0, depth - 1)])
    keep = np.sort(rng.choice(pts.shape[1], nnz, replace=False))
    idx = np.vstack([np.zeros(nnz, np.int64), pts[:, keep].astype(np.int64)])
    return idx, [g, g, depth]


def _sgemm_rate(repeat):
    a = np.random.default_rng(1).random((2048, 2048), dtype=np.float32)
    t = timeit(lambda: a @ a, repeat)
    return 2 * 2048 ** 3 / t, t


def _gemm_part(v, w, rb, repeat):
    """Seconds of the submanifold forward's products alone: the kernel run on the same
    number of rows through one offset that pairs every row with itself, so that it
    issues the forward's blocked products (same block shapes, same threads) with no
    gather or scatter."""
    from weft._native import extension as _C
    from weft.sparse.nn._rulebook import _gemm_capsule

    p, c = rb.num_pairs, v.shape[1]
    rows = np.ascontiguousarray(np.resize(v, (p, c)))
    ident = np.arange(p, dtype=np.int64)
    off = np.array([0, p], dtype=np.int64)
    w0 = np.ascontiguousarray(w[:1])
    cap = _gemm_capsule(np.float32)
    return timeit(lambda: _C.sparse_conv_gemm(rows, w0, off, ident, ident, p, 0, False, cap),
                  repeat)


def _weft_cases(rep, case, idx, sp, vals, wnp, repeat):
    import weft
    from weft.sparse.nn import _rulebook as RB
    from weft.sparse.nn import functional as F

    c, m = wnp.shape[-2:]
    x = weft.sparse.sparse_coo_tensor(idx, vals, [1, *sp, c])
    w = weft.to_tensor(wnp)
    out2 = [(s + 2 - 3) // 2 + 1 for s in sp]

    def fwd_bwd(conv, **kw):
        xg = weft.sparse.sparse_coo_tensor(idx, vals, [1, *sp, c], stop_gradient=False)
        wg = weft.to_tensor(wnp, stop_gradient=False)
        conv(xg, wg, **kw).values().sum().backward()

    fns = {
        "rulebook subm": lambda: RB.build(idx, 1, sp, [3] * 3, [1] * 3, [1] * 3, [1] * 3, sp, True),
        "rulebook conv s2": lambda: RB.build(idx, 1, sp, [3] * 3, [2] * 3, [1] * 3, [1] * 3, out2,
                                             False),
        "subm fwd": lambda: F.subm_conv3d(x, w),
        "subm fwd (cached rulebook)": lambda: F.subm_conv3d(x, w, key="bench"),
        "subm fwd+bwd": lambda: fwd_bwd(F.subm_conv3d),
        "conv s2 fwd": lambda: F.conv3d(x, w, stride=2, padding=1),
        "conv s2 fwd+bwd": lambda: fwd_bwd(F.conv3d, stride=2, padding=1),
    }
    for name, t in zip(fns, timeit_round(list(fns.values()), repeat)):
        rep.add(f"{case} {name}", "weft", t)
    rb = RB.build(idx, 1, sp, [3] * 3, [1] * 3, [1] * 3, [1] * 3, sp, True)
    return rb


def _paddle_cases(rep, case, paddle, idx, sp, vals, wnp, with_backward):
    F = paddle.sparse.nn.functional
    c = wnp.shape[-2]
    pidx = paddle.to_tensor(idx)

    def coo(grad):
        return paddle.sparse.sparse_coo_tensor(pidx, paddle.to_tensor(vals), [1, *sp, c],
                                               stop_gradient=not grad)

    x, w = coo(False), paddle.to_tensor(wnp)

    def fwd_bwd(conv, **kw):
        xg, wg = coo(True), paddle.to_tensor(wnp, stop_gradient=False)
        conv(xg, wg, **kw).values().sum().backward()

    fns = {"subm fwd": lambda: F.subm_conv3d(x, w, padding=1),
           "conv s2 fwd": lambda: F.conv3d(x, w, stride=2, padding=1)}
    if with_backward:
        fns["subm fwd+bwd"] = lambda: fwd_bwd(F.subm_conv3d, padding=1)
        fns["conv s2 fwd+bwd"] = lambda: fwd_bwd(F.conv3d, stride=2, padding=1)
    # seconds per call here: one timed call each, after a small call that loads the
    # kernels (Paddle's first call pays for its initialisation)
    small = paddle.sparse.sparse_coo_tensor(pidx[:, :10], paddle.to_tensor(vals[:10]),
                                            [1, *sp, c])
    F.subm_conv3d(small, w, padding=1)
    for name, t in zip(fns, timeit_round(list(fns.values()), repeat=1, warmup=0)):
        rep.add(f"{case} {name}", "paddle", t)


def _torch_dense(rep, case, torch, idx, sp, vals, wnp, repeat):
    c, m = wnp.shape[-2:]
    voxels = int(np.prod(sp))
    need = voxels * (c + m) * 4
    flops = 2 * voxels * 27 * c * m
    if need > DENSE_BUDGET or flops > DENSE_FLOP_BUDGET:
        rep.note(f"{case}: dense torch conv3d skipped ({need / 2 ** 30:.1f} GiB, "
                 f"{flops / 1e9:.0f} GFLOP)")
        return
    dense = torch.zeros((1, c, *sp), dtype=torch.float32)
    dense[0, :, idx[1], idx[2], idx[3]] = torch.from_numpy(vals.T.copy())
    wt = torch.from_numpy(np.ascontiguousarray(wnp.transpose(4, 3, 0, 1, 2)))
    with torch.no_grad():
        rep.add(f"{case} subm fwd", "torch dense",
                timeit(lambda: torch.nn.functional.conv3d(dense, wt, padding=1), repeat))


def run(report=None, quick=False):
    import weft
    from weft.sparse.nn import _rulebook as RB

    rep = report or Report("sparse_nn")
    rng = np.random.default_rng(0)
    sizes = [20000] if quick else [20000, 100000]
    channels = [16, 32] if quick else [16, 32, 64]
    repeat = 3 if quick else 7
    # `import paddle` sets OMP_NUM_THREADS=1 in os.environ, which weft's pool and
    # scipy's OpenBLAS read as their default: both are settled before it loads
    threads = weft.get_num_threads()
    RB._gemm_capsule(np.float32)
    paddle = optional_import("paddle")
    torch = optional_import("torch")
    weft.set_num_threads(threads)
    if paddle is not None:
        paddle.set_device("cpu")
    rate, t_sgemm = _sgemm_rate(repeat)
    rep.add("numpy.matmul 2048^2 float32", "numpy", t_sgemm, gflops=rate / 1e9)
    rep.note(f"SGEMM rate (numpy.matmul 2048x2048 float32): {rate / 1e9:.1f} GFLOP/s")
    rep.note(f"weft threads {weft.get_num_threads()}"
             + (f", torch threads {torch.get_num_threads()}" if torch is not None else ""))
    for nnz in sizes:
        idx, sp = lidar_scene(nnz, rng)
        rep.note(f"scene {nnz} voxels in a {sp[0]}x{sp[1]}x{sp[2]} grid: occupancy "
                 f"{100 * nnz / np.prod(sp):.2f} %")
        for c in channels:
            case = f"n={nnz} C={c}"
            vals = rng.standard_normal((nnz, c)).astype(np.float32)
            wnp = (rng.standard_normal((3, 3, 3, c, c)) * (2 / (27 * c)) ** 0.5).astype(np.float32)
            rb = _weft_cases(rep, case, idx, sp, vals, wnp, repeat)
            t_gemm = _gemm_part(vals, wnp.reshape(27, c, c), rb, repeat)
            flops = 2 * rb.num_pairs * c * c
            rep.add(f"{case} subm fwd GEMM part", "weft", t_gemm, gflops=flops / t_gemm / 1e9,
                    flops=flops, sgemm_rate=rate)
            if paddle is not None and (nnz <= 20000 or c == 16):
                _paddle_cases(rep, case, paddle, idx, sp, vals, wnp,
                              with_backward=nnz <= 20000 and c <= 32)
            if torch is not None:
                _torch_dense(rep, case, torch, idx, sp, vals, wnp, repeat)
    return rep


def summary(rep):
    lines = []
    cases = sorted({r["case"].rsplit(" subm", 1)[0].rsplit(" conv", 1)[0].rsplit(" rulebook", 1)[0]
                    for r in rep.rows if r["case"].startswith("n=")},
                   key=lambda s: (int(s.split()[0][2:]), int(s.split()[1][2:])))
    for case in cases:
        parts = []
        for op in ("subm fwd", "subm fwd+bwd", "conv s2 fwd", "conv s2 fwd+bwd"):
            r = rep.ratio(f"{case} {op}", "paddle", "weft")
            if r is not None:
                parts.append(f"{op} paddle/weft {r:.0f}x")
        r = rep.ratio(f"{case} subm fwd", "torch dense", "weft")
        if r is not None:
            parts.append(f"dense torch/weft subm fwd {r:.1f}x")
        gemm = [x for x in rep.rows if x["case"] == f"{case} subm fwd GEMM part"]
        if gemm:
            flops, t_gemm, rate = gemm[0]["flops"], gemm[0]["seconds"], gemm[0]["sgemm_rate"]
            t_fwd = [x["seconds"] for x in rep.rows
                     if x["case"] == f"{case} subm fwd (cached rulebook)"][0]
            parts.append(f"GEMM part {flops / t_gemm / 1e9:.0f} GFLOP/s = "
                         f"{100 * flops / t_gemm / rate:.0f} % of SGEMM, {100 * t_gemm / t_fwd:.0f} % "
                         f"of the cached forward ({flops / t_fwd / 1e9:.0f} GFLOP/s overall)")
        lines.append(f"{case}: " + "; ".join(parts))
    return lines
