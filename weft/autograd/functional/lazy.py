"""Lazily evaluated Jacobians and Hessians of already-computed tensors:
``weft.autograd.jacobian`` / ``hessian`` and their ``Jacobian`` / ``Hessian`` objects.

Nothing is differentiated at construction; indexing evaluates the rows it touches
through the shared row engine (:mod:`.rows`) and caches them.
"""
from __future__ import annotations

import numbers
import operator

import numpy as np

from ...core.tensor import Tensor
from ..api import _as_list
from ..api import grad as _grad
from ..engine import support
from .rows import expand_index, row_ids, Rows, zeros_of


class Jacobian:
    """The lazily evaluated Jacobian of ``ys`` with respect to ``xs`` (single Tensors).

    Unbatched, ``ys`` and ``xs`` are 0-D or 1-D and ``shape`` is ``[len(ys), len(xs)]``
    with 0-D sides dropped; batched (first axis = batch, ``[B]`` read as ``[B, 1]``),
    ``shape`` is ``[B, M, N]``. ``J[idx]`` evaluates only the rows it needs (cached,
    differentiable); ``J[:]`` is the full matrix. Arithmetic operators and any other
    attribute act on the evaluated tensor.

    >>> import weft
    >>> x = weft.to_tensor([1.0, 2.0], stop_gradient=False)
    >>> J = weft.autograd.jacobian(x * x, x)
    >>> J.shape, J[1].tolist(), J[:].tolist()
    ([2, 2], [0.0, 4.0], [[2.0, 0.0], [0.0, 4.0]])
    """

    def __init__(self, ys, xs, is_batched=False):
        _check_tensor(ys, "ys", "Jacobian")
        _check_tensor(xs, "xs", "Jacobian")
        _check_ndim(xs, "xs", is_batched)
        _check_ndim(ys, "ys", is_batched)
        rows = _rows_for(ys, [xs], is_batched)
        self._setup(rows, 0, ys.ndim, xs, is_batched)

    def _setup(self, rows, j, y_ndim, x, batched):
        self._rows = rows
        self._j = j
        self._batched = batched
        self._full = None
        if batched:
            if x.shape[0] != _batch_size(rows):
                raise ValueError(f"Jacobian: xs has batch size {x.shape[0]} but ys has batch "
                                 f"size {_batch_size(rows)}")
            n = x.shape[1] if x.ndim == 2 else 1
            self._shape = [x.shape[0], rows.m, n]
            self._drop = ()
        else:
            n = int(x._data.size)
            self._shape = ([rows.m] if y_ndim == 1 else []) + ([n] if x.ndim == 1 else [])
            # canonical [M, N] axes missing from the public shape (indexed at 0)
            self._drop = tuple(a for a, keep in ((0, y_ndim == 1), (1, x.ndim == 1)) if not keep)

    @property
    def shape(self):
        return list(self._shape)

    def _canonical(self, idx):
        for a in self._drop:
            idx = idx[:a] + (0,) + idx[a:]
        return idx

    def _take(self, cidx):
        axis = 1 if self._batched else 0
        ids, comp = row_ids(cidx[axis], self._rows.m, axis)
        sub = self._rows.part(self._j, ids, axis)
        cidx = cidx[:axis] + (comp,) + cidx[axis + 1:]
        if all(isinstance(c, slice) and c == slice(None) for c in cidx):
            return sub
        return sub[cidx]

    def _evaluate(self):
        if self._full is None:
            self._full = self._take(self._canonical((slice(None),) * len(self._shape)))
        return self._full

    def __getitem__(self, idx):
        if not self._shape:
            raise IndexError("0-D tensor can not be indexed.")
        full = expand_index(idx, len(self._shape))
        if full is None:
            return self._evaluate()[idx]
        return self._take(self._canonical(full))

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._evaluate(), name)

    def __iter__(self):
        return iter(self._evaluate())

    def __array__(self, dtype=None, copy=None):
        return self._evaluate().__array__(dtype, copy)

    def __neg__(self):
        return -self._evaluate()

    def __repr__(self):
        return (f"{type(self).__name__}(shape={self._shape}, rows evaluated: "
                f"{len(self._rows.cache)}/{self._rows.m})")


