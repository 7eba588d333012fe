"""The row engine shared by every lazy Jacobian and Hessian.

Row ``i`` of a Jacobian is the VJP with the ``i``-th one-hot cotangent, computed with
``create_graph=True`` (so rows are differentiable and a Hessian is the Jacobian of a
gradient) and cached; indexing evaluates only the rows it touches, all new ones in
one batched reverse pass (the one-hot cotangents stacked on a leading axis; see
``engine.defbatch``). For several ``xs`` a row is one VJP with respect to all of
them at once, shared by the blocks of that ``y``.
"""
from __future__ import annotations

import numbers

import numpy as np

from ...core.tensor import Tensor
from ..api import _xp
from ..engine import run_backward, support


def zeros_of(x):
    return Tensor._wrap(_xp(x).zeros(x._data.shape, dtype=x._data.dtype))


# the most cotangent-sized elements one batched pass may hold: a big Jacobian is
# computed in chunks of rows rather than with one [M, *y.shape] seed
_BATCH_ELEMENTS = 1 << 22


class Rows:
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


def row_ids(comp, m, axis):
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


def expand_index(idx, ndim):
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
