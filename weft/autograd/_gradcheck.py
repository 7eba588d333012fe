"""Numerical gradient checking: ``gradcheck`` and ``gradgradcheck`` (api-autograd.md §7).

The analytic side is the real engine at the inputs' own dtype (``weft.grad``);
the numerical side is a central difference evaluated in float64 on up-cast copies
of the checked inputs. Every function is treated as a map between real vector
spaces (a complex number is its real and imaginary parts), which makes one test
cover real, complex and mixed functions alike: for a real loss
``L = Re <v, f(x)>`` the engine's gradient ``dL/dRe x + i dL/dIm x`` is compared
component-wise with the difference quotients along real and imaginary
perturbations.

Fast mode (the default) compares scalars: for a random unit direction ``u`` and a
random cotangent ``v``, ``<vjp(v), u>`` against ``<v, (f(x+eps u) - f(x-eps u)) / 2eps>``
— one VJP and two evaluations per direction instead of a full Jacobian, in the
spirit of PyTorch's fast gradcheck. The analytic side is evaluated on the
perturbation actually realised after rounding, so the comparison is exact to
first order even when the numerical side runs at reduced precision.
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np

from ..core import dtype as _dt
from ..core.args import xp_of
from ..core.place import move_array
from ..core.tensor import Tensor
from .api import grad as _grad
from .engine import support
from .grad_mode import enable_grad, is_grad_enabled, no_grad


class GradcheckError(RuntimeError):
    """A gradient check failed; the message names the check, the input and output
    indices, the analytic and numerical values and the tolerances."""


# precision classes: 0 = 64-bit, 1 = 32-bit, 2 = float16, 3 = bfloat16
_EPS = (1e-6, 1e-3, 1e-2, 1e-1)
_TOL = ((1e-5, 1e-3), (1e-3, 1e-2), (1e-2, 5e-2), (5e-2, 1e-1))
_JACOBIAN_WARN = 10 ** 6


def _is_float(d):
    return d.kind in "fc" or (_dt.bfloat16 is not None and d == _dt.bfloat16)


def _prec(d):
    if _dt.bfloat16 is not None and d == _dt.bfloat16:
        return 3
    size = d.itemsize // 2 if d.kind == "c" else d.itemsize
    return {8: 0, 4: 1}.get(size, 2)


def _wide(d):
    return np.dtype(np.complex128) if d.kind == "c" else np.dtype(np.float64)


def _host(t, dtype=None):
    a = t.numpy()
    return np.asarray(a, dtype=dtype if dtype is not None else _wide(a.dtype))


def _like(arr, t):
    """``arr`` (host) moved to the device of tensor ``t``."""
    return arr if type(t._data) is np.ndarray else move_array(arr, t.place)


def _rand(shape, cplx, rng):
    a = np.asarray(rng.standard_normal(shape))
    if cplx:
        a = a + 1j * np.asarray(rng.standard_normal(shape))
    return np.asarray(a)  # 0-D arithmetic gives numpy scalars


def _zeros_of(t):
    """Zeros shaped like ``t`` on its device: a constant, so no op is recorded."""
    return Tensor._wrap(xp_of(t).zeros(t._data.shape, dtype=t._data.dtype))


def _is_sparse(a):
    f = getattr(a, "is_sparse", None)
    return callable(f) and f() is True


# ----------------------------------------------------------------------------------
# argument handling


def _split_inputs(inputs, name):
    if isinstance(inputs, Tensor):
        seq = (inputs,)
    elif isinstance(inputs, (list, tuple)):
        seq = tuple(inputs)
    else:
        raise TypeError(f"{name}: inputs must be a Tensor or a sequence, got "
                        f"{type(inputs).__name__}")
    for a in seq:
        if _is_sparse(a):
            # weft's sparse tensors were reduced to their values before this point
            raise TypeError(f"{name}: an input of type {type(a).__name__} says it is sparse "
                            "but is not a weft sparse tensor")
    checked = [i for i, a in enumerate(seq) if isinstance(a, Tensor)
               and _is_float(a._data.dtype) and not a.stop_gradient]
    if not checked:
        raise ValueError(f"{name}: no input is a floating-point or complex Tensor with "
                         "stop_gradient=False, so there is nothing to check")
    return seq, checked


def _diff_outputs(res, name):
    """``[(position, tensor)]`` of the floating/complex Tensors ``func`` returned."""
    if isinstance(res, Tensor):
        items = [(0, res)]
    elif isinstance(res, (list, tuple)):
        items = [(j, o) for j, o in enumerate(res) if isinstance(o, Tensor)]
    else:
        raise TypeError(f"{name}: func must return a Tensor or a sequence of Tensors, got "
                        f"{type(res).__name__}")
    for _, o in items:
        if _is_sparse(o):
            raise NotImplementedError(f"{name}: sparse outputs need weft.sparse, not available "
                                      "yet")
    return [(j, o) for j, o in items if _is_float(o._data.dtype)]


def _opt_number(v, arg, name, positive):
    if v is None:
        return None
    if not isinstance(v, numbers.Real) or isinstance(v, bool):
        raise TypeError(f"{name}: {arg} must be a real number or None, got {type(v).__name__}")
    v = float(v)
    if not (v > 0 if positive else v >= 0) or v != v:
        raise ValueError(f"{name}: {arg} must be {'> 0' if positive else '>= 0'}, got {v}")
    return v


class _Options:
    __slots__ = ("eps", "atol", "rtol", "raise_exception", "fast_mode", "num_directions",
                 "nondet_tol", "masked", "check_undefined_grad", "check_grad_dtypes",
                 "check_forward_ad", "check_backward_ad", "check_batched_grad", "seed")

    def __init__(self, name, eps, atol, rtol, raise_exception, fast_mode, num_directions,
                 nondet_tol, masked, check_undefined_grad, check_grad_dtypes, check_forward_ad,
                 check_backward_ad, check_batched_grad, seed):
        self.eps = _opt_number(eps, "eps", name, True)
        self.atol = _opt_number(atol, "atol", name, False)
        self.rtol = _opt_number(rtol, "rtol", name, False)
        nd = _opt_number(nondet_tol, "nondet_tol", name, False)
        self.nondet_tol = 0.0 if nd is None else nd
        flags = dict(raise_exception=raise_exception, fast_mode=fast_mode,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_forward_ad=check_forward_ad,
                     check_backward_ad=check_backward_ad, check_batched_grad=check_batched_grad)
        for k, v in flags.items():
            if not isinstance(v, (bool, np.bool_)):
                raise TypeError(f"{name}: {k} must be a bool, got {type(v).__name__}")
            setattr(self, k, bool(v))
        if masked is not None and not isinstance(masked, (bool, np.bool_)):
            raise TypeError(f"{name}: masked must be None or a bool, got {type(masked).__name__}")
        self.masked = masked
        if not isinstance(num_directions, (int, np.integer)) or isinstance(num_directions, bool):
            raise TypeError(f"{name}: num_directions must be an int, got "
                            f"{type(num_directions).__name__}")
        if num_directions < 1:
            raise ValueError(f"{name}: num_directions must be >= 1, got {num_directions}")
        self.num_directions = int(num_directions)
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
            raise ValueError(f"{name}: seed must be a non-negative int, got {seed!r}")
        self.seed = int(seed)


# ----------------------------------------------------------------------------------
# the two sides of the comparison


class _Analytic:
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
        self.outs = _diff_outputs(res, name)
        self.checked = checked
        self.targets = [self.leaves[i] for i in checked]

    def vjp(self, vs, what="backward"):
        """Host gradients (wide dtype, or None where unused) for cotangents ``vs``."""
        if not self.outs:
            return [None] * len(self.checked)
        gos = [Tensor._wrap(_like(np.asarray(v).astype(o._data.dtype), o))
               for v, (_, o) in zip(vs, self.outs)]
        try:
            gs = _grad([o for _, o in self.outs], self.targets, grad_outputs=gos,
                       retain_graph=True, allow_unused=True)
        except Exception as e:
            raise GradcheckError(f"{self.name}: the {what} pass raised "
                                 f"{type(e).__name__}: {e}") from e
        self.last = gs
        return [None if g is None else _host(g) for g in gs]

    def prec(self):
        return max([_prec(o._data.dtype) for _, o in self.outs], default=0)


class _Numeric:
    """func evaluated under no_grad at perturbed float64 copies of the checked inputs."""

    def __init__(self, func, seq, checked, positions, user_eps, name):
        self.func = func
        self.seq = seq
        self.checked = checked
        self.positions = positions
        self.name = name
        self.base = {i: _host(seq[i]) for i in checked}
        try:
            self.run({})
        except Exception:
            if all(seq[i]._data.dtype == self.base[i].dtype for i in checked):
                raise
            # a dtype-specific kernel: difference at the inputs' own precision instead
            self.base = {i: seq[i].numpy().copy() for i in checked}
            self.run({})
        self.base_wide = {i: np.asarray(b, dtype=_wide(b.dtype)) for i, b in self.base.items()}
        # outputs rounded to less than float64 (a cast inside func) need a larger step
        prec = max([_prec(b.dtype) for b in self.base.values()] +
                   [_prec(o.dtype) for o in self._raw], default=0)
        self.eps = user_eps if user_eps is not None else _EPS[prec]

    def run(self, pert):
        args = list(self.seq)
        for i in self.checked:
            a = pert.get(i)
            if a is None:
                a = self.base[i].copy()
            args[i] = Tensor._wrap(_like(a, self.seq[i]))
        with no_grad():
            res = self.func(*args)
        if isinstance(res, Tensor):
            res = (res,)
        if not isinstance(res, (list, tuple)):
            raise TypeError(f"{self.name}: func must return a Tensor or a sequence of Tensors, "
                            f"got {type(res).__name__}")
        try:
            raw = [res[j] for j in self.positions]
            self._raw = [r.numpy() for r in raw]
        except (IndexError, AttributeError):
            raise ValueError(f"{self.name}: func returned differently structured outputs when "
                             "evaluated at float64 copies of the inputs") from None
        return [np.asarray(r, dtype=_wide(r.dtype)) for r in self._raw]

    def perturbed(self, i, d):
        """``base + d`` in the numeric dtype, and the realised perturbation in wide dtype."""
        b = self.base[i]
        p = np.asarray(self.base_wide[i] + d).astype(b.dtype)
        return p, np.asarray(p, dtype=self.base_wide[i].dtype) - self.base_wide[i]

    def diff(self, i, d):
        """Output differences f(x + d) - f(x - d) and the realised 2d."""
        xp, dp = self.perturbed(i, d)
        xm, dm = self.perturbed(i, -d)
        fp = self.run({i: xp})
        fm = self.run({i: xm})
        return [a - b for a, b in zip(fp, fm)], dp - dm


# ----------------------------------------------------------------------------------
# checks


class _Checker:
    def __init__(self, func, seq, checked, opts, name, in_label, out_label):
        self.func, self.seq, self.checked, self.opts, self.name = func, seq, checked, opts, name
        self.in_label = in_label or (lambda i: f"input {i}")
        self.out_label = out_label or (lambda j: f"output {j}")
        self.an = _Analytic(func, seq, checked, name)
        self.outs = self.an.outs
        positions = [j for j, _ in self.outs]
        self.num = _Numeric(func, seq, checked, positions, opts.eps, name)
        self.eps = self.num.eps
        out_prec = self.an.prec()
        self.tol = {}
        for i in checked:
            a, r = _TOL[max(_prec(seq[i]._data.dtype), out_prec)]
            self.tol[i] = (a if opts.atol is None else opts.atol,
                           r if opts.rtol is None else opts.rtol)
        self.rng = np.random.default_rng(opts.seed)

    def fail(self, msg):
        raise GradcheckError(f"{self.name}: {msg}")

    def close(self, i, a, n):
        atol, rtol = self.tol[i]
        return abs(a - n) <= atol + rtol * abs(n)

    def tol_text(self, i, n):
        atol, rtol = self.tol[i]
        return (f"atol {atol:g} + rtol {rtol:g} * |numerical| = {atol + rtol * abs(n):.3g} "
                f"(eps {self.eps:g})")

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
        vs = [np.zeros(o._data.shape, dtype=_wide(o._data.dtype)) for _, o in self.outs]
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
            vs = [_rand(o._data.shape, o._data.dtype.kind == "c", self.rng) for _, o in self.outs]
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
                parts = [("real part", u)]
                if x.dtype.kind == "c":
                    parts.append(("imaginary part", 1j * u))
                for part, d in parts:
                    dfs, delta = self.num.diff(i, self.eps * d)
                    two = 2 * self.eps
                    n = sum(float(np.vdot(v, df).real) for v, df in zip(vs, dfs)) / two
                    what = part if x.dtype.kind == "c" else ""
                    if backward:
                        g = gs[ci]
                        a = 0.0 if g is None else float(np.vdot(g, delta).real) / two
                        if not self.close(i, a, n):
                            self._fast_fail(i, ci, k, what, vs, dfs, delta, a, n, "backward")
                    if forward_jvp is not None:
                        ts = forward_jvp(i, delta / two)
                        a = sum(float(np.vdot(v, t).real) for v, t in zip(vs, ts))
                        if not self.close(i, a, n):
                            self._fast_fail(i, ci, k, what, vs, dfs, delta, a, n, "forward")

    def _fast_fail(self, i, ci, k, part, vs, dfs, delta, a, n, kind):
        # localise: which output's contribution disagrees (extra VJPs only on failure)
        two = 2 * self.eps
        out_txt = "all outputs"
        if kind == "backward" and len(self.outs) > 1:
            worst, worst_ex = None, -np.inf
            for m in range(len(self.outs)):
                vm = [v if mm == m else np.zeros_like(v) for mm, v in enumerate(vs)]
                gm = self.an.vjp(vm)[ci]
                am = 0.0 if gm is None else float(np.vdot(gm, delta).real) / two
                nm = float(np.vdot(vs[m], dfs[m]).real) / two
                atol, rtol = self.tol[i]
                ex = abs(am - nm) - (atol + rtol * abs(nm))
                if not ex <= worst_ex:
                    worst, worst_ex = m, ex
            out_txt = self.out_label(self.outs[worst][0])
        elif len(self.outs) == 1:
            out_txt = self.out_label(self.outs[0][0])
        lhs = "<vjp(v), u>" if kind == "backward" else "<v, jvp(u)>"
        where = f", {part}" if part else ""
        self.fail(f"{'Jacobian' if kind == 'backward' else 'forward-mode Jacobian'} mismatch "
                  f"for {self.in_label(i)} and {out_txt} (fast mode, direction {k}{where}): "
                  f"analytic {lhs} = {a:.6g} but numerical <v, J u> = {n:.6g}; |difference| "
                  f"{abs(a - n):.3g} exceeds {self.tol_text(i, n)}. Rerun with "
                  "fast_mode=False to see the worst Jacobian entry.")

    # -- slow mode -----------------------------------------------------------------
    def _row_layout(self):
        rows = []  # (output list index, position in func's return, part factor, size)
        for m, (j, o) in enumerate(self.outs):
            n = int(o._data.size)
            rows.append((m, j, 1.0, n))
            if o._data.dtype.kind == "c":
                rows.append((m, j, 1j, n))
        return rows

    @staticmethod
    def _realvec(a, cplx):
        a = a.reshape(-1)
        return np.concatenate([a.real, a.imag]) if cplx else a.real

    def slow(self, backward, forward_jvp):
        rows = self._row_layout()
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
            for factor in ((1.0, 1j) if cplx_in[i] else (1.0,)):
                for p in range(x.size):
                    d = np.zeros(x.shape, dtype=x.dtype)
                    d.flat[p] = self.eps * factor
                    dfs, delta = self.num.diff(i, d)
                    dp = delta.flat[p]
                    dp = dp.imag if factor == 1j else dp.real
                    cols.append(np.concatenate(
                        [self._realvec(df, df.dtype.kind == "c") for df in dfs]
                        or [np.zeros(0)]) / dp)
            numerical[i] = np.stack(cols, axis=1) if cols else np.zeros((R, 0))
        if backward:
            analytic = {i: np.zeros((R, numerical[i].shape[1])) for i in self.checked}
            r = 0
            first = True
            for m, _, factor, n in rows:
                for q in range(n):
                    vs = [np.zeros(oo._data.shape, dtype=_wide(oo._data.dtype))
                          for _, oo in self.outs]
                    vs[m].flat[q] = factor
                    gs = self._vjp(vs)
                    self._check_nondet(vs, gs)
                    if first and self.opts.check_grad_dtypes:
                        self._check_meta()
                    first = False
                    for i, g in zip(self.checked, gs):
                        if g is not None:
                            analytic[i][r] = self._realvec(g, cplx_in[i])
                    r += 1
            self._compare(analytic, numerical, rows, sizes, cplx_in, "Jacobian")
        if forward_jvp is not None:
            analytic = {}
            for i in self.checked:
                x = self.num.base_wide[i]
                cols = []
                for factor in ((1.0, 1j) if cplx_in[i] else (1.0,)):
                    for p in range(x.size):
                        t = np.zeros(x.shape, dtype=x.dtype)
                        t.flat[p] = factor
                        ts = forward_jvp(i, t)
                        cols.append(np.concatenate(
                            [self._realvec(tt, o._data.dtype.kind == "c")
                             for tt, (_, o) in zip(ts, self.outs)] or [np.zeros(0)]))
                analytic[i] = np.stack(cols, axis=1) if cols else np.zeros((R, 0))
            self._compare(analytic, numerical, rows, sizes, cplx_in, "forward-mode Jacobian")

    def _compare(self, analytic, numerical, rows, sizes, cplx_in, what):
        for i in self.checked:
            A, N = analytic[i], numerical[i]
            if A.size == 0:
                continue
            atol, rtol = self.tol[i]
            excess = np.abs(A - N) - (atol + rtol * np.abs(N))
            excess = np.where(np.isnan(excess), np.inf, excess)
            r, c = np.unravel_index(int(np.argmax(excess)), excess.shape)
            if excess[r, c] <= 0:
                continue
            # map the worst entry back to (output, position, part) and (input position, part)
            rr = int(r)
            for m, j, factor, n in rows:
                if rr < n:
                    break
                rr -= n
            o = self.outs[m][1]
            opart = "" if o._data.dtype.kind != "c" else (" (real part)" if factor == 1.0
                                                           else " (imaginary part)")
            n_i = sizes[i]
            ipart = "" if not cplx_in[i] else (" (real part)" if c < n_i else
                                               " (imaginary part)")
            a_v, n_v = float(A[r, c]), float(N[r, c])
            in_pos = _unravel(int(c) % max(n_i, 1), self.seq[i].shape)
            self.fail(f"{what} mismatch for {self.in_label(i)} and {self.out_label(j)} (slow "
                      f"mode): worst entry at input position {in_pos}{ipart}, output position "
                      f"{_unravel(rr, o.shape)}{opart}: analytic "
                      f"{a_v:.6g} but numerical {n_v:.6g}; |difference| {abs(a_v - n_v):.3g} "
                      f"exceeds {self.tol_text(i, n_v)}")


def _unravel(p, shape):
    return [int(k) for k in np.unravel_index(p, shape)] if shape else []


# ----------------------------------------------------------------------------------
# optional checks through the functional APIs (looked up on the functional package
# when a check runs: it loads only when asked for, and tests can stand in for it)


def _forward_jvp(checker):
    """``(i, tangent) -> tangents of the outputs`` through weft.autograd.jvp."""
    from . import functional  # noqa: PLC0415

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
            tangents.append(Tensor._wrap(_like(a, x)))
        try:
            with enable_grad():
                _, ts = jvp(restricted, [an.leaves[k] for k in checked], tangents)
        except Exception as e:
            raise GradcheckError(f"{checker.name}: the forward-mode (jvp) pass raised "
                                 f"{type(e).__name__}: {e}") from e
        if isinstance(ts, Tensor):
            ts = (ts,)
        return [np.zeros(o.shape) if tt is None else _host(tt)
                for tt, (_, o) in zip(ts, checker.outs)]
    return run


def _check_batched(checker):
    """Stacked cotangents times ``weft.autograd.jacobian`` must equal per-cotangent VJPs."""
    from . import functional  # noqa: PLC0415

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
                mats = [_host(J[:]).reshape(int(y._data.size), int(flat._data.size))
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
                  np.zeros(o._data.shape, dtype=_wide(o._data.dtype)) for _, o in checker.outs]
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


# ----------------------------------------------------------------------------------
# sparse inputs and outputs (masked checks, api-sparse.md §6)


def _sparse_reduce(func, inputs, masked, name):
    """Reduce a check with sparse inputs/outputs to one on their stored values.

    Each differentiable sparse input becomes a dense leaf holding a copy of its
    values; ``func`` receives a sparse tensor of the input's pattern built around
    them (differentiably), and each sparse output is replaced by its values. The
    gradient w.r.t. the values is exactly the masked gradient. Before that, one
    backward through ``func`` on the sparse inputs themselves checks that every
    analytic gradient is sparse with its input's layout and pattern.
    """
    if not callable(func):
        return func, inputs
    seq = (inputs,) if isinstance(inputs, Tensor) else inputs
    if not isinstance(seq, (list, tuple)):
        return func, inputs
    sparse_in = [i for i, a in enumerate(seq) if isinstance(a, Tensor) and _is_sparse(a)]
    if not sparse_in:
        return _sparse_outputs(func, name), inputs
    if masked is False:
        raise NotImplementedError(f"{name}: masked=False (perturbing the implicit zeros of "
                                  "sparse inputs) is not supported; use masked=True")
    checked = [i for i in sparse_in if _is_float(seq[i]._data.dtype) and not seq[i].stop_gradient]
    _check_sparse_grad_patterns(func, seq, checked, name)
    templates = {i: seq[i] for i in checked}
    new_inputs = list(seq)
    for i in checked:
        v = Tensor._wrap(seq[i]._data.copy())
        v.stop_gradient = False
        new_inputs[i] = v

    def on_values(*args):
        args = list(args)
        for i, t in templates.items():
            args[i] = t._with_values(args[i])
        return func(*args)
    reduced = _sparse_outputs(on_values, name)
    return reduced, (new_inputs if isinstance(inputs, (list, tuple)) else new_inputs[0])


def _sparse_outputs(func, name):
    """``func`` with each sparse output replaced by its values, its pattern pinned."""
    patterns = {}

    def wrapped(*args):
        res = func(*args)
        single = isinstance(res, Tensor)
        items = [res] if single else res
        if not isinstance(items, (list, tuple)) or not any(_is_sparse(o) for o in items):
            return res
        out = []
        for j, o in enumerate(items):
            if _is_sparse(o):
                p = patterns.get(j)
                if p is None:
                    patterns[j] = o.detach()
                elif not p._same_pattern_as(o):
                    raise GradcheckError(f"{name}: output {j}: output sparsity pattern changed "
                                         "under perturbation")
                o = o.values()
            out.append(o)
        return out[0] if single else type(res)(out) if isinstance(res, tuple) else out
    return wrapped


def _check_sparse_grad_patterns(func, seq, checked, name):
    leaves = list(seq)
    for i in checked:
        c = seq[i].detach()._same_pattern(seq[i]._data.copy())
        c.stop_gradient = False
        leaves[i] = c
    with enable_grad():
        res = func(*leaves)
    outs = [res] if isinstance(res, Tensor) else [o for o in res if isinstance(o, Tensor)]
    outs = [o for o in outs if _is_float(o._data.dtype) and not o.stop_gradient]
    if not outs or not checked:
        return
    try:
        gs = _grad(outs, [leaves[i] for i in checked], allow_unused=True)
    except Exception as e:
        raise GradcheckError(f"{name}: the backward pass raised {type(e).__name__}: {e}") from e
    for i, g in zip(checked, gs):
        if g is not None and not leaves[i]._same_pattern_as(g):
            raise GradcheckError(f"{name}: input {i}: gradient pattern differs from input "
                                 f"(got {type(g).__name__} of shape {g.shape}"
                                 f"{'' if not _is_sparse(g) else f' with {g.nnz()} entries'}"
                                 f" for a {type(seq[i]).__name__} with {seq[i].nnz()} entries)")


# ----------------------------------------------------------------------------------
# public entry points


def _prepare(func, inputs, opts, name):
    """Check ``func``, reduce sparse inputs to their values, and split the inputs into
    the sequence and the indices to check; None when a sparse check already failed
    and ``raise_exception`` is False."""
    if not callable(func):
        raise TypeError(f"{name}: func must be callable, got {type(func).__name__}")
    try:
        func, inputs = _sparse_reduce(func, inputs, opts.masked, name)
    except GradcheckError:
        if opts.raise_exception:
            raise
        return None
    seq, checked = _split_inputs(inputs, name)
    return func, inputs, seq, checked


def _run(func, inputs, opts, name, in_label=None, out_label=None):
    prepared = _prepare(func, inputs, opts, name)
    if prepared is None:
        return False
    func, inputs, seq, checked = prepared
    try:
        ch = _Checker(func, seq, checked, opts, name, in_label, out_label)
        fwd = _forward_jvp(ch) if opts.check_forward_ad else None
        backward = opts.check_backward_ad
        if backward or fwd is not None:
            (ch.fast if opts.fast_mode else ch.slow)(backward, fwd)
        if backward and opts.check_undefined_grad:
            ch.check_undefined()
        if backward and opts.check_batched_grad:
            _check_batched(ch)
    except GradcheckError:
        if opts.raise_exception:
            raise
        return False
    return True


def gradcheck(func, inputs, *, eps=None, atol=None, rtol=None, raise_exception=True,
              fast_mode=True, num_directions=2, nondet_tol=0.0, masked=None,
              check_undefined_grad=True, check_grad_dtypes=False, check_forward_ad=False,
              check_backward_ad=True, check_batched_grad=False, seed=0):
    """Check the engine's gradients of ``func`` against float64 central differences.

    ``inputs`` is a Tensor or a sequence; the floating/complex Tensors among them
    with ``stop_gradient=False`` are checked, everything else is passed to ``func``
    unchanged (the inputs themselves are never modified). ``func`` returns a Tensor
    or a sequence; its non-floating outputs are ignored.

    Fast mode (default) compares ``<vjp(v), u>`` with ``<v, J u>`` for
    ``num_directions`` random unit directions ``u`` per input and random cotangents
    ``v`` (drawn from ``seed``, independent of ``weft.seed``); ``fast_mode=False``
    compares full Jacobians and reports the worst entry. A check passes when
    ``|analytic - numerical| <= atol + rtol * |numerical|``. Defaults depend on the
    input dtype (float64/complex128: eps 1e-6, atol 1e-5, rtol 1e-3; float32:
    atol 1e-3, rtol 1e-2; float16: atol 1e-2, rtol 5e-2; bfloat16: atol 5e-2,
    rtol 1e-1), or on the output dtype when it is less precise. Complex inputs are
    perturbed along their real and imaginary parts; complex outputs are checked
    through ``Re <v, f>`` with complex ``v``.

    Also checked: ``nondet_tol`` (two VJPs with the same cotangent must agree
    within it), ``check_undefined_grad`` (zero cotangents give zero or None
    gradients), ``check_grad_dtypes`` (gradients have their input's dtype and
    shape), ``check_forward_ad`` (JVPs through :func:`weft.autograd.jvp` against the
    same numerical derivative) and ``check_batched_grad`` (Jacobians through
    :func:`weft.autograd.jacobian` against per-cotangent VJPs). Sparse inputs
    (``masked=None``/``True``): only the stored values are perturbed and each
    analytic gradient must be sparse with its input's pattern;
    sparse outputs are compared on their values, with the pattern fixed.

    Returns True; on failure raises :class:`GradcheckError` (or returns False when
    ``raise_exception=False``).

    >>> import weft
    >>> from weft.autograd import gradcheck
    >>> x = weft.to_tensor([0.5, -1.0, 2.0], dtype='float64', stop_gradient=False)
    >>> gradcheck(lambda t: (t * t).exp(), x)
    True
    """
    opts = _Options("gradcheck", eps, atol, rtol, raise_exception, fast_mode, num_directions,
                    nondet_tol, masked, check_undefined_grad, check_grad_dtypes,
                    check_forward_ad, check_backward_ad, check_batched_grad, seed)
    return _run(func, inputs, opts, "gradcheck")


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=None, atol=None, rtol=None,
                  raise_exception=True, fast_mode=True, num_directions=2, nondet_tol=0.0,
                  masked=None, check_undefined_grad=True, check_grad_dtypes=False,
                  check_forward_ad=False, check_backward_ad=True, check_batched_grad=False,
                  seed=0, check_rev_over_rev=True, check_fwd_over_rev=False):
    """Check second derivatives: :func:`gradcheck` of ``(inputs, v) -> vjp(func, inputs, v)``.

    The VJP map is built with ``weft.grad(..., create_graph=True, allow_unused=True)``
    (an unused input gets zeros), so a backward that is not itself differentiable
    fails, naming the op. ``grad_outputs``: one cotangent per floating output of
    ``func`` (those with ``stop_gradient=False`` are checked too); ``None`` draws
    seeded random float64/complex128 cotangents that are checked as well.
    ``check_rev_over_rev`` checks the map with VJPs; ``check_fwd_over_rev`` with
    JVPs (:func:`weft.autograd.jvp`). Other keywords as in gradcheck.

    >>> import weft
    >>> from weft.autograd import gradgradcheck
    >>> x = weft.to_tensor([0.3, -0.7], dtype='float64', stop_gradient=False)
    >>> gradgradcheck(lambda t: t.tanh() * t, x)
    True
    """
    name = "gradgradcheck"
    for k, v in (("check_rev_over_rev", check_rev_over_rev),
                 ("check_fwd_over_rev", check_fwd_over_rev)):
        if not isinstance(v, (bool, np.bool_)):
            raise TypeError(f"{name}: {k} must be a bool, got {type(v).__name__}")
    opts = _Options(name, eps, atol, rtol, raise_exception, fast_mode, num_directions,
                    nondet_tol, masked, check_undefined_grad, check_grad_dtypes,
                    check_forward_ad or check_fwd_over_rev,
                    check_backward_ad and check_rev_over_rev, check_batched_grad, seed)
    prepared = _prepare(func, inputs, opts, name)
    if prepared is None:
        return False
    func, inputs, seq, checked = prepared
    with no_grad():
        copies = [Tensor._wrap(a._data.copy()) if k in checked else a for k, a in enumerate(seq)]
        outs = _diff_outputs(func(*copies), name)
    if grad_outputs is None:
        rng = np.random.default_rng([opts.seed, 1])
        gos = []
        for _, o in outs:
            g = Tensor._wrap(_like(_rand(o._data.shape, o._data.dtype.kind == "c", rng), o))
            g.stop_gradient = False
            gos.append(g)
    else:
        gos = [grad_outputs] if isinstance(grad_outputs, Tensor) else grad_outputs
        if not isinstance(gos, (list, tuple)):
            raise TypeError(f"{name}: grad_outputs must be None, a Tensor or a sequence of "
                            f"Tensors, got {type(grad_outputs).__name__}")
        gos = list(gos)
        if len(gos) != len(outs):
            raise ValueError(f"{name}: grad_outputs has {len(gos)} entries but func has "
                             f"{len(outs)} floating-point outputs")
        for k, (g, (_, o)) in enumerate(zip(gos, outs)):
            if not isinstance(g, Tensor):
                raise TypeError(f"{name}: grad_outputs[{k}] must be a Tensor, got "
                                f"{type(g).__name__}")
            if g.shape != o.shape:
                raise ValueError(f"{name}: grad_outputs[{k}] has shape {g.shape} but the "
                                 f"output it seeds has shape {o.shape}")
    n = len(seq)

    def vjp_map(*args):
        xs = list(args[:n])
        vs = args[n:]

        # called under no_grad only for numerical differences: values suffice, no graph
        create = is_grad_enabled()
        with enable_grad():
            for i in checked:
                if xs[i].stop_gradient:  # numerical evaluation: constants become leaves
                    a = Tensor._wrap(xs[i]._data)
                    a.stop_gradient = False
                    xs[i] = a
            o2 = _diff_outputs(func(*xs), name)
            if len(o2) != len(vs):
                raise ValueError(f"{name}: func returned {len(o2)} floating-point outputs, "
                                 f"expected {len(vs)}")
            vs = [v if v._data.dtype == o._data.dtype else support.cast(v, o._data.dtype)
                  for v, (_, o) in zip(vs, o2)]
            gs = _grad([o for _, o in o2], [xs[i] for i in checked], grad_outputs=vs,
                       create_graph=create, allow_unused=True)
            return tuple(_zeros_of(xs[i]) if g is None else g for i, g in zip(checked, gs))

    def in_label(i):
        return f"input {i}" if i < n else f"grad_outputs[{i - n}]"

    def out_label(j):
        return f"the gradient of input {checked[j]}"

    return _run(vjp_map, list(seq) + gos, opts, name, in_label, out_label)


__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]
