"""nn benchmark: one full training step of a small MLP, weft against PyTorch and Paddle.

Run ``OPENBLAS_NUM_THREADS=1 python -m benchmarks nn`` on a shared machine: torch then
uses the same thread count, and the ratio reflects the libraries, not contention.

The step is forward (3-layer MLP 256 -> 256 -> 256 -> 10 with ReLU), softmax
cross-entropy on a batch of 512, backward, and an Adam update, all float32 on the
CPU. The peers run the same model from the same initial weights and data, and
their losses after a few steps are checked to agree before timing.
"""
from __future__ import annotations

import os

import numpy as np

from ._harness import Report, optional_import, timeit_round

BATCH, D_IN, HIDDEN, CLASSES = 512, 256, 256, 10
CASE = f"MLP train step (b={BATCH}, {D_IN}-{HIDDEN}-{HIDDEN}-{CLASSES}, Adam)"


def _data(rng):
    x = rng.standard_normal((BATCH, D_IN)).astype(np.float32)
    y = rng.integers(0, CLASSES, BATCH).astype(np.int64)
    dims = [(D_IN, HIDDEN), (HIDDEN, HIDDEN), (HIDDEN, CLASSES)]
    ws = [(rng.standard_normal(s) / np.sqrt(s[0])).astype(np.float32) for s in dims]
    bs = [np.zeros(s[1], np.float32) for s in dims]
    return x, y, ws, bs


def step_weft(weft, x, y, ws, bs):
    nn, F = weft.nn, weft.nn.functional
    model = nn.Sequential(nn.Linear(D_IN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN),
                          nn.ReLU(), nn.Linear(HIDDEN, CLASSES))
    for layer, w, b in zip([model[0], model[2], model[4]], ws, bs):
        layer.weight.set_value(w)
        layer.bias.set_value(b)
    opt = weft.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    xt, yt = weft.to_tensor(x), weft.to_tensor(y)

    def run():
        loss = F.cross_entropy(model(xt), yt)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    return run


def step_torch(torch, x, y, ws, bs):
    nn = torch.nn
    model = nn.Sequential(nn.Linear(D_IN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN),
                          nn.ReLU(), nn.Linear(HIDDEN, CLASSES))
    with torch.no_grad():
        for layer, w, b in zip([model[0], model[2], model[4]], ws, bs):
            layer.weight.copy_(torch.from_numpy(w.T.copy()))  # torch stores [out, in]
            layer.bias.copy_(torch.from_numpy(b))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)

    def run():
        loss = nn.functional.cross_entropy(model(xt), yt)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss
    return run


def step_paddle(paddle, x, y, ws, bs):
    nn, F = paddle.nn, paddle.nn.functional
    model = nn.Sequential(nn.Linear(D_IN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN),
                          nn.ReLU(), nn.Linear(HIDDEN, CLASSES))
    for layer, w, b in zip([model[0], model[2], model[4]], ws, bs):
        layer.weight.set_value(w)
        layer.bias.set_value(b)
    opt = paddle.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    xt, yt = paddle.to_tensor(x), paddle.to_tensor(y)

    def run():
        loss = F.cross_entropy(model(xt), yt)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    return run


def _losses(run, n=3):
    return [run().item() for _ in range(n)]


def run(report=None, quick=False):
    # Peers first, as a user who wants them at full speed would import them (weft leaves
    # their threading alone either way: see the interop area).
    torch = optional_import("torch")
    paddle = optional_import("paddle")
    import weft
    import weft.optimizer  # noqa: F401  (not imported by `import weft` everywhere yet)

    rep = report or Report("nn")
    rng = np.random.default_rng(0)
    x, y, ws, bs = _data(rng)
    repeat = 5 if quick else 15
    number = 2 if quick else 5

    ref = _losses(step_weft(weft, x, y, ws, bs))
    steps = {"weft": step_weft(weft, x, y, ws, bs)}
    if torch is not None:
        # the same thread count as numpy's BLAS (OPENBLAS_NUM_THREADS / OMP_NUM_THREADS when
        # set): on a busy machine oversubscribed BLAS threads dominate every timing
        nt = os.environ.get("OPENBLAS_NUM_THREADS") or os.environ.get("OMP_NUM_THREADS")
        if nt:
            torch.set_num_threads(int(nt))
        np.testing.assert_allclose(_losses(step_torch(torch, x, y, ws, bs)), ref, rtol=1e-4)
        steps["torch"] = step_torch(torch, x, y, ws, bs)
        rep.note(f"torch threads: {torch.get_num_threads()}")
    else:
        rep.note("torch not installed: pip install torch")
    if paddle is not None:
        paddle.set_device("cpu")
        np.testing.assert_allclose(_losses(step_paddle(paddle, x, y, ws, bs)), ref, rtol=1e-4)
        steps["paddle"] = step_paddle(paddle, x, y, ws, bs)
    else:
        rep.note("paddle not installed: pip install paddlepaddle")
    # the libraries take turns (weft, torch, paddle, weft, ...): this machine's speed
    # drifts by tens of percent over seconds, and timing one library after the other
    # would charge that drift to whichever ran in the slow stretch
    medians = timeit_round(list(steps.values()), repeat, number, warmup=3)
    for impl, t in zip(steps, medians):
        rep.add(CASE, impl, t)
    return rep


def summary(rep):
    lines = []
    for peer in ("torch", "paddle"):
        r = rep.ratio(CASE, "weft", peer)
        if r is not None:
            goal = " (goal <= 1.2)" if peer == "torch" else ""
            lines.append(f"MLP train step: weft/{peer} = {r:.2f}{goal}")
    return lines