def _binary(name):
    def method(self, other):
        if isinstance(other, Jacobian):
            other = other._evaluate()
        return getattr(operator, name)(self._evaluate(), other)

    def reflected(self, other):
        return getattr(operator, name)(other, self._evaluate())

    return method, reflected


for _op, _dunder, _rdunder in (
        ("add", "__add__", "__radd__"), ("sub", "__sub__", "__rsub__"),
        ("mul", "__mul__", "__rmul__"), ("truediv", "__truediv__", "__rtruediv__"),
        ("floordiv", "__floordiv__", "__rfloordiv__"), ("mod", "__mod__", "__rmod__"),
        ("pow", "__pow__", "__rpow__"), ("matmul", "__matmul__", "__rmatmul__")):
    _m, _r = _binary(_op)
    setattr(Jacobian, _dunder, _m)
    setattr(Jacobian, _rdunder, _r)
for _op in ("eq", "ne", "lt", "le", "gt", "ge"):
    setattr(Jacobian, f"__{_op}__", _binary(_op)[0])
Jacobian.__hash__ = None


class Hessian(Jacobian):
    """The lazily evaluated Hessian of a single-element ``ys`` (one element per sample
    when batched) with respect to ``xs``: the Jacobian of the gradient, shape
    ``[N, N]`` or ``[B, N, N]``.

    >>> import weft
    >>> x = weft.to_tensor([1.0, 2.0], stop_gradient=False)
    >>> weft.autograd.hessian((x ** 3).sum(), x)[:].tolist()
    [[6.0, 0.0], [0.0, 12.0]]
    """

    def __init__(self, ys, xs, is_batched=False):
        _check_tensor(xs, "xs", "Hessian")
        blocks = _hessian_blocks(ys, [xs], is_batched)
        h = blocks[0][0]
        self.__dict__.update(h.__dict__)


def _check_tensor(t, arg, op):
    if not isinstance(t, Tensor):
        raise TypeError(f"{op}: {arg} must be a Tensor, got {type(t).__name__}")


def _check_ndim(t, arg, batched):
    if batched:
        if not 1 <= t.ndim <= 2:
            raise ValueError(f"{arg}.ndim should be 1 or 2 when is_batched=True but got "
                             f"{t.ndim}")
    elif t.ndim > 1:
        raise ValueError(f"{arg}.ndim should be 0 or 1 when is_batched=False but got {t.ndim}")


def _batch_size(rows):
    return rows.bsize


def _rows_for(y, xs, batched):
    """Shared rows of ``y`` with respect to ``xs`` (``y`` already computed)."""
    if batched:
        b = y.shape[0]
        m = y.shape[1] if y.ndim == 2 else 1
        rows = Rows(lambda: support.reshape_op(y, [b, m]), xs, True, m)
        rows.bsize = b
    else:
        rows = Rows(lambda: support.reshape_op(y, [-1]), xs, False, int(y._data.size))
    return rows


def _nest(blocks, ys_seq, xs_seq):
    if ys_seq and xs_seq:
        return tuple(tuple(r) for r in blocks)
    if ys_seq:
        return tuple(r[0] for r in blocks)
    if xs_seq:
        return tuple(blocks[0])
    return blocks[0][0]


def jacobian(ys, xs, batch_axis=None):
    """Lazily evaluated Jacobian(s) of the already-computed ``ys`` with respect to ``xs``.

    ``ys``/``xs``: a Tensor or a sequence of Tensors (0-D or 1-D; with
    ``batch_axis=0`` 1-D or 2-D with the batch first). Both sequences give a tuple
    (over ys) of tuples (over xs) of :class:`Jacobian`; one sequence a flat tuple;
    none a single :class:`Jacobian`. An x that ys does not depend on gives zeros.

    >>> import weft
    >>> x = weft.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    >>> J = weft.autograd.jacobian(x.sum(), x)
    >>> J.shape, J[:].tolist()
    ([3], [1.0, 1.0, 1.0])
    """
    if batch_axis is not None and (isinstance(batch_axis, bool) or batch_axis != 0):
        raise ValueError(f"batch_axis should be None or 0, but got {batch_axis}.")
    batched = batch_axis is not None
    ylist, ys_seq = _as_list(ys, "ys", "jacobian")
    xlist, xs_seq = _as_list(xs, "xs", "jacobian")
    for x in xlist:
        _check_ndim(x, "xs", batched)
    for y in ylist:
        _check_ndim(y, "ys", batched)
    blocks = []
    for y in ylist:
        rows = _rows_for(y, xlist, batched)
        blocks.append([_view(Jacobian, rows, j, y.ndim, x, batched)
                       for j, x in enumerate(xlist)])
    return _nest(blocks, ys_seq, xs_seq)


