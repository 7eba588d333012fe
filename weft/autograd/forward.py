"""Forward mode: tangents carried alongside the values while a function runs.

A :class:`Pass` (opened by :func:`weft.autograd.jvp`) maps the tensors it tracks to
their tangents. While one is open, ``engine.apply`` hands each recorded result to
:func:`_on_apply`, which computes the result's tangent from its inputs' tangents
with the primitive's forward rule (``engine.defjvp``, ``deflinear``,
``defmultilinear``) or, for a primitive without one, with a double vjp of that
primitive's own reverse rules: for a cotangent ``u`` that requires grad,
``vjp(u) = Jᴴ u`` is linear in ``u`` and its vjp along ``t`` is ``J t``. Either way
the tangent is built from weft ops on the recorded inputs, so it is differentiable
again like any other result.

Tangents follow the tape: a tensor carries one only if it is recorded
(``stop_gradient=False``), so ``detach()``, ``no_grad`` and ``stop_gradient=True``
cut them as they cut gradients. They are keyed by graph position, (node, output)
for a recorded result and the tensor for a leaf, not by the Python object: the
engine and the in-place ops wrap one position in several objects (the saved output
a vjp reads under ``create_graph``, the target of ``x.add_(y)``), and all of them
see its tangent.

Passes nest (a jvp inside a jvp's function, forward over forward): while the rule
of pass ``k`` runs, pass ``k`` and the passes opened after it are switched off, so
the rule's own ops carry only the tangents of the passes opened before it, and each
level differentiates the others' work exactly once.

A node recorded outside ``apply`` (a PyLayer, a ``once_differentiable`` backward)
is not seen op by op; where one consumes a tangent the pass is marked *opaque* and
``jvp`` falls back to the double-vjp trick over the whole recorded function, which
gives the same result.
"""
from __future__ import annotations

import threading
import warnings

from ..core.args import xp_of
from ..core.tensor import Tensor
from . import engine
from .api import grad as _grad
from .grad_mode import mode


class _State(threading.local):
    def __init__(self):
        self.passes = []   # the passes open in this thread, outermost first


_state = _State()
_lock = threading.Lock()


class Pass:
    """One forward-mode level: tangents by graph position. Use as a context manager;
    :meth:`seed` the inputs, run the function, then read :meth:`tangent`."""

    __slots__ = ("nodes", "leaves", "opaque", "on")

    def __init__(self):
        self.nodes = {}      # (id(node), output index) -> (node, tangent)
        self.leaves = {}     # id(leaf) -> (leaf, tangent)
        self.opaque = False  # something consumed a tangent outside apply
        self.on = True

    def __enter__(self):
        _state.passes.append(self)
        with _lock:
            engine._fwd_active += 1
        return self

    def __exit__(self, *exc):
        _state.passes.remove(self)
        with _lock:
            engine._fwd_active -= 1
        return False

    def seed(self, x, t):
        """Give the recorded tensor ``x`` the tangent ``t``."""
        n = x._node
        if n is None:
            self.leaves[id(x)] = (x, t)
        else:
            self.nodes[(id(n), x._oidx)] = (n, t)

    def tangent(self, x):
        """The tangent of ``x`` (None: zero)."""
        if not isinstance(x, Tensor) or x.stop_gradient:
            return None
        n = x._node
        e = self.leaves.get(id(x)) if n is None else self.nodes.get((id(n), x._oidx))
        return None if e is None else e[1]


def _on_apply(prim, args, params, out):
    """The tangents of ``out`` (the recorded result of ``prim`` on ``args``) in every
    open pass of this thread where an input has one."""
    passes = _state.passes
    for k in range(len(passes) - 1, -1, -1):
        p = passes[k]
        if not p.on or p.opaque:
            continue
        ts = None
        for i, a in enumerate(args):
            if isinstance(a, Tensor) and not a.stop_gradient:
                t = p.tangent(a)
                if t is not None:
                    if ts is None:
                        ts = [None] * len(args)
                    ts[i] = t
        if ts is None:
            continue
        off = [q for q in passes[k:] if q.on]
        for q in off:
            q.on = False
        try:
            res = _out_tangents(prim, args, params, out, ts)
        finally:
            for q in off:
                q.on = True
        if prim.n_out == 1:
            if res is not None:
                p.nodes[(id(out._node), 0)] = (out._node, res)
        elif res is not None:
            for o, r in zip(out, res):
                if r is not None and not o.stop_gradient:
                    p.nodes[(id(o._node), o._oidx)] = (o._node, r)


