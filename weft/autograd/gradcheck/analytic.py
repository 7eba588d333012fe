"""The analytic side: the engine's own derivatives at the inputs' dtype — VJPs
through ``weft.grad``, JVPs through :func:`weft.autograd.jvp` (``check_forward_ad``),
and Jacobians through :func:`weft.autograd.jacobian` checked against per-cotangent
VJPs (``check_batched_grad``).

The functional APIs are looked up on their package when a check runs: they load
only when asked for, and tests can stand in for them.
"""
from __future__ import annotations

import numpy as np

from ...core.tensor import Tensor
from ..api import grad as _grad
from ..engine import support
from ..grad_mode import enable_grad
from .common import host, like, _prec
from .complex import wide
from .options import diff_outputs
from .report import GradcheckError, _unravel


class Analytic:
    """func applied to leaf copies of the checked inputs, with VJPs through the engine."""

    def __init__(self, func, seq, checked, name):
        self.name = name
        self.leaves = list(seq)
        for i in checked:
            c = Tensor._wrap(seq[i]._data.copy())
            c.stop_gradient = False
            self.leaves[i] = c
        with enable_grad():
            res = func(*self.leaves)
        self.outs = diff_outputs(res, name)
        self.checked = checked
        self.targets = [self.leaves[i] for i in checked]

    def vjp(self, vs, what="backward"):
        """Host gradients (wide dtype, or None where unused) for cotangents ``vs``."""
        if not self.outs:
            return [None] * len(self.checked)
        gos = [Tensor._wrap(like(np.asarray(v).astype(o._data.dtype), o))
               for v, (_, o) in zip(vs, self.outs)]
        try:
            gs = _grad([o for _, o in self.outs], self.targets, grad_outputs=gos,
                       retain_graph=True, allow_unused=True)
        except Exception as e:
            raise GradcheckError(f"{self.name}: the {what} pass raised "
                                 f"{type(e).__name__}: {e}") from e
        self.last = gs
        return [None if g is None else host(g) for g in gs]

    def prec(self):
        return max([_prec(o._data.dtype) for _, o in self.outs], default=0)


def _forward_jvp(checker):
    """``(i, tangent) -> tangents of the outputs`` through weft.autograd.jvp."""
    from .. import functional  # noqa: PLC0415

    jvp = functional.jvp
    an, seq, checked = checker.an, checker.seq, checker.checked
    positions = [j for j, _ in checker.outs]

    def restricted(*xs):
        args = list(an.leaves)
        for i, x in zip(checked, xs):
            args[i] = x
        res = checker.func(*args)
        if isinstance(res, Tensor):
            res = (res,)
        return tuple(res[j] for j in positions)

    def run(i, t):
        tangents = []
        for k in checked:
            x = seq[k]
            a = t if k == i else np.zeros(x.shape)
            a = np.asarray(a).astype(x._data.dtype) if x._data.dtype.kind == "c" else \
                np.asarray(np.real(a)).astype(x._data.dtype)
            tangents.append(Tensor._wrap(like(a, x)))
        try:
            with enable_grad():
                _, ts = jvp(restricted, [an.leaves[k] for k in checked], tangents)
        except Exception as e:
            raise GradcheckError(f"{checker.name}: the forward-mode (jvp) pass raised "
                                 f"{type(e).__name__}: {e}") from e
        if isinstance(ts, Tensor):
            ts = (ts,)
        return [np.zeros(o.shape) if tt is None else host(tt)
                for tt, (_, o) in zip(ts, checker.outs)]
    return run


def check_batched(checker):
    """Stacked cotangents times ``weft.autograd.jacobian`` must equal per-cotangent VJPs."""
    from .. import functional  # noqa: PLC0415

    jacobian = functional.jacobian

    seq, checked = checker.seq, checker.checked
    outs = [(j, o) for j, o in checker.outs if o._data.dtype.kind == "f"]
    if not outs:
        return
    for i in checked:
        x = seq[i]
        if x._data.dtype.kind != "f" or x._data.size == 0:
            continue  # the Jacobian's rows are real one-hot VJPs: real maps only
        flat = Tensor._wrap(x._data.reshape(-1).copy())
        flat.stop_gradient = False
        args = list(checker.an.leaves)
        with enable_grad():
            args[i] = support.reshape_op(flat, x.shape)
            res = checker.func(*args)
            if isinstance(res, Tensor):
                res = (res,)
            ys = [support.reshape_op(res[j], [-1]) for j, _ in outs]
            try:
                js = jacobian(ys, flat)
                mats = [host(J[:]).reshape(int(y._data.size), int(flat._data.size))
                        for J, y in zip(js, ys)]
            except Exception as e:
                raise GradcheckError(f"{checker.name}: check_batched_grad: jacobian raised "
                                     f"{type(e).__name__}: {e}") from e
        K = checker.opts.num_directions
        stacked = [checker.rng.standard_normal((K, int(o._data.size))) for _, o in outs]
        batched = sum(V @ M for V, M in zip(stacked, mats))
        ci = checked.index(i)
        by_out = {id(o): V for (_, o), V in zip(outs, stacked)}
        for k in range(K):
            # complex outputs get zero cotangents: the real Jacobian does not cover them
            vs = [by_out[id(o)][k].reshape(o._data.shape) if id(o) in by_out else
                  np.zeros(o._data.shape, dtype=wide(o._data.dtype)) for _, o in checker.outs]
            g = checker.an.vjp(vs)[ci]
            g = np.zeros(x.shape) if g is None else g
            diff = np.abs(batched[k] - g.reshape(-1))
            atol, rtol = checker.tol[i]
            bad = ~(diff <= atol + rtol * np.abs(g.reshape(-1)))
            if bad.any():
                p = int(np.argmax(np.where(bad, diff, -1)))
                checker.fail(f"check_batched_grad: for {checker.in_label(i)}, cotangent {k}, "
                             f"position {_unravel(p, x.shape)}: the jacobian-based VJP gives "
                             f"{batched[k][p]:.6g} but the per-cotangent VJP gives "
                             f"{g.reshape(-1)[p]:.6g} (atol {atol:g}, rtol {rtol:g})")
