"""Graph message-passing benchmarks (weft.geometric).

(a) ``send_u_recv`` sum and max on a power-law graph (n = 100,000 nodes,
    E = 1,000,000 edges, F = 64 float32 features), forward and forward+backward,
    against Paddle (``paddle.geometric.send_u_recv``, CPU) and PyTorch
    (``x[src]`` then ``index_add_`` for sum, ``scatter_reduce(reduce='amax',
    include_self=False)`` for max); results are checked equal first;
(b) forward scratch memory of weft above its inputs and output (``tracemalloc``;
    the native kernels allocate their scratch as numpy arrays, which report to it),
    as bytes per edge;
(c) ``segment_sum`` against torch_scatter's ``segment_csr`` when installed, else
    ``torch.segment_reduce``, and Paddle's ``segment_sum``;
(d) the sampling benchmarks of ``benchmarks/geometric_sampling.py`` when present.
"""
from __future__ import annotations

import importlib
import tracemalloc

import numpy as np

from ._harness import Report, optional_import, timeit

N_NODES, N_EDGES, FEAT = 100_000, 1_000_000, 64


def power_law_graph(n, e, rng, alpha=1.0):
    """Edges whose endpoints follow a Zipf-like law: a few hubs, a long tail."""
    w = 1.0 / np.arange(1, n + 1) ** alpha
    w /= w.sum()
    src = rng.permutation(n)[rng.choice(n, size=e, p=w)]
    dst = rng.permutation(n)[rng.choice(n, size=e, p=w)]
    return src.astype(np.int64), dst.astype(np.int64)


def _case(reduce, bwd):
    return f"send_u_recv {reduce} {'fwd+bwd' if bwd else 'fwd'} (1e5 n, 1e6 E, 64 f32)"


def _weft_fns(weft, x0, g0, src0, dst0, reduce):
    x = weft.to_tensor(x0)
    src, dst = weft.to_tensor(src0), weft.to_tensor(dst0)
    g = weft.to_tensor(g0)
    send = weft.geometric.send_u_recv

    def fwd():
        return send(x, src, dst, reduce_op=reduce).numpy()

    def fwd_bwd():
        xl = weft.to_tensor(x0, stop_gradient=False)
        out = send(xl, src, dst, reduce_op=reduce)
        return weft.grad(out, [xl], grad_outputs=[g])[0].numpy()

    return fwd, fwd_bwd


def _torch_fns(torch, x0, g0, src0, dst0, reduce):
    x, g = torch.from_numpy(x0), torch.from_numpy(g0)
    src, dst = torch.from_numpy(src0), torch.from_numpy(dst0)
    n, f = x0.shape
    idx = dst[:, None].expand(-1, f)

    def run(xx):
        if reduce == "sum":
            return torch.zeros(n, f, dtype=xx.dtype).index_add_(0, dst, xx[src])
        return torch.zeros(n, f, dtype=xx.dtype).scatter_reduce(0, idx, xx[src], reduce="amax",
                                                                include_self=False)

    def fwd():
        return run(x).numpy()

    def fwd_bwd():
        xl = x.clone().requires_grad_(True)
        out = run(xl)
        (gx,) = torch.autograd.grad(out, [xl], grad_outputs=[g])
        return gx.numpy()

    return fwd, fwd_bwd


def _paddle_fns(paddle, x0, g0, src0, dst0, reduce):
    x, g = paddle.to_tensor(x0), paddle.to_tensor(g0)
    src, dst = paddle.to_tensor(src0), paddle.to_tensor(dst0)
    send = paddle.geometric.send_u_recv

    def fwd():
        return send(x, src, dst, reduce_op=reduce).numpy()

    def fwd_bwd():
        xl = paddle.to_tensor(x0, stop_gradient=False)
        out = send(xl, src, dst, reduce_op=reduce)
        (gx,) = paddle.grad([out], [xl], grad_outputs=[g])
        return gx.numpy()

    return fwd, fwd_bwd


def forward_scratch_bytes(weft, x0, src0, dst0, reduce):
    """Peak bytes allocated by one weft forward, less its output (inputs exist before)."""
    x = weft.to_tensor(x0)
    src, dst = weft.to_tensor(src0), weft.to_tensor(dst0)
    weft.geometric.send_u_recv(x, src, dst, reduce_op=reduce)  # warm: lazy imports, caches
    tracemalloc.start()
    try:
        out = weft.geometric.send_u_recv(x, src, dst, reduce_op=reduce)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak - out._data.nbytes


