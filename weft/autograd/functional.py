"""Lazily evaluated Jacobians and Hessians of already-computed tensors:
``weft.autograd.jacobian`` / ``hessian`` and their ``Jacobian`` / ``Hessian`` objects.

Nothing is differentiated at construction. Row ``i`` of a Jacobian is the VJP with
the ``i``-th one-hot cotangent, computed with ``create_graph=True`` (so rows are
differentiable and a Hessian is the Jacobian of a gradient) and cached; indexing
evaluates only the rows it touches, all new ones in one batched reverse pass (the
one-hot cotangents stacked on a leading axis; see ``engine.defbatch``). For several
``xs`` a row is one VJP with respect to all of them at once, shared by the blocks of
that ``y``. The function-based objects of ``weft.incubate.autograd`` reuse the same
row engine.
"""
from __future__ import annotations

import numbers
import operator

import numpy as np

from ..core.tensor import Tensor
from .api import _as_list, _xp
from .api import grad as _grad
from .engine import run_backward, support


def _zeros_of(x):
    return Tensor._wrap(_xp(x).zeros(x._data.shape, dtype=x._data.dtype))


# the most cotangent-sized elements one batched pass may hold: a big Jacobian is
# computed in chunks of rows rather than with one [M, *y.shape] seed
_BATCH_ELEMENTS = 1 << 22


