"""Constraints: check() against straightforward numpy predicates."""
from __future__ import annotations

import numpy as np
import pytest

import weft
from weft.distribution import constraints as C

X = np.array([-2.0, -0.5, 0.0, 0.3, 1.0, 2.0, np.nan])


@pytest.mark.parametrize("c,pred", [
    (C.real, lambda x: ~np.isnan(x)),
    (C.positive, lambda x: x > 0),
    (C.nonnegative, lambda x: x >= 0),
    (C.greater_than(0.3), lambda x: x > 0.3),
    (C.greater_than_eq(0.3), lambda x: x >= 0.3),
    (C.less_than(0.3), lambda x: x < 0.3),
    (C.interval(-0.5, 1.0), lambda x: (x >= -0.5) & (x <= 1.0)),
    (C.half_open_interval(-0.5, 1.0), lambda x: (x >= -0.5) & (x < 1.0)),
    (C.unit_interval, lambda x: (x >= 0) & (x <= 1)),
    (C.boolean, lambda x: (x == 0) | (x == 1)),
    (C.nonnegative_integer, lambda x: (x >= 0) & (x % 1 == 0)),
    (C.positive_integer, lambda x: (x >= 1) & (x % 1 == 0)),
    (C.integer_interval(0, 1), lambda x: (x >= 0) & (x <= 1) & (x % 1 == 0)),
])
def test_scalar_constraints(c, pred):
    with np.errstate(invalid="ignore"):
        want = pred(X)
        got = c.check(weft.to_tensor(X)).numpy()
    np.testing.assert_array_equal(got, want)
    assert c.event_dim == 0


def test_event_constraints():
    s = np.array([[0.2, 0.8], [0.5, 0.6], [-0.1, 1.1]])
    np.testing.assert_array_equal(C.simplex.check(weft.to_tensor(s)).numpy(),
                                  [True, False, False])
    assert C.simplex.event_dim == 1
    np.testing.assert_array_equal(C.real_vector.check(weft.to_tensor(
        np.array([[1.0, np.nan], [1.0, 2.0]]))).numpy(), [False, True])
    oh = np.array([[0.0, 1.0], [1.0, 1.0]])
    np.testing.assert_array_equal(C.one_hot.check(weft.to_tensor(oh)).numpy(), [True, False])
    m = np.array([[[1.0, 0.0], [0.5, 2.0]], [[1.0, 0.3], [0.5, 2.0]], [[-1.0, 0.0], [0.5, 2.0]]])
    np.testing.assert_array_equal(C.lower_triangular.check(weft.to_tensor(m)).numpy(),
                                  [True, False, True])
    np.testing.assert_array_equal(C.lower_cholesky.check(weft.to_tensor(m)).numpy(),
                                  [True, False, False])
    pd = np.array([[[2.0, 0.5], [0.5, 1.0]], [[1.0, 2.0], [2.0, 1.0]]])
    np.testing.assert_array_equal(C.positive_definite.check(weft.to_tensor(pd)).numpy(),
                                  [True, False])
    np.testing.assert_array_equal(C.symmetric.check(weft.to_tensor(pd)).numpy(), [True, True])
    corr = np.array([[[1.0, 0.0], [0.6, 0.8]], [[1.0, 0.0], [0.6, 0.9]]])
    np.testing.assert_array_equal(C.corr_cholesky.check(weft.to_tensor(corr)).numpy(),
                                  [True, False])
    ind = C.independent(C.positive, 1)
    assert ind.event_dim == 1
    np.testing.assert_array_equal(ind.check(weft.to_tensor([[1.0, 2.0], [1.0, -2.0]])).numpy(),
                                  [True, False])
    mn = C.multinomial(3)
    np.testing.assert_array_equal(mn.check(weft.to_tensor([[1.0, 2.0], [2.0, 2.0]])).numpy(),
                                  [True, False])
    cat = C.cat([C.positive, C.real], dim=0, lengths=[1, 1])
    np.testing.assert_array_equal(cat.check(weft.to_tensor([-1.0, -1.0])).numpy(),
                                  [False, True])
    st = C.stack([C.positive, C.real], dim=0)
    np.testing.assert_array_equal(st.check(weft.to_tensor([-1.0, -1.0])).numpy(),
                                  [False, True])


def test_dependent():
    assert C.is_dependent(C.dependent) and not C.is_dependent(C.real)
    with pytest.raises(ValueError):
        C.dependent.check(weft.ones([1]))
