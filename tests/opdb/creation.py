"""OpInfo entries for weft/ops/creation.py and weft/ops/creation_extra.py.

Creation ops without a tensor input (zeros, arange, linspace, eye ...) take the
requested dtype as a keyword and have no gradient; diag, diagflat, diag_embed,
tril, triu, meshgrid, assign and clone are differentiable.
"""
import numpy as np

import weft
from tests.opinfo import (ALL, ALL_NUMERIC, COMPLEX, ErrorInput, OpInfo, SampleInput, make_arg,
                          unary_samples)

NUMERIC = ALL_NUMERIC + COMPLEX


def _arg(*a, **k):
    # make_arg gives a numpy scalar for complex 0-D; the ops must see an array
    return np.asarray(make_arg(*a, **k))


def _unary(dtype, rng):
    for s in unary_samples()(dtype, rng):
        yield SampleInput(np.asarray(s.input), name=s.name)


# ----------------------------------------------------------------------------------
# references

def _diag_ref(x, offset=0, padding_value=0):
    if x.ndim == 2:
        return np.diagonal(x, offset).copy()
    x = x.reshape(-1)
    mask = np.diag(np.ones(x.shape, dtype=bool), offset)
    return np.where(mask, np.diag(x, offset), np.asarray(padding_value).astype(x.dtype))


def _diag_embed_ref(x, offset=0, dim1=-2, dim2=-1):
    batch = x.reshape(-1, x.shape[-1])
    mats = np.stack([np.diag(v, offset) for v in batch]) if batch.shape[0] else \
        np.zeros((0,) + (x.shape[-1] + abs(offset),) * 2, dtype=x.dtype)
    mats = mats.reshape(x.shape[:-1] + mats.shape[-2:])
    nd = x.ndim + 1
    return np.moveaxis(mats, (-2, -1), (dim1 % nd, dim2 % nd))


def _meshgrid(*xs, **kw):
    return tuple(weft.meshgrid(*xs, **kw))


def _meshgrid_ref(*xs, indexing="ij"):
    return tuple(np.meshgrid(*[np.reshape(x, -1) for x in xs], indexing=indexing))


# ----------------------------------------------------------------------------------
# samples

def _shape_samples(dtype, rng):
    for shape in ([2, 3], (4,), [], [0, 3], 5):
        yield SampleInput(shape, dtype=dtype, name=f"shape={shape}")


def _full_samples(dtype, rng):
    v = _arg((), dtype, rng).item()
    for shape in ([2, 3], [], [0, 2]):
        yield SampleInput(shape, v, dtype=dtype, name=f"shape={shape}")


def _like_samples(dtype, rng):
    yield from _unary(dtype, rng)
    yield SampleInput(_arg((2, 2), dtype, rng), dtype="float64", name="dtype=float64")


def _full_like_samples(dtype, rng):
    v = _arg((), dtype, rng).item()
    for s in _unary(dtype, rng):
        yield SampleInput(s.input, v, name=s.name)


def _arange_samples(dtype, rng):
    if dtype.kind in "iu":
        yield SampleInput(0, 10, 3, dtype=dtype, name="ints")
        yield SampleInput(5, -4, -2, dtype=dtype, name="negative step")
        yield SampleInput(3, 3, 1, dtype=dtype, name="empty")
    else:
        yield SampleInput(0.5, 3.0, 0.25, dtype=dtype, name="floats")
        yield SampleInput(-1.0, 1.0, 0.5, dtype=dtype, name="negative start")


def _linspace_samples(dtype, rng):
    if dtype.kind in "iu":
        yield SampleInput(0, 12, 5, dtype=dtype, name="exact ints")
        yield SampleInput(0, 10, 4, dtype=dtype, name="truncated")
    else:
        yield SampleInput(0.0, 1.0, 5, dtype=dtype, name="unit")
        yield SampleInput(-3.5, 2.0, 12, dtype=dtype, name="negative")
        yield SampleInput(2.0, -2.0, 7, dtype=dtype, name="descending")
    yield SampleInput(1, 1, 1, dtype=dtype, name="num=1")
    yield SampleInput(0, 1, 0, dtype=dtype, name="num=0")