def _view(cls, rows, j, y_ndim, x, batched):
    v = cls.__new__(cls)
    v._setup(rows, j, y_ndim, x, batched)
    return v


class _LazyGrad:
    """The gradient of ``ys`` with respect to all ``xs``, computed once on first use."""

    def __init__(self, ys, xs):
        self.ys = ys
        self.xs = xs
        self.gs = None

    def get(self, i):
        if self.gs is None:
            gs = _grad(self.ys, self.xs, retain_graph=True, create_graph=True,
                       allow_unused=True)
            self.gs = [zeros_of(x) if g is None else g for g, x in zip(gs, self.xs)]
        return self.gs[i]


def _hessian_blocks(ys, xlist, batched):
    _check_tensor(ys, "ys", "hessian")
    if batched:
        if not (ys.ndim == 1 or (ys.ndim == 2 and ys.shape[1] == 1)):
            raise ValueError(f"Only support ys.shape == [B] or [B, 1] when batch_axis=0, but "
                             f"got {ys.shape}.")
    elif ys._data.size != 1:
        raise ValueError(f"Only support ys.numel()({ys._data.size})==1 when batch_axis is None.")
    for x in xlist:
        _check_ndim(x, "xs", batched)
        if batched and x.shape[0] != ys.shape[0]:
            raise ValueError(f"hessian: xs has batch size {x.shape[0]} but ys has batch size "
                             f"{ys.shape[0]}")
    lazy = _LazyGrad(ys, xlist)
    blocks = []
    for i, xi in enumerate(xlist):
        if batched:
            b = xi.shape[0]
            m = xi.shape[1] if xi.ndim == 2 else 1
            rows = Rows(lambda i=i, b=b, m=m: support.reshape_op(lazy.get(i), [b, m]), xlist,
                         True, m)
            rows.bsize = b
        else:
            rows = Rows(lambda i=i: support.reshape_op(lazy.get(i), [-1]), xlist, False,
                         int(xi._data.size))
        blocks.append([_view(Hessian, rows, j, xi.ndim if not batched else 2, xj, batched)
                       for j, xj in enumerate(xlist)])
    return blocks


def hessian(ys, xs, batch_axis=None):
    """Lazily evaluated Hessian(s) of the single-element ``ys`` with respect to ``xs``.

    ``batch_axis=None``: ``ys.numel() == 1`` and each x 0-D or 1-D, result
    ``[N, N]``; ``batch_axis=0``: ``ys`` is ``[B]`` or ``[B, 1]`` and each x
    ``[B]`` or ``[B, N]``, result ``[B, N, N]``. A sequence ``xs`` gives a tuple of
    tuples of :class:`Hessian` blocks ``[N_i, N_j]``.

    >>> import weft
    >>> x = weft.to_tensor([1.0, 2.0], stop_gradient=False)
    >>> H = weft.autograd.hessian((x ** 3).sum(), x)
    >>> H.shape, H[:].tolist()
    ([2, 2], [[6.0, 0.0], [0.0, 12.0]])
    """
    if batch_axis is None:
        batched = False
    elif isinstance(batch_axis, (numbers.Integral, np.integer)) and \
            not isinstance(batch_axis, bool):
        if batch_axis != 0:
            raise ValueError("Only support batch_axis=0 yet.")
        batched = True
    else:
        raise ValueError(f"batch_axis should be None or an int, but got "
                         f"{type(batch_axis).__name__}.")
    xlist, xs_seq = _as_list(xs, "xs", "hessian")
    blocks = _hessian_blocks(ys, xlist, batched)
    return _nest(blocks, xs_seq, xs_seq)


__all__ = ["jacobian", "hessian", "Jacobian", "Hessian"]
