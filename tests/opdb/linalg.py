"""OpInfo entries for the matrix-product family: matmul (weft/ops/linalg_basic.py) and
mm, bmm, dot, inner, outer, mv, einsum, tensordot, kron, cross, diagonal, cdist
(weft/ops/linalg_extra.py)."""
import numpy as np
from scipy.spatial.distance import cdist as _scipy_cdist

import weft
from tests.opinfo import (ALL_NUMERIC, COMPLEX, FLOATS, ErrorInput, OpInfo, SampleInput,
                          make_arg)

NUMERIC_AND_COMPLEX = ALL_NUMERIC + COMPLEX


def _a(shape, dtype, rng, **kw):
    return make_arg(shape, dtype, rng, -2.0, 2.0, **kw)


# ---------------------------------------------------------------------------------
# matmul and its fixed-rank relatives


def _ref_matmul(x, y, transpose_x=False, transpose_y=False):
    if transpose_x and x.ndim >= 2:
        x = np.swapaxes(x, -1, -2)
    if transpose_y and y.ndim >= 2:
        y = np.swapaxes(y, -1, -2)
    return np.matmul(x, y)


def _matmul_samples(dtype, rng):
    yield SampleInput(_a((3, 4), dtype, rng), _a((4, 2), dtype, rng), name="2-D")
    yield SampleInput(_a((4,), dtype, rng), _a((4,), dtype, rng), name="1-D @ 1-D")
    yield SampleInput(_a((3,), dtype, rng), _a((2, 3, 4), dtype, rng), name="1-D @ batch")
    yield SampleInput(_a((2, 3, 4), dtype, rng), _a((4,), dtype, rng), name="batch @ 1-D")
    yield SampleInput(_a((2, 1, 3, 4), dtype, rng), _a((3, 4, 2), dtype, rng),
                      name="batch broadcast")
    yield SampleInput(_a((4, 3), dtype, rng), _a((2, 4), dtype, rng), transpose_x=True,
                      transpose_y=True, name="transpose both")
    yield SampleInput(_a((2, 4, 3), dtype, rng), _a((4, 2), dtype, rng), transpose_x=True,
                      name="transpose_x batch")
    yield SampleInput(_a((3, 4), dtype, rng), _a((5, 4), dtype, rng), transpose_y=True,
                      name="transpose_y")
    yield SampleInput(_a((0, 3), dtype, rng), _a((3, 2), dtype, rng), name="empty rows")
    yield SampleInput(_a((2, 0), dtype, rng), _a((0, 3), dtype, rng), name="empty contraction")
    yield SampleInput(_a((3, 4), dtype, rng, noncontig=True), _a((4, 2), dtype, rng,
                                                                 noncontig=True),
                      name="noncontig")


def _matmul_errors(rng):
    f = "float32"
    yield ErrorInput(SampleInput(_a((3, 4), f, rng), _a((3, 4), f, rng)), ValueError,
                     r"matmul: x's last dimension \(4\) must equal")
    yield ErrorInput(SampleInput(_a((2, 3, 4), f, rng), _a((3, 4, 2), f, rng)), ValueError,
                     "do not broadcast")
    yield ErrorInput(SampleInput(np.array(2.0, dtype=f), _a((3,), f, rng)), ValueError,
                     "at least 1-D")


def _mm_samples(dtype, rng):
    yield SampleInput(_a((3, 4), dtype, rng), _a((4, 2), dtype, rng), name="2-D")
    yield SampleInput(_a((2, 3, 4), dtype, rng), _a((4, 5), dtype, rng), name="batch @ 2-D")
    yield SampleInput(_a((4,), dtype, rng), _a((4, 2), dtype, rng), name="1-D @ 2-D")
    yield SampleInput(_a((0, 4), dtype, rng), _a((4, 2), dtype, rng), name="empty")


def _mm_errors(rng):
    yield ErrorInput(SampleInput(_a((3, 4), "float32", rng), _a((3, 4), "float32", rng)),
                     ValueError, r"mm: input's last dimension \(4\) must equal")