def _logspace_samples(dtype, rng):
    yield SampleInput(0, 4, 5, base=2.0, dtype=dtype, name="base 2")
    if dtype.kind == "f":
        yield SampleInput(-1.0, 1.0, 5, dtype=dtype, name="base 10")
        yield SampleInput(0.5, 1.5, 3, base=3.0, dtype=dtype, name="base 3")


def _eye_samples(dtype, rng):
    yield SampleInput(3, dtype=dtype, name="square")
    yield SampleInput(2, 4, dtype=dtype, name="wide")
    yield SampleInput(4, 2, dtype=dtype, name="tall")
    yield SampleInput(0, dtype=dtype, name="empty")


def _diag_samples(dtype, rng):
    yield SampleInput(_arg((4,), dtype, rng), name="vector")
    yield SampleInput(_arg((3,), dtype, rng), offset=1, padding_value=2, name="offset=1 pad")
    yield SampleInput(_arg((3,), dtype, rng), offset=-2, name="offset=-2")
    yield SampleInput(_arg((), dtype, rng), name="0-D")
    yield SampleInput(_arg((0,), dtype, rng), name="empty vector")
    yield SampleInput(_arg((4,), dtype, rng, noncontig=True), name="noncontig vector")
    yield SampleInput(_arg((3, 3), dtype, rng), name="square")
    yield SampleInput(_arg((3, 5), dtype, rng), offset=2, name="wide offset=2")
    yield SampleInput(_arg((4, 2), dtype, rng), offset=-1, name="tall offset=-1")
    yield SampleInput(_arg((2, 4), dtype, rng, noncontig=True), offset=1,
                      name="noncontig matrix")


def _diagflat_samples(dtype, rng):
    yield SampleInput(_arg((3,), dtype, rng), name="vector")
    yield SampleInput(_arg((2, 2), dtype, rng), offset=1, name="matrix offset=1")
    yield SampleInput(_arg((), dtype, rng), offset=-1, name="0-D offset=-1")
    yield SampleInput(_arg((2, 3), dtype, rng, noncontig=True), name="noncontig")


def _diag_embed_samples(dtype, rng):
    yield SampleInput(_arg((3,), dtype, rng), name="vector")
    yield SampleInput(_arg((2, 3), dtype, rng), offset=1, name="batch offset=1")
    yield SampleInput(_arg((2, 3), dtype, rng), offset=-1, dim1=0, dim2=2, name="dims 0,2")
    yield SampleInput(_arg((2, 3), dtype, rng), dim1=-1, dim2=0, name="dims swapped")
    yield SampleInput(_arg((0, 2), dtype, rng), name="empty batch")
    yield SampleInput(_arg((2, 3), dtype, rng, noncontig=True), name="noncontig")


def _tri_samples(dtype, rng):
    yield SampleInput(_arg((3, 4), dtype, rng), name="wide")
    yield SampleInput(_arg((4, 3), dtype, rng), diagonal=-1, name="tall diagonal=-1")
    yield SampleInput(_arg((2, 3, 3), dtype, rng), diagonal=1, name="batch diagonal=1")
    yield SampleInput(_arg((3, 3), dtype, rng), diagonal=5, name="diagonal beyond")
    yield SampleInput(_arg((0, 3), dtype, rng), name="empty")
    yield SampleInput(_arg((3, 4), dtype, rng, noncontig=True), name="noncontig")


