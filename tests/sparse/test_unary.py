"""The zero-preserving unary sparse ops and pow (api-sparse.md §3.1, §3.2): the table
against the spec, out-of-domain values, duplicate handling and dtype errors. Values,
patterns, dtypes and masked gradients of every op are checked by the op database
(tests/opdb/sparse.py, run by tests/test_ops.py)."""
import numpy as np
import pytest

import weft
from weft import sparse as S
from weft.sparse import unary as U

from .test_elementwise import make

NUMPY = dict(sin=np.sin, tan=np.tan, asin=np.arcsin, atan=np.arctan, sinh=np.sinh,
             tanh=np.tanh, asinh=np.arcsinh, atanh=np.arctanh, sqrt=np.sqrt, square=np.square,
             log1p=np.log1p, abs=np.abs, neg=np.negative, deg2rad=np.deg2rad,
             rad2deg=np.rad2deg, expm1=np.expm1)


def test_table_covers_the_spec():
    assert sorted(r[0] for r in U._TABLE) == sorted(NUMPY)
    assert all(name in S.__all__ for name in NUMPY) and "pow" in S.__all__


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


def test_real_only_ops_reject_complex_with_unsupported_dtype_error():
    # regression: the dense op's plain TypeError used to pass through (api-sparse.md §0)
    for fmt in ("coo", "csr"):
        x, _, _ = make(np.random.default_rng(1), fmt, [3, 4], 0.5, "complex64")
        for op in ("deg2rad", "rad2deg"):
            with pytest.raises(weft.UnsupportedDtypeError, match=f"{op}: x must be a real"):
                getattr(S, op)(x)

