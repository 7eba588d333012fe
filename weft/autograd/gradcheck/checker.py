"""The comparisons: fast mode (random directions and cotangents, scalars compared),
slow mode (full Jacobians), and the checks of nondeterminism, gradient dtypes and
zero cotangents."""
from __future__ import annotations

import warnings

import numpy as np

from .analytic import Analytic
from .common import TOL, _prec
from .complex import directions, factors, rand, realvec, row_layout, wide
from .numeric import _Numeric
from .report import GradcheckError, fast_failure, worst_entry

_JACOBIAN_WARN = 10 ** 6


class _Checker:
    """Both sides of ``func`` at ``seq`` (checked inputs ``checked``), the per-input
    tolerances, and the comparisons between them."""

    def __init__(self, func, seq, checked, opts, name, in_label, out_label):
        self.func, self.seq, self.checked, self.opts, self.name = func, seq, checked, opts, name
        self.in_label = in_label or (lambda i: f"input {i}")
        self.out_label = out_label or (lambda j: f"output {j}")
        self.an = Analytic(func, seq, checked, name)
        self.outs = self.an.outs
        positions = [j for j, _ in self.outs]
        self.num = _Numeric(func, seq, checked, positions, opts.eps, name)
        self.eps = self.num.eps
        out_prec = self.an.prec()
        self.tol = {}
        for i in checked:
            a, r = TOL[max(_prec(seq[i]._data.dtype), out_prec)]
            self.tol[i] = (a if opts.atol is None else opts.atol,
                           r if opts.rtol is None else opts.rtol)
        self.rng = np.random.default_rng(opts.seed)

    def fail(self, msg):
        raise GradcheckError(f"{self.name}: {msg}")

    def close(self, i, a, n):
        atol, rtol = self.tol[i]
        return abs(a - n) <= atol + rtol * abs(n)

    # -- helpers -------------------------------------------------------------------
    def _vjp(self, vs):
        return self.an.vjp(vs)

    def _check_nondet(self, vs, gs):
        gs2 = self.an.vjp(vs)
        for i, g1, g2 in zip(self.checked, gs, gs2):
            if g1 is None and g2 is None:
                continue
            z = np.zeros(self.seq[i].shape)
            d = np.max(np.abs((z if g1 is None else g1) - (z if g2 is None else g2)), initial=0.0)
            if not d <= self.opts.nondet_tol:
                self.fail(f"nondeterministic backward: two VJPs with the same cotangent differ "
                          f"by up to {d:.6g} for {self.in_label(i)} (nondet_tol = "
                          f"{self.opts.nondet_tol:g})")

    def _check_meta(self):
        for i, g in zip(self.checked, self.an.last):
            if g is None:
                continue
            x = self.seq[i]
            if g._data.dtype != x._data.dtype or g.shape != x.shape:
                self.fail(f"check_grad_dtypes: the gradient of {self.in_label(i)} has dtype "
                          f"{g.dtype.name} and shape {g.shape}, but the input has dtype "
                          f"{x.dtype.name} and shape {x.shape}")

    def check_undefined(self):
        vs = [np.zeros(o._data.shape, dtype=wide(o._data.dtype)) for _, o in self.outs]
        try:
            gs = self.an.vjp(vs, "zero-cotangent backward")
        except GradcheckError as e:
            self.fail(f"check_undefined_grad: backward with zero output cotangents failed "
                      f"({e})")
        for i, g in zip(self.checked, gs):
            if g is not None and g.size and not np.all(g == 0):
                self.fail(f"check_undefined_grad: backward with zero output cotangents gave a "
                          f"nonzero gradient for {self.in_label(i)} (max |g| = "
                          f"{np.max(np.abs(g)):.6g}); expected zeros or None")

    # -- fast mode -----------------------------------------------------------------
    def fast(self, backward, forward_jvp):
        for k in range(self.opts.num_directions):
            vs = [rand(o._data.shape, o._data.dtype.kind == "c", self.rng) for _, o in self.outs]
            if backward:
                gs = self._vjp(vs)
                if k == 0:
                    self._check_nondet(vs, gs)
                    if self.opts.check_grad_dtypes:
                        self._check_meta()
            for ci, i in enumerate(self.checked):
                x = self.num.base_wide[i]
                if x.size == 0:
                    continue
                u = np.asarray(self.rng.standard_normal(x.shape))
                u /= np.linalg.norm(u)
                for part, d in directions(u, x.dtype.kind == "c"):
                    dfs, delta = self.num.diff(i, self.eps * d)
                    two = 2 * self.eps
                    n = sum(float(np.vdot(v, df).real) for v, df in zip(vs, dfs)) / two
                    what = part if x.dtype.kind == "c" else ""
                    if backward:
                        g = gs[ci]
                        a = 0.0 if g is None else float(np.vdot(g, delta).real) / two
                        if not self.close(i, a, n):
                            fast_failure(self, i, ci, k, what, vs, dfs, delta, a, n, "backward")
                    if forward_jvp is not None:
                        ts = forward_jvp(i, delta / two)
                        a = sum(float(np.vdot(v, t).real) for v, t in zip(vs, ts))
                        if not self.close(i, a, n):
                            fast_failure(self, i, ci, k, what, vs, dfs, delta, a, n, "forward")

    # -- slow mode -----------------------------------------------------------------
    def slow(self, backward, forward_jvp):
        rows = row_layout(self.outs)
        R = sum(r[3] for r in rows)
        sizes = {i: self.num.base_wide[i].size for i in self.checked}
        cplx_in = {i: self.num.base_wide[i].dtype.kind == "c" for i in self.checked}
        C = sum(s * (2 if cplx_in[i] else 1) for i, s in sizes.items())
        if R * C > _JACOBIAN_WARN:
            warnings.warn(f"{self.name}: fast_mode=False builds a Jacobian with {R * C} entries; "
                          "fast_mode=True is much cheaper", stacklevel=3)
        numerical = {}
        for i in self.checked:
            x = self.num.base_wide[i]
            cols = []
            for factor in factors(cplx_in[i]):
                for p in range(x.size):
                    d = np.zeros(x.shape, dtype=x.dtype)
                    d.flat[p] = self.eps * factor
                    dfs, delta = self.num.diff(i, d)
                    dp = delta.flat[p]
                    dp = dp.imag if factor == 1j else dp.real
                    cols.append(np.concatenate(
                        [realvec(df, df.dtype.kind == "c") for df in dfs]
                        or [np.zeros(0)]) / dp)
            numerical[i] = np.stack(cols, axis=1) if cols else np.zeros((R, 0))
        if backward:
            analytic = {i: np.zeros((R, numerical[i].shape[1])) for i in self.checked}
            r = 0
            first = True
            for m, _, factor, n in rows:
                for q in range(n):
                    vs = [np.zeros(oo._data.shape, dtype=wide(oo._data.dtype))
                          for _, oo in self.outs]
                    vs[m].flat[q] = factor
                    gs = self._vjp(vs)
                    self._check_nondet(vs, gs)
                    if first and self.opts.check_grad_dtypes:
                        self._check_meta()
                    first = False
                    for i, g in zip(self.checked, gs):
                        if g is not None:
                            analytic[i][r] = realvec(g, cplx_in[i])
                    r += 1
            worst_entry(self, analytic, numerical, rows, sizes, cplx_in, "Jacobian")
        if forward_jvp is not None:
            analytic = {}
            for i in self.checked:
                x = self.num.base_wide[i]
                cols = []
                for factor in factors(cplx_in[i]):
                    for p in range(x.size):
                        t = np.zeros(x.shape, dtype=x.dtype)
                        t.flat[p] = factor
                        ts = forward_jvp(i, t)
                        cols.append(np.concatenate(
                            [realvec(tt, o._data.dtype.kind == "c")
                             for tt, (_, o) in zip(ts, self.outs)] or [np.zeros(0)]))
                analytic[i] = np.stack(cols, axis=1) if cols else np.zeros((R, 0))
            worst_entry(self, analytic, numerical, rows, sizes, cplx_in,
                        "forward-mode Jacobian")
