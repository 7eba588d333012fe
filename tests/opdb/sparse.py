"""OpInfo entries for weft.sparse (api-sparse.md §3.1, §3.2): the zero-preserving
unary ops, pow, and the structural functions (cast, isnan, coalesce, transpose, sum,
reshape, slice, is_same_shape, mask_as, pca_lowrank). The products and the
element-wise binary ops are in sparse_products.py, the constructors and layout
conversions in sparse_creation.py.

Every entry runs on COO and CSR operands (``layout``) built by tests.opinfo.SparseArg
from an explicit pattern: random masks, empty rows and batches, explicit zeros,
duplicates and unsorted entries (uncoalesced COO, non-canonical CSR), int32
indices, strided components, hybrid COO and batched CSR where the spec allows
them. References get the SparseArg (``ref_sparse="arg"``) and compute on its dense
value with numpy, returning a SparseOut with the pattern, canonical flag, index
dtype and entry count the spec defines for the result.
"""
import numpy as np

import weft
from tests.opinfo import (ALL, FLOAT_AND_COMPLEX, FLOATS, INTS, ErrorInput, OpInfo,
                          SampleInput, SparseArg, SparseOut, make_arg)
from weft import sparse as S

SPARSE = ("coo", "csr")
F16 = (np.dtype("float16"),)
ELEMENTWISE = F16 + FLOAT_AND_COMPLEX + INTS  # the value dtypes of §0 that numpy has


# ---------------------------------------------------------------------------------
# operands


def arg(shape, dtype, rng, layout, *, density=0.5, sparse_dim=None, low=-3.0, high=3.0,
        clear=None, zeros=0, nans=0, **kw):
    """A SparseArg of random nonzero values on a random pattern of ``density``.

    ``clear`` (an index into the pattern) empties rows or batches; ``zeros`` /
    ``nans`` stored positions hold 0 (explicit zeros) / NaN."""
    shape = tuple(shape)
    sd = len(shape) if sparse_dim is None else sparse_dim
    dense = make_arg(shape, dtype, rng, low, high, exclude_zero=True)
    pattern = rng.random(shape[:sd]) < density
    if clear is not None:
        pattern[clear] = False
    slots = dense.reshape((-1,) + shape[sd:])  # a view: make_arg returns contiguous arrays
    pos = np.flatnonzero(pattern)
    slots[pos[:zeros]] = 0
    if nans and dense.dtype.kind in "fc":
        slots[pos[zeros:zeros + nans]] = np.nan
    return SparseArg(dense, layout, pattern=pattern, sparse_dim=sd,
                     seed=int(rng.integers(2 ** 31)), **kw)


def operands(dtype, rng, layout, **kw):
    """``(name, SparseArg)`` over the cases the spec allows for ``layout``.

    There is no 0-D case (a sparse tensor has at least one sparse axis, §1) and no
    broadcasting one (no sparse op broadcasts); "noncontig" hands the constructor
    strided component arrays."""
    def a(shape, **k):
        return arg(shape, dtype, rng, layout, **{**kw, **k})

    if layout == "coo":
        yield "2-D", a((5, 4))
        yield "1-D", a((7,))
        yield "3-D", a((2, 3, 4), density=0.4)
        yield "hybrid sparse_dim=1", a((4, 3, 2), sparse_dim=1, density=0.6)
        yield "hybrid sparse_dim=2, duplicates, unsorted", a((3, 4, 2), sparse_dim=2,
                                                           duplicates=True, shuffle=True)
        yield "duplicates, unsorted, int32", a((4, 5), duplicates=True, shuffle=True,
                                               index_dtype="int32")
    else:
        yield "2-D, an empty row", a((5, 4), clear=(1,))
        yield "3-D batched, an empty row", a((2, 3, 4), clear=(1, 0))
        yield "3-D, an empty batch", a((3, 2, 3), density=0.7, clear=(1,))
        yield "3-D, duplicates, unsorted, int32", a((2, 3, 4), duplicates=True, shuffle=True,
                                                    index_dtype="int32")
        yield "duplicates, unsorted, int32", a((4, 5), duplicates=True, shuffle=True,
                                               index_dtype="int32")
    yield "explicit zeros", a((4, 4), density=0.6, zeros=2)
    yield "every position stored", a((3, 4), density=1.0)
    yield "noncontig", a((3, 5), noncontig=True)
    yield "nnz=0", a((3, 4), density=0.0)
    yield "zero-size", a((0, 3))


def val(a):
    """The dense value of an operand (SparseArg or array) for numpy."""
    return a.dense if isinstance(a, SparseArg) else np.asarray(a)


