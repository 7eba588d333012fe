"""The op database: one :class:`OpInfo` per public op, iterated by the generic tests.

Entries live in ``tests/opdb/<family>.py`` (one list ``OPS`` per family) and are
gathered here as ``OP_DB``. An entry gives a sample-input generator, a numpy or
scipy reference, the supported dtypes and flags; ``tests/test_ops.py`` then checks
every entry for forward values against the reference, the Tensor method, gradients
(``gradcheck``), second-order gradients (``gradgradcheck``), edge-case shapes, and
bad inputs. Adding an op means adding one entry.
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

FLOATS = (np.dtype("float32"), np.dtype("float64"))
COMPLEX = (np.dtype("complex64"), np.dtype("complex128"))
FLOAT_AND_COMPLEX = FLOATS + COMPLEX
INTS = (np.dtype("int32"), np.dtype("int64"))
ALL_NUMERIC = INTS + FLOATS
ALL = (np.dtype("bool"),) + INTS + FLOATS + COMPLEX

# forward tolerances by dtype (atol, rtol)
TOL = {
    np.dtype("float16"): (1e-2, 1e-2),
    np.dtype("float32"): (1e-5, 1e-4),
    np.dtype("float64"): (1e-10, 1e-7),
    np.dtype("complex64"): (1e-5, 1e-4),
    np.dtype("complex128"): (1e-10, 1e-7),
}


class SampleInput:
    """Positional and keyword arguments of one call.

    numpy arrays among ``input``/``args`` (and lists of arrays) become Tensors for the
    weft call; the reference receives them as numpy arrays. ``kwargs`` pass to both
    unless ``ref_kwargs`` overrides what the reference gets. ``name`` labels the case
    in failures ("0-D", "empty", "broadcast", "noncontig"...).
    """

    def __init__(self, input, *args, name="", ref_kwargs=None, grad_args=None, **kwargs):
        self.input = input
        self.args = args
        self.kwargs = kwargs
        self.name = name
        self.ref_kwargs = kwargs if ref_kwargs is None else ref_kwargs
        # indices (0 = input, 1.. = args) of the positions to differentiate; None = all arrays
        self.grad_args = grad_args

    def __repr__(self):
        def d(a):
            if isinstance(a, np.ndarray):
                return f"array{list(a.shape)}:{a.dtype.name}"
            if isinstance(a, (list, tuple)) and a and isinstance(a[0], np.ndarray):
                return "[" + ", ".join(d(x) for x in a) + "]"
            return repr(a)
        parts = [d(self.input)] + [d(a) for a in self.args] + \
            [f"{k}={d(v)}" for k, v in self.kwargs.items()]
        return f"SampleInput<{self.name}>({', '.join(parts)})"


@dataclass
class ErrorInput:
    """A call that must raise ``exc`` with a message matching ``match`` (a regex)."""

    sample: SampleInput
    exc: type
    match: str = ""


@dataclass
class OpInfo:
    name: str
    op: Callable
    ref: Callable | None
    sample_inputs: Callable[[np.dtype, np.random.Generator], Any]
    dtypes: tuple = FLOATS
    # dtypes on which gradients are checked (intersected with dtypes)
    grad_dtypes: tuple = (np.dtype("float64"), np.dtype("complex128"))
    supports_grad: bool = True
    supports_gradgrad: bool = True
    method: str | None = None          # Tensor method name, if Paddle has one
    error_inputs: Callable[[np.random.Generator], Any] | None = None
    atol: float | None = None          # override the forward tolerance
    rtol: float | None = None
    check_dtype: bool = True           # output dtype must equal the reference's
    # if set, the reference's dtype is not comparable: the expected output dtype
    out_dtype: Callable[[np.dtype], np.dtype] | None = None
    gradcheck_kwargs: dict = field(default_factory=dict)
    # why a check is skipped, by check name ("forward", "grad", "gradgrad", ...)
    skips: dict = field(default_factory=dict)
    # the weft output to compare: e.g. lambda out: out[0] for ops returning tuples
    nondeterministic: bool = False

    def __repr__(self):
        return f"OpInfo({self.name})"


# ----------------------------------------------------------------------------------
# helpers for sample generators


def make_arg(shape, dtype, rng, low=-3.0, high=3.0, noncontig=False, exclude_zero=False):
    """A random array of ``dtype`` and ``shape`` with values in ``[low, high)``.

    ``noncontig`` returns a strided view with the same values layout;
    ``exclude_zero`` nudges values away from 0 (for division-like ops).
    """
    dtype = np.dtype(dtype)
    shape = tuple(shape)
    if dtype == np.bool_:
        a = rng.random(shape) < 0.5
    elif dtype.kind in "iu":
        lo, hi = int(np.floor(low)), int(np.ceil(high))
        a = rng.integers(lo, max(hi, lo + 1), size=shape).astype(dtype)
        if exclude_zero:
            a[a == 0] = 1
    else:
        a = rng.uniform(low, high, size=shape)
        if dtype.kind == "c":
            a = a + 1j * rng.uniform(low, high, size=shape)
        if exclude_zero:
            small = np.abs(a) < 0.2
            a = np.where(small, 0.5 + (a.real if dtype.kind == "c" else a) * 0, a)
        a = a.astype(dtype)
    a = np.asarray(a)  # 0-D arithmetic gives numpy scalars; samples must be arrays
    if noncontig and a.ndim >= 1 and a.size > 0:
        big = np.empty(shape[:-1] + (shape[-1] * 2,), dtype=dtype)
        big[..., ::2] = a
        a = big[..., ::2]
    return a


def unary_samples(low=-3.0, high=3.0, exclude_zero=False, shapes=None):
    """Samples for elementwise unary ops: the usual shapes plus 0-D, empty and non-contiguous."""
    shapes = shapes or [(5,), (3, 4)]

    def gen(dtype, rng):
        for s in shapes:
            yield SampleInput(make_arg(s, dtype, rng, low, high, exclude_zero=exclude_zero),
                              name=f"shape{list(s)}")
        yield SampleInput(make_arg((), dtype, rng, low, high, exclude_zero=exclude_zero),
                          name="0-D")
        yield SampleInput(make_arg((0, 3), dtype, rng, low, high), name="empty")
        yield SampleInput(make_arg((2, 3), dtype, rng, low, high, noncontig=True,
                                   exclude_zero=exclude_zero), name="noncontig")
    return gen


def binary_samples(low=-3.0, high=3.0, exclude_zero_rhs=False, scalar_rhs=True):
    """Samples for broadcasting binary ops, including 0-D, empty and Python-scalar operands."""
    def gen(dtype, rng):
        ez = exclude_zero_rhs

        def rhs(s):
            return make_arg(s, dtype, rng, low, high, exclude_zero=ez)

        yield SampleInput(make_arg((4,), dtype, rng, low, high), rhs((4,)), name="same")
        yield SampleInput(make_arg((3, 4), dtype, rng, low, high), rhs((4,)), name="broadcast")
        yield SampleInput(make_arg((3, 1), dtype, rng, low, high), rhs((1, 4)),
                          name="broadcast both")
        yield SampleInput(make_arg((), dtype, rng, low, high), rhs(()), name="0-D")
        yield SampleInput(make_arg((0, 4), dtype, rng, low, high), rhs((4,)), name="empty")
        yield SampleInput(make_arg((2, 3), dtype, rng, low, high, noncontig=True), rhs((2, 3)),
                          name="noncontig")
    return gen


def reduction_samples(low=-3.0, high=3.0, keepdim_kw="keepdim", axis_kw="axis"):
    """Samples for axis reductions: all axes, one axis, negative axis, list of axes, keepdim."""
    def gen(dtype, rng):
        a = make_arg((3, 4, 5), dtype, rng, low, high)
        yield SampleInput(a, name="all")
        yield SampleInput(a, **{axis_kw: 1}, name="axis=1")
        yield SampleInput(a, **{axis_kw: -1, keepdim_kw: True}, name="axis=-1 keepdim")
        yield SampleInput(a, **{axis_kw: [0, 2]}, name="axis=[0,2]")
        yield SampleInput(make_arg((), dtype, rng, low, high), name="0-D")
        yield SampleInput(make_arg((4,), dtype, rng, low, high, noncontig=True),
                          **{axis_kw: 0}, name="noncontig")
    return gen


def tensors_of(x):
    """Convert numpy arrays (and lists of them) in a sample to weft Tensors."""
    import weft

    if isinstance(x, np.ndarray):
        return weft.to_tensor(x)
    if isinstance(x, (list, tuple)) and x and all(isinstance(a, np.ndarray) for a in x):
        return type(x)(weft.to_tensor(a) for a in x)
    return x


# ----------------------------------------------------------------------------------
# gather the families

def _load():
    from tests import opdb

    ops = []
    for m in sorted(pkgutil.iter_modules(opdb.__path__), key=lambda m: m.name):
        mod = importlib.import_module(f"tests.opdb.{m.name}")
        ops.extend(mod.OPS)
    names = [o.name for o in ops]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise RuntimeError(f"duplicate OpInfo names: {sorted(dup)}")
    return ops


OP_DB = _load()
