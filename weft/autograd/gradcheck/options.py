"""Argument handling: the inputs to check, the differentiable outputs, and the
keyword options of gradcheck and gradgradcheck."""
from __future__ import annotations

import numbers

import numpy as np

from ...core.tensor import Tensor
from .common import is_float, is_sparse


def split_inputs(inputs, name):
    if isinstance(inputs, Tensor):
        seq = (inputs,)
    elif isinstance(inputs, (list, tuple)):
        seq = tuple(inputs)
    else:
        raise TypeError(f"{name}: inputs must be a Tensor or a sequence, got "
                        f"{type(inputs).__name__}")
    for a in seq:
        if is_sparse(a):
            # weft's sparse tensors were reduced to their values before this point
            raise TypeError(f"{name}: an input of type {type(a).__name__} says it is sparse "
                            "but is not a weft sparse tensor")
    checked = [i for i, a in enumerate(seq) if isinstance(a, Tensor)
               and is_float(a._data.dtype) and not a.stop_gradient]
    if not checked:
        raise ValueError(f"{name}: no input is a floating-point or complex Tensor with "
                         "stop_gradient=False, so there is nothing to check")
    return seq, checked


def diff_outputs(res, name):
    """``[(position, tensor)]`` of the floating/complex Tensors ``func`` returned."""
    if isinstance(res, Tensor):
        items = [(0, res)]
    elif isinstance(res, (list, tuple)):
        items = [(j, o) for j, o in enumerate(res) if isinstance(o, Tensor)]
    else:
        raise TypeError(f"{name}: func must return a Tensor or a sequence of Tensors, got "
                        f"{type(res).__name__}")
    for _, o in items:
        if is_sparse(o):
            raise NotImplementedError(f"{name}: sparse outputs need weft.sparse, not available "
                                      "yet")
    return [(j, o) for j, o in items if is_float(o._data.dtype)]


def _opt_number(v, arg, name, positive):
    if v is None:
        return None
    if not isinstance(v, numbers.Real) or isinstance(v, bool):
        raise TypeError(f"{name}: {arg} must be a real number or None, got {type(v).__name__}")
    v = float(v)
    if not (v > 0 if positive else v >= 0) or v != v:
        raise ValueError(f"{name}: {arg} must be {'> 0' if positive else '>= 0'}, got {v}")
    return v


class Options:
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