def full_mask(x):
    """x's pattern broadcast over its dense axes: True at every stored element."""
    extra = (1,) * (len(x.shape) - x.sparse_dim)
    return np.broadcast_to(x.pattern.reshape(x.pattern.shape + extra), x.shape)


def kept(x, *, nnz=None, **kw):
    """SparseOut keywords of an op that keeps x's sparse_dim, index dtype and entries
    (``kw`` overrides)."""
    return {"sparse_dim": x.sparse_dim, "index_dtype": x.index_dtype,
            "nnz": x.nnz if nnz is None else nnz, **kw}


def _flag(x):
    # ops that keep the entries as they are keep a COO's coalesced flag: True for a
    # plainly built operand, False for one with duplicates or shuffled entries
    return x.plain


def not_sparse(name, *args, exc=NotImplementedError, match=None):
    """Errors for a dense Tensor and a plain list where ``name`` takes a sparse tensor
    (``args`` follow x)."""
    def gen(rng, layout=None):
        yield ErrorInput(SampleInput(make_arg((3, 3), "float32", rng), *args), exc,
                         match or f"{name}: x must be a sparse tensor")
        yield ErrorInput(SampleInput([1.0, 2.0], *args), TypeError, name)
    return gen


# ---------------------------------------------------------------------------------
# §3.1 zero-preserving unary ops


def _unary_samples(low, high, kink):
    def gen(dtype, rng, layout):
        for name, x in operands(dtype, rng, layout, low=low, high=high):
            # at an explicit zero abs and sqrt have no derivative: forward only
            yield SampleInput(x, name=name, grad_args=() if kink and "zeros" in name else None)
        if np.dtype(dtype).kind in "fc":
            # stored values out of the domain give NaN/inf and stay stored
            yield SampleInput(arg((4, 5), dtype, rng, layout, low=-3.0, high=3.0, zeros=1),
                              name="wide range", grad_args=())
    return gen


def _unary_ref(f, keep_int, linear):
    def ref(x):
        v = x.dense
        if v.dtype.kind in "iub" and not keep_int:
            v = v.astype(weft.get_default_dtype())
        # every f here has f(0) = 0, so implicit zeros stay zero; a nonlinear op first
        # merges duplicates (f(a + b), not f(a) + f(b)) and so canonicalises
        merged = x.plain or linear
        return SparseOut(x.layout, f(v), x.pattern,
                         **kept(x, nnz=None if merged else int(x.pattern.sum()),
                                canonical=_flag(x) or not linear))
    return ref


def _unary_errors(name, real_only):
    def gen(rng, layout):
        yield from not_sparse(name)(rng)
        if real_only:
            yield ErrorInput(SampleInput(arg((3, 3), "complex64", rng, layout)),
                             weft.UnsupportedDtypeError, f"{name}: ")
    return gen


# name, numpy function, (low, high) of the values, no derivative at 0, keeps integer
# dtypes, linear (keeps duplicates), takes complex values
_UNARY = (
    ("sin", np.sin, (-3, 3), False, False, False, True),
    ("tan", np.tan, (-1.2, 1.2), False, False, False, True),
    ("asin", np.arcsin, (-0.9, 0.9), False, False, False, True),
    ("atan", np.arctan, (-3, 3), False, False, False, True),
    ("sinh", np.sinh, (-3, 3), False, False, False, True),
    ("tanh", np.tanh, (-3, 3), False, False, False, True),
    ("asinh", np.arcsinh, (-3, 3), False, False, False, True),
    ("atanh", np.arctanh, (-0.9, 0.9), False, False, False, True),
    ("sqrt", np.sqrt, (0.2, 3), True, False, False, True),
    ("square", np.square, (-3, 3), False, True, False, True),
    ("log1p", np.log1p, (-0.5, 3), False, False, False, True),
    ("abs", np.abs, (-3, 3), True, True, False, True),
    ("neg", np.negative, (-3, 3), False, True, True, True),
    ("deg2rad", np.deg2rad, (-3, 3), False, False, True, False),
    ("rad2deg", np.rad2deg, (-3, 3), False, False, True, False),
    ("expm1", np.expm1, (-3, 3), False, False, False, True),
)

OPS = [
    OpInfo(f"sparse.{name}", getattr(S, name), _unary_ref(f, keep_int, linear),
           _unary_samples(lo, hi, kink), dtypes=ELEMENTWISE if cplx else
           tuple(d for d in ELEMENTWISE if d.kind != "c"),
           method="__neg__" if name == "neg" else None, layout=SPARSE, ref_sparse="arg",
           error_inputs=_unary_errors(name, not cplx))
    for name, f, (lo, hi), kink, keep_int, linear, cplx in _UNARY
]


# ---------------------------------------------------------------------------------
# pow


