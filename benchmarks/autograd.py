"""Autograd functional benchmarks: full Jacobian and Hessian.

(a) Jacobian of ``x -> tanh(W x)``, R^256 -> R^256 (float64), forward included;
(b) Hessian of ``x -> sum(tanh(W x))``, R^64 -> R (float64), forward included;
(c) forward mode, ``weft.autograd.jvp`` of a solve/inverse/determinant chain on a batch
    [64, 16, 16] and of 200 x ``tanh(1.01 y + 0.1)`` on 16 numbers (float64): weft's
    forward pass (forward rules, a double vjp per primitive without one) against the
    double-vjp trick over the whole function (``weft.2vjp``, how jvp worked before
    forward rules) and ``torch.func.jvp``.

weft (``weft.autograd.jacobian`` / ``hessian``, evaluated with ``[:]``) against
``torch.func`` (``jacrev`` / ``hessian``: vmap-batched cotangents), the row-by-row
``torch.autograd.functional`` (``create_graph=True``, the same algorithm as weft)
and ``paddle.autograd`` (``jacobian`` / ``hessian``) when importable. Results are
checked equal across implementations before timing.

Run ``OPENBLAS_NUM_THREADS=1 python -m benchmarks autograd`` on a shared machine:
torch runs single-threaded here (or with that count when it is set), and numpy's
BLAS, left to itself, starts a thread per core whose contention on a busy machine
can make one 256x256 matrix product tens of times slower.
"""
from __future__ import annotations

import os

import numpy as np

from ._harness import Report, optional_import, timeit, timeit_round

JAC = "jacobian 256->256 tanh(Wx) f64"
HESS = "hessian R^64->R sum(tanh(Wx)) f64"
JVP_LINALG = "jvp solve/inv/det chain [64,16,16] f64"
JVP_CHAIN = "jvp 200 x tanh(1.01y+0.1) [16] f64"


def _linalg_chain(lib, a, b):
    inv = lib.linalg.inv
    x = lib.linalg.solve(a, b)
    return lib.tanh(inv(a) @ x) * lib.linalg.det(a)[..., None, None]


def _tanh_chain(lib, y):
    for _ in range(200):
        y = lib.tanh(y * 1.01 + 0.1)
    return y


def _jvp_cases(weft, a, b, v, y0):
    from weft.autograd.functional.transforms import _inputs, _outputs, _tangents

    A, B, V, Y = (weft.to_tensor(t) for t in (a, b, v, y0))
    ones = weft.ones_like(Y)

    def double_vjp(f, xs, vs):
        xl, _ = _inputs(xs, "jvp")
        ys, _ = _outputs(f(*xl), "jvp")
        return _tangents(ys, xl, vs)[0]

    lin = (lambda: weft.autograd.jvp(lambda a: _linalg_chain(weft, a, B), A, V)[1],
           lambda: weft.autograd.jvp(lambda y: _tanh_chain(weft, y), Y, ones)[1])
    old = (lambda: double_vjp(lambda a: _linalg_chain(weft, a, B), [A], [V]),
           lambda: double_vjp(lambda y: _tanh_chain(weft, y), [Y], [ones]))
    return lin, old


def _torch_jvp_cases(torch, a, b, v, y0):
    from torch.func import jvp

    A, B, V, Y = (torch.tensor(t) for t in (a, b, v, y0))
    ones = torch.ones_like(Y)
    return (lambda: jvp(lambda a: _linalg_chain(torch, a, B), (A,), (V,))[1],
            lambda: jvp(lambda y: _tanh_chain(torch, y), (Y,), (ones,))[1])


def _weft_cases(weft, W, x0, W2, x2):
    from weft.autograd.functional import hessian, jacobian

    Wt, W2t = weft.to_tensor(W), weft.to_tensor(W2)

    def jac():
        x = weft.to_tensor(x0, stop_gradient=False)
        return jacobian(weft.tanh(Wt @ x), x)[:]

    def hess():
        x = weft.to_tensor(x2, stop_gradient=False)
        return hessian(weft.tanh(W2t @ x).sum(), x)[:]

    return jac, hess


def _torch_cases(torch, W, x0, W2, x2):
    from torch.func import hessian, jacrev

    Wt, W2t = torch.tensor(W), torch.tensor(W2)
    xt, x2t = torch.tensor(x0), torch.tensor(x2)

    def f(x):
        return torch.tanh(Wt @ x)

    def g(x):
        return torch.tanh(W2t @ x).sum()

    func = (lambda: jacrev(f)(xt), lambda: hessian(g)(x2t))
    F = torch.autograd.functional
    loop = (lambda: F.jacobian(f, xt, create_graph=True),
            lambda: F.hessian(g, x2t, create_graph=True))
    return func, loop