def _bmm_samples(dtype, rng):
    yield SampleInput(_a((2, 3, 4), dtype, rng), _a((2, 4, 5), dtype, rng), name="3-D")
    yield SampleInput(_a((1, 1, 1), dtype, rng), _a((1, 1, 2), dtype, rng), name="tiny")
    yield SampleInput(_a((0, 2, 3), dtype, rng), _a((0, 3, 2), dtype, rng), name="empty batch")
    yield SampleInput(_a((2, 3, 4), dtype, rng, noncontig=True), _a((2, 4, 2), dtype, rng),
                      name="noncontig")


def _bmm_errors(rng):
    f = "float32"
    yield ErrorInput(SampleInput(_a((3, 4), f, rng), _a((4, 2), f, rng)), ValueError,
                     "bmm: x and y must be 3-D")
    yield ErrorInput(SampleInput(_a((2, 3, 4), f, rng), _a((3, 4, 2), f, rng)), ValueError,
                     "bmm: batch sizes differ")
    yield ErrorInput(SampleInput(_a((2, 3, 4), f, rng), _a((2, 3, 2), f, rng)), ValueError,
                     r"bmm: x's last dimension \(4\)")


def _dot_samples(dtype, rng):
    yield SampleInput(_a((5,), dtype, rng), _a((5,), dtype, rng), name="1-D")
    yield SampleInput(_a((3, 4), dtype, rng), _a((3, 4), dtype, rng), name="2-D rows")
    yield SampleInput(_a((0,), dtype, rng), _a((0,), dtype, rng), name="empty")
    yield SampleInput(_a((2, 0), dtype, rng), _a((2, 0), dtype, rng), name="empty rows")
    yield SampleInput(_a((3, 4), dtype, rng, noncontig=True), _a((3, 4), dtype, rng),
                      name="noncontig")


def _dot_errors(rng):
    f = "float32"
    yield ErrorInput(SampleInput(_a((3,), f, rng), _a((4,), f, rng)), ValueError,
                     "dot: x and y must have the same shape")
    yield ErrorInput(SampleInput(_a((2, 3, 4), f, rng), _a((2, 3, 4), f, rng)), ValueError,
                     "both be 1-D or both be 2-D")
    yield ErrorInput(SampleInput(_a((3,), f, rng), _a((1, 3), f, rng)), ValueError,
                     "both be 1-D or both be 2-D")


def _inner_samples(dtype, rng):
    yield SampleInput(_a((4,), dtype, rng), _a((4,), dtype, rng), name="1-D")
    yield SampleInput(_a((2, 3), dtype, rng), _a((4, 3), dtype, rng), name="2-D")
    yield SampleInput(_a((2, 1, 3), dtype, rng), _a((3,), dtype, rng), name="3-D, 1-D")
    yield SampleInput(_a((), dtype, rng), _a((2, 3), dtype, rng), name="0-D")
    yield SampleInput(_a((0, 3), dtype, rng), _a((2, 3), dtype, rng), name="empty")


def _inner_errors(rng):
    yield ErrorInput(SampleInput(_a((2, 3), "float32", rng), _a((3, 2), "float32", rng)),
                     ValueError, "inner: the last dimensions of x and y must match")


def _outer_samples(dtype, rng):
    yield SampleInput(_a((3,), dtype, rng), _a((4,), dtype, rng), name="1-D")
    yield SampleInput(_a((2, 2), dtype, rng), _a((3,), dtype, rng), name="flattens 2-D")
    yield SampleInput(_a((), dtype, rng), _a((2,), dtype, rng), name="0-D")
    yield SampleInput(_a((0,), dtype, rng), _a((2,), dtype, rng), name="empty")


def _mv_samples(dtype, rng):
    yield SampleInput(_a((3, 4), dtype, rng), _a((4,), dtype, rng), name="3x4")
    yield SampleInput(_a((1, 1), dtype, rng), _a((1,), dtype, rng), name="1x1")
    yield SampleInput(_a((0, 2), dtype, rng), _a((2,), dtype, rng), name="empty")
    yield SampleInput(_a((3, 4), dtype, rng, noncontig=True), _a((4,), dtype, rng,
                                                                 noncontig=True),
                      name="noncontig")