def _pow_samples(dtype, rng, layout):
    ints = np.dtype(dtype).kind in "iu"
    for name, x in operands(dtype, rng, layout, low=0.5, high=2.0):
        yield SampleInput(x, 2, name=name)
    # positive values: fractional and negative powers stay real and finite
    for factor in ((3, 0, 1, 0.5) if ints else (3, 0.5, 0, -1, -1.5, 1, 1.0)):
        yield SampleInput(arg((4, 5), dtype, rng, layout, low=0.5, high=2.0), factor,
                          name=f"factor {factor!r}")
    if not ints:
        # implicit zeros stay 0 for factor <= 0; a stored 0 gives 0**0 = 1, 0**-1 = inf
        for factor in (0, -1):
            yield SampleInput(arg((3, 4), dtype, rng, layout, zeros=2, low=0.5, high=2.0),
                              factor, name=f"explicit zeros, factor {factor}", grad_args=())


def _pow_ref(x, factor):
    v = x.dense
    if v.dtype.kind in "iu" and not isinstance(factor, int):
        v = v.astype(weft.get_default_dtype())
    linear = factor == 1
    return SparseOut(x.layout, np.where(full_mask(x), np.power(v, factor), 0).astype(v.dtype),
                     x.pattern, **kept(x, nnz=None if x.plain or linear else int(x.pattern.sum()),
                                       canonical=_flag(x) or not linear))


def _pow_errors(rng, layout):
    x = arg((3, 3), "float32", rng, layout)
    yield ErrorInput(SampleInput(x, "2"), TypeError, "pow: factor must be an int or a float")
    yield ErrorInput(SampleInput(x, True), TypeError, "pow: factor")
    yield ErrorInput(SampleInput(make_arg((3,), "float32", rng), 2), NotImplementedError,
                     "pow: x must be a sparse tensor")


OPS.append(OpInfo("sparse.pow", S.pow, _pow_ref, _pow_samples,
                  dtypes=F16 + FLOAT_AND_COMPLEX + INTS, layout=SPARSE, ref_sparse="arg",
                  error_inputs=_pow_errors))


# ---------------------------------------------------------------------------------
# cast, isnan, coalesce


_INDEX_CASTS = ("int32", None, "int64", "int16", "int8", "uint8")


def _value_casts(dtype):
    d = np.dtype(dtype)
    if d.kind == "c":
        return (None, "complex128", "complex64")
    if d.kind == "f":
        return (None, "float64", "float32", "complex128", "int32", "bool")
    return (None, "int64", "float64", "bool")


def _additive(src, dst):
    # casting duplicates one by one and then summing them gives the cast of their sum
    # (up to rounding) except across bool (a bool sum is `or`) and float -> integer
    return not (src.kind == "b" or dst.kind == "b" or src.kind in "fc" and dst.kind in "iu")


def _cast_samples(dtype, rng, layout):
    vc = _value_casts(dtype)
    for k, (name, x) in enumerate(operands(dtype, rng, layout)):
        # every value cast on the operands with duplicates, one each on the others
        for vd in vc if not x.plain else (vc[k % len(vc)],):
            # a narrowing or non-float cast rounds away what float64 finite differences
            # measure: forward only (as the dense cast entry)
            lossy = vd is not None and (np.dtype(vd).kind not in "fc" or
                                        np.dtype(vd).itemsize < np.dtype(dtype).itemsize)
            yield SampleInput(x, _INDEX_CASTS[k % len(_INDEX_CASTS)], vd,
                              name=f"{name}, to {vd}", grad_args=() if lossy else None)


def _cast_ref(x, index_dtype=None, value_dtype=None):
    d = x.dtype if value_dtype is None else np.dtype(value_dtype)
    # the cast of the tensor's value: duplicates merge first where the cast would not
    # commute with their sum
    merged = not x.plain and d != x.dtype and not _additive(x.dtype, d)
    return SparseOut(x.layout, x.dense.astype(d), x.pattern,
                     **kept(x, nnz=int(x.pattern.sum()) if merged else None,
                            canonical=_flag(x) or merged,
                            index_dtype=index_dtype or x.index_dtype))


def _cast_errors(rng, layout):
    x = arg((3, 4), "float32", rng, layout)
    yield ErrorInput(SampleInput(x, "float32"), weft.UnsupportedDtypeError,
                     "cast: index_dtype must be one of")
    yield ErrorInput(SampleInput(arg((200, 3), "float32", rng, layout), "int8"), ValueError,
                     "cast: index_dtype int8 .* is too narrow")
    yield from not_sparse("cast")(rng)


def _isnan_samples(dtype, rng, layout):
    for name, x in operands(dtype, rng, layout, nans=2):
        yield SampleInput(x, name=name)


