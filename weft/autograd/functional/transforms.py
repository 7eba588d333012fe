"""Function-based autodiff: ``vjp`` and ``jvp`` of a function at given inputs, and the
lazy Jacobian/Hessian of a function over its flattened inputs and outputs (Paddle's
``paddle.incubate.autograd``; ``weft.autograd`` exports vjp and jvp too).

``jvp`` runs ``func`` inside a forward-mode pass (:mod:`weft.autograd.forward`):
each primitive maps its inputs' tangents to its outputs' with its forward rule, or
with a double vjp of its own rules where it has none. ``forward_grad``, whose outputs
are already computed, and ``jvp`` where the pass could not follow (a PyLayer, sparse
inputs or outputs) use the double-vjp trick over the whole function: for a dummy
cotangent ``u`` that requires grad, ``vjp(u) = J^T u`` is linear in ``u``, so the
gradient of ``<vjp(u), v>`` with respect to ``u`` is ``J v``. Both passes run with
``create_graph=True``, so the tangents are differentiable like every other result.

Every input is replaced by a stand-in sharing its storage, so that ``func``'s
argument is differentiated separately from the same tensor captured in a closure
(``vjp(lambda y: x * y, x)`` is ``x``, not ``2x``, as in Paddle). For an input with
``stop_gradient=True`` the stand-in is a leaf that requires grad; for one that
already requires grad it is a view on the caller's graph (a reshape node), so the
results stay attached to that graph and the functions nest (a vjp of a vjp is a
second derivative).
"""
from __future__ import annotations

import warnings

import numpy as np

from ...core.args import xp_of
from ...core.tensor import Tensor
from ..api import _as_list
from ..api import grad as _grad
from ..engine import GaugeWarning, support
from ..forward import Pass
from .rows import expand_index, row_ids, Rows, zeros_of


# ----------------------------------------------------------------------------------
# argument handling


def _check_func(func, op):
    if not callable(func):
        raise TypeError(f"{op}: func must be callable, got {type(func).__name__}")


def _inputs(xs, op):
    xl, seq = _as_list(xs, "xs", op)
    out = []
    for x in xl:
        if x.stop_gradient:
            a = Tensor._wrap(x._data)
            a._version = x._version
            a.stop_gradient = False
            out.append(a)
        elif x.is_sparse():
            # no storage-sharing identity op for sparse tensors in autograd's support
            # set: used as is (so a closure over the same sparse tensor adds in)
            out.append(x)
        else:
            out.append(support.reshape_op(x, list(x.shape)))
    return out, seq


def _outputs(res, op):
    if isinstance(res, Tensor):
        return [res], False
    if isinstance(res, (list, tuple)):
        for i, t in enumerate(res):
            if not isinstance(t, Tensor):
                raise TypeError(f"{op}: func must return Tensors, but output {i} is "
                                f"{type(t).__name__}")
        return list(res), True
    raise TypeError(f"{op}: func must return a Tensor or a sequence of Tensors, got "
                    f"{type(res).__name__}")


def _check_v(v, refs):
    if len(v) != len(refs):
        raise RuntimeError(f"The argument v is a tuple of invalid length: should be "
                           f"{len(refs)} but got {len(v)}.")
    out = []
    for i, (e, r) in enumerate(zip(v, refs)):
        if e.shape != r.shape:
            raise RuntimeError(f"The v[{i}] has invalid shape: should be {r.shape} but got "
                               f"{e.shape}.")
        out.append(e if e._data.dtype == r._data.dtype else support.cast(e, r._data.dtype))
    return out


def _ones(t):
    return Tensor._wrap(xp_of(t).ones(t._data.shape, dtype=t._data.dtype))


def _float(t):
    return t._data.dtype.kind in "fc"


def _structure(items, seq):
    return tuple(items) if seq else items[0]


# ----------------------------------------------------------------------------------
# vjp / jvp


def _vjp(ys, xs, vs):
    pairs = [(y, v) for y, v in zip(ys, vs) if _float(y)]
    gs = [None] * len(xs)
    if pairs:
        gs = _grad([p[0] for p in pairs], xs, [p[1] for p in pairs], retain_graph=True,
                   create_graph=True, allow_unused=True)
    return [zeros_of(x) if g is None else g for g, x in zip(gs, xs)]


