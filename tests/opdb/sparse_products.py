"""OpInfo entries for the weft.sparse products (api-sparse.md §3.3: matmul,
masked_matmul, mv, addmm) and element-wise binary ops (§3.4: add, subtract,
multiply, divide), on COO and CSR operands built by tests.opinfo.SparseArg (see
tests/opdb/sparse.py for the operand cases).

References: numpy on the dense values (scipy.sparse for the 2-D sparse @ dense
products, whose own duplicate handling is an independent check of weft's), with
the result patterns the spec defines: the structural product pattern for sparse @
sparse, the mask's exact entries for masked_matmul, the union of the operands'
patterns for add/subtract/multiply, and every coordinate for divide.
"""
import numpy as np

import weft
from tests.opdb.sparse import ELEMENTWISE, SPARSE, arg, full_mask, kept, not_sparse, val
from tests.opinfo import (FLOAT_AND_COMPLEX, ErrorInput, OpInfo, SampleInput, SparseArg,
                          SparseOut, make_arg)
from weft import sparse as S


def _other(layout):
    return "csr" if layout == "coo" else "coo"


def _structural(x, y):
    """Where a product of the stored patterns has at least one term (explicit zeros
    count: the result holds structurally nonzero products, not numerically nonzero)."""
    return np.matmul(x.pattern.astype(np.int64), y.pattern.astype(np.int64)) > 0


# ---------------------------------------------------------------------------------
# matmul


def _matmul_samples(dtype, rng, layout):
    def s(shape, **kw):
        return arg(shape, dtype, rng, layout, low=-2.0, high=2.0, **kw)

    def d(shape):
        return make_arg(shape, dtype, rng, -2.0, 2.0)

    # the first sample has a sparse x: the method check calls x.matmul(y)
    yield SampleInput(s((4, 5), clear=(1,)), d((5, 3)), name=f"{layout} @ dense")
    yield SampleInput(s((4, 5)), s((5, 3)), name=f"{layout} @ {layout}")
    yield SampleInput(d((3, 4)), s((4, 5)), name=f"dense @ {layout}")
    yield SampleInput(s((2, 3, 4)), d((2, 4, 2)), name="batched, sparse @ dense")
    yield SampleInput(s((2, 3, 4), clear=(1,)), s((2, 4, 3)), name="batched, sparse @ sparse")
    yield SampleInput(d((2, 2, 3)), s((2, 3, 4)), name="batched, dense @ sparse")
    yield SampleInput(s((4, 5), duplicates=True, shuffle=True, index_dtype="int32"),
                      s((5, 3), duplicates=True, shuffle=True, index_dtype="int32"),
                      name="duplicates, unsorted, int32")
    yield SampleInput(s((4, 5), duplicates=True, shuffle=True, index_dtype="int32"), d((5, 2)),
                      name="duplicates, int32 @ dense")
    # stored zeros: their products are structural entries of the result (value 0)
    yield SampleInput(s((4, 4), zeros=3, density=0.6), s((4, 3), zeros=2, density=0.6),
                      name="explicit zeros")
    yield SampleInput(s((3, 4), density=0.0), s((4, 2)), name="nnz=0")
    yield SampleInput(s((0, 4)), d((4, 3)), name="zero rows")
    yield SampleInput(s((3, 0)), s((0, 2)), name="empty contraction")


def _matmul_ref(x, y):
    if isinstance(x, SparseArg) and isinstance(y, SparseArg):
        # canonical, only structural products; int32 indices stay int32
        idt = x.index_dtype if x.index_dtype == y.index_dtype else None
        return SparseOut(x.layout, np.matmul(x.dense, y.dense), _structural(x, y),
                         canonical=True, index_dtype=idt)
    if isinstance(x, SparseArg) and x.dense.ndim == 2:
        return np.asarray(x.scipy() @ y)  # scipy sums duplicates itself
    return np.matmul(val(x), val(y))