def _isnan_ref(x):
    isnan = np.isnan(x.dense) if x.dtype.kind in "fc" else np.zeros(x.shape, dtype=bool)
    return SparseOut(x.layout, isnan, x.pattern, **kept(x, canonical=_flag(x)))


def _coalesce_samples(dtype, rng, layout):
    for name, x in operands(dtype, rng, layout):
        yield SampleInput(x, name=name)
    # out of order without duplicates, and duplicates in order
    yield SampleInput(arg((5, 4), dtype, rng, layout, shuffle=True), name="unsorted")
    yield SampleInput(arg((3, 4, 2), dtype, rng, "coo", sparse_dim=2, duplicates=True)
                      if layout == "coo" else arg((2, 3, 4), dtype, rng, layout,
                                                  duplicates=True),
                      name="duplicates in order")


def _coalesce_ref(x):
    return SparseOut(x.layout, x.dense, x.pattern,
                     **kept(x, nnz=int(x.pattern.sum()), canonical=True))


OPS += [
    OpInfo("sparse.cast", S.cast, _cast_ref, _cast_samples, dtypes=ALL, method="cast",
           layout=SPARSE, ref_sparse="arg", error_inputs=_cast_errors),
    OpInfo("sparse.isnan", S.isnan, _isnan_ref, _isnan_samples, dtypes=ALL, supports_grad=False,
           layout=SPARSE, ref_sparse="arg", error_inputs=not_sparse("isnan")),
    OpInfo("sparse.coalesce", S.coalesce, _coalesce_ref, _coalesce_samples, dtypes=ALL,
           method="coalesce", layout=SPARSE, ref_sparse="arg",
           error_inputs=not_sparse("coalesce", exc=weft.SparseLayoutError,
                                   match="coalesce: x must be a SparseCooTensor")),
]


# ---------------------------------------------------------------------------------
# transpose


def _transpose_samples(dtype, rng, layout):
    def a(shape, **kw):
        return arg(shape, dtype, rng, layout, **kw)

    if layout == "coo":
        cases = [("2-D", a((4, 5)), [1, 0]), ("3-D", a((2, 3, 4)), [2, 0, 1]),
                 ("1-D", a((6,)), [0]), ("negative perm", a((3, 4)), [-1, -2]),
                 ("hybrid, sparse axes", a((3, 4, 2), sparse_dim=2), [1, 0, 2]),
                 ("hybrid, dense axes", a((3, 2, 4), sparse_dim=1), [0, 2, 1]),
                 ("duplicates, unsorted, int32",
                  a((4, 5), duplicates=True, shuffle=True, index_dtype="int32"), [1, 0])]
    else:
        cases = [("2-D, an empty row", a((5, 4), clear=(1,)), [1, 0]),
                 ("3-D [0, 2, 1]", a((2, 3, 4)), [0, 2, 1]),
                 ("3-D [2, 1, 0]", a((2, 3, 4)), [2, 1, 0]),
                 ("3-D [1, 0, 2]", a((2, 3, 4), clear=(0, 1)), [1, 0, 2]),
                 ("identity", a((3, 4)), [0, 1]),
                 ("duplicates, unsorted, int32",
                  a((4, 5), duplicates=True, shuffle=True, index_dtype="int32"), [1, 0])]
    cases += [("explicit zeros", a((4, 4), zeros=2), [1, 0]), ("nnz=0", a((3, 4), density=0),
                                                             [1, 0]),
              ("zero-size", a((0, 3)), [1, 0])]
    for name, x, perm in cases:
        yield SampleInput(x, perm, name=name)


def _transpose_ref(x, perm):
    nd = len(x.shape)
    perm = [p % nd for p in perm]
    sd = x.sparse_dim
    pattern = x.pattern.transpose(perm[:sd])
    out = x.dense.transpose(perm)
    if x.layout == "csr":
        return SparseOut("csr", out, pattern, index_dtype=x.index_dtype, canonical=True,
                         nnz=x.nnz if perm == list(range(nd)) else int(pattern.sum()))
    # COO: the index rows are permuted, entries keep their order; only a permutation
    # that leaves the sparse axes in place keeps the coalesced flag
    return SparseOut("coo", out, pattern, **kept(x, canonical=_flag(x) and
                                                 perm[:sd] == list(range(sd))))


def _transpose_errors(rng, layout):
    if layout == "coo":
        h = arg((3, 4, 2), "float32", rng, "coo", sparse_dim=2)
        yield ErrorInput(SampleInput(h, [0, 2, 1]), ValueError,
                         "sparse axes may only be permuted among themselves")
    yield ErrorInput(SampleInput(arg((3, 4), "float32", rng, layout), [0, 0]), ValueError,
                     r"transpose: perm \[0, 0\] is not a permutation")
    yield from not_sparse("transpose", [1, 0])(rng)


