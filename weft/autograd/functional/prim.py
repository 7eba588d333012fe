"""Eager versions of Paddle's prim-mode APIs (``paddle.incubate.autograd``): the
forward-mode derivative of already-computed outputs, a ``grad`` shaped like its
inputs, and the prim flags (weft has no separate primitive mode).
"""
from __future__ import annotations

from ..api import _as_list
from ..api import grad as _grad
from ..engine import support
from .transforms import _ones, _tangents

_prim = [False]


def forward_grad(outputs, inputs, grad_inputs=None):
    """Forward-mode derivative of the already-computed ``outputs`` along ``grad_inputs``.

    ``outputs`` must have been recorded (grad mode on, computed from ``inputs`` with
    ``stop_gradient=False``). ``grad_inputs``: tangents shaped like ``inputs`` (None
    means ones). Returns tangents shaped like ``outputs`` (a Tensor or a list).

    >>> import weft
    >>> x = weft.to_tensor([1.0, 2.0], stop_gradient=False)
    >>> y = x * x
    >>> weft.autograd.forward_grad(y, x).tolist()
    [2.0, 4.0]
    """
    ys, yseq = _as_list(outputs, "outputs", "forward_grad")
    xs, _ = _as_list(inputs, "inputs", "forward_grad")
    for i, x in enumerate(xs):
        if x.stop_gradient:
            raise ValueError(f"forward_grad: inputs[{i}] has stop_gradient=True, so no recorded "
                             "output can depend on it")
    for i, y in enumerate(ys):
        if y.stop_gradient:
            raise ValueError(f"forward_grad: outputs[{i}] was not recorded for differentiation "
                             "(stop_gradient=True); compute it with grad mode on from inputs "
                             "with stop_gradient=False")
    vl, _ = _as_list(grad_inputs, "grad_inputs", "forward_grad", allow_none=True)
    if vl is None:
        vl = [_ones(x) for x in xs]
    else:
        if len(vl) != len(xs):
            raise ValueError(f"forward_grad: grad_inputs has {len(vl)} entries but inputs has "
                             f"{len(xs)}")
        for i, (v, x) in enumerate(zip(vl, xs)):
            if v.shape != x.shape:
                raise ValueError(f"forward_grad: grad_inputs[{i}] has shape {v.shape} but "
                                 f"inputs[{i}] has shape {x.shape}")
        vl = [v if v._data.dtype == x._data.dtype else support.cast(v, x._data.dtype)
              for v, x in zip(vl, xs)]
    ts = _tangents(ys, xs, vl)
    return ts if yseq else ts[0]


def grad(outputs, inputs, grad_outputs=None):
    """``weft.grad(outputs, inputs, grad_outputs, allow_unused=True)`` shaped like ``inputs``:
    a Tensor for a Tensor, a list for a sequence (None where unused).

    >>> import weft
    >>> x = weft.to_tensor([1.0, 2.0], stop_gradient=False)
    >>> weft.incubate.autograd.grad((x * x).sum(), x).tolist()
    [2.0, 4.0]
    """
    _, xseq = _as_list(inputs, "inputs", "grad")
    res = _grad(outputs, inputs, grad_outputs, allow_unused=True)
    return res if xseq else res[0]


def enable_prim():
    """Turn on the prim flag (weft has no separate primitive mode: results are unchanged)."""
    _prim[0] = True


def disable_prim():
    """Turn off the prim flag."""
    _prim[0] = False


def prim_enabled():
    """Whether :func:`enable_prim` was called (last) — informational only."""
    return _prim[0]


__all__ = ["forward_grad", "grad", "enable_prim", "disable_prim", "prim_enabled"]