def _matmul_errors(rng, layout):
    f = "float32"

    def s(shape, dtype=f, lay=layout, **kw):
        return arg(shape, dtype, rng, lay, **kw)

    yield ErrorInput(SampleInput(s((3, 4)), s((4, 2), lay=_other(layout))), NotImplementedError,
                     "matmul: mixed layouts")
    yield ErrorInput(SampleInput(s((3, 4)), make_arg((3, 2), f, rng)), ValueError,
                     "matmul: inner sizes do not match")
    yield ErrorInput(SampleInput(s((2, 3, 4)), make_arg((3, 4, 2), f, rng)), ValueError,
                     "matmul: batch sizes must be equal")
    yield ErrorInput(SampleInput(s((2, 3, 4)), make_arg((4, 2), f, rng)), ValueError,
                     "matmul: x and y must have the same rank")
    yield ErrorInput(SampleInput(s((3, 4)), make_arg((4,), f, rng)), ValueError,
                     "matmul: .* must be 2-D or 3-D")
    yield ErrorInput(SampleInput(s((3, 4), "int64"), make_arg((4, 2), "int64", rng)),
                     weft.UnsupportedDtypeError, "matmul: x has dtype int64")
    yield ErrorInput(SampleInput(s((3, 4)), make_arg((4, 2), "float64", rng)), TypeError,
                     "matmul: x and y must have the same dtype")
    if layout == "coo":
        yield ErrorInput(SampleInput(s((3, 4), sparse_dim=1), make_arg((4, 2), f, rng)),
                         ValueError, "matmul: x is a COO tensor with dense dimensions")


# ---------------------------------------------------------------------------------
# masked_matmul, mv, addmm


def _masked_samples(dtype, rng, layout):
    def d(shape):
        return make_arg(shape, dtype, rng, -2.0, 2.0)

    def m(shape, **kw):
        return arg(shape, dtype, rng, layout, **kw)

    # the mask is neither read nor differentiated: only x and y are checked
    cases = [("2-D", d((4, 3)), d((3, 5)), m((4, 5), clear=(1,))),
             ("batched", d((2, 3, 4)), d((2, 4, 3)), m((2, 3, 3))),
             ("mask with explicit zeros", d((3, 2)), d((2, 4)), m((3, 4), zeros=2)),
             ("mask unsorted, duplicates, int32", d((4, 3)), d((3, 5)),
              m((4, 5), duplicates=True, shuffle=True, index_dtype="int32")),
             ("empty mask", d((3, 2)), d((2, 4)), m((3, 4), density=0.0)),
             ("empty contraction", d((3, 0)), d((0, 4)), m((3, 4))),
             ("zero rows", d((0, 2)), d((2, 4)), m((0, 4)))]
    for name, x, y, mask in cases:
        yield SampleInput(x, y, mask, name=name, grad_args=(0, 1))


def _masked_ref(x, y, mask):
    # the mask's exact entries (duplicates too), each holding the product there
    prod = np.matmul(x, y)
    idx = mask.entries[0]
    out = np.zeros(prod.shape, dtype=prod.dtype)
    np.add.at(out, tuple(idx), prod[tuple(idx)])
    return SparseOut(mask.layout, out, mask.pattern, **kept(mask, canonical=mask.plain))


def _masked_errors(rng, layout):
    f = "float32"
    x, y = make_arg((3, 2), f, rng), make_arg((2, 4), f, rng)
    yield ErrorInput(SampleInput(x, y, arg((4, 3), f, rng, layout)), ValueError,
                     r"masked_matmul: mask must have shape \[3, 4\]")
    yield ErrorInput(SampleInput(x, y, make_arg((3, 4), f, rng)), TypeError,
                     "masked_matmul: mask must be a SparseCooTensor or SparseCsrTensor")
    yield ErrorInput(SampleInput(x, make_arg((3, 4), f, rng), arg((3, 4), f, rng, layout)),
                     ValueError, "masked_matmul: inner sizes do not match")
    yield ErrorInput(SampleInput(arg((3, 2), f, rng, layout), y, arg((3, 4), f, rng, layout)),
                     TypeError, "masked_matmul: x must be a dense Tensor")
    if layout == "coo":
        yield ErrorInput(SampleInput(x, y, arg((3, 4, 2), f, rng, "coo", sparse_dim=2)),
                         ValueError, r"masked_matmul: mask must have shape|dense dimensions")


def _mv_samples(dtype, rng, layout):
    def v(n):
        return make_arg((n,), dtype, rng, -2.0, 2.0)

    def s(shape, **kw):
        return arg(shape, dtype, rng, layout, low=-2.0, high=2.0, **kw)

    yield SampleInput(s((5, 4), clear=(2,)), v(4), name="an empty row")
    yield SampleInput(s((4, 6), duplicates=True, shuffle=True, index_dtype="int32"), v(6),
                      name="duplicates, unsorted, int32")
    yield SampleInput(s((4, 4), zeros=2), v(4), name="explicit zeros")
    yield SampleInput(s((3, 5), noncontig=True), v(5), name="noncontig")
    yield SampleInput(s((3, 4), density=0.0), v(4), name="nnz=0")
    yield SampleInput(s((0, 3)), v(3), name="zero rows")
    yield SampleInput(s((3, 0)), v(0), name="zero columns")