def _paddle_cases(paddle, W, x0, W2, x2):
    Wp, W2p = paddle.to_tensor(W), paddle.to_tensor(W2)

    def jac():
        x = paddle.to_tensor(x0, stop_gradient=False)
        return paddle.autograd.jacobian(paddle.tanh(Wp @ x), x)[:]

    def hess():
        x = paddle.to_tensor(x2, stop_gradient=False)
        return paddle.autograd.hessian(paddle.tanh(W2p @ x).sum(), x)[:]

    return jac, hess


def _np(t):
    return np.asarray(t.detach().numpy())


def run(report=None, quick=False):
    import weft

    rep = report or Report("autograd")
    rng = np.random.default_rng(0)
    W = rng.standard_normal((256, 256)) / 16
    x0 = rng.standard_normal(256)
    W2 = rng.standard_normal((64, 64)) / 8
    x2 = rng.standard_normal(64)
    repeat = 3 if quick else 9

    wj, wh = _weft_cases(weft, W, x0, W2, x2)
    ref_j, ref_h = wj().numpy(), wh().numpy()
    t = np.tanh(W @ x0)
    np.testing.assert_allclose(ref_j, (1 - t ** 2)[:, None] * W, rtol=1e-10, atol=1e-12)
    t2 = np.tanh(W2 @ x2)
    np.testing.assert_allclose(ref_h, W2.T @ np.diag(-2 * t2 * (1 - t2 ** 2)) @ W2, rtol=1e-9,
                               atol=1e-12)
    impls = [("weft", wj, wh)]

    torch = optional_import("torch")
    if torch is not None:
        nt = os.environ.get("OPENBLAS_NUM_THREADS") or os.environ.get("OMP_NUM_THREADS")
        torch.set_num_threads(int(nt) if nt else 1)
        rep.note(f"torch threads: {torch.get_num_threads()}, OPENBLAS_NUM_THREADS="
                 f"{os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}")
        (fj, fh), (lj, lh) = _torch_cases(torch, W, x0, W2, x2)
        impls += [("torch.func", fj, fh), ("torch.loop", lj, lh)]
    else:
        rep.note("torch not installed: pip install torch==2.13.0")
    paddle = optional_import("paddle")
    if paddle is not None:
        paddle.set_device("cpu")
        pj, ph = _paddle_cases(paddle, W, x0, W2, x2)
        impls.append(("paddle", pj, ph))
    else:
        rep.note("paddle not installed: pip install paddlepaddle")

    for name, j, h in impls:
        if name != "weft":
            np.testing.assert_allclose(_np(j()), ref_j, rtol=1e-8, atol=1e-10)
            np.testing.assert_allclose(_np(h()), ref_h, rtol=1e-8, atol=1e-10)
    # slow peers (row loops) get fewer repeats; medians stay comparable
    for name, j, h in impls:
        r = repeat if name in ("weft", "torch.func") else max(3, repeat // 2)
        rep.add(JAC, name, timeit(j, r))
        rep.add(HESS, name, timeit(h, r))
    _run_jvp(rep, weft, torch, rng, repeat)
    return rep


def _run_jvp(rep, weft, torch, rng, repeat):
    a = rng.standard_normal((64, 16, 16)) + 4 * np.eye(16)
    b = rng.standard_normal((64, 16, 4))
    v = rng.standard_normal((64, 16, 16))
    y0 = rng.standard_normal(16)
    (lin, chain), (old_lin, old_chain) = _jvp_cases(weft, a, b, v, y0)
    impls = [("weft", lin, chain), ("weft.2vjp", old_lin, old_chain)]
    if torch is not None:
        impls.append(("torch.func", *_torch_jvp_cases(torch, a, b, v, y0)))
    ref_l, ref_c = lin().numpy(), chain().numpy()
    for name, fl, fc in impls[1:]:
        np.testing.assert_allclose(_np(fl()), ref_l, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(_np(fc()), ref_c, rtol=1e-8, atol=1e-10)
    for case, k in ((JVP_LINALG, 1), (JVP_CHAIN, 2)):
        times = timeit_round([impl[k] for impl in impls], repeat)
        for (name, *_), t in zip(impls, times):
            rep.add(case, name, t)


def summary(rep):
    lines = []
    for case in (JAC, HESS, JVP_LINALG, JVP_CHAIN):
        for peer in ("torch.func", "torch.loop", "paddle", "weft.2vjp"):
            r = rep.ratio(case, "weft", peer)
            if r is not None:
                lines.append(f"{case}: weft/{peer} = {r:.2f}")
    return lines
