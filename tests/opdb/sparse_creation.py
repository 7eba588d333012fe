"""OpInfo entries for the weft.sparse constructors (api-sparse.md §1.1:
sparse_coo_tensor, sparse_csr_tensor) and the layout conversions of §2 (to_dense,
to_sparse_coo, to_sparse_csr), with the creation invariants of §1 as error inputs.

The constructors take dense arrays (the components of a tests.opinfo.SparseArg);
their entries' layout is the one they build. The conversions take dense, COO and
CSR inputs alike; a dense source's gradient is checked only where perturbing it
cannot change the result's pattern (no all-zero slice to become stored).
"""
import numpy as np

from tests.opdb.sparse import SPARSE, arg, full_mask, operands
from tests.opinfo import ALL, ErrorInput, OpInfo, SampleInput, SparseOut, make_arg
from weft import sparse as S

# ---------------------------------------------------------------------------------
# §1.1 constructors: the inputs are dense arrays; the entry's layout is what they build


def _coo_samples(dtype, rng, layout):
    def parts(shape, **kw):
        x = arg(shape, dtype, rng, "coo", **kw)
        idx, v = x.entries
        return idx.astype(x.index_dtype), v, list(shape)

    i, v, s = parts((4, 5))
    yield SampleInput(i, v, s, name="2-D")
    yield SampleInput(i, v, name="shape inferred")
    i, v, s = parts((4, 5), duplicates=True, shuffle=True, index_dtype="int32")
    yield SampleInput(i, v, s, name="duplicates, unsorted, int32")
    i, v, s = parts((3, 2, 2), sparse_dim=1, density=0.7)
    yield SampleInput(i, v, s, name="hybrid")
    yield SampleInput(i, v, name="hybrid, shape inferred")
    i, v, s = parts((2, 3, 4), zeros=1)
    yield SampleInput(i, v, s, name="3-D, an explicit zero")
    i, v, s = parts((7,))
    yield SampleInput(i, v, s, name="1-D")
    i, v, s = parts((3, 4), density=0.0)
    yield SampleInput(i, v, s, name="nnz=0")
    i, v, s = parts((3, 4))
    yield SampleInput(i, v, s, dtype="complex128" if np.dtype(dtype).kind == "c" else "float64",
                      name="dtype cast")


def _coo_ref(indices, values, shape=None, dtype=None):
    sd = indices.shape[0]
    idx = indices.astype(np.int64)
    if shape is None:
        shape = [int(r.max()) + 1 if r.size else 0 for r in idx] + list(values.shape[1:])
    v = values if dtype is None else values.astype(dtype)
    out = np.zeros(shape, dtype=v.dtype)
    np.add.at(out, tuple(idx), v)  # duplicates summed
    pattern = np.zeros(shape[:sd], dtype=bool)
    pattern[tuple(idx)] = True
    # the entries as given: never flagged coalesced, the index dtype kept
    return SparseOut("coo", out, pattern, sparse_dim=sd, canonical=False,
                     index_dtype=indices.dtype, nnz=indices.shape[1])


def _coo_errors(rng, layout):
    v = make_arg((2,), "float32", rng)
    yield ErrorInput(SampleInput(np.array([0, 1]), v, [2, 2]), ValueError,
                     "sparse_coo_tensor: 'indices' must be 2-D")
    yield ErrorInput(SampleInput(np.array([[0, -1], [1, 0]]), v, [2, 2]), ValueError,
                     r"indices\[0\]\[1\] = -1 is negative")
    yield ErrorInput(SampleInput(np.array([[0, 3], [1, 0]]), v, [2, 2]), ValueError,
                     r"the minimum shape required is \[4, 2\]")
    yield ErrorInput(SampleInput(np.array([[0], [1]]), np.array(1.0, "float32"), [2, 2]),
                     ValueError, "values must have at least 1 dimension")
    yield ErrorInput(SampleInput(np.array([[0, 1, 1], [1, 0, 1]]), v, [2, 2]), ValueError,
                     r"leading dimension of values \(2\)")
    yield ErrorInput(SampleInput(np.array([[0.0, 1.0]]), v, [2]), TypeError,
                     "indices must have an integer dtype")
    yield ErrorInput(SampleInput(np.array([[0]]), make_arg((1, 2), "float32", rng), [3, 3]),
                     ValueError, r"the dense part of shape \[3\] must equal")
    yield ErrorInput(SampleInput(np.array([[0]]), v[:1], [3, 3]), ValueError,
                     r"shape \[3, 3\] has 2 dimensions but indices has 1 sparse")
    yield ErrorInput(SampleInput(np.array([[0]]), v[:1], [-3]), ValueError,
                     r"shape\[0\] = -3 is negative")


