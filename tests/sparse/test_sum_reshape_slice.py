"""weft.sparse.sum / reshape / slice and the private CSR row softmax (api-sparse.md §3.2,
§4, §6): random shapes, axes and windows against dense numpy, Paddle's examples, the
native kernels, their array fallback and argument checks, and the row softmax's
gradients. The masked gradcheck/gradgradcheck of sum, reshape and slice are in the op
database (tests/opdb/sparse.py)."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import weft
from weft import sparse as S
from weft.autograd import gradcheck, gradgradcheck
from weft.sparse import shape as shape_mod
from weft.sparse import softmax as softmax_mod
from weft.sparse.softmax import csr_row_softmax as _csr_row_softmax

VALUE_DTYPES = ["float32", "float64", "complex128", "int64", "bool"]


def _values(rng, shape, dtype):
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    if np.dtype(dtype).kind in "iu":
        a = rng.integers(-5, 6, shape)
    if np.dtype(dtype).kind == "b":
        a = rng.integers(0, 2, shape)
    return a.astype(dtype)


def _coo_parts(rng, shape, sd, nnz, idt):
    """Random indices (unsorted, with duplicates when nnz allows) for the sparse part."""
    if 0 in shape[:sd]:
        nnz = 0
    idx = np.stack([rng.integers(0, max(s, 1), nnz) for s in shape[:sd]]) if nnz else \
        np.zeros((sd, 0), dtype=np.int64)
    if nnz >= 3:
        idx[:, -1] = idx[:, 0]  # a duplicate, last, so the order is not sorted either
    return idx.astype(idt)


def _dense_of_coo(idx, vals, shape):
    out = np.zeros(shape, dtype=vals.dtype if vals.dtype != bool else np.int64)
    np.add.at(out, tuple(idx), vals)
    return out.astype(vals.dtype) if vals.dtype == bool else out


@st.composite
def coo_cases(draw, max_nd=4):
    nd = draw(st.integers(1, max_nd))
    shape = draw(st.lists(st.integers(0, 4), min_size=nd, max_size=nd))
    sd = draw(st.integers(1, nd))
    nnz = draw(st.integers(0, 10))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    idt = draw(st.sampled_from([np.int32, np.int64]))
    dt = draw(st.sampled_from(VALUE_DTYPES))
    idx = _coo_parts(rng, shape, sd, nnz, idt)
    vals = _values(rng, (idx.shape[1],) + tuple(shape[sd:]), dt)
    return idx, vals, shape, rng


def _coo(idx, vals, shape, stop_gradient=True):
    return S.sparse_coo_tensor(idx, vals, shape, stop_gradient=stop_gradient)


@st.composite
def csr_cases(draw):
    nd = draw(st.integers(2, 3))
    shape = draw(st.lists(st.integers(0, 5), min_size=nd, max_size=nd))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    density = draw(st.sampled_from([0.0, 0.3, 0.7]))
    dense = rng.standard_normal(shape) * (rng.random(shape) < density)
    dt = draw(st.sampled_from(["float32", "float64", "complex128", "int64"]))
    if np.dtype(dt).kind == "c":
        dense = dense + 1j * dense[..., ::-1]
    dense = dense.astype(dt) if dt != "int64" else np.round(dense * 3).astype(dt)
    x = weft.to_tensor(dense).to_sparse_csr()
    if draw(st.booleans()):
        x = S.cast(x, index_dtype="int32")
    return x, dense


def _pattern(x):
    """Stored coordinates of sparse ``x`` as a sorted list of tuples."""
    if x.is_sparse_coo():
        return sorted(map(tuple, x.indices().numpy().T.tolist()))
    return sorted(map(tuple, S.to_sparse_coo(x).indices().numpy().T.tolist()))


def _axes_strategy(nd):
    return st.one_of(st.none(), st.integers(-nd, nd - 1),
                     st.lists(st.integers(0, nd - 1), min_size=1, max_size=nd, unique=True))


# ----------------------------------------------------------------------------------
# sum


def _np_sum(dense, axis, keepdim, dtype):
    if isinstance(axis, list):
        axis = tuple(axis)
    ref = np.sum(dense, axis=axis, keepdims=keepdim, dtype=dtype)
    return np.asarray(ref)


def _sum_dtype(dt):
    return np.int64 if np.dtype(dt) in (np.bool_, np.int32, np.int64) else np.dtype(dt)


@given(coo_cases(), st.data(), st.booleans())
def test_coo_sum_matches_numpy(case, data, keepdim):
    idx, vals, shape, _ = case
    nd, sd = len(shape), idx.shape[0]
    axis = data.draw(_axes_strategy(nd))
    x = _coo(idx, vals, shape)
    out = S.sum(x, axis=axis, keepdim=keepdim)
    dense = _dense_of_coo(idx, vals, shape)
    want_dt = _sum_dtype(vals.dtype)
    ref = _np_sum(dense, axis, keepdim, want_dt)
    axes = set(range(nd)) if axis is None else \
        {a % nd for a in (axis if isinstance(axis, list) else [axis])}
    if len(axes) == nd:  # the total, as one stored entry
        want_shape = [1] * nd if keepdim else [1]
        assert out.nnz() == 1 and out.indices().numpy().tolist() == [[0]] * out.sparse_dim()
        ref = ref.reshape(want_shape)
    assert out.is_sparse_coo() and out.dtype == want_dt
    assert out.indices().dtype == idx.dtype
    assert out.shape == list(ref.shape)
    np.testing.assert_allclose(out.to_dense().numpy(), ref, rtol=1e-5, atol=1e-5)
    if len(axes) < nd and any(a < sd for a in axes):
        # pattern: the output coordinates that receive at least one stored entry
        kept = [d for d in range(sd) if d not in axes]
        if kept or keepdim:
            rows = [idx[d] if d in kept else np.zeros_like(idx[d]) for d in range(sd)
                    if keepdim or d in kept]
            want = sorted(set(map(tuple, np.stack(rows).T.tolist()))) if idx.shape[1] else []
            assert _pattern(out) == want
            assert out.is_coalesced()
    elif len(axes) < nd:
        assert out.indices().numpy().tolist() == idx.tolist()  # only dense axes: pattern kept


def test_coo_sum_hybrid_all_sparse_axes_and_paddle_cases():
    x = _coo(np.array([[0, 2, 0], [1, 1, 1]]), np.arange(6.0).reshape(3, 2), [3, 2, 2])
    s = S.sum(x, axis=[0, 1])  # only the dense axis remains: it becomes the sparse one
    assert s.shape == [2] and s.indices().numpy().tolist() == [[0, 1]]
    np.testing.assert_array_equal(s.values().numpy(), [6.0, 9.0])
    empty = _coo(np.zeros((2, 0), dtype=np.int64), np.zeros((0, 2)), [3, 2, 2])
    assert S.sum(empty, axis=[0, 1]).nnz() == 0
    t = S.sum(empty)  # the total is stored even when x stores nothing
    assert t.shape == [1] and t.indices().numpy().tolist() == [[0]] and t.values().numpy()[0] == 0
    b = S.sum(_coo([[0, 1, 1]], np.array([True, True, False]), [3]), axis=0)
    assert b.dtype == np.int64 and b.values().numpy().tolist() == [2]
    f = S.sum(_coo([[0, 1]], np.array([1, 2], dtype=np.int32), [3]), dtype="float64")
    assert f.dtype == np.float64 and f.values().numpy().tolist() == [3.0]
    assert S.sum(_coo([[0]], np.array([1], dtype=np.int8), [3])).dtype == np.int8


@given(csr_cases(), st.data())
def test_csr_sum_matches_numpy_and_stays_csr(case, data):
    x, dense = case
    nd = x.ndim
    axis = data.draw(_axes_strategy(nd))
    keepdim = data.draw(st.booleans())
    out = S.sum(x, axis=axis, keepdim=keepdim)
    assert out.is_sparse_csr() and out.crows().dtype == x.crows().dtype
    want_dt = _sum_dtype(dense.dtype)
    assert out.dtype == want_dt
    axes = set(range(nd)) if axis is None else \
        {a % nd for a in (axis if isinstance(axis, list) else [axis])}
    ref = np.sum(dense, axis=tuple(sorted(axes)), keepdims=True, dtype=want_dt)
    if len(axes) == nd and not keepdim:
        ref = ref.reshape(1, 1)
        assert out.nnz() == 1
    assert out.shape == list(ref.shape)
    np.testing.assert_allclose(out.to_dense().numpy(), ref, rtol=1e-5, atol=1e-5)
    if len(axes) < nd:
        nz = dense != 0
        want = np.any(nz, axis=tuple(sorted(axes)), keepdims=True)
        assert _pattern(out) == sorted(map(tuple, np.argwhere(want).tolist()))
        # canonical: columns strictly increase inside each row
        assert S.coalesce(out).nnz() == out.nnz()


def test_csr_sum_paddle_shapes():
    x = weft.to_tensor([[0.0, 1.0, 2.0], [0.0, 0.0, 0.0], [3.0, 0.0, 4.0]]).to_sparse_csr()
    r = S.sum(x, axis=-1)
    assert r.shape == [3, 1] and r.crows().tolist() == [0, 1, 1, 2]
    assert r.values().tolist() == [3.0, 7.0]
    a = S.sum(x)
    assert a.shape == [1, 1] and a.crows().tolist() == [0, 1] and a.values().tolist() == [10.0]
    c = S.sum(x, axis=0)
    assert c.shape == [1, 3] and c.cols().tolist() == [0, 1, 2]


@pytest.mark.parametrize("shape", [(2, 0, 3), (3, 2, 0), (0, 2, 3), (3, 4, 5), (1, 4, 5), (0, 3)])
@pytest.mark.parametrize("dtype", ["float32", "complex64", "int64"])
def test_csr_row_sum_edge_shapes(shape, dtype):
    """sum(axis=-1) of CSR with no batches, no rows, no columns and empty rows: the
    per-batch row pointers, and float32/complex64 rows added in double precision."""
    d = np.zeros(shape, dtype=dtype)
    d.flat[::3] = np.arange(1, d.flat[::3].size + 1)
    x = weft.to_tensor(d).to_sparse_csr()
    r = S.sum(x, axis=-1)
    assert r.shape == list(shape[:-1]) + [1] and r.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(r.to_dense().numpy(), d.sum(-1, keepdims=True))
    # one stored entry per non-empty row, in each batch's own row pointers
    if len(shape) == 3:
        got = r.crows().numpy().reshape(shape[0], shape[1] + 1)
        assert np.all(got[:, 0] == 0)
        np.testing.assert_array_equal(np.diff(got, axis=1), (np.abs(d) > 0).any(-1).astype(np.int64))


def test_csr_row_sum_of_a_long_float32_row_keeps_its_digits():
    v = np.full(1 << 20, 0.1, dtype=np.float32)
    x = S.sparse_csr_tensor([0, v.size], np.arange(v.size), v, [1, v.size])
    exact = float(np.sum(v.astype(np.float64)))
    assert abs(float(S.sum(x, axis=-1).values().numpy()[0]) - exact) <= 1e-6 * exact


@pytest.mark.parametrize("values, dtype", [([0.5, 1.5, 2.5], "int64"), ([2, -2, 3], "bool")])
@pytest.mark.parametrize("fmt", ["coo", "csr"])
def test_sum_dtype_casts_the_sum_of_duplicates(values, dtype, fmt):
    # regression: each duplicate entry was cast on its own before summing (int(0.5) +
    # int(1.5) = 1 where the tensor holds 2.0; bool(2) | bool(-2) where it holds 0)
    x = _coo([[0, 0, 1], [1, 1, 0]], np.array(values), [2, 2])
    if fmt == "csr":
        x = S.sparse_csr_tensor([0, 2, 3], [1, 1, 0], np.array(values), [2, 2])
    dense = x.to_dense().numpy()
    for axis in (None, 0, 1):
        got = S.sum(x, axis=axis, dtype=dtype, keepdim=True).to_dense().numpy()
        np.testing.assert_array_equal(got, np.sum(dense, axis=axis, dtype=dtype, keepdims=True))


def test_sum_errors():
    x = _coo([[0, 1]], [1.0, 2.0], [3])
    with pytest.raises(ValueError, match="out of range"):
        S.sum(x, axis=1)
    with pytest.raises(ValueError, match="repeated"):
        S.sum(_coo([[0], [1]], [1.0], [2, 2]), axis=[0, 0])
    with pytest.raises(TypeError, match="keepdim"):
        S.sum(x, keepdim=1)
    with pytest.raises(NotImplementedError, match="sparse"):
        S.sum(weft.ones([2]))


# ----------------------------------------------------------------------------------
# reshape


@given(coo_cases(max_nd=3), st.data())
def test_coo_reshape_matches_numpy(case, data):
    idx, vals, shape, rng = case
    sd = idx.shape[0]
    n = int(np.prod(shape[:sd]))
    # a random factorisation of the sparse size, with one axis given as -1
    new = [n] if n else list(shape[:sd])
    if n and data.draw(st.booleans()):
        f = [d for d in range(1, n + 1) if n % d == 0]
        a = data.draw(st.sampled_from(f))
        new = [a, n // a]
    spec = list(new) if n else [0] * sd  # Paddle's 0 copies the axis: no literal 0 sizes
    if data.draw(st.booleans()) and n:
        spec[data.draw(st.integers(0, len(spec) - 1))] = -1
    x = _coo(idx, vals, shape)
    out = S.reshape(x, spec + list(shape[sd:]))
    dense = _dense_of_coo(idx, vals, shape)
    assert out.shape == new + list(shape[sd:]) and out.sparse_dim() == len(new)
    assert out.indices().dtype == idx.dtype and out.nnz() == x.nnz()
    np.testing.assert_array_equal(out.to_dense().numpy(), dense.reshape(out.shape))


def test_reshape_zero_copies_axis_and_input_alias():
    x = _coo([[0, 1], [1, 0], [0, 1]], np.ones((2, 2)), [2, 2, 2, 2])  # [2,2,2 | 2]
    y = S.reshape(input=x, shape=[0, 4, 2])
    assert y.shape == [2, 4, 2] and y.sparse_dim() == 2
    np.testing.assert_array_equal(y.to_dense().numpy(), x.to_dense().numpy().reshape(2, 4, 2))
    h = _coo([[0, 1], [1, 1]], np.array([[1.0, 2.0], [3.0, 4.0]]), [2, 2, 2])  # [2, 2 | 2]
    for spec, want in (([4, 2], [4, 2]), ([4, 1, 2], [4, 1, 2]), ([4, -1], [4, 2])):
        r = S.reshape(h, spec)
        assert r.shape == want and r.dense_dim() == 1
        np.testing.assert_array_equal(r.to_dense().numpy(), h.to_dense().numpy().reshape(want))
    with pytest.raises(ValueError, match="dense dimensions"):
        S.reshape(x, [4, 4])
    with pytest.raises(ValueError, match="elements"):
        S.reshape(x, [3, 2, 2])
    with pytest.raises(ValueError, match="more than one -1"):
        S.reshape(x, [-1, -1, 2])
    with pytest.raises(TypeError, match="multiple values|alias"):
        S.reshape(x, input=x, shape=[16])


@given(csr_cases(), st.data())
def test_csr_reshape_matches_numpy(case, data):
    x, dense = case
    n = dense.size
    nd = data.draw(st.integers(2, 3))
    f = [d for d in range(1, n + 1) if n % d == 0] or [0]
    a = data.draw(st.sampled_from(f))
    rest = n // a if a else 0
    if nd == 2:
        new = [a, rest]
    else:
        g = [d for d in range(1, rest + 1) if rest % d == 0] or [0]
        b = data.draw(st.sampled_from(g))
        new = [a, b, rest // b if b else 0]
    spec = new
    if n == 0:  # Paddle's 0 copies the axis, so a 0-size target keeps x's shape
        if nd != dense.ndim:
            return
        new, spec = list(dense.shape), [0] * nd
    out = S.reshape(x, spec)
    assert out.is_sparse_csr() and out.shape == new and out.nnz() == x.nnz()
    np.testing.assert_array_equal(out.to_dense().numpy(), dense.reshape(new))


def test_csr_reshape_unsorted_input_is_canonicalised_and_rank_checked():
    x = S.sparse_csr_tensor([0, 2, 3], [2, 0, 1], [1.0, 2.0, 3.0], [2, 3])
    y = S.reshape(x, [3, 2])
    assert y.crows().tolist() == [0, 1, 2, 3] and y.cols().tolist() == [0, 0, 0]
    assert y.values().tolist() == [2.0, 1.0, 3.0]
    with pytest.raises(ValueError, match="2-D or 3-D"):
        S.reshape(x, [6])


# ----------------------------------------------------------------------------------
# slice


def _windows(shape, data):
    axes = data.draw(st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1,
                              max_size=len(shape), unique_by=lambda a: a % len(shape)))
    starts, ends = [], []
    for a in axes:
        d = shape[a]
        s = data.draw(st.integers(-d - 2, d + 2))
        ds = min(max(s + d if s < 0 else s, 0), d)
        e = data.draw(st.integers(ds, d + 3))
        if e < d and data.draw(st.booleans()):
            e = e - d  # the same end, counted from the back
            e = e if min(max(e + d, 0), d) >= ds else d
        starts.append(s)
        ends.append(e)
    return axes, starts, ends


def _np_slice(dense, axes, starts, ends):
    sl = [slice(None)] * dense.ndim
    for a, s, e in zip(axes, starts, ends):
        d = dense.shape[a]
        s = min(max(s + d if s < 0 else s, 0), d)
        e = min(max(e + d if e < 0 else e, 0), d)
        sl[a] = slice(s, e)
    return dense[tuple(sl)]


@given(coo_cases(), st.data())
def test_coo_slice_matches_numpy(case, data):
    idx, vals, shape, rng = case
    axes, starts, ends = _windows(shape, data)
    x = _coo(idx, vals, shape)
    out = S.slice(x, axes, starts, ends)
    ref = _np_slice(_dense_of_coo(idx, vals, shape), axes, starts, ends)
    assert out.shape == list(ref.shape) and out.sparse_dim() == idx.shape[0]
    assert out.indices().dtype == idx.dtype and out.dtype == vals.dtype
    np.testing.assert_array_equal(out.to_dense().numpy(), ref)


@given(csr_cases(), st.data())
def test_csr_slice_matches_numpy(case, data):
    x, dense = case
    axes, starts, ends = _windows(list(dense.shape), data)
    out = S.slice(x, axes, starts, ends)
    ref = _np_slice(dense, axes, starts, ends)
    assert out.is_sparse_csr() and out.shape == list(ref.shape)
    assert out.crows().dtype == x.crows().dtype
    np.testing.assert_array_equal(out.to_dense().numpy(), ref)
    assert out.nnz() == int(np.count_nonzero(ref))  # x had no explicit zeros


def test_slice_tensor_arguments_clamping_and_errors():
    d = np.arange(1.0, 13.0).reshape(3, 4) * (np.arange(12).reshape(3, 4) % 3 != 0)
    x = weft.to_tensor(d).to_sparse_csr()
    t = weft.to_tensor
    a = S.slice(x, t([0, 1]), t([1, -3]), t([100, -1]))
    b = S.slice(x, [t(0), t(1)], [t(1), t(-3)], [t(100), t(-1)])
    np.testing.assert_array_equal(a.to_dense().numpy(), d[1:, 1:3])
    np.testing.assert_array_equal(b.to_dense().numpy(), d[1:, 1:3])
    with pytest.raises(ValueError, match="entries"):
        S.slice(x, [0, 1], [0], [1, 2])
    with pytest.raises(ValueError, match="before the start"):
        S.slice(x, [0], [2], [1])
    with pytest.raises(ValueError, match="repeated"):
        S.slice(x, [0, -2], [0, 0], [1, 1])


def test_csr_slice_keeps_unsorted_input_canonical():
    x = S.sparse_csr_tensor([0, 3, 4], [3, 0, 2, 1], [1.0, 2.0, 3.0, 4.0], [2, 4])
    y = S.slice(x, [1], [0], [3])
    assert y.crows().tolist() == [0, 2, 3] and y.cols().tolist() == [0, 2, 1]
    assert y.values().tolist() == [2.0, 3.0, 4.0]


def test_csr_slice_fallback_matches_native(monkeypatch):
    rng = np.random.default_rng(3)
    dense = rng.standard_normal((3, 7, 6)) * (rng.random((3, 7, 6)) < 0.4)
    x = S.cast(weft.to_tensor(dense).to_sparse_csr(), index_dtype="int32")
    args = ([0, 1, 2], [1, 2, 1], [3, 6, 5])
    native = S.slice(x, *args)
    monkeypatch.setattr(shape_mod, "_HAS_NATIVE", False)
    fb = S.slice(x, *args)
    for f in ("crows", "cols", "values"):
        a, b = getattr(native, f)().numpy(), getattr(fb, f)().numpy()
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


# ----------------------------------------------------------------------------------
# CSR row softmax


def _grad_csr(batched=False):
    rng = np.random.default_rng(6)
    shape = (2, 4, 5) if batched else (4, 5)
    d = rng.standard_normal(shape) * (rng.random(shape) < 0.5)
    x = weft.to_tensor(d).to_sparse_csr()
    x.stop_gradient = False
    return x


def _weighted(out):
    """A smooth non-linear function of the dense form of ``out``."""
    d = out.to_dense()
    return d * d


def _softmax_loop(crows, vals):
    out = np.empty_like(vals)
    for r in range(len(crows) - 1):
        seg = vals[crows[r]:crows[r + 1]]
        if seg.size:
            e = np.exp(seg - seg.max())
            out[crows[r]:crows[r + 1]] = e / e.sum()
    return out


@given(csr_cases(), st.sampled_from(["float32", "float64"]))
def test_row_softmax_matches_loop(case, dt):
    x, dense = case
    if dense.dtype.kind == "c":
        dense = dense.real
    # large values: exp overflows without the max subtraction
    x = weft.to_tensor((dense * 30).astype(dt)).to_sparse_csr()
    y = _csr_row_softmax(x)
    assert y.dtype == np.dtype(dt)
    crows = x.crows().numpy().astype(np.int64)
    if x.ndim == 3:
        b, m = x.shape[:2]
        cr = crows.reshape(b, m + 1)
        ends = np.cumsum(cr[:, -1])
        crows = np.concatenate([[0]] + [cr[i, 1:] + (ends[i - 1] if i else 0) for i in range(b)])
    ref = _softmax_loop(crows, x.values().numpy().astype(np.float64))
    tol = dict(rtol=1e-5, atol=1e-7) if dt == "float32" else dict(rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(y.values().numpy(), ref, **tol)
    assert y.crows().numpy().tolist() == x.crows().numpy().tolist()


def test_row_softmax_fallback_float16_nan_and_threads(monkeypatch):
    rng = np.random.default_rng(7)
    d = rng.standard_normal((300, 200)) * 20 * (rng.random((300, 200)) < 0.3)
    x = weft.to_tensor(d).to_sparse_csr()
    native = _csr_row_softmax(x).values().numpy()
    n = weft.get_num_threads()
    weft.set_num_threads(1)
    try:
        np.testing.assert_array_equal(_csr_row_softmax(x).values().numpy(), native)
    finally:
        weft.set_num_threads(n)
    monkeypatch.setattr(softmax_mod, "_HAS_NATIVE", False)
    np.testing.assert_allclose(_csr_row_softmax(x).values().numpy(), native, rtol=1e-12)
    x16 = S.cast(x, value_dtype="float16")
    h = _csr_row_softmax(x16)
    monkeypatch.undo()
    ref16 = _csr_row_softmax(S.cast(x16, value_dtype="float64")).values().numpy()
    assert h.dtype == np.float16
    np.testing.assert_allclose(h.values().numpy().astype(float), ref16, atol=1e-3)
    nan = S.sparse_csr_tensor([0, 2, 3], [0, 1, 0], [1.0, float("nan"), 2.0], [2, 2])
    v = _csr_row_softmax(nan).values().numpy()
    assert np.isnan(v[:2]).all() and v[2] == 1.0


@pytest.mark.parametrize("batched", [False, True])
def test_row_softmax_gradcheck_and_gradgradcheck(batched):
    x = _grad_csr(batched)
    assert gradcheck(lambda t: _weighted(_csr_row_softmax(t)), x, masked=True)
    assert gradgradcheck(lambda t: _weighted(_csr_row_softmax(t)), x, masked=True)


def test_row_softmax_backward_formula_and_dtype_errors():
    x = _grad_csr()
    y = _csr_row_softmax(x)
    g = np.random.default_rng(8).standard_normal(x.nnz())
    (y.values() * weft.to_tensor(g)).sum().backward()
    yv = y.values().numpy()
    crows = x.crows().numpy()
    want = np.empty_like(g)
    for r in range(len(crows) - 1):
        s = slice(crows[r], crows[r + 1])
        want[s] = yv[s] * (g[s] - np.dot(yv[s], g[s]))
    np.testing.assert_allclose(x.grad.values().numpy(), want, rtol=1e-12, atol=1e-15)
    with pytest.raises(weft.UnsupportedDtypeError, match="floating"):
        _csr_row_softmax(S.sparse_csr_tensor([0, 1], [0], [1], [1, 1]))
    with pytest.raises(TypeError, match="SparseCsrTensor"):
        _csr_row_softmax(S.to_sparse_coo(x))


# ----------------------------------------------------------------------------------
# native kernels fed malformed input (each must raise, never crash)

_I = np.array


@pytest.mark.parametrize("args, exc, pattern", [
    ((_I([0, 1.0]), _I([0]), [1, 1, 2], [0] * 3, [1, 1, 2]), TypeError, "crows has dtype"),
    ((_I([0, 1]), _I([0], dtype=np.int32), [1, 1, 2], [0] * 3, [1, 1, 2]), TypeError, "must match"),
    ((_I([[0, 1]]), _I([0]), [1, 1, 2], [0] * 3, [1, 1, 2]), ValueError, "1-D"),
    ((_I([0, 1]), _I([0]), [1, 1], [0] * 2, [1, 1]), ValueError, "3 entries"),
    ((_I([0, 1]), _I([0]), [1, 1, 2], [0, 0, 2], [1, 1, 1]), ValueError, "start <= end"),
    ((_I([0, 1]), _I([0]), [1, 1, 2], [0, 0, 0], [1, 1, 3]), ValueError, "end <= size"),
    ((_I([0, 1]), _I([0]), [1, 2, 2], [0] * 3, [1, 2, 2]), ValueError, "needs 3"),
    ((_I([1, 1]), _I([0]), [1, 1, 2], [0] * 3, [1, 1, 2]), ValueError, "expected 0"),
    ((_I([0, 2, 1]), _I([0]), [1, 2, 2], [0] * 3, [1, 2, 2]), ValueError, "non-decreasing"),
    ((_I([0, 2]), _I([0]), [1, 1, 2], [0] * 3, [1, 1, 2]), ValueError, "2 stored entries"),
    ((_I([0, 1, 0, 1]), _I([0]), [2, 1, 2], [0] * 3, [2, 1, 2]), ValueError, "2 stored entries"),
    ((_I([0, 1]), _I([5]), [1, 1, 2], [0] * 3, [1, 1, 2]), IndexError, r"cols\[0\] = 5"),
    ((_I([0, 1]), _I([-1]), [1, 1, 2], [0] * 3, [1, 1, 2]), IndexError, "out of range"),
    ((_I([0, 1, 2, 3])[::2], _I([0, 1]), [1, 1, 2], [0] * 3, [1, 1, 2]), ValueError, "contiguous"),
])
def test_native_slice_malformed(args, exc, pattern):
    with pytest.raises(exc, match=pattern):
        weft._C.sparse_csr_slice(*args)


@pytest.mark.parametrize("fn, args, exc, pattern", [
    ("softmax", (_I([0, 1]), _I([1], dtype=np.int64)), TypeError, "values has dtype"),
    ("softmax", (_I([0, 1]), _I([1.0], dtype=np.complex128)), TypeError, "values has dtype"),
    ("softmax", (_I([], dtype=np.int64), _I([1.0])), ValueError, "at least one"),
    ("softmax", (_I([0, 2]), _I([1.0])), ValueError, "values has 1"),
    ("softmax", (_I([0, 2, 1]), _I([1.0])), ValueError, "non-decreasing"),
    ("softmax", (_I([0, 1]), _I([[1.0]])), ValueError, "1-D"),
    ("softmax", (_I([0, 1], dtype=np.uint64), _I([1.0])), TypeError, "crows has dtype"),
    ("grad", (_I([0, 1]), _I([1.0]), _I([1.0], dtype=np.float32)), TypeError, "must match"),
    ("grad", (_I([0, 1]), _I([1.0]), _I([1.0, 2.0])), ValueError, "g has 2"),
    ("grad", (_I([1, 1]), _I([1.0]), _I([1.0])), ValueError, "expected 0"),
    ("grad", (_I([0, 2]), _I([1.0, 2.0, 3.0, 4.0])[::2], _I([1.0, 2.0])), ValueError, "contiguous"),
])
def test_native_softmax_malformed(fn, args, exc, pattern):
    f = weft._C.sparse_csr_softmax if fn == "softmax" else weft._C.sparse_csr_softmax_grad
    with pytest.raises(exc, match=pattern):
        f(*args)


@pytest.mark.parametrize("args, exc, pattern", [
    ((_I([0, 1]), _I([1.0], dtype=np.float16)), TypeError, "values has dtype"),
    ((_I([], dtype=np.int64), _I([1.0])), ValueError, "at least one"),
    ((_I([0, 2]), _I([1.0])), ValueError, "values has 1"),
    ((_I([0, 2, 1]), _I([1.0])), ValueError, "non-decreasing"),
    ((_I([1, 1]), _I([1.0])), ValueError, "expected 0"),
    ((_I([0, 1]), _I([[1.0]])), ValueError, "1-D"),
    ((_I([0, 1], dtype=np.uint64), _I([1.0])), TypeError, "crows has dtype"),
    ((_I([0, 2]), _I([1.0, 2.0, 3.0, 4.0])[::2]), ValueError, "contiguous"),
])
def test_native_row_sums_malformed(args, exc, pattern):
    with pytest.raises(exc, match=pattern):
        weft._C.sparse_csr_row_sums(*args)


def test_native_slice_thread_count_independent():
    rng = np.random.default_rng(9)
    n, m, nnz = 3000, 2000, 60000
    rows = np.sort(rng.integers(0, n, nnz))
    crows = np.zeros(n + 1, dtype=np.int64)
    np.add.at(crows, rows + 1, 1)
    crows = np.cumsum(crows)
    cols = rng.integers(0, m, nnz)
    args = (crows, cols, [1, n, m], [0, 100, 50], [1, 2900, 1500])
    full = weft._C.sparse_csr_slice(*args)
    k = weft.get_num_threads()
    weft.set_num_threads(1)
    try:
        one = weft._C.sparse_csr_slice(*args)
    finally:
        weft.set_num_threads(k)
    for a, b in zip(full, one):
        np.testing.assert_array_equal(a, b)
    keep = (rows >= 100) & (rows < 2900) & (cols >= 50) & (cols < 1500)
    np.testing.assert_array_equal(full[2], np.nonzero(keep)[0])
    np.testing.assert_array_equal(full[1], cols[keep] - 50)


def test_array_fallback_paths_match_native(monkeypatch):
    """The array-module code (what GPU arrays run) gives the native results on CPU."""
    from weft.sparse import _kernels as K

    rng = np.random.default_rng(11)
    d = rng.standard_normal((2, 5, 6)) * (rng.random((2, 5, 6)) < 0.5)
    csr = S.cast(weft.to_tensor(d).to_sparse_csr(), index_dtype="int32")
    coo = _coo(_coo_parts(rng, [4, 5, 3], 2, 12, np.int64), rng.standard_normal((12, 3)), [4, 5, 3])
    ops = [lambda: S.sum(coo, axis=1), lambda: S.sum(csr, axis=[0, 2]),
           lambda: S.sum(csr, axis=-1), lambda: S.reshape(csr, [6, 10]),
           lambda: S.slice(csr, [1, 2], [1, -4], [4, 100]), lambda: _csr_row_softmax(csr)]
    native = [f() for f in ops]
    monkeypatch.setattr(K, "_HAS_NATIVE", False)
    monkeypatch.setattr(shape_mod, "_HAS_NATIVE", False)
    monkeypatch.setattr(softmax_mod, "_HAS_NATIVE", False)
    for f, want in zip(ops, native):
        got = f()
        assert type(got) is type(want) and got.shape == want.shape
        parts = ("indices",) if got.is_sparse_coo() else ("crows", "cols")
        for p in parts:
            np.testing.assert_array_equal(getattr(got, p)().numpy(), getattr(want, p)().numpy())
        np.testing.assert_allclose(got.values().numpy(), want.values().numpy(), rtol=1e-12)


@st.composite
def raw_csr_cases(draw):
    """CSR built directly: columns unsorted inside rows, duplicates allowed."""
    nd = draw(st.integers(2, 3))
    shape = draw(st.lists(st.integers(1, 4), min_size=nd, max_size=nd))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    b, m, n = ([1] + shape)[-3:]
    counts = rng.integers(0, 4, (b, m))
    crows = np.concatenate([np.concatenate([[0], np.cumsum(c)]) for c in counts])
    nnz = int(counts.sum())
    cols = rng.integers(0, n, nnz)
    vals = rng.standard_normal(nnz)
    idt = draw(st.sampled_from([np.int32, np.int64]))
    x = S.sparse_csr_tensor(crows.astype(idt), cols.astype(idt), vals, shape)
    rows = np.concatenate([np.repeat(np.arange(m), c) for c in counts])
    batch = np.repeat(np.arange(b), counts.sum(axis=1))
    dense = np.zeros((b, m, n))
    np.add.at(dense, (batch, rows, cols), vals)
    return x, dense.reshape(shape)


def _assert_canonical(out):
    b, m = ([1] + out.shape)[-3:-1]
    cr = out.crows().numpy().reshape(b, m + 1)
    cols = out.cols().numpy()
    off = np.concatenate([[0], np.cumsum(cr[:, -1])])
    for i in range(b):
        for r in range(m):
            seg = cols[off[i] + cr[i, r]:off[i] + cr[i, r + 1]]
            assert (np.diff(seg) > 0).all(), f"row {r} of batch {i} is not canonical: {seg}"


@given(raw_csr_cases(), st.data())
def test_unsorted_csr_inputs_give_canonical_outputs(case, data):
    x, dense = case
    nd = x.ndim
    axis = data.draw(st.sampled_from([-1, 0, 1, [0, nd - 1]]))
    s = S.sum(x, axis=axis)
    ax = tuple(a % nd for a in (axis if isinstance(axis, list) else [axis]))
    np.testing.assert_allclose(s.to_dense().numpy(), dense.sum(axis=ax, keepdims=True))
    axes, starts, ends = _windows(list(dense.shape), data)
    sl = S.slice(x, axes, starts, ends)
    np.testing.assert_allclose(sl.to_dense().numpy(), _np_slice(dense, axes, starts, ends))
    r = S.reshape(x, [dense.size // dense.shape[-1], dense.shape[-1]][::-1])
    np.testing.assert_allclose(r.to_dense().numpy(), dense.reshape(r.shape))
    for out in (s, sl, r):
        assert out.crows().dtype == x.crows().dtype
        _assert_canonical(out)


def test_single_batch_csr_has_three_index_rows():
    """A [1, M, N] CSR tensor keeps its batch index when turned into COO indices."""
    d = np.arange(4.0).reshape(1, 2, 2)
    x = weft.to_tensor(d).to_sparse_csr()
    c = S.to_sparse_coo(x)
    assert c.sparse_dim() == 3 and c.indices().numpy().tolist() == [[0, 0, 0], [0, 1, 1], [1, 0, 1]]
    np.testing.assert_array_equal(S.sum(x, axis=[0, 2]).to_dense().numpy(),
                                  d.sum(axis=(0, 2), keepdims=True))


def test_csr_row_sum_of_int32_wraps_as_numpy():
    v = np.array([2 ** 31 - 1, 1, -5], dtype=np.int32)
    x = S.sparse_csr_tensor([0, 2, 3], [0, 1, 0], v, [2, 2])
    got = S.sum(x, axis=-1, dtype="int32").values().numpy()
    want = np.array([v[:2].sum(dtype=np.int32), v[2]], dtype=np.int32)
    np.testing.assert_array_equal(got, want)
    assert S.sum(x, axis=-1).values().numpy().tolist() == [2 ** 31, -5]  # int64 by default