OPS.append(OpInfo("sparse.transpose", S.transpose, _transpose_ref, _transpose_samples,
                  dtypes=ALL, layout=SPARSE, ref_sparse="arg",
                  error_inputs=_transpose_errors))


# ---------------------------------------------------------------------------------
# sum


def _sum_dtype_kw(dtype):
    return "complex128" if np.dtype(dtype).kind == "c" else "float64"


def _sum_samples(dtype, rng, layout):
    def a(shape, **kw):
        return arg(shape, dtype, rng, layout, **kw)

    dkw = _sum_dtype_kw(dtype)
    if layout == "coo":
        cases = [("2-D all", a((3, 4)), {}), ("2-D all keepdim", a((3, 4)), dict(keepdim=True)),
                 ("axis=1", a((3, 4)), dict(axis=1)), ("axis=[]", a((3, 4)), dict(axis=[])),
                 ("axis=-1 keepdim", a((3, 4)), dict(axis=-1, keepdim=True)),
                 ("3-D axis=[0, 2]", a((2, 3, 4)), dict(axis=[0, 2])),
                 ("3-D axis=(1,) keepdim", a((2, 3, 4)), dict(axis=(1,), keepdim=True)),
                 ("hybrid, the sparse axis", a((4, 3, 2), sparse_dim=1), dict(axis=0)),
                 ("hybrid, a dense axis", a((3, 4, 2), sparse_dim=2), dict(axis=2)),
                 ("hybrid, both keepdim", a((3, 4, 2), sparse_dim=2),
                  dict(axis=[1, 2], keepdim=True)),
                 ("1-D", a((6,)), dict(axis=0)),
                 ("duplicates, unsorted, int32",
                  a((4, 5), duplicates=True, shuffle=True, index_dtype="int32"), dict(axis=0))]
    else:
        cases = [("2-D all", a((4, 5)), {}), ("2-D all keepdim", a((4, 5)), dict(keepdim=True)),
                 ("axis=-1, an empty row", a((4, 5), clear=(1,)), dict(axis=-1)),
                 ("axis=1", a((4, 5)), dict(axis=1)), ("axis=0", a((4, 5)), dict(axis=0)),
                 ("axis=-2", a((4, 5), clear=(slice(None), 2)), dict(axis=-2)),
                 ("3-D axis=-1", a((2, 3, 4), clear=(1, 0)), dict(axis=-1)),
                 ("3-D axis=0", a((2, 3, 4)), dict(axis=0)),
                 ("3-D axis=[1, 2]", a((2, 3, 4)), dict(axis=[1, 2])),
                 ("3-D all", a((2, 3, 4)), {}),
                 ("duplicates, unsorted, int32",
                  a((4, 5), duplicates=True, shuffle=True, index_dtype="int32"), dict(axis=-1))]
    cases += [("explicit zeros", a((4, 4), zeros=2), dict(axis=0)),
              ("nnz=0 all", a((3, 4), density=0), {}),
              ("nnz=0 axis=-1", a((3, 4), density=0), dict(axis=-1)),
              ("zero-size", a((0, 3)), dict(axis=1)),
              (f"dtype={dkw}", a((3, 4)), dict(axis=1, dtype=dkw))]
    for name, x, kw in cases:
        yield SampleInput(x, name=name, **kw)
    # a cast that does not commute with summing duplicates must see their sums
    kind = np.dtype(dtype).kind
    if kind != "c":
        cast = "int64" if kind == "f" else "bool"
        x = a((4, 5), duplicates=True, shuffle=True)
        for kw in ({}, dict(axis=0), dict(axis=-1, keepdim=True)):
            yield SampleInput(x, dtype=cast, name=f"duplicates, dtype={cast} {kw}", grad_args=(),
                              **kw)