def _mv_ref(x, vec):
    return np.asarray(x @ vec)  # x: the scipy array of the stored entries


def _mv_errors(rng, layout):
    f = "float32"
    x = arg((3, 4), f, rng, layout)
    yield ErrorInput(SampleInput(x, make_arg((3,), f, rng)), ValueError,
                     r"mv: vec must be 1-D of length 4")
    yield ErrorInput(SampleInput(x, make_arg((4, 1), f, rng)), ValueError, "mv: vec must be 1-D")
    yield ErrorInput(SampleInput(arg((2, 3, 4), f, rng, layout), make_arg((4,), f, rng)),
                     ValueError, "mv: x must be 2-D")
    yield ErrorInput(SampleInput(x, arg((4,), f, rng, "coo")), TypeError,
                     "mv: vec must be a dense Tensor")
    yield ErrorInput(SampleInput(arg((3, 4), "int64", rng, layout), make_arg((4,), "int64", rng)),
                     weft.UnsupportedDtypeError, "mv")
    yield from not_sparse("mv", make_arg((3,), f, rng), exc=TypeError)(rng)


def _addmm_samples(dtype, rng, layout):
    def s(shape, **kw):
        return arg(shape, dtype, rng, layout, low=-2.0, high=2.0, **kw)

    def d(shape):
        return make_arg(shape, dtype, rng, -2.0, 2.0)

    yield SampleInput(d((4, 3)), s((4, 5), clear=(1,)), d((5, 3)), beta=0.5, alpha=2.0,
                      name=f"dense + {layout} @ dense")
    yield SampleInput(d((4, 3)), s((4, 5)), d((5, 3)), name="default beta and alpha")
    yield SampleInput(s((4, 3), density=0.3), s((4, 5)), s((5, 3)), beta=-1.5, alpha=0.5,
                      name=f"{layout} + {layout} @ {layout}")
    yield SampleInput(d((2, 3, 2)), s((2, 3, 4)), d((2, 4, 2)), beta=2.0, name="batched, dense")
    yield SampleInput(s((2, 3, 3)), s((2, 3, 4), clear=(0,)), s((2, 4, 3)), alpha=-1.0,
                      name="batched, sparse")
    yield SampleInput(s((4, 3), duplicates=True, shuffle=True), s((4, 5), duplicates=True),
                      s((5, 3), shuffle=True), name="duplicates, unsorted")
    yield SampleInput(s((3, 3), density=0.0), s((3, 4), density=0.0), s((4, 3)),
                      name="nnz=0 everywhere but y")


def _addmm_ref(input, x, y, beta=1.0, alpha=1.0):
    out = beta * val(input) + alpha * np.matmul(x.dense, val(y))
    if isinstance(input, SparseArg):
        # the union of input's pattern and the product's structural one
        pattern = input.pattern | _structural(x, y)
        return SparseOut(input.layout, out, pattern, canonical=True)
    return out


def _addmm_errors(rng, layout):
    f = "float32"
    x = arg((3, 4), f, rng, layout)
    yield ErrorInput(SampleInput(make_arg((3, 3), f, rng), x, make_arg((4, 2), f, rng)),
                     ValueError, r"addmm: input must have shape \[3, 2\]")
    yield ErrorInput(SampleInput(arg((3, 2), f, rng, layout), x, make_arg((4, 2), f, rng)),
                     NotImplementedError, "addmm: a sparse input with a sparse @ dense")
    yield ErrorInput(SampleInput(make_arg((3, 2), f, rng), x, arg((4, 2), f, rng, layout)),
                     NotImplementedError, "addmm: a dense input with a sparse @ sparse")
    other = {"coo": "SparseCooTensor", "csr": "SparseCsrTensor"}
    yield ErrorInput(SampleInput(arg((3, 2), f, rng, _other(layout)), x,
                                 arg((4, 2), f, rng, layout)), NotImplementedError,
                     f"addmm: input is a {other[_other(layout)]} but x is a {other[layout]}")
    yield ErrorInput(SampleInput(make_arg((3, 2), f, rng), make_arg((3, 4), f, rng),
                                 make_arg((4, 2), f, rng)), TypeError,
                     "addmm: x must be a sparse tensor")


