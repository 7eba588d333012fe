"""Linear algebra benchmarks (issue 12): weft.linalg (the ``lapack`` backend: the
batch-parallel native driver over scipy's LAPACK; ``weft mkl`` with
``weft.backend("linalg", "mkl")`` where installed) against numpy.linalg, scipy.linalg,
torch.linalg and paddle.linalg where installed, timed in turn (A B C A B C ...) in one
run, medians.

Cases and the issue's goals:

- batched ``eigh`` f64 [256, 64, 64]: ≥ 1.5× numpy and faster than torch;
- batched ``solve`` f64 [1024, 32, 32] with [1024, 32, 4]; batched ``cholesky``,
  ``inv``, ``det``, ``slogdet`` f32 [4096, 16, 16]: ≥ 2× numpy and ≥ torch;
- batched ``svd`` f64 [64, 128, 128] and ``lstsq`` f64 2000×500 (a right-hand side
  of 4 columns; weft with numpy's driver gelsd, and ``weft gelsy``, weft's default):
  ≥ numpy;
- ``solve`` f64 1024×1024 with one right-hand side [1024, 1]: no slower than scipy
  (the mkl backend within 1.2× of torch);
- backward of ``eigh``, ``svd``, ``solve``, ``cholesky`` (batched): ≤ 2× the forward
  (backward = median of forward+backward minus median of forward).

GFLOP/s beside each time use nominal flop counts (LAPACK working-note estimates):
solve 2n³/3 + 2n²k, inv 2n³, cholesky n³/3, det/slogdet 2n³/3, eigh with vectors 9n³,
svd with vectors 22n³ (square), lstsq 2mn² (QR-based).

Every peer's result is checked against weft's before it is timed.
"""
from __future__ import annotations

import numpy as np

from ._harness import Report, optional_import, timeit_round


def _np(v):
    if isinstance(v, (tuple, list)):
        v = v[0]
    if hasattr(v, "numpy"):
        v = v.numpy()
    return np.asarray(v)


def _cases(quick):
    rng = np.random.default_rng(0)

    def spd(b, n, dt):
        a = rng.standard_normal((b, n, n))
        return (a @ a.transpose(0, 2, 1) + n * np.eye(n)).astype(dt)

    s64 = spd(256, 64, "float64")
    a32 = (rng.standard_normal((4096, 16, 16)) + 4 * np.eye(16)).astype("float32")
    p32 = spd(4096, 16, "float32")
    a_solve = rng.standard_normal((1024, 32, 32)) + 6 * np.eye(32)
    b_solve = rng.standard_normal((1024, 32, 4))
    big = rng.standard_normal((1024, 1024)) + 32 * np.eye(1024)
    big_b = rng.standard_normal((1024, 1))
    svd_a = rng.standard_normal((64, 128, 128))
    ls_a = rng.standard_normal((2000, 500))
    ls_b = rng.standard_normal((2000, 4))
    # (name, op, args, flops, numpy, scipy, torch op name, paddle op name)
    return [
        ("eigh f64 [256,64,64]", "eigh", (s64,), 9 * 256 * 64 ** 3),
        ("solve f64 [1024,32,32]@[1024,32,4]", "solve", (a_solve, b_solve),
         1024 * (2 * 32 ** 3 / 3 + 2 * 32 * 32 * 4)),
        ("cholesky f32 [4096,16,16]", "cholesky", (p32,), 4096 * 16 ** 3 / 3),
        ("inv f32 [4096,16,16]", "inv", (a32,), 4096 * 2 * 16 ** 3),
        ("det f32 [4096,16,16]", "det", (a32,), 4096 * 2 * 16 ** 3 / 3),
        ("slogdet f32 [4096,16,16]", "slogdet", (a32,), 4096 * 2 * 16 ** 3 / 3),
        ("svd f64 [64,128,128]", "svd", (svd_a,), 64 * 22 * 128 ** 3),
        ("lstsq f64 2000x500 @ [2000,4]", "lstsq", (ls_a, ls_b), 2 * 2000 * 500 ** 2),
        ("solve f64 1024x1024 @ [1024,1]", "solve", (big, big_b), 2 * 1024 ** 3 / 3),
    ]


