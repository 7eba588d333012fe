"""Structured fuzzing of every native entry point (issue 16, "keep it from coming back").

Each kernel of ``weft._C`` is called with hypothesis-generated arguments: arrays of
every dtype kind, ranks off by one, empty and tiny shapes, non-contiguous, transposed
and misaligned layouts, index values that are negative, at the int32/int64 limits or
chosen so that sums and products wrap, and size arguments from 0 to 2**63 - 1. The
contract under test is the bindings' own: a kernel either returns or raises
ValueError / TypeError / IndexError (OverflowError when pybind11 cannot convert a
Python int, MemoryError when a legitimately huge result cannot be allocated) -- never
a crash, a hang or another exception. Memory is capped while the test runs so a
kernel that sizes an allocation from a wrapped product fails here instead of paging.

Derandomized and bounded (the "ci" profile in tests/conftest.py); a longer,
coverage-guided run over the same argument builders is
``python tools/fuzz_native.py`` (atheris, optional), see its docstring.
``set_num_threads`` is left out: it changes process-wide state other tests rely on.
"""
from __future__ import annotations

import contextlib
import resource
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from weft._native import extension as _C
from weft.core.backend import resolve as _resolve
from weft.linalg import backends as _lb

_resolve("linalg", "cpu")   # registers the LAPACK routines of provider 0

ALLOWED = (ValueError, TypeError, IndexError, OverflowError, MemoryError)

INT_EDGES = [0, 1, 2, 3, -1, -2, 2 ** 31 - 1, -2 ** 31, 2 ** 32, 2 ** 62, 2 ** 63 - 1, -2 ** 63]
SIZE_EDGES = [0, 1, 2, 3, 4, -1, 2 ** 31, 2 ** 62, 2 ** 63 - 1, -2 ** 63]
INDEX_DTYPES = ["int64", "int32"]
ODD_DTYPES = ["uint8", "int16", "float16", "bool", "float32", "uint64", "complex64"]
VALUE_DTYPES = ["float64", "float32"]
ODD_VALUE_DTYPES = ["int32", "int64", "complex128", "complex64", "float16", "bool", "uint8"]