def _meshgrid_samples(dtype, rng):
    yield SampleInput(_arg((2,), dtype, rng), _arg((3,), dtype, rng), name="two")
    yield SampleInput(_arg((2,), dtype, rng), _arg((3,), dtype, rng),
                      _arg((2,), dtype, rng), name="three")
    yield SampleInput(_arg((3,), dtype, rng), _arg((2,), dtype, rng), indexing="xy",
                      name="xy")
    yield SampleInput(_arg((3,), dtype, rng), name="one")
    yield SampleInput(_arg((), dtype, rng), _arg((2,), dtype, rng), name="0-D input")
    yield SampleInput(_arg((0,), dtype, rng), _arg((2,), dtype, rng), name="empty")
    yield SampleInput(_arg((4,), dtype, rng, noncontig=True), _arg((2,), dtype, rng),
                      name="noncontig")


# ----------------------------------------------------------------------------------
# error inputs

def _errors(*cases):
    def gen(rng):
        for sample, exc, match in cases:
            yield ErrorInput(sample() if callable(sample) else sample, exc, match)
    return gen


def _m(*shape):
    return lambda: _arg(shape, "float32", np.random.default_rng(0))


_shape_errors = _errors(
    (SampleInput([2, -1]), ValueError, "non-negative"),
    (SampleInput("abc"), TypeError, "shape"),
    (SampleInput([2, 1.5]), TypeError, "shape"),
    (SampleInput([2], dtype="notadtype"), TypeError, "dtype"),
)