def _tangents(ys, xs, vs):
    """``J v`` for recorded ``ys`` of ``xs`` by the double-vjp trick."""
    fl = [k for k, y in enumerate(ys) if _float(y) and not y.stop_gradient]
    res = [zeros_of(y) for y in ys]
    if not fl:
        return res
    us = []
    for k in fl:
        # ones, not zeros: J^T u is linear in u, but a rule may skip a term whose value
        # is zero (svd's parts outside the span of U) and with it the term's derivative;
        # a gauge warning about this artificial u says nothing about func
        u = _ones(ys[k])
        u.stop_gradient = False
        us.append(u)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GaugeWarning)
        gx = _grad([ys[k] for k in fl], xs, us, retain_graph=True, create_graph=True,
                   allow_unused=True)
    pairs = [(g, v) for g, v in zip(gx, vs) if g is not None and not g.stop_gradient]
    if not pairs:
        return res
    ts = _grad([p[0] for p in pairs], us, [p[1] for p in pairs], retain_graph=True,
               create_graph=True, allow_unused=True)
    for k, t in zip(fl, ts):
        if t is not None:
            res[k] = t
    return res


def vjp(func, xs, v=None):
    """``(func(*xs), vjp)``: the vector-Jacobian product of ``func`` at ``xs`` with ``v``.

    ``xs``: a Tensor or a sequence (``func`` is called as ``func(*xs)``); ``v``: the
    cotangents shaped like the outputs (None means ones). ``vjp`` mirrors ``xs``:
    a Tensor for a Tensor, a tuple for a sequence. Both results are differentiable.

    >>> import weft
    >>> x = weft.ones([2, 2])
    >>> out, g = weft.autograd.vjp(lambda x: x @ x, x)
    >>> g.tolist()
    [[4.0, 4.0], [4.0, 4.0]]
    """
    _check_func(func, "vjp")
    xl, xseq = _inputs(xs, "vjp")
    vl, _ = _as_list(v, "v", "vjp", allow_none=True)
    out = func(*xl)
    ys, _ = _outputs(out, "vjp")
    vl = [_ones(y) for y in ys] if vl is None else _check_v(vl, ys)
    return out, _structure(_vjp(ys, xl, vl), xseq)


def jvp(func, xs, v=None):
    """``(func(*xs), jvp)``: the Jacobian-vector product of ``func`` at ``xs`` with ``v``.

    ``v``: tangents shaped like ``xs`` (None means ones). ``jvp`` mirrors the outputs
    of ``func``. Computed in forward mode, alongside ``func`` (forward rules where the
    primitives have them, else a double vjp per primitive); differentiable.

    >>> import weft
    >>> x = weft.ones([2, 2])
    >>> v = weft.to_tensor([[1.0, 0.0], [0.0, 0.0]])
    >>> out, t = weft.autograd.jvp(lambda x: x @ x, x, v)
    >>> t.tolist()
    [[2.0, 1.0], [1.0, 0.0]]
    """
    _check_func(func, "jvp")
    xl, _ = _inputs(xs, "jvp")
    vl, _ = _as_list(v, "v", "jvp", allow_none=True)
    vl = [_ones(x) for x in xl] if vl is None else _check_v(vl, xl)
    if any(x.is_sparse() for x in xl):
        # sparse tangents would travel as their values: the whole-function trick instead
        out = func(*xl)
        ys, yseq = _outputs(out, "jvp")
        return out, _structure(_tangents(ys, xl, vl), yseq)
    with Pass() as p:
        for x, t in zip(xl, vl):
            if not x.stop_gradient:
                p.seed(x, t)
        out = func(*xl)
    ys, yseq = _outputs(out, "jvp")
    if p.opaque or any(y.is_sparse() for y in ys):
        return out, _structure(_tangents(ys, xl, vl), yseq)
    ts = []
    for y in ys:
        t = p.tangent(y) if _float(y) else None
        ts.append(zeros_of(y) if t is None else t)
    return out, _structure(ts, yseq)


# ----------------------------------------------------------------------------------
# flattened lazy Jacobian / Hessian


def _flat(ts, batched, b):
    # explicit sizes: -1 cannot be inferred for an empty batch
    parts = [support.reshape_op(t, [b, int(np.prod(t.shape[1:]))] if batched else [-1])
             for t in ts]
    return parts[0] if len(parts) == 1 else support.concat(parts, axis=-1)


def _batch(ts, what, op):
    b = None
    for i, t in enumerate(ts):
        if t.ndim == 0:
            raise ValueError(f"{op}: with is_batched=True every {what} needs a batch axis, but "
                             f"{what}[{i}] is 0-D")
        if b is None:
            b = t.shape[0]
        elif t.shape[0] != b:
            raise ValueError(f"{op}: {what}[{i}] has batch size {t.shape[0]} but {what}[0] "
                             f"has {b}")
    return b