def _segment_cases(rep, weft, torch, paddle, rng, repeat):
    n, segs, f = 1_000_000, 100_000, 16
    data0 = rng.standard_normal((n, f)).astype(np.float32)
    ids0 = np.sort(rng.integers(0, segs, size=n)).astype(np.int64)
    ids0[-1] = segs - 1
    case = "segment_sum (1e6 rows -> 1e5 segs, 16 f32)"
    data, ids = weft.to_tensor(data0), weft.to_tensor(ids0)
    want = weft.geometric.segment_sum(data, ids).numpy()
    rep.add(case, "weft", timeit(lambda: weft.geometric.segment_sum(data, ids), repeat))
    ts = optional_import("torch_scatter")
    if ts is not None and torch is not None:
        td, ptr = torch.from_numpy(data0), torch.from_numpy(
            np.searchsorted(ids0, np.arange(segs + 1)).astype(np.int64))
        np.testing.assert_allclose(ts.segment_csr(td, ptr, reduce="sum").numpy(), want,
                                   rtol=1e-4, atol=1e-4)
        rep.add(case, "torch_scatter", timeit(lambda: ts.segment_csr(td, ptr, reduce="sum"),
                                              repeat))
    else:
        rep.note("torch_scatter not installed: segment_sum compared with torch.segment_reduce")
        if torch is not None:
            td = torch.from_numpy(data0)
            lengths = torch.from_numpy(np.bincount(ids0, minlength=segs))
            np.testing.assert_allclose(
                torch.segment_reduce(td, "sum", lengths=lengths).numpy(), want, rtol=1e-4,
                atol=1e-4)
            rep.add(case, "torch", timeit(lambda: torch.segment_reduce(td, "sum",
                                                                       lengths=lengths), repeat))
    if paddle is not None:
        pd, pi = paddle.to_tensor(data0), paddle.to_tensor(ids0)
        np.testing.assert_allclose(paddle.geometric.segment_sum(pd, pi).numpy(), want,
                                   rtol=1e-4, atol=1e-4)
        rep.add(case, "paddle", timeit(lambda: paddle.geometric.segment_sum(pd, pi), repeat))


def run_sampling(rep, quick):
    """The sampling engineer's cases, when ``benchmarks/geometric_sampling.py`` exists."""
    try:
        mod = importlib.import_module("benchmarks.geometric_sampling")
    except ModuleNotFoundError as e:
        if e.name != "benchmarks.geometric_sampling":
            raise
        rep.note("benchmarks/geometric_sampling.py not present: sampling not benchmarked")
        return rep
    return mod.run(rep, quick)


def run(report=None, quick=False):
    import weft
    import weft.geometric  # noqa: F401  (until weft/__init__ imports it)

    rep = report or Report("geometric")
    rng = np.random.default_rng(0)
    repeat = 3 if quick else 7
    src0, dst0 = power_law_graph(N_NODES, N_EDGES, rng)
    x0 = rng.standard_normal((N_NODES, FEAT)).astype(np.float32)
    g0 = rng.standard_normal((N_NODES, FEAT)).astype(np.float32)
    torch = optional_import("torch")
    paddle = optional_import("paddle")
    if torch is None:
        rep.note("torch not installed: pip install torch")
    if paddle is None:
        rep.note("paddle not installed: pip install paddlepaddle")
    else:
        paddle.set_device("cpu")
    rep.note(f"weft threads: {weft.get_num_threads()}"
             + (f", torch threads: {torch.get_num_threads()}" if torch is not None else ""))

    for reduce in ("sum", "max"):
        fns = {"weft": _weft_fns(weft, x0, g0, src0, dst0, reduce)}
        if torch is not None:
            fns["torch"] = _torch_fns(torch, x0, g0, src0, dst0, reduce)
        if paddle is not None:
            fns["paddle"] = _paddle_fns(paddle, x0, g0, src0, dst0, reduce)
        for bwd in (False, True):
            want = fns["weft"][bwd]()
            for impl, pair in fns.items():
                # torch splits a max's gradient among ties and repeated edges; weft and
                # Paddle give each of them the full gradient
                if impl != "weft" and not (impl == "torch" and reduce == "max" and bwd):
                    np.testing.assert_allclose(pair[bwd](), want, rtol=1e-3, atol=1e-2,
                                               err_msg=f"{impl} {reduce} bwd={bwd}")
            for impl, pair in fns.items():
                rep.add(_case(reduce, bwd), impl, timeit(pair[bwd], repeat))
        scratch = forward_scratch_bytes(weft, x0, src0, dst0, reduce)
        rep.add(f"send_u_recv {reduce} fwd scratch", "weft", 0.0,
                scratch_bytes=int(scratch), bytes_per_edge=scratch / N_EDGES)
        rep.note(f"send_u_recv {reduce} forward scratch: {scratch / 2**20:.1f} MiB = "
                 f"{scratch / N_EDGES:.2f} bytes/edge (goal <= 16)")

    _segment_cases(rep, weft, torch, paddle, rng, repeat)
    run_sampling(rep, quick)
    return rep


def summary(rep):
    lines = []
    for reduce in ("sum", "max"):
        for bwd in (False, True):
            case = _case(reduce, bwd)
            for peer, goal in (("paddle", 5), ("torch", 3)):
                r = rep.ratio(case, peer, "weft")
                if r is not None:
                    lines.append(f"{case}: {peer}/weft = {r:.2f}x (goal >= {goal}x)")
    for r in rep.rows:
        if "bytes_per_edge" in r:
            lines.append(f"{r['case']}: {r['bytes_per_edge']:.2f} bytes/edge (goal <= 16)")
    seg = "segment_sum (1e6 rows -> 1e5 segs, 16 f32)"
    for peer in ("torch_scatter", "torch", "paddle"):
        r = rep.ratio(seg, peer, "weft")
        if r is not None:
            lines.append(f"{seg}: {peer}/weft = {r:.2f}x")
    return lines
