"""The zero-preserving unary sparse ops and pow (api-sparse.md §3.1, §3.2): values
against numpy on the dense form, pattern kept, dtype rules, masked gradients."""
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import weft
from weft import sparse as S
from weft.autograd import gradcheck, gradgradcheck
from weft.sparse import unary as U

from .test_elementwise import make, stored

NUMPY = dict(sin=np.sin, tan=np.tan, asin=np.arcsin, atan=np.arctan, sinh=np.sinh,
             tanh=np.tanh, asinh=np.arcsinh, atanh=np.arctanh, sqrt=np.sqrt, square=np.square,
             log1p=np.log1p, abs=np.abs, neg=np.negative, deg2rad=np.deg2rad,
             rad2deg=np.rad2deg, expm1=np.expm1)
KEEP_INT = {"abs", "neg", "square"}
# ops whose dense weft op takes complex values (deg2rad/rad2deg are real-only)
COMPLEX = sorted(set(NUMPY) - {"deg2rad", "rad2deg"})


def test_table_covers_the_spec():
    assert sorted(r[0] for r in U._TABLE) == sorted(NUMPY)
    assert all(name in S.__all__ for name in NUMPY) and "pow" in S.__all__


@settings(derandomize=True, max_examples=80, deadline=None)
@given(op=st.sampled_from(sorted(NUMPY)),
       case=st.sampled_from([("coo", [5, 4], 2), ("coo", [3, 4, 2], 2), ("csr", [5, 4], 2),
                             ("csr", [2, 3, 4], 3), ("coo", [0, 2], 2)]),
       density=st.sampled_from([0.0, 0.3, 1.0]), dup=st.booleans(),
       itype=st.sampled_from([np.int32, np.int64]),
       dtype=st.sampled_from(["float32", "float64", "complex128", "int64"]),
       seed=st.integers(0, 999))
def test_unary_matches_numpy(op, case, density, dup, itype, dtype, seed):
    assume(dtype != "complex128" or op in COMPLEX)  # the others have no complex dense form
    fmt, shape, sd = case
    rng = np.random.default_rng(seed)
    x, xd, coords = make(rng, fmt, shape, density, dtype, itype, dup, sd)
    if dtype != "int64" and op in ("asin", "atanh"):
        x = x._with_values(weft.to_tensor(x.values().numpy() * 0.2))
        xd = xd * 0.2
    z = getattr(S, op)(x)
    if dtype == "int64":
        want = np.dtype("int64") if op in KEEP_INT else weft.get_default_dtype()
    elif dtype == "complex128" and op == "abs":
        want = np.dtype("float64")
    else:
        want = np.dtype(dtype)
    assert z.dtype == want and type(z) is type(x) and z.shape == x.shape
    with np.errstate(all="ignore"):
        ref = NUMPY[op](xd.astype(np.float32) if dtype == "int64" and op not in KEEP_INT else xd)
    tol = 1e-5 if np.dtype(want) in (np.float32, np.complex64) else 1e-12
    np.testing.assert_allclose(z.to_dense().numpy(), ref, rtol=tol, atol=tol, equal_nan=True)
    assert sorted(set(stored(z).tolist())) == sorted(coords)
    if not dup:  # no duplicate to merge: the stored entries are exactly x's
        assert z.nnz() == x.nnz()
    idx = z.indices() if fmt == "coo" else z.cols()
    assert idx.dtype == np.dtype(itype)


def test_pattern_kept_and_out_of_domain_stays_stored():
    x = S.sparse_coo_tensor([[0, 1, 3]], [-1.0, 0.0, 4.0], [5])
    for op, want in (("sqrt", [np.nan, 0.0, 2.0]), ("atanh", [-np.inf, 0.0, np.nan]),
                     ("log1p", [-np.inf, 0.0, np.log(5.0)])):
        with np.errstate(all="ignore"):
            z = getattr(S, op)(x)
        assert z.indices().tolist() == [[0, 1, 3]] and z.nnz() == 3
        np.testing.assert_allclose(z.values().numpy(), want, equal_nan=True)


def test_linear_ops_keep_duplicates_nonlinear_merge_them():
    x = S.sparse_coo_tensor([[1, 0, 1]], [1.0, 2.0, 3.0], [3])
    n = S.neg(x)
    assert n.indices().tolist() == [[1, 0, 1]] and n.values().tolist() == [-1.0, -2.0, -3.0]
    q = S.square(x)  # (1 + 3)^2, not 1^2 + 3^2
    assert q.to_dense().tolist() == [4.0, 16.0, 0.0] and q.is_coalesced()