def opaque(inputs):
    """Mark the passes in which one of ``inputs`` has a tangent as opaque: a node was
    recorded on them outside ``apply`` (called by PyLayer)."""
    for p in _state.passes:
        if p.on and not p.opaque and any(p.tangent(a) is not None for a in inputs):
            p.opaque = True


def _out_tangents(prim, args, params, out, ts):
    vjps = prim.vjps
    for i, t in enumerate(ts):
        if t is not None and (i >= len(vjps) or vjps[i] is None):
            raise RuntimeError(f"{prim.name} is not differentiable with respect to input {i}")
    rule = prim.jvp
    if rule is None:
        return _double_vjp(prim, args, params, out, ts)
    if type(rule) is not tuple:
        r = rule(ts, out, *args, **params)
        if r is NotImplemented:
            return _double_vjp(prim, args, params, out, ts)
        return _fixed(r, out, prim)
    acc = None
    rest = None
    for i, t in enumerate(ts):
        if t is None:
            continue
        f = rule[i] if i < len(rule) else None
        r = NotImplemented if f is None else f(t, out, *args, **params)
        if r is NotImplemented:
            if rest is None:
                rest = [None] * len(ts)
            rest[i] = t
            continue
        acc = _sum(acc, _fixed(r, out, prim))
    if rest is not None:
        acc = _sum(acc, _double_vjp(prim, args, params, out, rest))
    return acc


def _double_vjp(prim, args, params, out, ts):
    """``J t`` of one primitive from its vjps: ``vjp_i(u)`` for a cotangent ``u`` that
    requires grad, then the vjp of ``u ↦ Σ_i <vjp_i(u), t_i>``. The second pass stops
    at the primitive's own inputs and outputs, so it never walks their history.

    ``u`` is ones, not zeros: the result does not depend on it (a vjp is linear in its
    cotangent), but a rule may skip a term whose value is zero (svd's parts outside
    the span of U), which would drop that term's derivative too. A gauge warning
    raised on this artificial ``u`` says nothing about the user's function."""
    multi = prim.n_out != 1
    outs = out if multi else (out,)
    us = []
    for o in outs:
        if o._data.dtype.kind in "fc" and not o.stop_gradient:
            u = Tensor._wrap(xp_of(o).ones_like(o._data))
            u.stop_gradient = False
            us.append(u)
        else:
            us.append(None)
    g = tuple(us) if multi else us[0]
    blocked = [a for a in args if isinstance(a, Tensor) and not a.stop_gradient]
    blocked += [o for o in outs if not o.stop_gradient]
    prev = mode.enabled
    mode.enabled = True
    try:
        pairs = []
        for i, t in enumerate(ts):
            if t is None:
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", engine.GaugeWarning)
                gi = prim.vjps[i](g, out, *args, **params)
            if gi is None:
                continue
            gi = engine._fix_grad(gi, args[i])
            if not gi.stop_gradient:
                pairs.append((gi, t))
        live = [u for u in us if u is not None]
        if not pairs or not live:
            return None
        res = _grad([q[0] for q in pairs], live, [q[1] for q in pairs], retain_graph=True,
                   create_graph=True, allow_unused=True, no_grad_vars=blocked)
    finally:
        mode.enabled = prev
    it = iter(res)
    full = [None if u is None else next(it) for u in us]
    return tuple(full) if multi else full[0]


def _fixed(r, out, prim):
    if prim.n_out == 1:
        return _fix_tangent(r, out, prim)
    if r is None:
        return None
    if not isinstance(r, (tuple, list)) or len(r) != len(out):
        raise TypeError(f"the forward rule of {prim.name} must return a tuple of "
                        f"{len(out)} tangents (None for zero), got {type(r).__name__}")
    return tuple(_fix_tangent(t, o, prim) for t, o in zip(r, out))


def _fix_tangent(t, o, prim):
    """Tangent ``t`` brought to the shape and dtype of output ``o`` (the real part for
    a real output, as the engine does for gradients)."""
    if t is None or o._data.dtype.kind not in "fc":
        return None
    if not isinstance(t, Tensor):
        raise TypeError(f"the forward rule of {prim.name} returned {type(t).__name__}, "
                        "expected a Tensor")
    d = o._data
    if t._data.shape != d.shape:
        t = engine.support.broadcast_to(t, list(d.shape))
    if t._data.dtype != d.dtype:
        t = engine._to_dtype(t, d.dtype)
    return t


def _sum(a, b):
    if a is None:
        return b
    if b is None:
        return a
    if type(a) is tuple:
        return tuple(_sum(x, y) for x, y in zip(a, b))
    return a + b


engine._fwd_hook = _on_apply