def _csr_samples(dtype, rng, layout):
    def parts(shape, **kw):
        x = arg(shape, dtype, rng, "csr", **kw)
        crows, cols, v = x.csr_components()
        return crows.astype(x.index_dtype), cols.astype(x.index_dtype), v, list(shape)

    c, k, v, s = parts((4, 5), clear=(1,))
    yield SampleInput(c, k, v, s, name="2-D, an empty row")
    c, k, v, s = parts((4, 5), clear=(slice(None), 4))
    yield SampleInput(c, k, v, name="shape inferred")
    yield SampleInput(*parts((2, 3, 4), clear=(1, 2)), name="3-D batched")
    yield SampleInput(*parts((3, 2, 3), clear=(1,)), name="3-D, an empty batch")
    yield SampleInput(*parts((4, 5), duplicates=True, shuffle=True, index_dtype="int32"),
                      name="duplicates, unsorted columns, int32")
    yield SampleInput(*parts((4, 4), zeros=2), name="explicit zeros")
    yield SampleInput(*parts((3, 4), density=0.0), name="nnz=0")
    yield SampleInput(*parts((3, 4)), dtype="complex128" if np.dtype(dtype).kind == "c"
                      else "float64", name="dtype cast")


def _csr_ref(crows, cols, values, shape=None, dtype=None):
    if shape is None:
        shape = [len(crows) - 1, int(cols.max()) + 1]
    *lead, m, _ = shape
    b = lead[0] if lead else 1
    counts = np.diff(crows.astype(np.int64).reshape(b, m + 1), axis=1).reshape(-1)
    flat = np.repeat(np.arange(b * m), counts)
    idx = tuple(([flat // m, flat % m] if lead else [flat]) + [cols.astype(np.int64)])
    v = values if dtype is None else values.astype(dtype)
    out = np.zeros(shape, dtype=v.dtype)
    np.add.at(out, idx, v)
    pattern = np.zeros(shape, dtype=bool)
    pattern[idx] = True
    return SparseOut("csr", out, pattern, index_dtype=crows.dtype, nnz=len(cols))


def _csr_errors(rng, layout):
    v = make_arg((2,), "float32", rng)
    yield ErrorInput(SampleInput(np.array([0, 1, 2]), np.array([0, 1]), v, [3, 2]), ValueError,
                     r"The length\(3\) of crows must be equal to the rows\(3\)\+1")
    yield ErrorInput(SampleInput(np.array([0, 1, 1]), np.array([0, 1]), v, [2, 2]), ValueError,
                     "the last value of crows must be equal the number of non-zero")
    yield ErrorInput(SampleInput(np.array([0, 1, 2]), np.array([0, 1], np.int32), v, [2, 2]),
                     ValueError, "must have the same")
    yield ErrorInput(SampleInput(np.array([0, 1, 2]), np.array([0, 2]), v, [2, 2]), ValueError,
                     r"cols\[1\] = 2 is out of range")
    yield ErrorInput(SampleInput(np.array([0, 2, 1, 2]), np.array([0, 1]), v, [3, 2]),
                     ValueError, "crows must be non-decreasing")
    yield ErrorInput(SampleInput(np.array([1, 1, 2]), np.array([0, 1]), v, [2, 2]), ValueError,
                     r"crows\[0\] = 1, expected 0")
    yield ErrorInput(SampleInput(np.array([0, 1, 1, 2]), np.array([0, 0]), v, [2, 1, 2]),
                     ValueError, r"crows\[2\] = 1, expected 0")
    yield ErrorInput(SampleInput(np.array([0, 1, 1]), np.array([0]), v, [2, 2]), ValueError,
                     "values has 2 entries but cols has 1")
    yield ErrorInput(SampleInput(np.array([0, 1]), np.array([-1]), v[:1], [1, 2]), ValueError,
                     r"cols\[0\] = -1")
    yield ErrorInput(SampleInput(np.array([0, 1]), np.array([0]), v[:1], [2]), ValueError,
                     "shape must have 2 or 3 dimensions")


OPS = [
    OpInfo("sparse.sparse_coo_tensor", S.sparse_coo_tensor, _coo_ref, _coo_samples,
           dtypes=ALL, layout=("coo",), error_inputs=_coo_errors),
    OpInfo("sparse.sparse_csr_tensor", S.sparse_csr_tensor, _csr_ref, _csr_samples,
           dtypes=ALL, layout=("csr",), error_inputs=_csr_errors),
]


# ---------------------------------------------------------------------------------
# §2 layout conversions (weft.sparse functions and Tensor methods)


def _dense_source(shape, dtype, rng, zeros):
    """A dense array; with ``zeros``, about half its positions (whole trailing slices
    for the hybrid cases) are 0."""
    a = make_arg(shape, dtype, rng, exclude_zero=True)
    if zeros:
        lead = rng.random(shape[:zeros]) < 0.5
        a = a * lead.reshape(lead.shape + (1,) * (len(shape) - zeros))
    return np.asarray(a, dtype=dtype)


def _to_dense_samples(dtype, rng, layout):
    if layout == "dense":  # a dense tensor converts to itself
        yield SampleInput(make_arg((3, 4), dtype, rng), name="dense")
        return
    for name, x in operands(dtype, rng, layout):
        yield SampleInput(x, name=name)


def _to_dense_ref(x):
    return x.dense if hasattr(x, "dense") else x


def _to_coo_samples(dtype, rng, layout):
    if layout == "dense":
        for shape, sd in (((4, 5), 2), ((3, 4, 2), 1), ((2, 3, 4), 2), ((6,), 1)):
            a = _dense_source(shape, dtype, rng, sd)
            # perturbing a zero of an all-zero slice would store it: forward only
            yield SampleInput(a, sd, name=f"{list(shape)} sparse_dim={sd}", grad_args=())
            yield SampleInput(_dense_source(shape, dtype, rng, 0), sd,
                              name=f"{list(shape)} sparse_dim={sd}, no zeros")
        yield SampleInput(np.zeros((3, 4), dtype), 2, name="all zero", grad_args=())
        return
    for name, x in operands(dtype, rng, layout):
        nd, sd = len(x.shape), x.sparse_dim
        # the same sparse_dim, and (weft+) one axis more or fewer where there is one
        for k in sorted({sd, min(sd + 1, nd), max(sd - 1, 1)}):
            yield SampleInput(x, k, name=f"{name}, sparse_dim={k}")
        if layout == "csr":  # CSR -> COO: sparse_dim defaults to ndim
            yield SampleInput(x, name=f"{name}, default sparse_dim")


def _to_coo_ref(x, sparse_dim=None):
    if sparse_dim is None:
        sparse_dim = len(x.shape)
    if isinstance(x, np.ndarray):
        pattern = np.any(x != 0, axis=tuple(range(sparse_dim, x.ndim)))
        return SparseOut("coo", x, pattern, sparse_dim=sparse_dim, canonical=True,
                         index_dtype="int64", nnz=int(pattern.sum()))
    mask = full_mask(x)
    pattern = mask.any(axis=tuple(range(sparse_dim, len(x.shape))))
    sd = x.sparse_dim
    if sparse_dim >= sd:
        # every position of each stored slice becomes an entry, duplicates and order kept
        nnz = x.nnz * int(np.prod(x.shape[sd:sparse_dim], dtype=np.int64))
        return SparseOut("coo", x.dense, pattern, sparse_dim=sparse_dim,
                         canonical=x.plain, index_dtype=x.index_dtype, nnz=nnz)
    # fewer sparse axes: the entries of one slice merge
    return SparseOut("coo", x.dense, pattern, sparse_dim=sparse_dim, canonical=True,
                     index_dtype=x.index_dtype, nnz=int(pattern.sum()))


def _to_coo_errors(rng, layout):
    x = make_arg((3, 4), "float32", rng) if layout == "dense" else arg((3, 4), "float32", rng,
                                                                        layout)
    if layout != "csr":
        yield ErrorInput(SampleInput(x), TypeError, "to_sparse_coo: missing required argument")
    yield ErrorInput(SampleInput(x, 0), ValueError, r"sparse_dim must be in \[1, 2\]")
    yield ErrorInput(SampleInput(x, 3), ValueError, r"sparse_dim must be in \[1, 2\]")


def _to_csr_samples(dtype, rng, layout):
    if layout == "dense":
        for shape in ((4, 5), (2, 3, 4)):
            yield SampleInput(_dense_source(shape, dtype, rng, len(shape)), name=f"{list(shape)}",
                              grad_args=())
            yield SampleInput(_dense_source(shape, dtype, rng, 0), name=f"{list(shape)}, no zeros")
        yield SampleInput(np.zeros((3, 4), dtype), name="all zero", grad_args=())
        return
    for name, x in operands(dtype, rng, layout):
        if x.sparse_dim == len(x.shape) and len(x.shape) in (2, 3):
            yield SampleInput(x, name=name)


def _to_csr_ref(x):
    if isinstance(x, np.ndarray):
        return SparseOut("csr", x, x != 0, canonical=True, index_dtype="int64",
                         nnz=int(np.count_nonzero(x)))
    if x.layout == "csr":  # itself
        return SparseOut("csr", x.dense, x.pattern, index_dtype=x.index_dtype, nnz=x.nnz,
                         canonical=x.plain or None)
    return SparseOut("csr", x.dense, x.pattern, index_dtype=x.index_dtype, canonical=True,
                     nnz=int(x.pattern.sum()))


def _to_csr_errors(rng, layout):
    if layout == "dense":
        yield ErrorInput(SampleInput(make_arg((4,), "float32", rng)), ValueError,
                         "to_sparse_csr: only support 2-D or 3-D")
    elif layout == "coo":
        yield ErrorInput(SampleInput(arg((3, 4), "float32", rng, "coo", sparse_dim=1)),
                         ValueError, "to_sparse_csr: a COO tensor with dense dimensions")
        yield ErrorInput(SampleInput(arg((4,), "float32", rng, "coo")), ValueError,
                         "to_sparse_csr: only support 2-D or 3-D")
    yield ErrorInput(SampleInput([[1.0]]), TypeError, "to_sparse_csr: x must be a Tensor")


CONVERSIONS = ("dense",) + SPARSE
OPS += [
    OpInfo("sparse.to_dense", S.to_dense, _to_dense_ref, _to_dense_samples, dtypes=ALL,
           method="to_dense", layout=CONVERSIONS, ref_sparse="arg"),
    OpInfo("sparse.to_sparse_coo", S.to_sparse_coo, _to_coo_ref, _to_coo_samples, dtypes=ALL,
           method="to_sparse_coo", layout=CONVERSIONS, ref_sparse="arg",
           error_inputs=_to_coo_errors),
    OpInfo("sparse.to_sparse_csr", S.to_sparse_csr, _to_csr_ref, _to_csr_samples, dtypes=ALL,
           method="to_sparse_csr", layout=CONVERSIONS, ref_sparse="arg",
           error_inputs=_to_csr_errors),
]
