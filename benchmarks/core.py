"""Core benchmarks: per-op autograd overhead, import time, large elementwise ops.

(a) 200 x ``tanh(y * 1.01 + 0.1)`` on a 16-element float32 tensor (600 ops) forward
    and backward, against PyTorch and Paddle when importable and the same arithmetic in
    plain numpy (the floor; goals: weft at most Paddle's time and 3x the floor);
(b) ``import weft`` in a fresh interpreter;
(c) elementwise and reduction ops on 1e6-element arrays against raw numpy;
(d) the native scatter-add behind the gradients of gather and indexing
    (``weft.index_add``) against ``np.add.at``, at 1 thread and the default count.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import numpy as np

from ._harness import Report, optional_import, timeit, timeit_pair, timeit_round


def chain_weft(weft, x0):
    def run():
        y = weft.to_tensor(x0, stop_gradient=False)
        h = y
        for _ in range(200):
            h = weft.tanh(h * 1.01 + 0.1)
        h.sum().backward()
        return y.grad
    return run


def chain_torch(torch, x0):
    def run():
        y = torch.tensor(x0, requires_grad=True)
        h = y
        for _ in range(200):
            h = torch.tanh(h * 1.01 + 0.1)
        h.sum().backward()
        return y.grad
    return run


def chain_paddle(paddle, x0):
    def run():
        y = paddle.to_tensor(x0, stop_gradient=False)
        h = y
        for _ in range(200):
            h = paddle.tanh(h * 1.01 + 0.1)
        h.sum().backward()
        return y.grad
    return run


def import_time(repeat=7):
    """Median wall time of ``import weft`` in fresh interpreters.

    Measured as users see it: from a neutral directory (inside the checkout the current
    directory heads sys.path and slows every import, numpy's too) and with Python's
    bytecode cache, which pip and Python normally keep; PYTHONDONTWRITEBYTECODE, set
    in some sandboxes, would make every run recompile the sources. One untimed run
    writes the cache.
    """
    code = "import time; t=time.perf_counter(); import weft; print(time.perf_counter()-t)"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    times = []
    for i in range(repeat + 1):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True, cwd=tempfile.gettempdir(), env=env)
        if i:
            times.append(float(out.stdout.strip()))
    return float(np.median(times))


def chain_numpy(x0):
    """The chain's arithmetic in plain numpy, forward then backward by hand: the floor
    that an autograd engine's per-op overhead is measured against."""
    scale, shift = np.float32(1.01), np.float32(0.1)

    def run():
        h, outs = x0, []
        for _ in range(200):
            h = np.tanh(h * scale + shift)
            outs.append(h)
        g = np.ones_like(h)
        for t in reversed(outs):
            g = g * (1 - t * t) * scale
        return g
    return run


def run(report=None, quick=False):
    # Peers first, as a user who wants them at full speed would import them (weft leaves
    # their threading alone either way: see the interop area).
    torch = optional_import("torch")
    paddle = optional_import("paddle")
    import weft

    rep = report or Report("core")
    rng = np.random.default_rng(0)
    x0 = rng.standard_normal(16).astype(np.float32)
    repeat = 3 if quick else 9

    # (a) small-op chain, forward + backward; gradients checked equal across peers; the
    # implementations take turns so that drifts in machine speed hit all alike
    case = "chain 600 ops fwd+bwd (16 x f32)"
    g_weft = chain_weft(weft, x0)().numpy()
    np.testing.assert_allclose(chain_numpy(x0)(), g_weft, rtol=1e-4, atol=1e-6)
    chains = {"weft": chain_weft(weft, x0), "numpy": chain_numpy(x0)}
    if torch is not None:
        torch.set_num_threads(1)
        np.testing.assert_allclose(chain_torch(torch, x0)().numpy(), g_weft, rtol=1e-4,
                                   atol=1e-6)
        chains["torch"] = chain_torch(torch, x0)
    else:
        rep.note("torch not installed: pip install torch==2.13.0")
    if paddle is not None:
        paddle.set_device("cpu")
        np.testing.assert_allclose(chain_paddle(paddle, x0)().numpy(), g_weft, rtol=1e-4,
                                   atol=1e-6)
        chains["paddle"] = chain_paddle(paddle, x0)
    else:
        rep.note("paddle not installed: pip install paddlepaddle")
    for impl, t in zip(chains, timeit_round(list(chains.values()), repeat, 3, warmup=2)):
        rep.add(case, impl, t)

    # (b) import time in a fresh interpreter
    rep.add("import weft", "weft", import_time(3 if quick else 7))

    # (c) large arrays: weft op vs the same numpy call
    n = 1_000_000
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    ta, tb = weft.to_tensor(a), weft.to_tensor(b)
    cases = [
        ("add 1e6 f32", lambda: ta + tb, lambda: a + b),
        ("multiply 1e6 f32", lambda: ta * tb, lambda: a * b),
        ("exp 1e6 f32", lambda: weft.exp(ta), lambda: np.exp(a)),
        ("tanh 1e6 f32", lambda: weft.tanh(ta), lambda: np.tanh(a)),
        ("sum 1e6 f32", lambda: ta.sum(), lambda: a.sum()),
        ("mean 1e6 f32", lambda: ta.mean(), lambda: a.mean()),
        ("max 1e6 f32", lambda: weft.max(ta), lambda: a.max()),
    ]
    for name, fw, fn in cases:
        tw, tn = timeit_pair(fw, fn, 3 * repeat, number=5)
        rep.add(name, "weft", tw)
        rep.add(name, "numpy", tn)

    # (d) scatter-add: the kernel, and the public op around it
    from weft import _native

    default_threads = _native.get_num_threads()
    scatter_cases = [
        ("out[100000,1] m=1e6 f64", (100000, 1), 1_000_000, np.float64),
        ("out[10000,64] m=2e5 f64", (10000, 64), 200_000, np.float64),
        ("out[1000] m=1e6 f64", (1000,), 1_000_000, np.float64),
        ("out[10000,16] m=1e6 f32", (10000, 16), 1_000_000, np.float32),
        ("out[2000,32] m=1e5 c128", (2000, 32), 100_000, np.complex128),
    ]
    for label, shape, m, dtype in scatter_cases[:2] if quick else scatter_cases:
        index = rng.integers(0, shape[0], size=m)
        src = rng.standard_normal((m,) + shape[1:])
        if np.dtype(dtype).kind == "c":
            src = src + 1j * rng.standard_normal(src.shape)
        src = src.astype(dtype)
        out = np.zeros(shape, dtype)
        ref, mine = np.zeros(shape, dtype), np.zeros(shape, dtype)
        np.add.at(ref, index, src)
        _native.index_add_(mine, index, src)
        assert np.array_equal(ref, mine), label  # same order of additions: bit-identical
        case = f"index_add {label}"
        rep.add(case, "numpy", timeit(lambda: np.add.at(out, index, src), repeat))
        for t in sorted({1, default_threads}):
            _native.set_num_threads(t)
            rep.add(case, "weft" if t == default_threads else f"weft T={t}",
                    timeit(lambda: _native.index_add_(out, index, src), repeat))
        _native.set_num_threads(default_threads)
        xt, it, st = weft.to_tensor(out), weft.to_tensor(index), weft.to_tensor(src)
        rep.add(case, "weft op", timeit(lambda: weft.index_add(xt, it, 0, st), repeat))
    return rep


def summary(rep):
    lines = []
    for peer, goal in (("paddle", " (goal <= 1)"), ("torch", ""), ("numpy", " (goal <= 3)")):
        r = rep.ratio("chain 600 ops fwd+bwd (16 x f32)", "weft", peer)
        if r is not None:
            lines.append(f"chain: weft/{peer} = {r:.2f}{goal}")
    imp = [r["seconds"] for r in rep.rows if r["case"] == "import weft"]
    if imp:
        lines.append(f"import weft: {imp[0]:.3f} s")
    worst = max((rep.ratio(r["case"], "weft", "numpy") or 0, r["case"]) for r in rep.rows
                if r["impl"] == "numpy" and not r["case"].startswith(("index_add", "chain")))
    lines.append(f"large-array ops: worst weft/numpy = {worst[0]:.2f} ({worst[1]})")
    for r in rep.rows:
        if r["case"].startswith("index_add") and r["impl"] == "numpy":
            k = rep.ratio(r["case"], "weft", "numpy")
            o = rep.ratio(r["case"], "weft op", "numpy")
            lines.append(f"{r['case']}: kernel/np.add.at = {k:.3f}, weft.index_add/np.add.at "
                         f"= {o:.3f}")
    return lines
