"""weft.sparse.add/subtract/multiply/divide, the sparse operators and prune
(api-sparse.md §2, §3.4, §6): values against dense numpy with and without the native
merge kernels, patterns against the expected union, gradient examples, errors, and the
kernels themselves. The masked gradcheck/gradgradcheck of the four ops is in the op
database (tests/opdb/sparse_products.py)."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import weft
from weft import _C
from weft import sparse as S
from weft.autograd import gradcheck, gradgradcheck
from weft.sparse import binary as B


def _vals(rng, n, dtype, dense=()):
    shape = (n,) + tuple(dense)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-5, 6, shape).astype(dtype)
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def make(rng, fmt, shape, density, dtype="float64", itype=np.int64, dup=False, sd=None,
         stop_gradient=True):
    """A random sparse tensor (entries in random order, duplicates when ``dup``), its
    dense numpy value (duplicates summed) and its set of stored coordinates."""
    sd = len(shape) if sd is None else sd
    sshape, dense = tuple(shape[:sd]), tuple(shape[sd:])
    total = int(np.prod(sshape))
    pos = np.nonzero(rng.random(total) < density)[0]
    if dup and pos.size:
        pos = np.concatenate([pos, pos[:2]])
    pos = rng.permutation(pos)
    v = _vals(rng, pos.size, dtype, dense)
    ref = np.zeros((total,) + dense, dtype=dtype)
    np.add.at(ref, pos, v)
    ref = ref.reshape(tuple(shape))
    coords = set(pos.tolist())
    idx = np.stack(np.unravel_index(pos, sshape)).astype(itype).reshape(len(sshape), -1)
    if fmt == "coo":
        x = S.sparse_coo_tensor(idx, v, list(shape), stop_gradient=stop_gradient)
        return x, ref, coords
    # CSR: rows grouped (stably, so cols stay unsorted within a row), per-batch crows
    order = np.argsort(pos // shape[-1], kind="stable")
    idx, v = idx[:, order], v[order]
    nb = shape[0] if len(shape) == 3 else 1
    m = shape[-2]
    g = (idx[0] * m + idx[1]) if len(shape) == 3 else idx[0]
    counts = np.bincount(g.astype(np.int64), minlength=nb * m).reshape(nb, m)
    crows = np.zeros((nb, m + 1), np.int64)
    crows[:, 1:] = np.cumsum(counts, axis=1)
    x = S.sparse_csr_tensor(crows.reshape(-1).astype(itype), idx[-1].astype(itype), v,
                            list(shape), stop_gradient=stop_gradient)
    return x, ref, coords


def stored(z):
    """The stored coordinates of a result, as row-major positions over its sparse dims."""
    if z.is_sparse_coo():
        sd = z.sparse_dim()
        return np.ravel_multi_index(tuple(z.indices().numpy()), tuple(z.shape[:sd])) \
            if z.nnz() else np.zeros(0, np.int64)
    return np.asarray(B.csr_linear(z))


def _tol(dtype):
    return dict(rtol=1e-5, atol=1e-5) if np.dtype(dtype) in (np.float32, np.complex64) else \
        dict(rtol=1e-12, atol=1e-12)


FMT_SHAPES = [("coo", [5, 4], 2), ("coo", [3, 4, 2], 2), ("coo", [7], 1), ("coo", [3, 2, 3], 3),
              ("csr", [5, 4], 2), ("csr", [2, 3, 4], 3), ("csr", [0, 3], 2), ("coo", [0, 3], 2)]


@settings(derandomize=True, max_examples=60, deadline=None)
@given(case=st.sampled_from(FMT_SHAPES), dx=st.sampled_from([0.0, 0.3, 0.7, 1.0]),
       dy=st.sampled_from([0.0, 0.3, 0.7, 1.0]), dup=st.booleans(),
       itype=st.sampled_from([np.int32, np.int64]),
       dtype=st.sampled_from(["float32", "float64", "complex128", "int64"]),
       op=st.sampled_from(["add", "subtract", "multiply"]), native=st.booleans(),
       seed=st.integers(0, 999))
def test_union_ops_match_dense(case, dx, dy, dup, itype, dtype, op, native, seed):
    fmt, shape, sd = case
    rng = np.random.default_rng(seed)
    x, xd, cx = make(rng, fmt, shape, dx, dtype, itype, dup, sd)
    y, yd, cy = make(rng, fmt, shape, dy, dtype, itype, dup, sd)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(B, "_HAS_NATIVE", native)
        z = getattr(S, op)(x, y)
    ref = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply}[op](xd, yd)
    assert z.dtype == x.dtype and type(z) is type(x) and z.shape == x.shape
    np.testing.assert_allclose(z.to_dense().numpy(), ref, **_tol(dtype))
    # union pattern, stored zeros included, canonical order, no duplicates
    assert stored(z).tolist() == sorted(cx | cy)
    if fmt == "coo":
        assert z.is_coalesced() and z.indices().dtype == np.dtype(itype)
    else:
        assert z.crows().dtype == np.dtype(itype) and z.cols().dtype == np.dtype(itype)


@settings(derandomize=True, max_examples=40, deadline=None)
@given(case=st.sampled_from(FMT_SHAPES), dx=st.sampled_from([0.0, 0.4, 1.0]),
       dy=st.sampled_from([0.0, 0.4, 1.0]), dup=st.booleans(),
       dtype=st.sampled_from(["float32", "float64", "complex128", "int64"]),
       native=st.booleans(), seed=st.integers(0, 999))
def test_divide_full_pattern_matches_dense(case, dx, dy, dup, dtype, native, seed):
    fmt, shape, sd = case
    rng = np.random.default_rng(seed)
    x, xd, _ = make(rng, fmt, shape, dx, dtype, np.int64, dup, sd)
    y, yd, _ = make(rng, fmt, shape, dy, dtype, np.int64, dup, sd)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(B, "_HAS_NATIVE", native)
        z = S.divide(x, y)
    with np.errstate(all="ignore"):
        ref = xd / yd
    if dtype == "int64":
        assert z.dtype == weft.get_default_dtype()
        ref = ref.astype(z.dtype)
    np.testing.assert_allclose(z.to_dense().numpy(), ref, equal_nan=True, **_tol(z.dtype))
    assert z.nnz() == int(np.prod(shape[:sd]))
    assert stored(z).tolist() == list(range(int(np.prod(shape[:sd]))))


def test_add_matches_scipy_pattern_and_stores_zeros():
    a = sp.random(30, 20, density=0.2, format="csr", random_state=1)
    b = sp.random(30, 20, density=0.2, format="csr", random_state=2)
    # make some sums cancel: b holds -a at a few shared positions
    a.sort_indices()
    b = (b + sp.csr_matrix((-a.data[:5], a.indices[:5], np.r_[a.indptr[:1], [5] * 30]),
                           shape=a.shape)).tocsr()
    b.sort_indices()
    for fmt in ("csr", "coo"):
        x, y = S.from_scipy(a), S.from_scipy(b)
        if fmt == "coo":
            x, y = x.to_sparse_coo(2), y.to_sparse_coo(2)
        z = x + y
        ref = a + b  # scipy drops the cancelled entries; weft stores them as 0.0
        np.testing.assert_allclose(z.to_dense().numpy(), ref.toarray())
        pattern = (abs(a) + abs(b)).tocsr()
        pattern.sort_indices()
        assert z.nnz() == pattern.nnz > ref.nnz
        if fmt == "csr":
            assert z.crows().tolist() == pattern.indptr.tolist()
            assert z.cols().tolist() == pattern.indices.tolist()


def test_scalar_multiply_divide_keep_pattern():
    x = S.sparse_coo_tensor([[2, 0, 2], [1, 1, 1]], [1.0, 0.0, 3.0], [3, 3])
    for z, f in ((S.multiply(x, 2.0), 2.0), (x * 2, 2.0), (2.0 * x, 2.0), (x / 4, 0.25),
                 (S.divide(x, 4.0), 0.25)):
        assert z.indices().tolist() == x.indices().tolist() and z.nnz() == 3
        np.testing.assert_allclose(z.values().numpy(), x.values().numpy() * f)
    c = x.to_sparse_csr()
    np.testing.assert_allclose((c * 3).to_dense().numpy(), 3 * x.to_dense().numpy())
    xi = S.sparse_coo_tensor([[0, 1]], [3, 4], [3])
    assert (xi / 2).dtype.kind == "f" and (xi / 2).values().tolist() == [1.5, 2.0]


def test_operators_dispatch():
    rng = np.random.default_rng(0)
    for fmt, shape in (("coo", [4, 5]), ("csr", [4, 5]), ("csr", [2, 3, 4])):
        x, xd, _ = make(rng, fmt, shape, 0.5)
        y, yd, _ = make(rng, fmt, shape, 0.5)
        for z, ref in ((x + y, xd + yd), (x - y, xd - yd), (x * y, xd * yd), (-x, -xd),
                       (x.add(y), xd + yd), (x.subtract(y), xd - yd), (x.multiply(y), xd * yd)):
            assert type(z) is type(x)
            np.testing.assert_allclose(z.to_dense().numpy(), ref)
        with np.errstate(all="ignore"):
            np.testing.assert_allclose((x / y).to_dense().numpy(), xd / yd, equal_nan=True)
    with pytest.raises(ValueError):
        2.0 + x
    with pytest.raises(ValueError):
        1.0 - x
    with pytest.raises(ValueError):
        1.0 / x


def test_errors():
    x = S.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 2])
    c = x.to_sparse_csr()
    for op in (S.add, S.subtract, S.multiply, S.divide):
        with pytest.raises(ValueError, match="shape"):
            op(x, S.sparse_coo_tensor([[0], [0]], [1.0], [2, 3]))
        with pytest.raises(NotImplementedError, match="SparseCsrTensor"):
            op(x, c)
        with pytest.raises(TypeError, match="dtype"):
            op(x, S.sparse_coo_tensor([[0, 1], [1, 0]], [1, 2], [2, 2]))
        with pytest.raises(ValueError, match="dtype"):
            op(c, c.astype("float64"))
        with pytest.raises(ValueError, match="sparse_dim"):
            op(x, x.to_dense().to_sparse_coo(1))
        with pytest.raises(NotImplementedError):
            op(x.to_dense(), x)
        with pytest.raises(ValueError, match="must be Tensor"):
            op(x, [1.0, 2.0])
        xb = S.sparse_coo_tensor([[0]], [True], [2])
        with pytest.raises(S.UnsupportedDtypeError, match="bool"):
            op(xb, xb)
    for op in (S.add, S.subtract):
        with pytest.raises(ValueError, match="argument 'y' must be Tensor"):
            op(x, 1.0)
    with pytest.raises(NotImplementedError):
        S.add(c, weft.ones([2, 2]))
    with pytest.raises(NotImplementedError):
        S.subtract(x, weft.ones([2, 2]))
    with pytest.raises(NotImplementedError):
        S.multiply(x, weft.ones([2, 2]))
    with pytest.raises(ValueError, match="dense dims"):
        S.add(x, weft.ones([2]))  # Paddle's entry-wise [nnz] form is refused
    # dense in-place ops would overwrite the stored values with a dense result
    for name in ("neg_", "sin_", "zero_"):
        with pytest.raises(NotImplementedError, match="sparse"):
            getattr(weft, name)(x * 1)


def test_bias_add_forward_and_grad():
    rng = np.random.default_rng(1)
    x, xd, _ = make(rng, "coo", [4, 3, 5], 0.5, sd=2, dup=True, stop_gradient=False)
    bias = weft.to_tensor(rng.standard_normal(5), stop_gradient=False)
    z = S.add(x, bias)
    assert z.is_coalesced() and z.nnz() == len(set(stored(x).tolist()))
    hit = np.zeros((4, 3, 1), bool)
    hit.reshape(-1)[np.unique(stored(x))] = True
    np.testing.assert_allclose(z.to_dense().numpy(), xd + hit * bias.numpy())
    z.values().sum().backward()
    np.testing.assert_allclose(bias.grad.numpy(), np.full(5, float(z.nnz())))
    assert x.grad.is_sparse_coo() and x.grad.nnz() == x.nnz()
    xs = S.sparse_coo_tensor(x.indices(), x.values().numpy(), x.shape, stop_gradient=False)
    assert gradcheck(lambda a, b: S.add(a, b), (xs, bias), masked=True)
    assert gradgradcheck(lambda a, b: S.add(a, b) * S.add(a, b), (xs, bias), masked=True)


def test_complex_multiply_grad_uses_conjugate():
    xv = np.array([1 + 2j, 3 - 1j])
    yv = np.array([2 - 1j, -1 + 1j])
    x = S.sparse_coo_tensor([[0, 1]], xv, [2], stop_gradient=False)
    y = S.sparse_coo_tensor([[0, 1]], yv, [2], stop_gradient=False)
    gx, gy = weft.grad(weft.real(S.multiply(x, y).values()).sum(), [x, y])
    np.testing.assert_allclose(gx.values().numpy(), np.conj(yv))
    np.testing.assert_allclose(gy.values().numpy(), np.conj(xv))


# ----------------------------------------------------------------------------------
# prune


@pytest.mark.parametrize("fmt, shape, sd", [("coo", [5, 4], 2), ("coo", [4, 3, 2], 2),
                                            ("csr", [5, 4], 2), ("csr", [2, 3, 4], 3)])
@pytest.mark.parametrize("tol", [0.0, 0.5])
def test_prune(fmt, shape, sd, tol):
    rng = np.random.default_rng(7)
    x, _, _ = make(rng, fmt, shape, 0.6, sd=sd, stop_gradient=False)
    v = x.values().numpy().copy()
    v[::3] = 0.0
    if v.ndim == 1:
        v[1::4] = np.nan
    x = x._with_values(weft.to_tensor(v, stop_gradient=False))
    z = x.prune(tol)
    small = np.abs(v) <= tol
    if small.ndim > 1:
        small = small.reshape(small.shape[0], -1).all(1)
    assert z.nnz() == int((~small).sum())
    np.testing.assert_array_equal(z.values().numpy(), v[~small])
    kept_pos = stored(x)[~small]
    np.testing.assert_array_equal(stored(z), kept_pos)
    if fmt == "csr":
        ref = np.where(np.isnan(x.to_dense().numpy()), 0, x.to_dense().numpy())
        got = np.nan_to_num(z.to_dense().numpy())
        np.testing.assert_allclose(got, np.where(np.abs(ref) <= tol, 0, ref))
    xs = S.sparse_coo_tensor(x.indices(), np.nan_to_num(v) + 0.1, x.shape,
                             stop_gradient=False) if fmt == "coo" else \
        S.sparse_csr_tensor(x.crows(), x.cols(), np.nan_to_num(v) + 0.1, x.shape,
                            stop_gradient=False)
    assert gradcheck(lambda a: a.prune(tol), (xs,), masked=True)
    assert gradgradcheck(lambda a: a.prune(tol) * a.prune(tol), (xs,), masked=True)


def test_prune_errors():
    x = S.sparse_coo_tensor([[0]], [1.0], [2])
    with pytest.raises(ValueError, match="tol"):
        x.prune(-1.0)
    with pytest.raises(NotImplementedError):
        S.prune(weft.ones([2]))


# ----------------------------------------------------------------------------------
# native merge kernels


def _csr(crows, cols, dt=np.int64):
    return np.asarray(crows, dt), np.asarray(cols, dt)


CRX, CLX = _csr([0, 2, 3], [0, 2, 1])
CRY, CLY = _csr([0, 1, 3], [1, 1, 2])
MERGE_BAD = [
    (dict(crows_x=CRX[None]), ValueError, "crows_x must be 1-D"),
    (dict(cols_y=CLY.astype(np.float64)), TypeError, "cols_y has dtype"),
    (dict(crows_x=CRX.astype(np.int16)), TypeError, "crows_x has dtype"),
    (dict(cols_x=CLX.astype(np.int32)), TypeError, "cols_x has dtype int32 but crows_x"),
    (dict(crows_y=CRY.astype(np.int32), cols_y=CLY.astype(np.int32)), TypeError, "crows_y"),
    (dict(crows_x=np.zeros(0, np.int64), cols_x=np.zeros(0, np.int64)), ValueError,
     "at least one"),
    (dict(crows_y=np.array([0, 3])), ValueError, "same number of rows"),
    (dict(crows_x=np.array([1, 2, 3])), ValueError, r"crows_x\[0\] must be 0"),
    (dict(crows_y=np.array([0, 3, 2])), ValueError, "must not decrease"),
    (dict(crows_x=np.array([0, 2, 2])), ValueError, "last value of crows_x"),
    (dict(cols_x=np.array([0, 3, 1])), IndexError, r"cols_x\[1\] = 3 is out of range"),
    (dict(cols_y=np.array([1, -1, 2])), IndexError, r"cols_y\[1\] = -1"),
    (dict(cols_x=np.arange(6, dtype=np.int64)[::2]), ValueError, "C-contiguous"),
    (dict(ncols=-1), ValueError, "ncols"),
]


@pytest.mark.parametrize("kw, exc, pattern", MERGE_BAD)
def test_csr_merge_malformed(kw, exc, pattern):
    args = dict(crows_x=CRX, cols_x=CLX, crows_y=CRY, cols_y=CLY, ncols=3)
    args.update(kw)
    with pytest.raises(exc, match=pattern):
        _C.sparse_csr_merge(args["crows_x"], args["cols_x"], args["crows_y"], args["cols_y"],
                            args["ncols"], False)


def test_csr_merge_results_and_unsorted():
    cr, cl, sx, sy = _C.sparse_csr_merge(CRX, CLX, CRY, CLY, 3, False)
    assert cr.tolist() == [0, 3, 5] and cl.tolist() == [0, 1, 2, 1, 2]
    assert sx.tolist() == [0, -1, 1, 2, -1] and sy.tolist() == [-1, 0, -1, 1, 2]
    cr, cl, sx, sy = _C.sparse_csr_merge(CRX, CLX, CRY, CLY, 3, True)
    assert cr.tolist() == [0, 0, 1] and cl.tolist() == [1] and sx.tolist() == [2] \
        and sy.tolist() == [1]
    cr32 = _C.sparse_csr_merge(CRX.astype(np.int32), CLX.astype(np.int32),
                               CRY.astype(np.int32), CLY.astype(np.int32), 3, False)[0]
    assert cr32.dtype == np.int32
    # unsorted or duplicate cols inside a row: None (the caller canonicalises)
    assert _C.sparse_csr_merge(CRX, np.array([2, 0, 1]), CRY, CLY, 3, False) is None
    assert _C.sparse_csr_merge(CRX, CLX, CRY, np.array([1, 2, 2]), 3, False) is None


def test_merge_sorted_malformed_and_unsorted():
    a = np.array([0, 3, 5])
    with pytest.raises(ValueError, match="keys_x must be 1-D"):
        _C.sparse_merge_sorted(a[None], a, False)
    with pytest.raises(TypeError, match="keys_y has dtype"):
        _C.sparse_merge_sorted(a, a.astype(np.float32), False)
    with pytest.raises(TypeError, match="keys_y has dtype int32 but keys_x"):
        _C.sparse_merge_sorted(a, a.astype(np.int32), False)
    with pytest.raises(ValueError, match="C-contiguous"):
        _C.sparse_merge_sorted(np.arange(6)[::2], a, False)
    assert _C.sparse_merge_sorted(np.array([0, 5, 3]), a, False) is None
    assert _C.sparse_merge_sorted(a, np.array([1, 1]), True) is None
    assert [r.tolist() for r in _C.sparse_merge_sorted(np.zeros(0, np.int64), a, False)] == \
        [[0, 3, 5], [-1, -1, -1], [0, 1, 2]]


@pytest.mark.parametrize("intersect", [False, True])
@pytest.mark.parametrize("dt", [np.int32, np.int64])
@pytest.mark.parametrize("n", [0, 1, 100, 200_000])
def test_merge_kernels_match_fallback_any_thread_count(intersect, dt, n):
    rng = np.random.default_rng(n)
    kx = np.unique(rng.integers(0, 3 * n + 1, n)).astype(dt)
    ky = np.unique(rng.integers(0, 3 * n + 1, n // 2 + 1)).astype(dt)
    ref = B._merge_keys_xp(kx, ky, intersect)
    old = weft.get_num_threads()
    try:
        for t in (1, 3):
            weft.set_num_threads(t)
            got = _C.sparse_merge_sorted(kx, ky, intersect)
            for g, r in zip(got, ref):
                np.testing.assert_array_equal(g, r)
            # the same keys split into CSR rows of `width` consecutive keys
            rows = 4
            width = int(3 * n + 1) // rows + 1
            crx = np.searchsorted(kx, np.arange(rows + 1) * width).astype(dt)
            cry = np.searchsorted(ky, np.arange(rows + 1) * width).astype(dt)
            cr, cl, sx, sy = _C.sparse_csr_merge(crx, (kx % width).astype(dt), cry,
                                                 (ky % width).astype(dt), width, intersect)
            np.testing.assert_array_equal(np.repeat(np.arange(rows), np.diff(cr)) * width + cl,
                                          ref[0])
            np.testing.assert_array_equal(sx, ref[1])
            np.testing.assert_array_equal(sy, ref[2])
    finally:
        weft.set_num_threads(old)


def test_pick_kernel():
    v = np.arange(6.0).reshape(3, 2)
    for dt in (np.int32, np.int64):
        got = _C.sparse_pick(v, np.array([2, -1, 0, 2], dt))
        np.testing.assert_array_equal(got, [[4, 5], [0, 0], [0, 1], [4, 5]])
    vc = (np.arange(3) * (1 + 1j)).reshape(3, 1)
    np.testing.assert_array_equal(_C.sparse_pick(vc, np.array([-1, 1])), [[0], [1 + 1j]])
    assert _C.sparse_pick(np.zeros((0, 2)), np.array([-1, -1])).tolist() == [[0, 0], [0, 0]]
    with pytest.raises(IndexError, match=r"slot\[1\] = 3 is out of range \[-1, 3\)"):
        _C.sparse_pick(v, np.array([0, 3, 5]))
    with pytest.raises(IndexError, match=r"slot\[0\] = -2"):
        _C.sparse_pick(v, np.array([-2]))
    with pytest.raises(ValueError, match="values must be 2-D"):
        _C.sparse_pick(np.arange(3.0), np.array([0]))
    with pytest.raises(TypeError, match="values has dtype"):
        _C.sparse_pick(v.astype(np.float16), np.array([0]))
    with pytest.raises(TypeError, match="slot has dtype"):
        _C.sparse_pick(v, np.array([0.0]))
    with pytest.raises(ValueError, match="C-contiguous"):
        _C.sparse_pick(v.T, np.array([0]))
    with pytest.raises(ValueError, match="slot must be 1-D"):
        _C.sparse_pick(v, np.array([[0]]))


def test_pick_add_kernel():
    vx, vy = np.arange(6.0).reshape(3, 2), 10 * np.arange(4.0).reshape(2, 2)
    sx, sy = np.array([0, -1, 2]), np.array([1, 0, -1])
    for sub in (False, True):
        ref = _C.sparse_pick(vx, sx) + (-1 if sub else 1) * _C.sparse_pick(vy, sy)
        np.testing.assert_array_equal(_C.sparse_pick_add(vx, sx, vy, sy, sub), ref)
    with pytest.raises(IndexError, match=r"slot_y\[2\] = 2 is out of range \[-1, 2\)"):
        _C.sparse_pick_add(vx, sx, vy, np.array([1, 0, 2]), False)
    with pytest.raises(IndexError, match=r"slot_x\[0\] = -3"):
        _C.sparse_pick_add(vx, np.array([-3, 0, 0]), vy, sy, False)
    with pytest.raises(TypeError, match="values_y has dtype"):
        _C.sparse_pick_add(vx, sx, vy.astype(np.float32), sy, False)
    with pytest.raises(TypeError, match="slot_y has dtype"):
        _C.sparse_pick_add(vx, sx, vy, sy.astype(np.int32), False)
    with pytest.raises(ValueError, match="rows of 2 elements"):
        _C.sparse_pick_add(vx, sx, np.zeros((2, 3)), sy, False)
    with pytest.raises(ValueError, match="slot_x has 3 entries"):
        _C.sparse_pick_add(vx, sx, vy, sy[:2], False)
    with pytest.raises(ValueError, match="values_x must be 2-D"):
        _C.sparse_pick_add(vx.ravel(), sx, vy, sy, False)


def test_intersection_pattern_helper():
    rng = np.random.default_rng(2)
    for fmt in ("coo", "csr"):
        x, _, cx = make(rng, fmt, [6, 5], 0.5, dup=True)
        y, _, cy = make(rng, fmt, [6, 5], 0.5)
        xc, yc, sx, sy, build = B.merge_patterns(x, y, intersect=True)
        z = build(weft.to_tensor(np.ones(sx.shape[0])))
        assert stored(z).tolist() == sorted(cx & cy)
        assert (sx >= 0).all() and (sy >= 0).all()