def _sum_ref(x, axis=None, dtype=None, keepdim=False):
    nd, sd = len(x.shape), x.sparse_dim
    axes = tuple(range(nd)) if axis is None or axis == [] else \
        tuple(sorted({a % nd for a in np.atleast_1d(axis).tolist()}))
    d = np.dtype(dtype) if dtype is not None else \
        np.dtype("int64") if x.dtype in (np.bool_, np.int32, np.int64) else x.dtype
    # numpy casts each element (a position's value) to dtype, then sums in it
    total = np.sum(x.dense, axis=axes, dtype=d, keepdims=True)
    # an output coordinate is stored when it receives at least one stored entry
    hit = full_mask(x).any(axis=axes, keepdims=True)
    if x.layout == "csr":
        # a CSR result keeps its rank (reduced axes of size 1), all axes: [1, 1]
        if axis is None and not keepdim:
            return SparseOut("csr", total.reshape(1, 1), np.ones((1, 1), bool), canonical=True,
                             index_dtype=x.index_dtype)
        return SparseOut("csr", total, hit, canonical=True, index_dtype=x.index_dtype)
    if len(axes) == nd:
        # one stored entry holding the total, even when x has none
        shape = [1] * nd if keepdim else [1]
        out_sd = sd if keepdim else 1
        return SparseOut("coo", total.reshape(shape), np.ones(shape[:out_sd], bool),
                         sparse_dim=out_sd, canonical=True, nnz=1)
    if not keepdim:
        total, hit = total.squeeze(axes), hit.squeeze(axes)
    left = sum(1 for a in range(sd) if a not in axes)
    # sparse axes remain: as many as were not reduced; else the first remaining
    # (dense) axis becomes the sparse one
    out_sd = sd if keepdim else max(left, 1)
    pattern = hit.any(axis=tuple(range(out_sd, hit.ndim)))
    reduced_sparse = any(a < sd for a in axes)
    return SparseOut("coo", total, pattern, sparse_dim=out_sd, index_dtype=x.index_dtype,
                     canonical=True if reduced_sparse else _flag(x))


def _sum_errors(rng, layout):
    x = arg((3, 4), "float32", rng, layout)
    yield ErrorInput(SampleInput(x, keepdim="yes"), TypeError, "sum: keepdim must be a bool")
    yield ErrorInput(SampleInput(x, axis=2), ValueError, "sum")
    yield from not_sparse("sum")(rng)


OPS.append(OpInfo("sparse.sum", S.sum, _sum_ref, _sum_samples, dtypes=ALL, layout=SPARSE,
                  ref_sparse="arg", error_inputs=_sum_errors))


# ---------------------------------------------------------------------------------
# reshape, slice


def _reshape_samples(dtype, rng, layout):
    def a(shape, **kw):
        return arg(shape, dtype, rng, layout, **kw)

    if layout == "coo":
        cases = [("2-D to 2-D", a((3, 4)), [2, 6]), ("to 1-D", a((3, 4)), [-1]),
                 ("1-D to 3-D", a((12,)), [2, -1, 3]), ("0 copies an axis", a((2, 3, 4)), [0, 12]),
                 ("0 and -1", a((2, 3, 4)), [4, 0, -1]),
                 ("hybrid", a((2, 2, 2), sparse_dim=2), [4, 2]),
                 ("hybrid, a new axis", a((2, 2, 2), sparse_dim=2, density=0.7), [4, 1, 2]),
                 ("hybrid, -1 sparse", a((2, 3, 2), sparse_dim=2), [-1, 2])]
    else:
        cases = [("2-D to 3-D", a((4, 6), clear=(1,)), [2, 4, 3]),
                 ("3-D to 2-D", a((2, 3, 4)), [6, 4]), ("3-D to 3-D", a((2, 3, 4)), [3, 2, 4]),
                 ("same shape", a((3, 4)), [3, 4]), ("0 and -1", a((2, 3, 4)), [0, -1, 2])]
    cases += [("duplicates, unsorted, int32",
               a((4, 5), duplicates=True, shuffle=True, index_dtype="int32"), [5, 4]),
              ("explicit zeros", a((4, 4), zeros=2), [2, 8]),
              ("nnz=0", a((3, 4), density=0), [6, 2]), ("zero-size", a((0, 3)), [3, -1])]
    for name, x, shape in cases:
        yield SampleInput(x, shape, name=name)


def _reshape_ref(x, shape):
    new = [x.shape[i] if s == 0 else s for i, s in enumerate(shape)]
    out = x.dense.reshape(new)
    if x.layout == "csr":
        pattern = x.pattern.reshape(out.shape)
        return SparseOut("csr", out, pattern, canonical=True, nnz=int(pattern.sum()),
                         index_dtype=x.index_dtype)
    # only the sparse part moves: entries keep their row-major order
    out_sd = out.ndim - (len(x.shape) - x.sparse_dim)
    return SparseOut("coo", out, x.pattern.reshape(out.shape[:out_sd]),
                     **kept(x, sparse_dim=out_sd, canonical=_flag(x)))


def _reshape_errors(rng, layout):
    x = arg((3, 4), "float32", rng, layout)
    yield ErrorInput(SampleInput(x, [5, 2]), ValueError, r"reshape: shape \[5, 2\] has 10 "
                     "elements but x of shape")
    if layout == "coo":
        h = arg((2, 2, 2), "float32", rng, "coo", sparse_dim=2)
        yield ErrorInput(SampleInput(h, [2, 4]), ValueError, "dense dimensions")
    else:
        yield ErrorInput(SampleInput(x, [12]), ValueError,
                         "a CSR tensor can only be reshaped to 2-D or 3-D")
    yield from not_sparse("reshape", [9])(rng)