def _peer_calls(op, args):
    import scipy.linalg

    out = []
    npf = {"eigh": np.linalg.eigh, "solve": np.linalg.solve, "cholesky": np.linalg.cholesky,
           "inv": np.linalg.inv, "det": np.linalg.det, "slogdet": np.linalg.slogdet,
           "svd": lambda a: np.linalg.svd(a, full_matrices=False),
           "lstsq": lambda a, b: np.linalg.lstsq(a, b, rcond=None)}[op]
    out.append(("numpy", lambda: npf(*args)))
    spf = {"eigh": lambda a: scipy.linalg.eigh(a, check_finite=False),
           "solve": lambda a, b: scipy.linalg.solve(a, b, check_finite=False),
           "cholesky": lambda a: scipy.linalg.cholesky(a, lower=True, check_finite=False),
           "inv": lambda a: scipy.linalg.inv(a, check_finite=False),
           "det": lambda a: scipy.linalg.det(a, check_finite=False),
           "svd": lambda a: scipy.linalg.svd(a, full_matrices=False, check_finite=False),
           "lstsq": lambda a, b: scipy.linalg.lstsq(a, b, check_finite=False)}.get(op)
    if spf is not None and (args[0].ndim == 2 or op not in ("lstsq",)):
        out.append(("scipy", lambda: spf(*args)))
    torch = optional_import("torch")
    if torch is not None:
        ta = [torch.from_numpy(a) for a in args]
        tf = {"eigh": torch.linalg.eigh, "solve": torch.linalg.solve,
              "cholesky": torch.linalg.cholesky, "inv": torch.linalg.inv,
              "det": torch.linalg.det, "slogdet": torch.linalg.slogdet,
              "svd": lambda a: torch.linalg.svd(a, full_matrices=False),
              "lstsq": lambda a, b: torch.linalg.lstsq(a, b, driver="gelsd")}[op]
        out.append(("torch", lambda: tf(*ta)))
    paddle = optional_import("paddle")
    if paddle is not None:
        pa = [paddle.to_tensor(a) for a in args]
        pf = {"eigh": paddle.linalg.eigh, "solve": paddle.linalg.solve,
              "cholesky": paddle.linalg.cholesky, "inv": paddle.linalg.inv,
              "det": paddle.linalg.det, "slogdet": paddle.linalg.slogdet,
              "svd": lambda a: paddle.linalg.svd(a, full_matrices=False),
              "lstsq": lambda a, b: paddle.linalg.lstsq(a, b, driver="gelsd")}[op]
        out.append(("paddle", lambda: pf(*pa)))
    return out


def _weft_call(weft, op, args):
    f = getattr(weft.linalg, op)
    ts = [weft.to_tensor(a) for a in args]
    if op == "lstsq":   # numpy's driver; weft's default, gelsy, is timed as "weft gelsy"
        return lambda: f(*ts, driver="gelsd")
    return lambda: f(*ts)


def _check(op, want, got):
    w, g = _np(want), _np(got)
    if op in ("eigh", "svd"):
        w, g = _np(want[0] if op == "eigh" else want[1]), _np(got[0] if op == "eigh" else got[1])
    if op == "slogdet":   # weft and paddle stack [2, *batch]; numpy and torch give a tuple
        w = _np(want.numpy()[1])
        g = _np(got[1]) if isinstance(got, tuple) else _np(got)[1]
    rtol = 2e-3 if w.dtype in (np.float32, np.complex64) else 1e-6
    np.testing.assert_allclose(g.reshape(w.shape), w, rtol=rtol, atol=rtol)


def _backward_rows(rep, weft, cases, repeat):
    """forward and forward+backward of weft on the batched cases (loss = sum of outputs,
    eigen/singular vectors entering through a gauge-invariant |·|²)."""
    la = weft.linalg
    for name, op, args, _flops in cases:
        if op not in ("eigh", "svd", "solve", "cholesky") or args[0].ndim < 3:
            continue
        ts = [weft.to_tensor(a, stop_gradient=False) for a in args]

        def loss(ts=ts, op=op):
            if op == "eigh":
                w, v = la.eigh(ts[0])
                return w.sum() + (v * v).sum()
            if op == "svd":
                u, s, vh = la.svd(ts[0])
                return s.sum() + (u * u).sum()
            return getattr(la, op)(*ts).sum()

        def fwd():
            with weft.no_grad():
                loss()

        def both():
            # a fresh gradient each time, as a training step after
            # clear_grad(set_to_zero=False) (torch's zero_grad default): the row times the
            # backward pass, not an accumulation into last round's .grad
            for t in ts:
                t.clear_grad(set_to_zero=False)
            loss().backward()

        tf, tb = timeit_round([fwd, both], repeat)
        rep.add(f"backward {name}", "weft fwd", tf)
        rep.add(f"backward {name}", "weft bwd", max(tb - tf, 0.0), bwd_over_fwd=(tb - tf) / tf)