class _Rows:
    """Row-wise evaluation of the Jacobian of a flat ``y`` (``[M]``, or ``[B, M]`` when
    batched) with respect to ``xs``: row ``i`` is a list with one flattened part per
    x (``[N_j]`` or ``[B, N_j]``).

    Rows are computed in blocks: requesting several new rows at once runs one
    batched reverse pass whose seed holds their one-hot cotangents stacked on a
    leading axis (``run_backward(batch=K)``), so a full Jacobian costs one pass
    instead of ``M``. ``cache[i] = (block, k)`` says where row ``i`` lives; a block
    holds, per x, a tensor ``[K, N_j]`` (``[K, B, N_j]`` batched); a row computed on
    its own is ``(row, None)``, its parts unstacked.
    """

    def __init__(self, y_fn, xs, batched, m):
        self._y_fn = y_fn
        self._y = None
        self.xs = list(xs)
        self.batched = batched
        self.m = m
        self.cache = {}
        self._sliced = {}   # row(i) results, so a row is one tensor however often asked
        self._xp = None

    def y(self):
        if self._y is None:
            self._y = self._y_fn()
        return self._y

    def _flat(self, g, x, lead):
        n = int(np.prod(x.shape[1:])) if self.batched else int(x._data.size)
        shape = lead + ([x.shape[0], n] if self.batched else [n])
        if g is None:
            return Tensor._wrap(_xp(x).zeros(tuple(shape), dtype=x._data.dtype))
        return g if g.shape == shape else support.reshape_op(g, shape)

    def _pass(self, cot, batch):
        # the engine directly: the arguments are known to be well-formed, and the
        # per-pass overhead is what a row-by-row Jacobian pays M times
        return run_backward([self.y()], [Tensor._wrap(cot)], retain_graph=True,
                            create_graph=True, inputs=self.xs, allow_unused=True, batch=batch)

    def _compute(self, ids):
        """Evaluate rows ``ids`` (none cached) as one block, falling back to one pass per
        row where the graph cannot take a batch of cotangents."""
        y = self.y()
        if self._xp is None:
            self._xp = _xp(y)
        xp = self._xp
        k = len(ids)
        if k > 1:
            cot = xp.zeros((k,) + y._data.shape, dtype=y._data.dtype)
            cot[(xp.arange(k),) + (slice(None),) * (y.ndim - 1) + (xp.asarray(ids),)] = 1
            gs = self._pass(cot, k)
            if gs is not None:
                block = [self._flat(g, x, [k]) for g, x in zip(gs, self.xs)]
                for r, i in enumerate(ids):
                    self.cache[i] = (block, r)
                return
        for i in ids:
            cot = xp.zeros(y._data.shape, dtype=y._data.dtype)
            cot[..., i] = 1
            gs = self._pass(cot, 0)
            # a lone row is kept as is (k None): no stacking op for single-row access
            self.cache[i] = ([self._flat(g, x, []) for g, x in zip(gs, self.xs)], None)

    def _ensure(self, ids):
        todo = list(dict.fromkeys(i for i in ids if i not in self.cache))
        if not todo:
            return
        y = self.y()
        per_row = int(y._data.size) + sum(int(x._data.size) for x in self.xs)
        step = max(1, _BATCH_ELEMENTS // max(per_row, 1))
        for s in range(0, len(todo), step):
            self._compute(todo[s:s + step])

    def row(self, i):
        r = self._sliced.get(i)
        if r is None:
            self._ensure([i])
            block, k = self.cache[i]
            r = self._sliced[i] = block if k is None else [p[k] for p in block]
        return r

    def part(self, j, ids, axis):
        """Rows ``ids`` of the block of x ``j`` stacked along ``axis``."""
        if not ids:
            x = self.xs[j]
            n = int(np.prod(x.shape[1:])) if self.batched else int(x._data.size)
            shape = (x.shape[0], 0, n) if self.batched else (0, n)
            return Tensor._wrap(_xp(x).zeros(shape, dtype=x._data.dtype))
        self._ensure(ids)
        # runs of consecutive rows of one block are sliced out whole, runs of lone
        # rows stacked; the pieces are then joined
        pieces = []
        run = None
        for i in ids:
            block, r = self.cache[i]
            if r is None:
                if run is not None and run[0] is None:
                    run[1].append(block[j])
                else:
                    run = [None, [block[j]]]
                    pieces.append(run)
            elif run is not None and run[0] is block and run[2] == r:
                run[2] = r + 1
            else:
                run = [block, r, r + 1]
                pieces.append(run)
        if len(pieces) == 1 and pieces[0][0] is None:
            return support.stack(pieces[0][1], axis=axis)
        parts = []
        for piece in pieces:
            if piece[0] is None:
                parts.append(support.stack(piece[1], axis=0))
            else:
                p = piece[0][j]
                r0, r1 = piece[1], piece[2]
                parts.append(p if (r0, r1) == (0, p.shape[0]) else p[r0:r1])
        out = parts[0] if len(parts) == 1 else support.concat(parts, axis=0)
        if axis:
            out = support.transpose(out, [1, 0, 2])
        return out


def _row_ids(comp, m, axis):
    """The rows an index component selects, and the component that indexes them
    once gathered in that order."""
    if isinstance(comp, slice):
        return list(range(m))[comp], slice(None)
    if isinstance(comp, Tensor):
        comp = comp.numpy()
    if isinstance(comp, (numbers.Integral, np.integer)) or \
            (isinstance(comp, np.ndarray) and comp.ndim == 0 and comp.dtype.kind in "iu"):
        i = int(comp)
        if not -m <= i < m:
            raise IndexError(f"index {i} is out of range for axis {axis} of size {m}")
        return [i % m], 0
    a = np.asarray(comp)
    if a.dtype.kind not in "iu" or a.ndim != 1:
        raise IndexError(f"unsupported index {comp!r} for axis {axis} of a Jacobian")
    bad = (a < -m) | (a >= m)
    if bad.any():
        raise IndexError(f"index {int(a[bad][0])} is out of range for axis {axis} of size {m}")
    return [int(v) % m for v in a], list(range(len(a)))


def _expand_index(idx, ndim):
    """``idx`` as a tuple of exactly ``ndim`` components, or None when it uses
    ``None``/boolean indexing (handled on the evaluated tensor)."""
    if not isinstance(idx, tuple):
        idx = (idx,)
    for c in idx:
        if c is None or isinstance(c, (bool, np.bool_)) or \
                (isinstance(c, (np.ndarray, Tensor)) and c.dtype.kind == "b"):
            return None
    n_ell = sum(1 for c in idx if c is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    real = len(idx) - n_ell
    if real > ndim:
        raise IndexError(f"too many indices for a Jacobian of {ndim} dimension(s): {real} "
                         "were given")
    if n_ell:
        k = idx.index(Ellipsis)
        return idx[:k] + (slice(None),) * (ndim - real) + idx[k + 1:]
    return idx + (slice(None),) * (ndim - real)


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
        ids, comp = _row_ids(cidx[axis], self._rows.m, axis)
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
        full = _expand_index(idx, len(self._shape))
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
        rows = _Rows(lambda: support.reshape_op(y, [b, m]), xs, True, m)
        rows.bsize = b
    else:
        rows = _Rows(lambda: support.reshape_op(y, [-1]), xs, False, int(y._data.size))
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
            self.gs = [_zeros_of(x) if g is None else g for g, x in zip(gs, self.xs)]
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
            rows = _Rows(lambda i=i, b=b, m=m: support.reshape_op(lazy.get(i), [b, m]), xlist,
                         True, m)
            rows.bsize = b
        else:
            rows = _Rows(lambda i=i: support.reshape_op(lazy.get(i), [-1]), xlist, False,
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