@contextlib.contextmanager
def memory_cap(extra=1 << 30):
    """Address-space limit of the current usage + ``extra`` (restored after)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as f:
        vm = int(f.read().split()[0]) * resource.getpagesize()
    cap = vm + extra
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


# ---------------------------------------------------------------------------------
# argument builders (shared with tools/fuzz_native.py)

def _layout(a, how):
    """``a`` (C-contiguous) re-laid out: as is, strided, transposed or misaligned."""
    if how == "strided":
        big = np.zeros((a.shape[0] * 2,) + a.shape[1:], a.dtype) if a.ndim else a.copy()
        if a.ndim:
            big[::2] = a
            return big[::2]
        return big
    if how == "transposed" and a.ndim >= 2:
        return np.ascontiguousarray(a.T).T  # same values, Fortran order
    if how == "misaligned" and a.itemsize > 1:
        raw = np.zeros(a.nbytes + 1, np.uint8)
        m = raw[1:].view(a.dtype).reshape(a.shape)
        m[...] = a
        return m
    if how == "readonly":
        a = a.copy()
        a.flags.writeable = False
    return a


def _array(draw, dtypes, odd, ndim, elements, max_len=5):
    dtype = draw(st.sampled_from(dtypes) if draw(st.integers(0, 9)) else st.sampled_from(odd))
    nd = ndim if draw(st.integers(0, 9)) else draw(st.sampled_from([max(ndim - 1, 0), ndim + 1]))
    shape = tuple(draw(st.lists(st.integers(0, max_len), min_size=nd, max_size=nd)))
    n = int(np.prod(shape)) if shape else 1
    vals = draw(st.lists(elements, min_size=n, max_size=n))
    with np.errstate(all="ignore"):
        if np.dtype(dtype).kind in "iub":
            info = np.iinfo(dtype) if np.dtype(dtype).kind != "b" else None
            raw = [int(v) if np.isfinite(v) else 2 ** 63 - 1 for v in vals]
            if info is not None:  # wrap into the dtype's range, as a C cast would
                span = int(info.max) - int(info.min) + 1
                raw = [(v - int(info.min)) % span + int(info.min) for v in raw]
            a = np.array(raw, dtype=dtype).reshape(shape)
        else:
            a = np.array([float(v) for v in vals], dtype=dtype).reshape(shape)
    how = draw(st.sampled_from(["c"] * 6 + ["strided", "transposed", "misaligned", "readonly"]))
    return _layout(np.ascontiguousarray(a), how)


_small_or_edge = st.one_of(st.integers(-1, 6), st.sampled_from(INT_EDGES))
_floats = st.one_of(st.floats(-3, 3, allow_nan=False), st.sampled_from([0.0, np.nan, np.inf, -np.inf, 1e300]))


def index(draw, ndim=1):
    return _array(draw, INDEX_DTYPES, ODD_DTYPES, ndim, _small_or_edge)


def crows(draw):
    """Mostly monotone row pointers (so kernels get past the first check), sometimes not."""
    if draw(st.integers(0, 2)):
        steps = draw(st.lists(st.one_of(st.integers(0, 3), st.sampled_from([2 ** 31, 2 ** 62])),
                              min_size=0, max_size=5))
        ptr = np.concatenate([[0], np.cumsum(np.array(steps, dtype=np.uint64)).view(np.int64)])
        dt = draw(st.sampled_from(INDEX_DTYPES))
        return _layout(ptr.astype(dt), draw(st.sampled_from(["c"] * 8 + ["strided", "misaligned"])))
    return index(draw)


def _primitive(draw):
    from weft.ops.math import ufuncs
    return draw(st.sampled_from([ufuncs._add, ufuncs._mul, ufuncs._div, ufuncs._tanh]))


def values(draw, ndim=1):
    return _array(draw, VALUE_DTYPES, ODD_VALUE_DTYPES, ndim, _floats)


def size(draw):
    return draw(st.one_of(st.integers(0, 5), st.sampled_from(SIZE_EDGES)))


def shape(draw, n=None):
    k = n if n is not None and draw(st.integers(0, 9)) else draw(st.integers(0, 4))
    return [size(draw) for _ in range(k)]


def maybe(draw, build):
    return build(draw) if draw(st.booleans()) else None


def word(draw, choices):
    return draw(st.sampled_from(list(choices) + ["", "bogus"]))


REDUCES, MESSAGES = ["sum", "mean", "max", "min"], ["add", "sub", "mul", "div"]

# ---------------------------------------------------------------------------------
# coherent arguments: a valid call, then 0-3 mutations of its arguments, so calls get
# past the first check and the deeper ones (ranges, monotone pointers, sums) are hit


def _ints(draw, n, lo, hi, dt):
    """``n`` integers in [lo, hi) (zeros when the range is empty: left to the kernel)."""
    if n == 0 or hi <= lo:
        return np.zeros(n, dt)
    return np.array(draw(st.lists(st.integers(lo, hi - 1), min_size=n, max_size=n)), dtype=dt)


def _vals(draw, shape, dt):
    n = int(np.prod(shape))
    v = np.array(draw(st.lists(st.floats(-3, 3, allow_nan=False, width=32), min_size=n, max_size=n)))
    return v.reshape(shape).astype(dt)


def _csr(draw, nrows, ncols, it, sorted_unique=False, max_row=3):
    rows = []
    for _ in range(nrows):
        k = draw(st.integers(0, max_row if ncols else 0))
        c = draw(st.lists(st.integers(0, ncols - 1), min_size=k, max_size=k)) if ncols else []
        rows.append(sorted(set(c)) if sorted_unique else c)
    crows = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(it)
    cols = np.array([c for r in rows for c in r], dtype=it)
    return crows, cols


def _feat(draw):
    r = draw(st.integers(1, 2))
    xs, ys = [], []
    for _ in range(r):
        n = draw(st.integers(0, 3))
        xs.append(draw(st.sampled_from([1, n])))
        ys.append(draw(st.sampled_from([1, n])))
    return xs, ys


def _mutate_array(draw, a):
    how = draw(st.sampled_from(["edge", "edge", "dtype", "layout", "length", "rank"]))
    if how == "edge" and a.size and a.dtype.kind in "iu":
        a = a.copy()
        k = draw(st.integers(0, a.size - 1))
        info = np.iinfo(a.dtype)
        a.reshape(-1)[k] = (draw(st.sampled_from(INT_EDGES)) - int(info.min)) % (int(info.max) - int(info.min) + 1) + int(info.min)
        return a
    if how == "edge" and a.size and a.dtype.kind in "fc":
        a = a.copy()
        a.reshape(-1)[draw(st.integers(0, a.size - 1))] = draw(st.sampled_from([np.nan, np.inf, -np.inf, -1.0, 1e30]))
        return a
    if how == "dtype":
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # complex -> real drops the imaginary part: fine here
            return a.astype(draw(st.sampled_from(INDEX_DTYPES + ODD_DTYPES + ["float64"])))
    if how == "layout":
        return _layout(a, draw(st.sampled_from(["strided", "transposed", "misaligned", "readonly"])))
    if how == "length" and a.ndim:
        return a[:-1] if a.shape[0] and draw(st.booleans()) else np.concatenate([a, a[:1]]) if a.shape[0] else a
    if how == "rank":
        return a.reshape(a.shape + (1,)) if draw(st.booleans()) or a.ndim < 2 else a.reshape(-1)
    return a


def _mutate(draw, args):
    args = list(args)
    for _ in range(draw(st.integers(0, 3))):
        i = draw(st.integers(0, len(args) - 1)) if args else None
        if i is None:
            break
        v = args[i]
        if isinstance(v, np.ndarray):
            args[i] = _mutate_array(draw, v)
        elif isinstance(v, bool) or v is None:
            continue
        elif isinstance(v, int):
            args[i] = draw(st.sampled_from(SIZE_EDGES))
        elif isinstance(v, list) and v and all(isinstance(e, int) for e in v):
            v = list(v)
            v[draw(st.integers(0, len(v) - 1))] = draw(st.sampled_from(SIZE_EDGES))
            args[i] = v
        elif isinstance(v, list) and v and all(isinstance(e, np.ndarray) for e in v):
            v = list(v)
            k = draw(st.integers(0, len(v) - 1))
            v[k] = _mutate_array(draw, v[k])
            args[i] = v
        elif isinstance(v, str) and draw(st.booleans()):
            args[i] = "bogus"
    return tuple(args)


def _it(draw):
    return draw(st.sampled_from(INDEX_DTYPES))


def _vt(draw, complex_ok=True):
    return draw(st.sampled_from(["float64", "float32"] + (["complex128"] if complex_ok else [])))


def b_index_add(d):
    n, m, w, it = d(st.integers(0, 4)), d(st.integers(0, 5)), d(st.integers(0, 3)), _it(d)
    vt = _vt(d)
    return (np.zeros((n, w), vt), _ints(d, m, 0, n, it) if n else np.zeros(0, it), _vals(d, (m if n else 0, w), vt))


def b_reindex(d):
    it = _it(d)
    x = np.unique(np.array(d(st.lists(_small_or_edge, min_size=1, max_size=4)), dtype=np.int64)).astype(it)
    T = d(st.integers(1, 2))
    nbrs, counts = [], []
    for _ in range(T):
        c = np.array(d(st.lists(st.integers(0, 3), min_size=len(x), max_size=len(x))), dtype=d(st.sampled_from(INDEX_DTYPES)))
        nb = np.array(d(st.lists(_small_or_edge, min_size=int(c.sum()), max_size=int(c.sum()))), dtype=np.int64)
        nbrs.append(nb.astype(it))
        counts.append(c)
    return (x, nbrs, counts, T > 1)


def b_send_recv(d):
    n, e, f, r, it, vt = d(st.integers(0, 4)), d(st.integers(0, 5)), d(st.integers(0, 3)), d(st.integers(0, 4)), _it(d), _vt(d, False)
    e = e if n and r else 0
    src = _ints(d, e, 0, n, it) if d(st.booleans()) else None
    if src is None:
        n = e
    return (_vals(d, (n, f), vt), src, _ints(d, e, 0, r, it), r, d(st.sampled_from(REDUCES)), "send_u_recv")


def b_send_ue_recv(d):
    xs, ys = _feat(d)
    n, e, r, it, vt = d(st.integers(1, 4)), d(st.integers(0, 5)), d(st.integers(1, 4)), _it(d), _vt(d, False)
    return (_vals(d, (n, int(np.prod(xs))), vt), _vals(d, (e, int(np.prod(ys))), vt), _ints(d, e, 0, n, it),
            _ints(d, e, 0, r, it), r, d(st.sampled_from(MESSAGES)), d(st.sampled_from(REDUCES)), xs, ys, "send_ue_recv")


def b_edge_messages(d):
    xs, ys = _feat(d)
    n, m, e, it, vt = d(st.integers(1, 4)), d(st.integers(1, 4)), d(st.integers(0, 5)), _it(d), _vt(d, False)
    F = int(np.prod([max(a, b) if 0 not in (a, b) else 0 for a, b in zip(xs, ys)]))
    if d(st.booleans()):  # mask form: y per edge, out per dst row
        return (_vals(d, (n, int(np.prod(xs))), vt), _vals(d, (e, int(np.prod(ys))), vt), _ints(d, e, 0, n, it),
                _ints(d, e, 0, m, it), d(st.sampled_from(MESSAGES)), xs, ys, _vals(d, (m, F), vt), "send_ue_recv")
    return (_vals(d, (n, int(np.prod(xs))), vt), _vals(d, (m, int(np.prod(ys))), vt), _ints(d, e, 0, n, it),
            _ints(d, e, 0, m, it), d(st.sampled_from(MESSAGES)), xs, ys, None, "send_uv")


def b_route(d):
    n, r, e, f, it, vt = d(st.integers(1, 4)), d(st.integers(1, 4)), d(st.integers(0, 5)), d(st.integers(0, 3)), _it(d), _vt(d, False)
    by_src = d(st.booleans())
    return (_vals(d, (r if by_src else n, f), vt), _vals(d, (n, f), vt), _vals(d, (r, f), vt), _ints(d, e, 0, n, it),
            _ints(d, e, 0, r, it), by_src, "send_u_recv")


def b_segment(d):
    n, f, it = d(st.integers(0, 5)), d(st.integers(0, 3)), _it(d)
    ids = np.sort(_ints(d, n, 0, 4, it))
    return (_vals(d, (n, f), _vt(d, False)), ids, d(st.sampled_from(REDUCES)), "segment_sum")


def b_sample(d, weighted):
    it = _it(d)
    nn = d(st.integers(1, 4))
    colptr, row = _csr(d, nn, nn, it)
    nodes = _ints(d, d(st.integers(0, 4)), 0, nn, it)
    eids = np.arange(len(row), dtype=it) if d(st.booleans()) else None
    head = (row, colptr) + ((np.abs(_vals(d, (len(row),), _vt(d, False))),) if weighted else ())
    # positions (the streams of a subset of a larger batch): None or one int64 per node
    positions = (np.asarray(d(st.lists(st.integers(0, 2 ** 40), min_size=len(nodes),
                                       max_size=len(nodes))), np.int64)
                 if d(st.booleans()) else None)
    return head + (nodes, d(st.integers(-1, 3)), eids, d(st.integers(0, 2 ** 64 - 1)),
                   "weighted_sample_neighbors" if weighted else "sample_neighbors", positions)


def b_slice(d):
    it = _it(d)
    B, M, N = d(st.integers(0, 3)), d(st.integers(0, 3)), d(st.integers(0, 3))
    crs, cls = [], []
    for _ in range(B):
        c, k = _csr(d, M, N, it)
        crs.append(c)
        cls.append(k)
    crows = np.concatenate(crs).astype(it) if crs else np.zeros(0, it)
    cols = np.concatenate(cls).astype(it) if cls else np.zeros(0, it)
    shp = [B, M, N]
    starts = [d(st.integers(0, s)) for s in shp]
    ends = [d(st.integers(a, s)) for a, s in zip(starts, shp)]
    return (crows, cols, shp, starts, ends)


def b_rowwise(d, nvals, value_types=("float64", "float32")):
    it = _it(d)
    crows, cols = _csr(d, d(st.integers(0, 4)), 4, it)
    vt = d(st.sampled_from(value_types))
    return (crows,) + tuple(_vals(d, (len(cols),), vt) for _ in range(nvals))


def b_csr_merge(d):
    it, m, n = _it(d), d(st.integers(0, 4)), d(st.integers(0, 4))
    cx, kx = _csr(d, m, n, it, sorted_unique=d(st.integers(0, 4)) > 0)
    cy, ky = _csr(d, m, n, it, sorted_unique=True)
    return (cx, kx, cy, ky, n, d(st.booleans()))


def b_merge_sorted(d):
    it = _it(d)
    kx = np.unique(_ints(d, d(st.integers(0, 5)), 0, 8, it)).astype(it)
    ky = np.unique(_ints(d, d(st.integers(0, 5)), 0, 8, it)).astype(it)
    return (kx, ky, d(st.booleans()))


def b_pick(d):
    n, m, w, it, vt = d(st.integers(0, 4)), d(st.integers(0, 4)), d(st.integers(0, 3)), _it(d), _vt(d)
    return (_vals(d, (n, w), vt), _ints(d, m, -1, n, it))


def b_pick_add(d):
    nx, ny, m, w, it, vt = (d(st.integers(0, 4)), d(st.integers(0, 4)), d(st.integers(0, 4)), d(st.integers(0, 3)),
                            _it(d), _vt(d))
    return (_vals(d, (nx, w), vt), _ints(d, m, -1, nx, it), _vals(d, (ny, w), vt), _ints(d, m, -1, ny, it), d(st.booleans()))


def b_spmm(d, kind):
    it, vt, r, c, k = _it(d), _vt(d), d(st.integers(0, 4)), d(st.integers(0, 4)), d(st.integers(0, 3))
    crows, cols = _csr(d, r, c, it)
    v = _vals(d, (len(cols),), vt)
    if kind == "spmm":
        return (crows, cols, v, _vals(d, (c, k), vt))
    if kind == "spmv":
        return (crows, cols, v, _vals(d, (c,), vt))
    return (crows, cols, _vals(d, (r, k), vt), _vals(d, (c, k), vt))


def b_coalesce(d):
    it, vt = _it(d), _vt(d)
    sd = d(st.integers(1, 3))
    to_csr = sd == 2 and d(st.booleans())
    shp = [d(st.integers(0, 4)) for _ in range(sd)]
    nnz = d(st.integers(0, 6)) if all(shp) else 0
    idx = np.stack([_ints(d, nnz, 0, s, it) for s in shp]) if nnz else np.zeros((sd, 0), it)
    return (np.ascontiguousarray(idx.astype(it)), _vals(d, (nnz, d(st.integers(0, 2))), vt), shp, to_csr, d(st.booleans()))


def b_canonical(d):
    it, vt, m, n = _it(d), _vt(d), d(st.integers(0, 4)), d(st.integers(0, 4))
    crows, cols = _csr(d, m, n, it)
    return (crows, cols, _vals(d, (len(cols), d(st.integers(0, 2))), vt), n, d(st.booleans()))


def b_rows(d):
    crows, cols = _csr(d, d(st.integers(0, 4)), 3, _it(d))
    return (crows, len(cols))


def b_spgemm(d):
    it, vt, r, k, n = _it(d), _vt(d), d(st.integers(0, 4)), d(st.integers(0, 4)), d(st.integers(0, 4))
    ac, al = _csr(d, r, k, it)
    bc, bl = _csr(d, k, n, it)
    return (ac, al, _vals(d, (len(al),), vt), bc, bl, _vals(d, (len(bl),), vt), n)


def b_sampled(d):
    it, vt, r, c, n = _it(d), _vt(d), d(st.integers(0, 4)), d(st.integers(0, 4)), d(st.integers(0, 4))
    pc, pl = _csr(d, r, c, it)
    xc, xl = _csr(d, r, n, it)
    yc, yl = _csr(d, c, n, it)
    return (pc, pl, xc, xl, _vals(d, (len(xl),), vt), yc, yl, _vals(d, (len(yl),), vt), n)


# the LAPACK driver (csrc/linalg/lapack.cpp): provider 0 is registered by weft.linalg
# (below); provider 1 (mkl) usually is not, which must raise cleanly too
def _lp(d):
    return d(st.sampled_from(["float64", "float32", "complex128", "complex64"])), d(st.integers(0, 3))


def b_lapack(d, kind):
    vt, B = _lp(d)
    m, n, k = (d(st.integers(0, 4)) for _ in range(3))
    p = d(st.sampled_from([0, 0, 0, 1]))
    sq = _vals(d, (B, n, n), vt)
    rhs = _vals(d, (B, n, k), vt)
    if kind in ("lu", "qr", "svd"):
        a = _vals(d, (B, m, n), vt)
        return (p, a) + {"lu": (), "qr": (d(st.integers(0, 2)),), "svd": (d(st.integers(0, 2)),)}[kind]
    if kind in ("slogdet", "inv", "cholesky"):
        return (p, sq)
    if kind == "solve":
        return (p, sq, rhs, d(st.booleans()))
    if kind == "cholesky_solve":
        return (p, sq, rhs)
    if kind == "cholesky_backward":
        return (p, sq, _vals(d, (B, n, n), vt))
    if kind == "lu_solve":   # valid 1-based pivots (row i swapped with a row at or below it)
        piv = np.array([[d(st.integers(i + 1, n)) for i in range(n)] for _ in range(B)],
                       np.int32).reshape(B, n)
        return (p, sq, piv, rhs, d(st.integers(0, 2)))
    if kind == "triangular_solve":
        return (p, sq, rhs, d(st.booleans()), d(st.integers(0, 2)), d(st.booleans()))
    if kind == "eigh":
        return (p, sq, d(st.booleans()), d(st.booleans()))
    if kind == "eig":
        return (p, sq, d(st.booleans()))
    if kind == "gelsd":
        return (p, _vals(d, (B, m, n), vt), _vals(d, (B, m, k), vt), d(st.sampled_from([-1.0, 0.0, 1e-6, 0.5])))
    kk = d(st.integers(0, n))
    if kind == "householder_product":
        return (p, _vals(d, (B, max(m, n), n), vt), _vals(d, (B, kk), vt))
    left = d(st.booleans())
    c = _vals(d, (B, m, n), vt)
    r = m if left else n
    kk = min(kk, r)
    return (p, _vals(d, (B, r, d(st.integers(kk, kk + 2))), vt), _vals(d, (B, kk), vt), c, left, d(st.booleans()))


def b_lapack_register(d):
    name = d(st.sampled_from(_C.lapack_routines()))
    return (0, name, _lb._capsule(name, _lb.scipy_lapack_pointers()[name]))

def _conv_problem(d):
    """A small valid rulebook problem: (indices, batch, in, kernel, stride, pad, dil, out, subm)."""
    S, it = d(st.integers(1, 3)), _it(d)
    batch = d(st.integers(1, 2))
    sp = [d(st.integers(1, 4)) for _ in range(S)]
    subm = d(st.booleans())
    kern = [d(st.sampled_from([1, 3] if subm else [1, 2, 3])) for _ in range(S)]
    dil = [d(st.integers(1, 2)) for _ in range(S)]
    if subm:
        stride, pad, out = [1] * S, [dl * (k - 1) // 2 for k, dl in zip(kern, dil)], list(sp)
    else:
        stride = [d(st.integers(1, 2)) for _ in range(S)]
        pad = [dl * (k - 1) for k, dl in zip(kern, dil)]
        out = [(n + 2 * p - dl * (k - 1) - 1) // s + 1 for n, p, dl, k, s in zip(sp, pad, dil, kern, stride)]
    n = d(st.integers(0, 5))
    idx = np.stack([_ints(d, n, 0, b, it) for b in [batch] + sp]) if n else np.zeros((S + 1, 0), it)
    return idx, batch, sp, kern, stride, pad, dil, out, subm


def _blas(vt):
    from scipy.linalg import cython_blas  # noqa: PLC0415

    return cython_blas.__pyx_capi__["sgemm" if vt == "float32" else "dgemm"]


def _conv_book(d):
    """A rulebook (offsets, in_rows, out_rows, identity, n_in, n_out) of a valid problem."""
    p = _conv_problem(d)
    idx = np.unique(p[0].astype(np.int64), axis=1).astype(p[0].dtype)
    r = _C.sparse_conv_rulebook(np.ascontiguousarray(idx), *p[1:])
    out_idx, off, pin, pout, ident = r
    return off, pin, pout, ident, idx.shape[1], idx.shape[1] if p[-1] else out_idx.shape[1]


def b_conv_rulebook(d):
    return _conv_problem(d)


def b_conv_gemm(d):
    off, pin, pout, ident, n_in, n_out = _conv_book(d)
    vt, c, m, tr = _vt(d, False), d(st.integers(0, 3)), d(st.integers(0, 3)), d(st.booleans())
    K = len(off) - 1
    x = _vals(d, (n_out if tr else n_in, m if tr else c), vt)
    src, dst, nd = (pout, pin, n_in) if tr else (pin, pout, n_out)
    return (x, _vals(d, (K, c, m), vt), off, src, dst, nd, ident, tr, _blas(vt))


def b_conv_wgrad(d):
    off, pin, pout, ident, n_in, n_out = _conv_book(d)
    vt, c, m = _vt(d, False), d(st.integers(0, 3)), d(st.integers(0, 3))
    return (_vals(d, (n_in, c), vt), _vals(d, (n_out, m), vt), off, pin, pout, ident, _blas(vt))
def b_gamma_shape(d):
    # shapes and points from tiny to huge, with the edges (0, inf, NaN, negatives)
    n = d(st.integers(0, 4))
    pts = st.one_of(st.floats(1e-6, 400.0), st.sampled_from([0.0, -1.0, np.inf, np.nan, 1e-300,
                                                             199.99, 200.0, 1e6]))
    a = np.array(d(st.lists(pts, min_size=n, max_size=n)), dtype=np.float64)
    x = np.array(d(st.lists(pts, min_size=n, max_size=n)), dtype=np.float64)
    return (a, x, d(st.sampled_from([1, 2, 1, 0, 3])), np.empty(n), np.empty(n),
            d(st.sampled_from([1e-16, 1e-9, 0.0, 1.0, np.nan])))


def b_gamma_grad(d):
    a, z, _, _, out, eps = b_gamma_shape(d)
    return (a[:1] if d(st.booleans()) else a, z, out, eps)


def b_beta_shape(d):
    # shapes and points from tiny to huge, with the edges (0, 1, inf, NaN, negatives)
    n = d(st.integers(0, 4))
    shapes = st.one_of(st.floats(1e-6, 1e4), st.sampled_from([0.0, -1.0, np.inf, np.nan, 1e-300,
                                                              9.999, 10.0, 1e7, 1e300]))
    pts = st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.0, 1.0, -0.5, 1.5, np.nan, 1e-300,
                                                          1.0 - 2.0 ** -53]))
    a, b, x = (np.array(d(st.lists(s, min_size=n, max_size=n)), dtype=np.float64)
               for s in (shapes, shapes, pts))
    da, db = d(st.sampled_from([(1, 0), (0, 1), (2, 0), (1, 1), (0, 2), (0, 0), (3, 0), (-1, 2)]))
    return (a, b, x, da, db, np.empty(n), np.empty(n),
            d(st.sampled_from([1e-16, 1e-9, 0.0, 1.0, np.nan])))


BUILDERS = {
    "index_add_": b_index_add,
    "reindex_graph": b_reindex,
    "graph_send_recv": b_send_recv,
    "graph_send_ue_recv": b_send_ue_recv,
    "graph_edge_messages": b_edge_messages,
    "graph_route": b_route,
    "segment_reduce": b_segment,
    "sample_neighbors": lambda d: b_sample(d, False),
    "weighted_sample_neighbors": lambda d: b_sample(d, True),
    "sparse_csr_slice": b_slice,
    "sparse_csr_softmax": lambda d: b_rowwise(d, 1),
    "sparse_csr_softmax_grad": lambda d: b_rowwise(d, 2),
    "sparse_csr_row_sums": lambda d: b_rowwise(d, 1, ("float64", "float32", "complex64", "int32", "int64")),
    "sparse_csr_merge": b_csr_merge,
    "sparse_merge_sorted": b_merge_sorted,
    "sparse_pick": b_pick,
    "sparse_pick_add": b_pick_add,
    "sparse_spmm": lambda d: b_spmm(d, "spmm"),
    "sparse_spmv": lambda d: b_spmm(d, "spmv"),
    "sparse_sddmm": lambda d: b_spmm(d, "sddmm"),
    "sparse_coalesce": b_coalesce,
    "sparse_csr_canonical": b_canonical,
    "sparse_csr_rows": b_rows,
    "sparse_spgemm": b_spgemm,
    "sparse_spgemm_sampled": b_sampled,
    "sparse_conv_rulebook": b_conv_rulebook,
    "sparse_conv_gemm": b_conv_gemm,
    "sparse_conv_wgrad": b_conv_wgrad,
    "gamma_shape_derivs": b_gamma_shape,
    "gamma_sample_grad": b_gamma_grad,
    "beta_shape_derivs": b_beta_shape,
    # a real primitive on malformed arrays (numpy's errors), and an init call whose
    # arguments are not the classes it needs (returns False, changes nothing)
    "autograd_apply": lambda d: (_primitive(d), values(d), values(d)),
    "autograd_apply_init": lambda d: tuple(values(d) for _ in range(8)),
    # graph stages given things that are not graph nodes: TypeError, or False (nothing run)
    "autograd_topo": lambda d: ([values(d)],),
    "autograd_propagate": lambda d: ({}, {}, [values(d)], d(st.booleans())),
    "autograd_operators": lambda d: ([values(d)] * 4, [values(d)] * 4, [d(st.booleans())] * 4),
    "tri_mahalanobis_rows": lambda d: (values(d, 2), values(d, 2)),
    "categorical_scan": lambda d: (values(d, 2), values(d, 2)),
    "get_num_threads": lambda d: (),
    "has_openmp": lambda d: (),
    "build_info": lambda d: (),
    "lapack_register": b_lapack_register,
    "lapack_routines": lambda d: (),
    **{f"lapack_{k}": (lambda k: lambda d: b_lapack(d, k))(k)
       for k in ("lu", "slogdet", "solve", "inv", "cholesky", "cholesky_solve", "triangular_solve",
                 "qr", "householder_product", "ormqr", "eigh", "svd", "eig", "gelsd", "lu_solve",
                 "cholesky_backward")},
}


def arguments(name, draw):
    """Arguments for one call of entry point ``name``: mostly a valid call with a few
    mutations, sometimes fully random arrays (the shallow checks)."""
    if name in RANDOM_ARGS and not draw(st.integers(0, 4)):
        return RANDOM_ARGS[name](draw)[0]
    return _mutate(draw, BUILDERS[name](draw))


# name -> builder(draw) -> (args, kwargs): arguments drawn independently of each other
RANDOM_ARGS = {
    "index_add_": lambda d: ((values(d, 2), index(d), values(d, 2)), {}),
    "reindex_graph": lambda d: ((index(d), [index(d) for _ in range(d(st.integers(0, 2)))],
                                 [index(d) for _ in range(d(st.integers(0, 2)))], d(st.booleans())), {}),
    "graph_send_recv": lambda d: ((values(d, 2), maybe(d, index), index(d),
                                   size(d), word(d, REDUCES), "send_u_recv"), {}),
    "graph_send_ue_recv": lambda d: ((values(d, 2), values(d, 2), index(d), index(d), size(d),
                                      word(d, MESSAGES), word(d, REDUCES), shape(d, 2), shape(d, 2),
                                      "send_ue_recv"), {}),
    "graph_edge_messages": lambda d: ((values(d, 2), values(d, 2), index(d), index(d), word(d, MESSAGES),
                                       shape(d, 2), shape(d, 2), maybe(d, lambda d: values(d, 2)),
                                       "send_uv"), {}),
    "graph_route": lambda d: ((values(d, 2), values(d, 2), values(d, 2), index(d), index(d), d(st.booleans()),
                               "send_u_recv"), {}),
    "segment_reduce": lambda d: ((values(d, 2), index(d), word(d, REDUCES), "segment_sum"), {}),
    "sample_neighbors": lambda d: ((index(d), crows(d), index(d), size(d), maybe(d, index),
                                    d(st.integers(0, 2 ** 64 - 1)), "sample_neighbors",
                                    maybe(d, index)), {}),
    "weighted_sample_neighbors": lambda d: ((index(d), crows(d), values(d), index(d), size(d),
                                             maybe(d, index), d(st.integers(0, 2 ** 64 - 1)),
                                             "weighted_sample_neighbors", maybe(d, index)), {}),
    "sparse_csr_slice": lambda d: ((crows(d), index(d), shape(d, 3), shape(d, 3), shape(d, 3)), {}),
    "sparse_csr_softmax": lambda d: ((crows(d), values(d)), {}),
    "sparse_csr_softmax_grad": lambda d: ((crows(d), values(d), values(d)), {}),
    "sparse_csr_row_sums": lambda d: ((crows(d), values(d)), {}),
    "sparse_csr_merge": lambda d: ((crows(d), index(d), crows(d), index(d), size(d), d(st.booleans())), {}),
    "sparse_merge_sorted": lambda d: ((index(d), index(d), d(st.booleans())), {}),
    "sparse_pick": lambda d: ((values(d, 2), index(d)), {}),
    "sparse_pick_add": lambda d: ((values(d, 2), index(d), values(d, 2), index(d), d(st.booleans())), {}),
    "sparse_spmm": lambda d: ((crows(d), index(d), values(d), values(d, 2)), {}),
    "sparse_spmv": lambda d: ((crows(d), index(d), values(d), values(d)), {}),
    "sparse_sddmm": lambda d: ((crows(d), index(d), values(d, 2), values(d, 2)), {}),
    "sparse_coalesce": lambda d: ((index(d, 2), values(d, 2), shape(d, 2), d(st.booleans()), d(st.booleans())), {}),
    "sparse_csr_canonical": lambda d: ((crows(d), index(d), values(d, 2), size(d), d(st.booleans())), {}),
    "sparse_csr_rows": lambda d: ((crows(d), size(d)), {}),
    "sparse_spgemm": lambda d: ((crows(d), index(d), values(d), crows(d), index(d), values(d), size(d)), {}),
    "sparse_spgemm_sampled": lambda d: ((crows(d), index(d), crows(d), index(d), values(d), crows(d), index(d),
                                         values(d), size(d)), {}),
    "sparse_conv_rulebook": lambda d: ((index(d, 2), size(d), shape(d, 3), shape(d, 3), shape(d, 3), shape(d, 3),
                                        shape(d, 3), shape(d, 3), d(st.booleans())), {}),
    "sparse_conv_gemm": lambda d: ((values(d, 2), values(d, 3), index(d), index(d), index(d), size(d), size(d),
                                    d(st.booleans()), _blas(d(st.sampled_from(VALUE_DTYPES)))), {}),
    "sparse_conv_wgrad": lambda d: ((values(d, 2), values(d, 2), index(d), index(d), index(d), size(d),
                                     _blas(d(st.sampled_from(VALUE_DTYPES)))), {}),
    "gamma_shape_derivs": lambda d: ((values(d), values(d), size(d), values(d), values(d),
                                      d(st.floats(allow_nan=True))), {}),
    "gamma_sample_grad": lambda d: ((values(d), values(d), values(d), d(st.floats(allow_nan=True))), {}),
    "beta_shape_derivs": lambda d: ((values(d), values(d), values(d), size(d), size(d), values(d), values(d),
                                     d(st.floats(allow_nan=True))), {}),
    "get_num_threads": lambda d: ((), {}),
    "has_openmp": lambda d: ((), {}),
    "build_info": lambda d: ((), {}),
}


def call(name, args):
    """Call one entry point; True when it returned, False when it raised an allowed error."""
    try:
        getattr(_C, name)(*args)
        return True
    except ALLOWED:
        return False


def test_every_entry_point_is_fuzzed():
    public = {n for n in dir(_C) if not n.startswith("_") and callable(getattr(_C, n))}
    assert public - set(BUILDERS) == {"set_num_threads"}
    assert set(BUILDERS) <= public and set(RANDOM_ARGS) <= set(BUILDERS)


@pytest.mark.parametrize("name", sorted(BUILDERS))
@settings(max_examples=60)
@given(data=st.data())
def test_entry_point_survives_malformed_input(name, data):
    args = arguments(name, data.draw)
    with memory_cap():
        call(name, args)