def run(quick=False):
    import weft
    from weft.core.backend import is_available

    rep = Report("linalg")
    repeat = 3 if quick else 7
    cases = _cases(quick)
    for name, op, args, flops in cases:
        weft_fn = _weft_call(weft, op, args)
        want = weft_fn()
        fns = [("weft", weft_fn)]
        if op == "lstsq":
            ts = [weft.to_tensor(a) for a in args]
            fns.append(("weft gelsy", lambda ts=ts: weft.linalg.lstsq(*ts)))
        if is_available("linalg", "mkl"):
            def weft_mkl(weft_fn=weft_fn):
                with weft.backend("linalg", "mkl"):
                    return weft_fn()
            fns.append(("weft mkl", weft_mkl))
        for label, fn in _peer_calls(op, args):
            try:
                _check(op, want, fn())
            except Exception as e:   # a peer without this case or disagreeing: say so
                rep.note(f"{name}: {label} left out ({type(e).__name__}: {str(e)[:80]})")
                continue
            fns.append((label, fn))
        times = timeit_round([f for _, f in fns], repeat)
        for (label, _), t in zip(fns, times):
            rep.add(name, label, t, gflops=flops / t / 1e9)
    _backward_rows(rep, weft, cases, repeat)
    return rep


_GOALS = [  # (case, peer, needed speed-up of weft over the peer: t_peer / t_weft >= x)
    ("eigh f64 [256,64,64]", "numpy", 1.5), ("eigh f64 [256,64,64]", "torch", 1.0),
    ("solve f64 [1024,32,32]@[1024,32,4]", "numpy", 2.0),
    ("solve f64 [1024,32,32]@[1024,32,4]", "torch", 1.0),
    ("cholesky f32 [4096,16,16]", "numpy", 2.0), ("cholesky f32 [4096,16,16]", "torch", 1.0),
    ("inv f32 [4096,16,16]", "numpy", 2.0), ("inv f32 [4096,16,16]", "torch", 1.0),
    ("det f32 [4096,16,16]", "numpy", 2.0), ("det f32 [4096,16,16]", "torch", 1.0),
    ("slogdet f32 [4096,16,16]", "numpy", 2.0), ("slogdet f32 [4096,16,16]", "torch", 1.0),
    ("svd f64 [64,128,128]", "numpy", 1.0), ("lstsq f64 2000x500 @ [2000,4]", "numpy", 1.0),
    ("solve f64 1024x1024 @ [1024,1]", "scipy", 1.0),
]


def summary(rep):
    lines = ["", "GFLOP/s (nominal flops / median):"]
    for r in rep.rows:
        if "gflops" in r:
            lines.append(f"  {r['case']:<40} {r['impl']:<9} {r['gflops']:8.2f}")
    lines.append("goals (peer time / weft time, goal):")
    for case, peer, goal in _GOALS:
        ratio = rep.ratio(case, peer, "weft")
        if ratio is not None:
            lines.append(f"  {case:<40} vs {peer:<6} {ratio:6.2f}x  (goal >= {goal}x) "
                         f"{'met' if ratio >= goal else 'MISSED'}")
        # the optional mkl backend (weft[mkl]) against the same goal, where installed
        ratio = rep.ratio(case, peer, "weft mkl")
        if ratio is not None:
            lines.append(f"  {case:<40} vs {peer:<6} {ratio:6.2f}x  (goal >= {goal}x) "
                         f"{'met' if ratio >= goal else 'MISSED'}  [weft mkl]")
    mkl = rep.ratio("solve f64 1024x1024 @ [1024,1]", "weft mkl", "torch")
    if mkl is not None:
        lines.append(f"  solve 1024 weft mkl / torch {mkl:6.2f}  (goal <= 1.2) "
                     f"{'met' if mkl <= 1.2 else 'MISSED'}")
    for r in rep.rows:
        if "bwd_over_fwd" in r:
            v = r["bwd_over_fwd"]
            lines.append(f"  {r['case']:<40} backward/forward {v:5.2f}  (goal <= 2) "
                         f"{'met' if v <= 2 else 'MISSED'}")
    return lines