def _slice_samples(dtype, rng, layout):
    def a(shape, **kw):
        return arg(shape, dtype, rng, layout, **kw)

    if layout == "coo":
        cases = [("clamped end", a((5, 6)), [0], [1], [100]),
                 ("negative", a((5, 6)), [0, 1], [-3, 1], [-1, 4]),
                 ("3-D", a((2, 3, 4)), [2, 0], [1, 1], [3, 2]),
                 ("1-D", a((8,)), [0], [2], [6]),
                 ("hybrid, a dense axis", a((4, 3, 2), sparse_dim=1), [1], [1], [3]),
                 ("hybrid, both", a((4, 3, 2), sparse_dim=1), [0, 2], [1, 1], [4, 2])]
    else:
        cases = [("columns", a((5, 6), clear=(2,)), [1], [2], [5]),
                 ("rows and columns", a((5, 6)), [0, 1], [1, -4], [-1, 100]),
                 ("3-D batches and columns", a((3, 3, 4)), [0, 2], [1, 1], [3, 3]),
                 ("3-D rows", a((2, 4, 3), clear=(0, 2)), [1], [1], [3])]
    cases += [("duplicates, unsorted, int32",
               a((5, 4), duplicates=True, shuffle=True, index_dtype="int32"), [0, 1], [1, 0],
               [4, 3]),
              ("tensor arguments", a((4, 5)), np.array([1]), np.array([1]), np.array([4])),
              ("empty window", a((4, 5)), [0], [2], [2]),
              ("explicit zeros", a((4, 4), zeros=2), [1], [1], [3]),
              ("nnz=0", a((3, 4), density=0), [0], [1], [3]),
              ("zero-size", a((0, 3)), [1], [1], [2])]
    for name, x, axes, starts, ends in cases:
        yield SampleInput(x, axes, starts, ends, name=name)


def _slice_ref(x, axes, starts, ends):
    win = [slice(None)] * len(x.shape)
    for ax, s, e in zip(*(np.atleast_1d(v).tolist() for v in (axes, starts, ends))):
        win[ax] = slice(s, e)  # Python slicing: negative from the end, clamped
    out = x.dense[tuple(win)]
    sd = x.sparse_dim
    pattern = x.pattern[tuple(win[:sd])]
    if x.layout == "csr":
        return SparseOut("csr", out, pattern, canonical=True, nnz=int(pattern.sum()),
                         index_dtype=x.index_dtype)
    idx = x.entries[0]
    inside = np.ones(idx.shape[1], dtype=bool)
    for d in range(sd):
        lo, hi, _ = win[d].indices(x.shape[d])
        inside &= (idx[d] >= lo) & (idx[d] < hi)
    # the kept entries, duplicates included, in their order
    return SparseOut("coo", out, pattern, **kept(x, nnz=int(inside.sum()), canonical=_flag(x)))


def _slice_errors(rng, layout):
    x = arg((3, 4), "float32", rng, layout)
    yield ErrorInput(SampleInput(x, [0, 1], [0], [2, 2]), ValueError, "slice")
    yield from not_sparse("slice", [0], [0], [1])(rng)


OPS += [
    OpInfo("sparse.reshape", S.reshape, _reshape_ref, _reshape_samples, dtypes=ALL,
           layout=SPARSE, ref_sparse="arg", error_inputs=_reshape_errors),
    OpInfo("sparse.slice", S.slice, _slice_ref, _slice_samples, dtypes=ALL, layout=SPARSE,
           ref_sparse="arg", error_inputs=_slice_errors),
]


# ---------------------------------------------------------------------------------
# is_same_shape, mask_as


def _same_shape_samples(dtype, rng, layout):
    other = "csr" if layout == "coo" else "coo"
    x = arg((3, 4), dtype, rng, layout)
    yield SampleInput(x, make_arg((3, 4), dtype, rng), name="dense, same shape")
    yield SampleInput(x, make_arg((4, 3), dtype, rng), name="dense, transposed shape")
    yield SampleInput(x, arg((3, 4), dtype, rng, other), name=f"{other}, same shape")
    yield SampleInput(x, arg((3, 5), dtype, rng, layout), name=f"{layout}, other shape")
    yield SampleInput(arg((2, 3, 4), dtype, rng, layout), arg((2, 3, 4), dtype, rng, other),
                      name="3-D")


def _same_shape_ref(x, y):
    return np.bool_(tuple(x.shape) == tuple(y.shape))


def _same_shape_errors(rng, layout):
    yield ErrorInput(SampleInput(arg((3, 4), "float32", rng, layout), [1.0]), TypeError,
                     "is_same_shape: y must be a Tensor")