class Jacobian:
    """The Jacobian of ``func`` at ``xs`` over flattened inputs and outputs, evaluated lazily.

    All inputs are flattened and concatenated (columns), all outputs likewise (rows):
    ``shape == (M, N)``, or ``(B, M, N)`` with ``is_batched=True`` (the first axis of
    every input and output is the batch). Index it like a tensor of that shape;
    rows are computed on demand (all requested rows in one batched VJP) and cached.

    >>> import weft
    >>> x = weft.to_tensor([1.0, 2.0])
    >>> J = weft.incubate.autograd.Jacobian(lambda x: x * x, x)
    >>> J.shape, J[:].tolist()
    ((2, 2), [[2.0, 0.0], [0.0, 4.0]])
    """

    def __init__(self, func, xs, is_batched=False):
        _check_func(func, type(self).__name__)
        if not isinstance(is_batched, (bool, np.bool_)):
            raise TypeError(f"{type(self).__name__}: is_batched must be a bool, got "
                            f"{type(is_batched).__name__}")
        xl, _ = _inputs(xs, type(self).__name__)
        self._batched = bool(is_batched)
        self._setup(func, xl)

    def _setup(self, func, xl):
        op = "Jacobian"
        ys, _ = _outputs(func(*xl), op)
        b = None
        if self._batched:
            b = _batch(xl, "xs", op)
            yb = _batch(ys, "outputs", op)
            if yb != b:
                raise ValueError(f"{op}: the outputs have batch size {yb} but xs has {b}")
        y = _flat(ys, self._batched, b)
        self._init_rows(lambda: y, xl, b, int(y.shape[-1]))

    def _init_rows(self, y_fn, xl, b, m):
        self._rows = Rows(y_fn, xl, self._batched, m)
        n = sum(int(np.prod(x.shape[1:])) if self._batched else int(x._data.size) for x in xl)
        self._shape = (b, m, n) if self._batched else (m, n)

    @property
    def shape(self):
        return self._shape

    def __getitem__(self, idx):
        full = expand_index(idx, len(self._shape))
        if full is None:
            return self[:][idx]
        axis = 1 if self._batched else 0
        ids, comp = row_ids(full[axis], self._rows.m, axis)
        if ids:
            # one batched pass for all missing rows, then one slice per x
            parts = [self._rows.part(j, ids, axis) for j in range(len(self._rows.xs))]
            sub = parts[0] if len(parts) == 1 else support.concat(parts, axis=-1)
        else:
            shape = list(self._shape)
            shape[axis] = 0
            x0 = self._rows.xs[0]
            sub = Tensor._wrap(xp_of(x0).zeros(tuple(shape), dtype=x0._data.dtype))
        full = full[:axis] + (comp,) + full[axis + 1:]
        if all(isinstance(c, slice) and c == slice(None) for c in full):
            return sub
        return sub[full]

    def __repr__(self):
        return f"{type(self).__name__}(shape={self._shape})"


class Hessian(Jacobian):
    """The Hessian of a single-element ``func`` (one element per sample when batched)
    at ``xs``, over flattened, concatenated inputs: ``shape == (N, N)`` or ``(B, N, N)``.

    >>> import weft
    >>> x = weft.to_tensor([1.0, 2.0])
    >>> H = weft.incubate.autograd.Hessian(lambda x: (x ** 3).sum(), x)
    >>> H.shape, H[:].tolist()
    ((2, 2), [[6.0, 0.0], [0.0, 12.0]])
    """

    def _setup(self, func, xl):
        out = func(*xl)
        y = out if isinstance(out, Tensor) else None
        b = _batch(xl, "xs", "Hessian") if self._batched else None
        ok = y is not None and (y._data.size == b and y.shape[0] == b if self._batched
                                else y._data.size == 1)
        if not ok:
            raise RuntimeError("The function given to Hessian should return as single element "
                               "Tensor or batched single element Tensor.")
        cache = []

        def gradient():
            if not cache:
                gs = _vjp([y], xl, [_ones(y)])
                cache.append(_flat(gs, self._batched, b))
            return cache[0]

        n = sum(int(np.prod(x.shape[1:])) if self._batched else int(x._data.size) for x in xl)
        self._init_rows(gradient, xl, b, n)


__all__ = ["vjp", "jvp", "Jacobian", "Hessian"]
