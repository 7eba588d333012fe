"""In-place variants: ``x.add_(y)``, ``x.exp_()``, ``x.clip_()``, ``x += y`` and the rest
of the ``name_`` family, plus ``zero_`` and ``fill_``.

Each variant computes out of place and writes the result back through
:func:`weft.autograd.inplace.inplace`, which enforces Paddle's rules: a leaf that
requires grad cannot be updated in place (``ValueError``), the dtype and shape never
change (``TypeError`` / ``ValueError``), and a backward that needs values overwritten
later raises ``RuntimeError``.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..autograd.engine import Primitive, apply, deflinear, defjvp, defvjp
from ..autograd.grad_mode import mode
from ..autograd.inplace import inplace
from ..core.tensor import Tensor
from . import special as _s
from .math import functions as _f
from .math import ufuncs as _m
from .math.functions import _number

_no_save = dict(save=(), save_out=False)
_snapshot = Primitive("inplace_snapshot", lambda x: x.copy())
_fill = Primitive("fill_", lambda x, value: np.full_like(x, value))
defvjp(_snapshot, lambda g, ans, x: g, **_no_save)
defvjp(_fill, lambda g, ans, x, value: g * 0, **_no_save)
deflinear(_snapshot)   # forward mode: a copy; a fill has a zero tangent
defjvp(_fill, lambda t, ans, x, value: None)




def make_inplace(fn, name, reads_input=True):
    """The in-place twin ``name`` of the out-of-place op ``fn``.

    ``reads_input``: whether ``fn`` saves its first input for the backward pass. Then,
    while recording, the op runs on a snapshot (a copy on the graph) so that its
    backward still sees the old values after they are overwritten; the same happens
    when the target is also passed as an argument (``x.multiply_(x)``).
    """
    def op(x, *args, **kwargs):
        if not isinstance(x, Tensor):
            raise TypeError(f"{name}: x must be a Tensor, got {type(x).__name__}")
        kwargs.pop("name", None)

        def compute(old):
            aliased = any(a is x for a in args) or any(v is x for v in kwargs.values())
            if (reads_input or aliased) and mode.enabled and (
                    not old.stop_gradient or _records(args) or _records(kwargs.values())):
                old = apply(_snapshot, old)
            if aliased:
                return fn(old, *(old if a is x else a for a in args),
                          **{k: old if v is x else v for k, v in kwargs.items()})
            return fn(old, *args, **kwargs)

        return inplace(x, compute, name)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"In-place version of :func:`{name[:-1]}`: ``x`` is updated and "
                  "returned; its dtype and shape never change.")
    return op


def _records(args):
    return any(isinstance(a, Tensor) and not a.stop_gradient for a in args)


def _add_(x, y, alpha=1):
    return _m.add(x, y if alpha == 1 else _m.multiply(y, alpha))


def _sub_(x, y, alpha=1):
    return _m.subtract(x, y if alpha == 1 else _m.multiply(y, alpha))


def zero_(x, name=None):
    """Fill ``x`` with zeros in place (the gradient through it is 0).

    >>> import weft
    >>> weft.to_tensor([1.0, 2.0]).zero_().tolist()
    [0.0, 0.0]
    """
    return fill_(x, 0)


def fill_(x, value, name=None):
    """Fill ``x`` with ``value`` in place (the gradient through it is 0).

    >>> import weft
    >>> weft.to_tensor([1, 2]).fill_(7).tolist()
    [7, 7]
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"fill_: x must be a Tensor, got {type(x).__name__}")
    value = _number(value, "fill_", "value", allow_none=False,
                    kinds=numbers.Number)
    if isinstance(value, (complex, np.complexfloating)) and \
            x._data.dtype.kind != "c":
        raise TypeError(f"fill_: cannot fill a {x._data.dtype.name} tensor with the complex "
                        f"value {value}")
    # the result stays on the graph (with a zero derivative) so that a non-leaf target
    # stops passing its old gradient upstream
    return inplace(x, lambda old: apply(_fill, old, value=value), "fill_")


# (name, out-of-place function, whether its derivative reads the input's values)
_INPLACE = [
    ("add_", _add_, False), ("subtract_", _sub_, False), ("sub_", _sub_, False),
    ("multiply_", _m.multiply, True),
    ("divide_", _m.divide, False), ("floor_divide_", _m.floor_divide, False),
    ("remainder_", _m.remainder, True), ("mod_", _m.remainder, True),
    ("floor_mod_", _m.remainder, True), ("pow_", _m.pow, True), ("neg_", _m.neg, False),
    ("exp_", _m.exp, False), ("expm1_", _m.expm1, False), ("log_", _m.log, True),
    ("log1p_", _m.log1p, True), ("log2_", _m.log2, True), ("log10_", _m.log10, True),
    ("sqrt_", _m.sqrt, False), ("rsqrt_", _m.rsqrt, False), ("square_", _m.square, True),
    ("reciprocal_", _m.reciprocal, False), ("abs_", _m.abs, True), ("sin_", _m.sin, True),
    ("cos_", _m.cos, True), ("tan_", _m.tan, False), ("asin_", _m.asin, True),
    ("acos_", _m.acos, True), ("atan_", _m.atan, True), ("sinh_", _m.sinh, True),
    ("cosh_", _m.cosh, True), ("tanh_", _m.tanh, False), ("asinh_", _m.asinh, True),
    ("acosh_", _m.acosh, True), ("atanh_", _m.atanh, True), ("sigmoid_", _m.sigmoid, False),
    ("floor_", _m.floor, False), ("ceil_", _m.ceil, False), ("round_", _m.round, False),
    ("trunc_", _m.trunc, False),
    ("clip_", _f.clip, True), ("scale_", _f.scale, False), ("frac_", _f.frac, False),
    ("lerp_", _f.lerp, True), ("hypot_", _f.hypot, True), ("nan_to_num_", _f.nan_to_num, True),
    ("erf_", _s.erf, True), ("erfinv_", _s.erfinv, False), ("lgamma_", _s.lgamma, True),
    ("gammaln_", _s.gammaln, True), ("digamma_", _s.digamma, True),
    ("polygamma_", _s.polygamma, True), ("multigammaln_", _s.multigammaln, True),
    ("gammainc_", _s.gammainc, True), ("gammaincc_", _s.gammaincc, True),
    ("i0_", _s.i0, True), ("logit_", _s.logit, True), ("sinc_", _s.sinc, True),
]
_inplace_fns = {n: make_inplace(f, n, r) for n, f, r in _INPLACE}
globals().update(_inplace_fns)


def _iop(method):
    def iop(self, other):
        return _inplace_fns[method](self, other)
    iop.__name__ = f"__i{method[:-1]}__"
    return iop


__all__ = ["zero_", "fill_", *_inplace_fns]
__tensor_methods__ = {n: globals()[n] for n in __all__}
__tensor_methods__.update({
    "__iadd__": _iop("add_"), "__isub__": _iop("subtract_"), "__imul__": _iop("multiply_"),
    "__itruediv__": _iop("divide_"), "__ifloordiv__": _iop("floor_divide_"),
    "__imod__": _iop("remainder_"), "__ipow__": _iop("pow_"),
})
