"""FFT benchmarks (issue 13): weft.fft on its backends against numpy.fft, scipy.fft
(workers = 2), torch.fft, mkl_fft and Paddle where installed, timed in turn in one run.

(a) complex64 FFT of length 2^20;
(b) rfft2 of float32 [64, 256, 256];
(c) fftn of complex128 [128, 128, 128];
(d) 100,000 transforms of length 64 in one batched call (complex64);
(e) the Python overhead of one small call (length 16, complex128) against a direct
    ``scipy.fft.fft`` call;
(f) a filter ``irfft(rfft(x) * h)`` on float64 [64, 4096]: forward + backward against
    the forward.

Every peer's result is checked against weft's before it is timed. ``weft mkl`` is weft
with ``weft.backend("fft", "mkl")``.
"""
from __future__ import annotations

import numpy as np

from ._harness import Report, optional_import, timeit_round


def _peers(name, x, fwd_kw):
    """(label, callable) of each installed peer for transform ``name`` on array x."""
    import scipy.fft

    out = [("scipy w=2", lambda: getattr(scipy.fft, name)(x, workers=2, **fwd_kw)),
           ("numpy", lambda: getattr(np.fft, name)(x, **fwd_kw))]
    torch = optional_import("torch")
    if torch is not None:
        tx = torch.from_numpy(x)
        tk = {"dim": fwd_kw["axes"]} if "axes" in fwd_kw else {}
        out.append(("torch", lambda: getattr(torch.fft, name)(tx, **tk)))
    mkl_fft = optional_import("mkl_fft")
    if mkl_fft is not None and hasattr(mkl_fft, name):
        out.append(("mkl_fft", lambda: getattr(mkl_fft, name)(x, **fwd_kw)))
    paddle = optional_import("paddle")
    if paddle is not None:
        px = paddle.to_tensor(x)
        out.append(("paddle", lambda: getattr(paddle.fft, name)(px, **fwd_kw)))
    return out


def _result(v):
    if hasattr(v, "numpy"):
        return np.asarray(v.numpy())
    return np.asarray(v)


def _case(rep, weft, label, name, x, repeat, number=1, **kw):
    """Time weft (default backend, and mkl when installed) and every peer on one case."""
    from weft.core.backend import is_available

    f = getattr(weft.fft, name)
    t = weft.to_tensor(x)
    want = f(t, **kw).numpy()
    rtol = 1e-3 if x.dtype in (np.float32, np.complex64) else 1e-8
    fns = [("weft", lambda: f(t, **kw))]
    if is_available("fft", "mkl"):
        def weft_mkl():
            with weft.backend("fft", "mkl"):
                return f(t, **kw)
        fns.append(("weft mkl", weft_mkl))
    fns += _peers(name, x, kw)
    scale = np.abs(want).max()
    for impl, fn in fns:
        got = _result(fn())
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale, err_msg=impl)
    for (impl, _), sec in zip(fns, timeit_round([fn for _, fn in fns], repeat, number)):
        rep.add(label, impl, sec)


def run(report=None, quick=False):
    import scipy.fft

    import weft

    rep = report or Report("fft")
    rng = np.random.default_rng(0)
    repeat = 3 if quick else 9
    rep.note(f"weft threads: {weft.get_num_threads()} (pocketfft workers); scipy peer: "
             "workers=2")

    def c(shape, dtype):
        a = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
        return a.astype(dtype)

    # (a)-(c): large transforms
    _case(rep, weft, "fft c64 n=2^20", "fft", c(2 ** 20, np.complex64), repeat)
    _case(rep, weft, "rfft2 f32 [64,256,256]", "rfft2",
          rng.standard_normal((64, 256, 256)).astype(np.float32), repeat)
    _case(rep, weft, "fftn c128 [128,128,128]", "fftn", c((128, 128, 128), np.complex128),
          3 if quick else 5)
    # (d) many short transforms in one call
    _case(rep, weft, "fft c64 [100000,64] (batched)", "fft", c((100_000, 64), np.complex64),
          repeat)

    # (e) overhead of one small call
    xs = c(16, np.complex128)
    ts = weft.to_tensor(xs)
    np.testing.assert_allclose(weft.fft.fft(ts).numpy(), scipy.fft.fft(xs))
    tw, tsc, tnp = timeit_round([lambda: weft.fft.fft(ts), lambda: scipy.fft.fft(xs),
                                 lambda: np.fft.fft(xs)], 3 * repeat, number=2000)
    rep.add("fft c128 n=16 (one call)", "weft", tw)
    rep.add("fft c128 n=16 (one call)", "scipy", tsc)
    rep.add("fft c128 n=16 (one call)", "numpy", tnp)

    # (f) filter forward vs forward + backward
    xf = rng.standard_normal((64, 4096))
    h = weft.to_tensor(c(2049, np.complex128))

    def forward():
        x = weft.to_tensor(xf, stop_gradient=False)
        return weft.fft.irfft(weft.fft.rfft(x) * h, n=4096)

    def forward_backward():
        x = weft.to_tensor(xf, stop_gradient=False)
        y = weft.fft.irfft(weft.fft.rfft(x) * h, n=4096)
        (g,) = weft.grad(y.sum(), x)
        return g

    tf, tfb = timeit_round([forward, forward_backward], 3 * repeat)
    rep.add("filter irfft(rfft(x)*h) f64 [64,4096]", "weft fwd", tf)
    rep.add("filter irfft(rfft(x)*h) f64 [64,4096]", "weft f+b", tfb)
    return rep


def summary(rep):
    lines = []

    def ratio(case, a, b, goal):
        r = rep.ratio(case, a, b)
        if r is not None:
            lines.append(f"{case}: {a} / {b} = {r:.2f} (goal {goal})")

    ratio("fft c64 n=2^20", "weft", "scipy w=2", "<= 1")
    ratio("fft c64 n=2^20", "weft mkl", "torch", "<= 1")
    for case in ("rfft2 f32 [64,256,256]", "fftn c128 [128,128,128]"):
        ratio(case, "weft", "scipy w=2", "<= 1")
        ratio(case, "weft mkl", "torch", "<= 1")
    ratio("fft c64 [100000,64] (batched)", "weft", "numpy", "<= 1")
    ratio("fft c128 n=16 (one call)", "weft", "scipy", "<= 2")
    ratio("filter irfft(rfft(x)*h) f64 [64,4096]", "weft f+b", "weft fwd", "<= 2.5")
    return lines