OPS = [
    OpInfo("sparse.matmul", S.matmul, _matmul_ref, _matmul_samples, dtypes=FLOAT_AND_COMPLEX,
           method="matmul", layout=SPARSE, ref_sparse="arg", error_inputs=_matmul_errors),
    OpInfo("sparse.masked_matmul", S.masked_matmul, _masked_ref, _masked_samples,
           dtypes=FLOAT_AND_COMPLEX, layout=SPARSE, ref_sparse="arg",
           error_inputs=_masked_errors),
    OpInfo("sparse.mv", S.mv, _mv_ref, _mv_samples, dtypes=FLOAT_AND_COMPLEX, method="mv",
           layout=SPARSE, ref_sparse="scipy", error_inputs=_mv_errors),
    OpInfo("sparse.addmm", S.addmm, _addmm_ref, _addmm_samples, dtypes=FLOAT_AND_COMPLEX,
           layout=SPARSE, ref_sparse="arg", error_inputs=_addmm_errors),
]


# ---------------------------------------------------------------------------------
# add, subtract, multiply, divide


def _pairs(dtype, rng, layout, y_full=False):
    """``(name, x, y)``: operands of one layout, shape and sparse_dim with their own
    patterns. ``y_full``: y stores every coordinate (nonzero), so x / y stays finite."""
    def a(shape, **kw):
        return arg(shape, dtype, rng, layout, **kw)

    def b(shape, **kw):
        return a(shape, **{**kw, "density": 1.0}) if y_full else a(shape, **kw)

    if layout == "coo":
        cases = [("2-D", (5, 4), {}), ("1-D", (6,), {}), ("3-D", (2, 3, 4), {}),
                 ("hybrid sparse_dim=1", (4, 3, 2), dict(sparse_dim=1)),
                 ("hybrid sparse_dim=2", (3, 4, 2), dict(sparse_dim=2))]
    else:
        cases = [("2-D, an empty row", (5, 4), dict(clear=(1,))),
                 ("3-D batched", (2, 3, 4), dict(clear=(0, 2))),
                 ("3-D, an empty batch", (3, 2, 3), dict(clear=(2,)))]
    for name, shape, kw in cases:
        yield name, a(shape, **kw), b(shape, **{k: v for k, v in kw.items() if k != "clear"})
    dup = dict(duplicates=True, shuffle=True, index_dtype="int32")
    yield "duplicates, unsorted, int32", a((4, 5), **dup), b((4, 5), **dup)
    yield "explicit zeros", a((4, 4), zeros=2), b((4, 4), zeros=0 if y_full else 2)
    if not y_full:
        x = a((4, 5))
        yield "same pattern", x, SparseArg(make_arg(x.shape, dtype, rng, exclude_zero=True),
                                           layout, pattern=x.pattern)
    yield "x empty", a((3, 4), density=0.0), b((3, 4))
    yield "zero-size", a((0, 3)), b((0, 3))


def _union_samples(scalar=False, bias=False):
    def gen(dtype, rng, layout):
        for name, x, y in _pairs(dtype, rng, layout):
            yield SampleInput(x, y, name=name)
        if scalar:
            # a Python number scales the stored values, the pattern kept
            c = 3 if np.dtype(dtype).kind in "iu" else -2.5
            yield SampleInput(arg((4, 5), dtype, rng, layout), c, name="scalar")
            yield SampleInput(arg((4, 5), dtype, rng, layout, duplicates=True, shuffle=True), c,
                              name="scalar, duplicates")
        if bias and layout == "coo":
            # a dense y over the dense dims: added to every stored row
            for shape, sd, ys in (((4, 3), 1, (3,)), ((4, 3, 2), 1, (3, 2)),
                                  ((3, 4, 2), 2, (1,)), ((4, 3), 1, (1,))):
                yield SampleInput(arg(shape, dtype, rng, "coo", sparse_dim=sd, duplicates=True),
                                  make_arg(ys, dtype, rng), name=f"dense bias {list(ys)}")
    return gen


