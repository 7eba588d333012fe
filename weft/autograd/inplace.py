"""In-place updates on top of out-of-place ops.

An in-place op computes its result out of place from a snapshot of the target's
autograd state, writes the values into the target's storage (so ``detach()``
aliases and ``numpy()`` views see them), bumps the shared version counter and
moves the target onto the result's graph node. Other nodes that saved the target
find the version changed at backward and raise instead of silently using the new
values; the in-place op's own node gets a private copy of the old values when it
is recorded, so ``y.sin_()`` differentiates like ``y.sin()``.
"""
from __future__ import annotations

from ..core.tensor import Tensor
from .grad_mode import mode


def check_inplace_leaf(target, op):
    """Refuse, while grad mode records, to update in place a leaf that requires grad."""
    if mode.enabled and target._node is None and not target.stop_gradient \
            and target._data.dtype.kind in "fc":
        raise ValueError(f"{op}: Leaf Tensor that doesn't stop gradient can't use inplace "
                         "strategy (wrap the update in weft.no_grad() or use the out-of-place "
                         "op)")


def inplace(target, compute, op):
    """Make ``target`` hold ``compute(snapshot_of_target)``; returns ``target``."""
    if type(target) is not Tensor and target.is_sparse():
        # the snapshot below is the stored values alone: a dense op on it would silently
        # overwrite them with a values-shaped result
        raise NotImplementedError(f"{op}: x is a sparse tensor; dense in-place ops do not take "
                                  "sparse inputs — use the weft.sparse op, or x.to_dense()")
    check_inplace_leaf(target, op)
    if mode.enabled and not target.stop_gradient:
        # the op's node may save its input (sin_ needs the old values): give it a copy
        # that the write below cannot reach
        old = Tensor._wrap(target._data.copy())
    else:
        old = Tensor._wrap(target._data)
        old._version = target._version
    old.stop_gradient = target.stop_gradient
    old._node = target._node
    old._oidx = target._oidx
    result = compute(old)
    rd = result._data
    if rd.dtype != target._data.dtype:
        raise TypeError(f"{op}: the result has dtype {rd.dtype.name} but the tensor updated in "
                        f"place has dtype {target._data.dtype.name}; in-place ops never promote")
    if rd.shape != target._data.shape:
        raise ValueError(f"{op}: the result has shape {list(rd.shape)} but the tensor updated "
                         f"in place has shape {target.shape}")
    if getattr(target._data.flags, "writeable", True):  # CuPy arrays are always writeable
        target._data[...] = rd
    else:  # a read-only broadcast view: give the target storage of its own
        target._data = rd.copy()
    target._version[0] += 1
    if not result.stop_gradient:
        target._node = result._node
        target._oidx = result._oidx
        target.stop_gradient = False
    elif target._node is not None:
        # the new values depend on nothing that requires grad: the overwritten history
        # must not receive gradients through this tensor any more
        target._node = None
        target._oidx = 0
        target.stop_gradient = True
    return target