@pytest.mark.parametrize("factor", [2, 3, 0.5, 0, -1, -1.5, 1])
@pytest.mark.parametrize("fmt", ["coo", "csr"])
def test_pow(factor, fmt):
    rng = np.random.default_rng(4)
    x, xd, coords = make(rng, fmt, [4, 5], 0.5)
    x = x._with_values(weft.to_tensor(np.abs(x.values().numpy()) + 0.5))
    z = S.pow(x, factor)
    dense = x.to_dense().numpy()
    ref = np.where(dense != 0, np.abs(dense) ** factor, 0.0)  # implicit zeros stay 0
    np.testing.assert_allclose(z.to_dense().numpy(), ref, rtol=1e-12)
    assert sorted(stored(z).tolist()) == sorted(coords)
    assert gradcheck(lambda a: S.pow(a, factor), (_leaf(x),), masked=True)
    assert gradgradcheck(lambda a: S.pow(a, factor), (_leaf(x),), masked=True)


def test_pow_dtypes_and_errors():
    xi = S.sparse_coo_tensor([[0, 2]], [2, 3], [4])
    assert S.pow(xi, 2).dtype == np.int64 and S.pow(xi, 2).values().tolist() == [4, 9]
    assert S.pow(xi, 0.5).dtype == weft.get_default_dtype()
    with pytest.raises(TypeError, match="factor"):
        S.pow(xi, "2")
    with pytest.raises(TypeError, match="factor"):
        S.pow(xi, True)


def test_real_only_ops_reject_complex_with_unsupported_dtype_error():
    # regression: the dense op's plain TypeError used to pass through (api-sparse.md §0)
    for fmt in ("coo", "csr"):
        x, _, _ = make(np.random.default_rng(1), fmt, [3, 4], 0.5, "complex64")
        for op in ("deg2rad", "rad2deg"):
            with pytest.raises(weft.UnsupportedDtypeError, match=f"{op}: x must be a real"):
                getattr(S, op)(x)


def test_dense_input_and_non_tensor():
    for op in list(NUMPY):
        with pytest.raises(NotImplementedError):
            getattr(S, op)(weft.ones([2, 2]))
        with pytest.raises(TypeError):
            getattr(S, op)([1.0, 2.0])
    with pytest.raises(NotImplementedError):
        S.pow(weft.ones([2]), 2)


def _leaf(x):
    v = x.values().numpy()
    if x.is_sparse_coo():
        return S.sparse_coo_tensor(x.indices(), v, x.shape, stop_gradient=False)
    return S.sparse_csr_tensor(x.crows(), x.cols(), v, x.shape, stop_gradient=False)


@pytest.mark.parametrize("op, dtype", [(op, "float64") for op in sorted(NUMPY)]
                         + [(op, "complex128") for op in COMPLEX])
@pytest.mark.parametrize("fmt, shape, sd", [("coo", [4, 3], 2), ("coo", [3, 3, 2], 2),
                                            ("csr", [4, 3], 2), ("csr", [2, 3, 3], 3)])
def test_unary_gradcheck(op, fmt, shape, sd, dtype):
    rng = np.random.default_rng(8)
    x, _, _ = make(rng, fmt, shape, 0.6, dtype, dup=fmt == "coo", sd=sd)
    v = x.values().numpy()
    # keep values inside every op's domain and away from the kinks of abs/sqrt
    r = 0.3 + 0.4 * np.abs(v) / (1 + np.abs(v))
    if dtype == "complex128":  # angles within ±1 rad: clear of every branch cut
        v = r * np.exp(1j * np.tanh(v.imag))
    else:
        v = r if op in ("sqrt", "log1p") else r * np.where(v < 0, -1, 1)
    x = _leaf(x._with_values(weft.to_tensor(v.astype(dtype))))
    f = getattr(S, op)
    assert gradcheck(f, (x,), masked=True)
    assert gradgradcheck(f, (x,), masked=True)
    y = f(x)
    y.values().sum().backward() if dtype == "float64" else \
        weft.real(y.values()).sum().backward()
    assert type(x.grad) is type(x) and x.grad.nnz() == x.nnz()