OPS = [
    OpInfo("to_tensor", weft.to_tensor, lambda x: np.array(x, copy=True),
           _unary, dtypes=ALL, supports_grad=False,
           error_inputs=_errors((SampleInput([[1, 2], [3]]), ValueError, "ragged"),
                                (SampleInput(object()), TypeError, "cannot convert"))),
    OpInfo("zeros", weft.zeros, lambda shape, dtype: np.zeros(shape, dtype), _shape_samples,
           dtypes=ALL, supports_grad=False, error_inputs=_shape_errors),
    OpInfo("ones", weft.ones, lambda shape, dtype: np.ones(shape, dtype), _shape_samples,
           dtypes=ALL, supports_grad=False, error_inputs=_shape_errors),
    OpInfo("empty", weft.empty, lambda shape, dtype: np.zeros(shape, dtype), _shape_samples,
           dtypes=ALL, supports_grad=False, error_inputs=_shape_errors),
    OpInfo("full", weft.full, lambda shape, v, dtype: np.full(shape, v, dtype), _full_samples,
           dtypes=ALL, supports_grad=False,
           error_inputs=_errors((SampleInput([2], "a"), TypeError, "fill_value"),
                                (SampleInput([-2], 1.0), ValueError, "non-negative"))),
    OpInfo("zeros_like", weft.zeros_like, np.zeros_like, _like_samples, dtypes=ALL,
           supports_grad=False,
           error_inputs=_errors((SampleInput(None), TypeError, "x"))),
    OpInfo("ones_like", weft.ones_like, np.ones_like, _like_samples, dtypes=ALL,
           supports_grad=False),
    OpInfo("empty_like", weft.empty_like, np.zeros_like, _like_samples, dtypes=ALL,
           supports_grad=False),
    OpInfo("full_like", weft.full_like, np.full_like, _full_like_samples, dtypes=ALL,
           supports_grad=False),
    OpInfo("arange", weft.arange, lambda a, b, c, dtype: np.arange(a, b, c, dtype=dtype),
           _arange_samples, dtypes=ALL_NUMERIC, supports_grad=False,
           error_inputs=_errors((SampleInput(0, 5, 0), ValueError, "step"),
                                (SampleInput("a", 5), TypeError, "start"))),
    OpInfo("linspace", weft.linspace,
           lambda a, b, n, dtype: np.linspace(a, b, n).astype(dtype),
           _linspace_samples, dtypes=ALL_NUMERIC, supports_grad=False,
           error_inputs=_errors((SampleInput(0, 1, -1), ValueError, "num"),
                                (SampleInput(0, 1, 2.5), TypeError, "num"),
                                (SampleInput("a", 1, 2), TypeError, "start"),
                                (SampleInput(0, 1, 3, dtype="complex64"), TypeError, "dtype"))),
    OpInfo("logspace", weft.logspace,
           lambda a, b, n, base=10.0, dtype=None: np.logspace(a, b, n, base=base).astype(dtype),
           _logspace_samples, dtypes=ALL_NUMERIC, supports_grad=False,
           error_inputs=_errors((SampleInput(0, 1, -3), ValueError, "num"),
                                (SampleInput(0, 1, 3, base="e"), TypeError, "base"))),
    OpInfo("eye", weft.eye, lambda n, m=None, dtype=None: np.eye(n, m, dtype=dtype),
           _eye_samples, dtypes=ALL, supports_grad=False,
           error_inputs=_errors((SampleInput(-1), ValueError, "num_rows"),
                                (SampleInput(2, -3), ValueError, "num_columns"),
                                (SampleInput(2.0), TypeError, "num_rows"))),
    OpInfo("diag", weft.diag, _diag_ref, _diag_samples, dtypes=NUMERIC, method="diag",
           error_inputs=_errors((lambda: SampleInput(_m(2, 2, 2)()), ValueError, "2-D"),
                                (lambda: SampleInput(_m(3)(), 1.5), TypeError, "offset"),
                                (lambda: SampleInput(_m(3)(), 0, "x"), TypeError,
                                 "padding_value"))),
    OpInfo("diagflat", weft.diagflat, lambda x, offset=0: np.diagflat(x, offset),
           _diagflat_samples, dtypes=NUMERIC, method="diagflat",
           error_inputs=_errors((lambda: SampleInput(_m(3)(), "1"), TypeError, "offset"))),
    OpInfo("diag_embed", weft.diag_embed, _diag_embed_ref, _diag_embed_samples, dtypes=NUMERIC,
           method="diag_embed",
           error_inputs=_errors(
               (lambda: SampleInput(_m(2, 3)(), 0, 1, -2), ValueError, "differ"),
               (lambda: SampleInput(_m()()), ValueError, "at least 1-D"),
               (lambda: SampleInput(_m(2, 3)(), 0, 5), ValueError, "dim1"))),
    OpInfo("tril", weft.tril, lambda x, diagonal=0: np.tril(x, diagonal), _tri_samples,
           dtypes=ALL, method="tril",
           error_inputs=_errors((lambda: SampleInput(_m(3)()), ValueError, "2 dimensions"),
                                (lambda: SampleInput(_m(2, 2)(), 0.5), TypeError,
                                 "diagonal"))),
    OpInfo("triu", weft.triu, lambda x, diagonal=0: np.triu(x, diagonal), _tri_samples,
           dtypes=ALL, method="triu",
           error_inputs=_errors((lambda: SampleInput(_m()()), ValueError, "2 dimensions"))),
    OpInfo("meshgrid", _meshgrid, _meshgrid_ref, _meshgrid_samples, dtypes=NUMERIC,
           error_inputs=_errors(
               (lambda: SampleInput(_m(2, 2)(), _m(2)()), ValueError, "1-D"),
               (lambda: SampleInput(_m(2)(), _m(2)(), indexing="ji"), ValueError,
                "indexing"),
               (lambda: SampleInput(_m(2)(), np.arange(3)), TypeError, "dtype"))),
    OpInfo("assign", weft.assign, np.copy, _unary, dtypes=ALL,
           error_inputs=_errors(
               (lambda: SampleInput(_m(2)(), weft.zeros([3])), ValueError, "shape"),
               (lambda: SampleInput(_m(2)(), weft.zeros([2], "int32")), TypeError,
                "dtype"),
               (lambda: SampleInput(_m(2)(), "out"), TypeError, "output"))),
    OpInfo("clone", weft.clone, np.copy, _unary, dtypes=ALL, method="clone",
           error_inputs=_errors((SampleInput(None), TypeError, "x"))),
]