def _mv_errors(rng):
    f = "float32"
    yield ErrorInput(SampleInput(_a((3,), f, rng), _a((3,), f, rng)), ValueError,
                     "mv: x must be 2-D")
    yield ErrorInput(SampleInput(_a((3, 4), f, rng), _a((4, 1), f, rng)), ValueError,
                     "mv: vec must be 1-D")
    yield ErrorInput(SampleInput(_a((3, 4), f, rng), _a((3,), f, rng)), ValueError,
                     "mv: x has 4 columns but vec has 3 entries")


# ---------------------------------------------------------------------------------
# einsum


_EQUATIONS = [
    ("ij,jk->ik", [(3, 4), (4, 2)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]),
    ("ii->", [(3, 3)]),
    ("ii->i", [(3, 3)]),
    ("iij->j", [(3, 3, 2)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ij->", [(2, 3)]),
    ("ij->ji", [(2, 3)]),
    ("ijk,ikl->jl", [(2, 3, 2), (2, 2, 4)]),
    ("i,i->", [(5,)] * 2),
    ("ij,ij->ij", [(1, 3), (2, 3)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (3, 4, 2)]),
    ("...ii->...i", [(2, 3, 3)]),
    ("ij,jk", [(2, 3), (3, 2)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 2), (2, 2)]),
    (",ij->ji", [(), (2, 3)]),
]


def _einsum_op(operands, equation):
    return weft.einsum(equation, *operands)


def _ref_einsum(operands, equation):
    return np.einsum(equation, *operands)


def _einsum_samples(dtype, rng):
    for eq, shapes in _EQUATIONS:
        yield SampleInput([_a(s, dtype, rng) for s in shapes], equation=eq, name=eq)
    yield SampleInput([_a((0, 3), dtype, rng), _a((3, 2), dtype, rng)], equation="ij,jk->ik",
                      name="empty")
    yield SampleInput([_a((3, 4), dtype, rng, noncontig=True)], equation="ij->j",
                      name="noncontig")


def _einsum_errors(rng):
    f = "float32"
    yield ErrorInput(SampleInput([_a((2, 3), f, rng)], equation="ijk->i"), ValueError,
                     r"einsum: operand subscripts 'ijk' name 3 dimension\(s\)")
    yield ErrorInput(SampleInput([_a((2, 3), f, rng), _a((4, 2), f, rng)], equation="ij,jk->ik"),
                     ValueError, "einsum: subscript 'j' has size 3 in one operand and 4")
    yield ErrorInput(SampleInput([_a((2, 3), f, rng)], equation="ij,jk->ik"), ValueError,
                     "2 operand subscript")
    yield ErrorInput(SampleInput([_a((2, 3), f, rng)], equation="ij->iz"), ValueError,
                     "output subscript 'z'")
    yield ErrorInput(SampleInput([_a((2, 3), f, rng)], equation="i1->i"), ValueError,
                     "invalid subscript '1'")
    yield ErrorInput(SampleInput([_a((2, 3), f, rng)], equation="ij->ii"), ValueError,
                     "repeat a letter")


# ---------------------------------------------------------------------------------
# tensordot, kron, cross, diagonal


def _paddle_axes(axes, nx, ny):
    if isinstance(axes, int):
        return list(range(nx - axes, nx)), list(range(axes))
    axes = list(axes)
    if all(isinstance(a, int) for a in axes):
        ax = ay = axes
    else:
        ax, ay = (axes[0], axes[0]) if len(axes) == 1 else (list(axes[0]), list(axes[1]))
    if len(ax) < len(ay):
        ax = ax + ay[len(ax):]
    if len(ay) < len(ax):
        ay = ay + ax[len(ay):]
    return [a % nx for a in ax], [b % ny for b in ay]


def _ref_tensordot(x, y, axes=2):
    ax, ay = _paddle_axes(axes, x.ndim, y.ndim)
    # broadcast size-1 contracted dimensions against their partners
    xs, ys = list(x.shape), list(y.shape)
    for a, b in zip(ax, ay):
        xs[a] = ys[b] = max(x.shape[a], y.shape[b])
    return np.tensordot(np.broadcast_to(x, xs), np.broadcast_to(y, ys), axes=(ax, ay))


def _tensordot_samples(dtype, rng):
    yield SampleInput(_a((2, 3, 4), dtype, rng), _a((3, 4, 2), dtype, rng), name="default 2")
    yield SampleInput(_a((2, 3), dtype, rng), _a((3, 2), dtype, rng), axes=1, name="axes=1")
    yield SampleInput(_a((2, 2), dtype, rng), _a((3,), dtype, rng), axes=0, name="outer")
    yield SampleInput(_a((3, 2, 4), dtype, rng), _a((2, 3, 5), dtype, rng),
                      axes=[[0, 1], [1, 0]], name="pairs")
    yield SampleInput(_a((3, 4), dtype, rng), _a((3, 2), dtype, rng), axes=[0],
                      name="flat list = same axes")
    yield SampleInput(_a((2, 3, 4), dtype, rng), _a((3, 2, 4), dtype, rng),
                      axes=[[0, 1, 2], [1, 0]], name="short list extended")
    yield SampleInput(_a((2, 1), dtype, rng), _a((3, 4), dtype, rng), axes=[[1], [0]],
                      name="broadcast contracted")
    yield SampleInput(_a((2, 3), dtype, rng), _a((3, 2), dtype, rng), axes=[[-1], [-2]],
                      name="negative axes")
    yield SampleInput(_a((0, 3), dtype, rng), _a((3, 2), dtype, rng), axes=1, name="empty")


def _tensordot_errors(rng):
    f = "float32"
    x, y = _a((2, 3), f, rng), _a((4, 2), f, rng)
    yield ErrorInput(SampleInput(x, y, axes=1), ValueError,
                     r"tensordot: contracted axis 1 of x \(size 3\) does not match")
    yield ErrorInput(SampleInput(x, y, axes=3), ValueError, r"axes = 3 must be in \[0, 2\]")
    yield ErrorInput(SampleInput(x, y, axes=1.5), TypeError, "axes must be an int")
    yield ErrorInput(SampleInput(x, y, axes=[[0, 0], [1, 0]]), ValueError, "repeat an axis")
    yield ErrorInput(SampleInput(x, y, axes=[[2], [0]]), ValueError, "out of range")


def _kron_samples(dtype, rng):
    yield SampleInput(_a((2, 3), dtype, rng), _a((2, 2), dtype, rng), name="2-D")
    yield SampleInput(_a((3,), dtype, rng), _a((2, 2), dtype, rng), name="1-D, 2-D")
    yield SampleInput(_a((2, 1, 2), dtype, rng), _a((3,), dtype, rng), name="3-D, 1-D")
    yield SampleInput(_a((), dtype, rng), _a((3,), dtype, rng), name="0-D")
    yield SampleInput(_a((2, 0), dtype, rng), _a((3,), dtype, rng), name="empty")


def _ref_cross(x, y, axis=9):
    if axis == 9:
        axis = [i for i, s in enumerate(x.shape) if s == 3][0]
    return np.cross(x, y, axis=axis)


def _cross_samples(dtype, rng):
    yield SampleInput(_a((3,), dtype, rng), _a((3,), dtype, rng), name="vectors")
    yield SampleInput(_a((4, 3), dtype, rng), _a((4, 3), dtype, rng), axis=1, name="rows")
    yield SampleInput(_a((3, 4), dtype, rng), _a((3, 4), dtype, rng), name="default axis 0")
    yield SampleInput(_a((3, 3), dtype, rng), _a((3, 3), dtype, rng),
                      name="3x3 default = first axis")
    yield SampleInput(_a((2, 3, 3), dtype, rng), _a((2, 3, 3), dtype, rng), axis=-1,
                      name="negative axis")
    yield SampleInput(_a((0, 3), dtype, rng), _a((0, 3), dtype, rng), name="empty")
    yield SampleInput(_a((2, 3), dtype, rng, noncontig=True), _a((2, 3), dtype, rng),
                      name="noncontig")


def _cross_errors(rng):
    f = "float32"
    yield ErrorInput(SampleInput(_a((2, 4), f, rng), _a((2, 4), f, rng)), ValueError,
                     "cross: no axis of size 3")
    yield ErrorInput(SampleInput(_a((3, 4), f, rng), _a((3, 4), f, rng), axis=1), ValueError,
                     "cross: axis 1 must have size 3")
    yield ErrorInput(SampleInput(_a((3,), f, rng), _a((1, 3), f, rng)), ValueError,
                     "must have the same shape")
    yield ErrorInput(SampleInput(_a((3, 3), f, rng), _a((3, 3), f, rng), axis=2), ValueError,
                     "out of range")


def _diagonal_samples(dtype, rng):
    yield SampleInput(_a((3, 4), dtype, rng), name="2-D")
    yield SampleInput(_a((3, 4), dtype, rng), offset=1, name="offset 1")
    yield SampleInput(_a((4, 3), dtype, rng), offset=-2, name="offset -2")
    yield SampleInput(_a((2, 3, 4), dtype, rng), name="3-D default axes")
    yield SampleInput(_a((2, 3, 4), dtype, rng), offset=1, axis1=2, axis2=0,
                      name="axes reversed")
    yield SampleInput(_a((2, 3, 3), dtype, rng), axis1=-2, axis2=-1, name="batched")
    yield SampleInput(_a((2, 3), dtype, rng), offset=5, name="offset past the end")
    yield SampleInput(_a((3, 4), dtype, rng, noncontig=True), offset=-1, name="noncontig")


def _diagonal_errors(rng):
    f = "float32"
    yield ErrorInput(SampleInput(_a((3,), f, rng)), ValueError, "diagonal: x must be at least 2-D")
    yield ErrorInput(SampleInput(_a((3, 3), f, rng), axis1=1, axis2=-1), ValueError,
                     "axis1 and axis2 must differ")
    yield ErrorInput(SampleInput(_a((3, 3), f, rng), axis2=2), ValueError,
                     "axis2 2 is out of range")
    yield ErrorInput(SampleInput(_a((3, 3), f, rng), offset=1.0), TypeError,
                     "offset must be an int")


# ---------------------------------------------------------------------------------
# cdist


def _ref_cdist(x, y, p=2.0, compute_mode=None):
    batch = np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    nb = int(np.prod(batch))
    xb = np.broadcast_to(x, batch + x.shape[-2:]).reshape((nb,) + x.shape[-2:])
    yb = np.broadcast_to(y, batch + y.shape[-2:]).reshape((nb,) + y.shape[-2:])
    out = np.empty((xb.shape[0], x.shape[-2], y.shape[-2]), dtype=np.float64)
    for i, (a, b) in enumerate(zip(xb, yb)):
        if a.shape[0] == 0 or b.shape[0] == 0:
            continue
        if p == 0:
            out[i] = _scipy_cdist(a, b, "hamming") * a.shape[1]
        elif np.isinf(p):
            out[i] = _scipy_cdist(a, b, "chebyshev")
        else:
            out[i] = _scipy_cdist(a, b, "minkowski", p=p)
    return out.reshape(batch + (x.shape[-2], y.shape[-2])).astype(x.dtype)


def _cdist_samples(dtype, rng):
    yield SampleInput(_a((5, 3), dtype, rng), _a((4, 3), dtype, rng), name="p=2")
    yield SampleInput(_a((4, 3), dtype, rng), _a((3, 3), dtype, rng), p=1.0, name="p=1")
    yield SampleInput(_a((4, 3), dtype, rng), _a((3, 3), dtype, rng), p=float("inf"),
                      name="p=inf")
    yield SampleInput(_a((3, 2), dtype, rng), _a((4, 2), dtype, rng), p=3.0, name="p=3")
    yield SampleInput(_a((3, 2), dtype, rng), _a((2, 2), dtype, rng), p=0.5, name="p=0.5")
    yield SampleInput(np.round(_a((3, 4), dtype, rng)), np.round(_a((2, 4), dtype, rng)),
                      p=0.0, name="p=0")
    yield SampleInput(_a((2, 3, 2), dtype, rng), _a((1, 4, 2), dtype, rng),
                      name="batch broadcast")
    yield SampleInput(_a((27, 2), dtype, rng), _a((3, 2), dtype, rng),
                      name="P > 25 uses matmul")
    yield SampleInput(_a((3, 2), dtype, rng), _a((2, 2), dtype, rng),
                      compute_mode="use_mm_for_euclid_dist", name="forced matmul")
    yield SampleInput(_a((0, 2), dtype, rng), _a((3, 2), dtype, rng), name="empty")
    yield SampleInput(_a((3, 4), dtype, rng, noncontig=True), _a((2, 4), dtype, rng),
                      p=1.5, name="noncontig")


def _cdist_errors(rng):
    f = "float32"
    x, y = _a((3, 2), f, rng), _a((4, 2), f, rng)
    yield ErrorInput(SampleInput(x, _a((4, 3), f, rng)), ValueError,
                     "cdist: x and y must have the same number of features")
    yield ErrorInput(SampleInput(_a((3,), f, rng), y), ValueError, "x must be at least 2-D")
    yield ErrorInput(SampleInput(x, y, p=-1.0), ValueError, "p must be non-negative")
    yield ErrorInput(SampleInput(x, y, p="2"), TypeError, "p must be a number")
    yield ErrorInput(SampleInput(x, y, compute_mode="fast"), ValueError, "compute_mode must be")
    yield ErrorInput(SampleInput(_a((2, 3, 2), f, rng), _a((3, 4, 2), f, rng)), ValueError,
                     "do not broadcast")
    yield ErrorInput(SampleInput(x.astype(np.complex64), y), TypeError, "real floating")


OPS = [
    OpInfo("matmul", weft.matmul, _ref_matmul, _matmul_samples, dtypes=NUMERIC_AND_COMPLEX,
           method="matmul", error_inputs=_matmul_errors),
    OpInfo("mm", weft.mm, np.matmul, _mm_samples, dtypes=NUMERIC_AND_COMPLEX, method="mm",
           error_inputs=_mm_errors),
    OpInfo("bmm", weft.bmm, np.matmul, _bmm_samples, dtypes=NUMERIC_AND_COMPLEX, method="bmm",
           error_inputs=_bmm_errors),
    OpInfo("dot", weft.dot, lambda x, y: np.sum(x * y, axis=-1, dtype=np.result_type(x, y)),
           _dot_samples,
           dtypes=NUMERIC_AND_COMPLEX, method="dot", error_inputs=_dot_errors),
    OpInfo("inner", weft.inner, np.inner, _inner_samples, dtypes=NUMERIC_AND_COMPLEX,
           method="inner", error_inputs=_inner_errors),
    OpInfo("outer", weft.outer, np.outer, _outer_samples, dtypes=NUMERIC_AND_COMPLEX,
           method="outer"),
    OpInfo("mv", weft.mv, np.matmul, _mv_samples, dtypes=NUMERIC_AND_COMPLEX, method="mv",
           error_inputs=_mv_errors),
    OpInfo("einsum", _einsum_op, _ref_einsum, _einsum_samples, dtypes=NUMERIC_AND_COMPLEX,
           error_inputs=_einsum_errors),
    OpInfo("tensordot", weft.tensordot, _ref_tensordot, _tensordot_samples,
           dtypes=NUMERIC_AND_COMPLEX, method="tensordot", error_inputs=_tensordot_errors),
    OpInfo("kron", weft.kron, np.kron, _kron_samples, dtypes=NUMERIC_AND_COMPLEX,
           method="kron"),
    OpInfo("cross", weft.cross, _ref_cross, _cross_samples, dtypes=NUMERIC_AND_COMPLEX,
           method="cross", error_inputs=_cross_errors),
    OpInfo("diagonal", weft.diagonal, np.diagonal, _diagonal_samples,
           dtypes=NUMERIC_AND_COMPLEX, method="diagonal", error_inputs=_diagonal_errors),
    OpInfo("cdist", weft.cdist, _ref_cdist, _cdist_samples, dtypes=FLOATS, method="cdist",
           error_inputs=_cdist_errors),
]