def _union_ref(f):
    def ref(x, y):
        if isinstance(y, SparseArg):
            # the union of both patterns, zeros stored where the result is 0
            pattern = x.pattern | y.pattern
            idt = x.index_dtype if x.index_dtype == y.index_dtype else None
            return SparseOut(x.layout, f(x.dense, y.dense), pattern, sparse_dim=x.sparse_dim,
                             canonical=True, nnz=int(pattern.sum()), index_dtype=idt)
        if isinstance(y, np.ndarray):  # bias: each stored coordinate once (coalesced)
            return SparseOut("coo", np.where(full_mask(x), f(x.dense, y), 0).astype(x.dtype),
                             x.pattern, **kept(x, nnz=int(x.pattern.sum()), canonical=True))
        return SparseOut(x.layout, f(x.dense, y), x.pattern, **kept(x, canonical=x.plain))
    return ref


def _divide_samples(dtype, rng, layout):
    ints = np.dtype(dtype).kind in "iu"
    # y full: x / y is finite, gradients are checked
    for name, x, y in _pairs(dtype, rng, layout, y_full=True):
        yield SampleInput(x, y, name=f"{name}, y full")
    # y with implicit zeros: NaN (0/0) and ±inf (x/0) where y stores nothing
    for name, x, y in _pairs(dtype, rng, layout):
        yield SampleInput(x, y, name=name, grad_args=())
    yield SampleInput(arg((4, 5), dtype, rng, layout), 3 if ints else -2.5, name="scalar")


def _divide_ref(x, y):
    fd = weft.get_default_dtype()
    xd = x.dense.astype(fd) if x.dtype.kind in "iu" else x.dense
    if not isinstance(y, SparseArg):
        return SparseOut(x.layout, xd / y, x.pattern, **kept(x, canonical=x.plain))
    yd = y.dense.astype(fd) if y.dtype.kind in "iu" else y.dense
    # every coordinate of the sparse axes is stored
    pattern = np.ones_like(x.pattern)
    return SparseOut(x.layout, xd / yd, pattern, sparse_dim=x.sparse_dim, canonical=True,
                     nnz=pattern.size)


def _binary_errors(name):
    def gen(rng, layout):
        f = "float32"

        def s(shape, dtype=f, lay=layout, **kw):
            return arg(shape, dtype, rng, lay, **kw)

        x = s((3, 4))
        yield ErrorInput(SampleInput(x, s((4, 3))), ValueError,
                         rf"{name}: x has shape \[3, 4\] but y has shape \[4, 3\]")
        yield ErrorInput(SampleInput(x, s((3, 4), lay=_other(layout))), NotImplementedError,
                         f"{name}: x is a")
        yield ErrorInput(SampleInput(x, s((3, 4), "float64")), weft.UnsupportedDtypeError,
                         f"{name}: x has dtype float32 but y has dtype float64")
        yield ErrorInput(SampleInput(s((3, 4), "bool"), s((3, 4), "bool")),
                         weft.UnsupportedDtypeError, f"{name}: x has dtype bool")
        yield ErrorInput(SampleInput(make_arg((3, 4), f, rng), x), NotImplementedError,
                         f"{name}: x must be a sparse tensor")
        if name in ("add", "subtract"):
            yield ErrorInput(SampleInput(x, 2.0), ValueError,
                             f"{name}: argument 'y' must be Tensor")
        if name == "subtract" or layout == "csr":
            yield ErrorInput(SampleInput(x, make_arg((3, 4), f, rng)), NotImplementedError,
                             f"{name}: sparse x with a dense Tensor y is not supported")
        if name == "add" and layout == "coo":
            h = s((4, 3), sparse_dim=1)
            yield ErrorInput(SampleInput(h, make_arg((4,), f, rng)), ValueError,
                             "add: a dense y added to a COO tensor must broadcast to its dense")
            yield ErrorInput(SampleInput(x, s((3, 4), sparse_dim=1)), ValueError,
                             "add: x has sparse_dim 2 but y has sparse_dim 1")
    return gen


_BINARY = (("add", np.add, _union_samples(bias=True), "__add__"),
           ("subtract", np.subtract, _union_samples(), "__sub__"),
           ("multiply", np.multiply, _union_samples(scalar=True), "__mul__"))

OPS += [OpInfo(f"sparse.{name}", getattr(S, name), _union_ref(f), samples, dtypes=ELEMENTWISE,
               method=method, layout=SPARSE, ref_sparse="arg", error_inputs=_binary_errors(name))
        for name, f, samples, method in _BINARY]
OPS.append(OpInfo("sparse.divide", S.divide, _divide_ref, _divide_samples, dtypes=ELEMENTWISE,
                  method="__truediv__", layout=SPARSE, ref_sparse="arg",
                  error_inputs=_binary_errors("divide")))