def _mask_as_samples(dtype, rng, layout):
    for name, m in operands(dtype, rng, layout):
        # the mask's values are ignored and it is not differentiated
        yield SampleInput(make_arg(m.shape, dtype, rng), m, name=name, grad_args=(0,))


def _mask_as_ref(x, mask):
    # the mask's exact entries (duplicates too), each holding x read at its position
    idx = mask.entries[0]
    out = np.zeros(x.shape, dtype=x.dtype)
    np.add.at(out, tuple(idx), x[tuple(idx)])
    return SparseOut(mask.layout, out, mask.pattern, **kept(mask, canonical=_flag(mask)))


def _mask_as_errors(rng, layout):
    m = arg((3, 4), "float32", rng, layout)
    yield ErrorInput(SampleInput(make_arg((4, 3), "float32", rng), m), ValueError,
                     r"mask_as: x has shape \[4, 3\] but mask has shape \[3, 4\]")
    yield ErrorInput(SampleInput(m, m), TypeError, "mask_as: x must be a dense Tensor")
    yield ErrorInput(SampleInput(make_arg((3, 4), "float32", rng),
                                 make_arg((3, 4), "float32", rng)), TypeError,
                     "mask_as: mask must be a sparse tensor")


OPS += [
    OpInfo("sparse.is_same_shape", S.is_same_shape, _same_shape_ref, _same_shape_samples,
           dtypes=(np.dtype("float32"),), supports_grad=False, method="is_same_shape",
           layout=SPARSE, ref_sparse="arg", error_inputs=_same_shape_errors),
    OpInfo("sparse.mask_as", S.mask_as, _mask_as_ref, _mask_as_samples, dtypes=ALL,
           layout=SPARSE, ref_sparse="arg", error_inputs=_mask_as_errors),
]


# ---------------------------------------------------------------------------------
# pca_lowrank


def _pca(x, q=None, center=True, niter=2):
    """pca_lowrank through outputs that do not depend on the singular vectors' signs:
    S, the reconstruction U diag(S) Vᵀ and the projector U Uᵀ. The generator is reset
    on every call, so finite differences see one smooth function of x."""
    weft.seed(3)
    u, s, v = S.pca_lowrank(x, q=q, center=center, niter=niter)
    return s, (u * s.reshape([1, -1])) @ v.t(), u @ u.t()


def _pca_samples(dtype, rng, layout):
    # q reaches the rank of the (centred) matrix, so the randomized range finder is
    # exact and the result is the truncated SVD
    # (small: the second derivatives run through QR and SVD backward, op by op)
    yield SampleInput(arg((4, 3), dtype, rng, layout, density=0.8), q=3, niter=1,
                      name="q = M, centred")
    yield SampleInput(arg((3, 5), dtype, rng, layout, density=0.8), center=False, niter=1,
                      name="default q = N")
    low = arg((6, 5), dtype, rng, layout, density=0.7, clear=(slice(None), slice(2, None)))
    yield SampleInput(low, q=2, center=False, name="rank 2, q = 2")
    yield SampleInput(arg((5, 3), dtype, rng, layout, density=0.7, duplicates=True,
                          shuffle=True, index_dtype="int32"), q=3, niter=0,
                      name="duplicates, unsorted, int32")


def _pca_ref(x, q=None, center=True, niter=2):
    d = x.dense.astype(np.float64)
    if center:
        d = d - d.mean(axis=0)
    q = min(6, *d.shape) if q is None else q
    u, s, vt = np.linalg.svd(d, full_matrices=False)
    u, s, vt = u[:, :q], s[:q], vt[:q]
    return tuple(a.astype(x.dtype) for a in (s, (u * s) @ vt, u @ u.T))


def _pca_errors(rng, layout):
    x = arg((5, 4), "float64", rng, layout)
    yield ErrorInput(SampleInput(make_arg((3, 3), "float64", rng)), ValueError,
                     "pca_lowrank: Input must be sparse")
    yield ErrorInput(SampleInput(x, q=5), ValueError, r"q must be at most min\(N, M\) = 4")
    yield ErrorInput(SampleInput(arg((5, 4), "complex128", rng, layout)),
                     weft.UnsupportedDtypeError, "pca_lowrank: x has dtype complex128")
    yield ErrorInput(SampleInput(arg((2, 3, 4), "float64", rng, layout)), ValueError,
                     "pca_lowrank: x must be 2-D")


OPS.append(OpInfo("sparse.pca_lowrank", _pca, _pca_ref, _pca_samples, dtypes=FLOATS,
                  layout=SPARSE, ref_sparse="arg", error_inputs=_pca_errors))
