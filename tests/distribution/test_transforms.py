"""Transforms: round trips, log-det-Jacobians against numerical Jacobians, shapes, and
the observed values and errors of api-distribution.md §3."""
from __future__ import annotations

import numpy as np
import pytest

import weft
import weft.distribution as D

# (transform factory, input generator (rng) -> float64 array of one batch of points,
#  event rank of the domain)
_RNG = np.random.default_rng(0)


def _corr_vec(rng):
    return rng.normal(size=(2, 3))


CASES = {
    "Affine": (lambda: D.AffineTransform(weft.to_tensor(0.5, dtype="float64"),
                                         weft.to_tensor(-2.0, dtype="float64")),
               lambda rng: rng.normal(size=(4,)), 0),
    "Exp": (D.ExpTransform, lambda rng: rng.normal(size=(4,)), 0),
    "Power": (lambda: D.PowerTransform(weft.to_tensor(3.0, dtype="float64")),
              lambda rng: rng.uniform(0.5, 2, size=(4,)), 0),
    "Sigmoid": (D.SigmoidTransform, lambda rng: rng.normal(size=(4,)), 0),
    "Tanh": (D.TanhTransform, lambda rng: rng.normal(size=(4,)), 0),
    "Softplus": (D.SoftplusTransform, lambda rng: rng.normal(size=(4,)), 0),
    "StickBreaking": (D.StickBreakingTransform, lambda rng: rng.normal(size=(2, 3)), 1),
    "Chain": (lambda: D.ChainTransform([D.AffineTransform(0.0, 2.0), D.ExpTransform()]),
              lambda rng: rng.normal(size=(4,)), 0),
    "Independent": (lambda: D.IndependentTransform(D.ExpTransform(), 1),
                    lambda rng: rng.normal(size=(2, 3)), 1),
    "Reshape": (lambda: D.ReshapeTransform((2, 3), (3, 2)),
                lambda rng: rng.normal(size=(4, 2, 3)), 2),
    "Stack": (lambda: D.StackTransform([D.ExpTransform(), D.TanhTransform()], axis=1),
              lambda rng: rng.normal(size=(3, 2)), 0),
    "Cat": (lambda: D.CatTransform([D.ExpTransform(), D.TanhTransform()], axis=-1,
                                   lengths=[2, 1]),
            lambda rng: rng.normal(size=(3, 3)), 0),
    "CorrCholesky": (D.CorrCholeskyTransform, _corr_vec, 1),
}


def _jacobian_logdet(t, x, rank):
    """log|det J| of one event of ``t`` by central differences (float64)."""
    f = lambda v: t.forward(weft.to_tensor(v)).numpy().ravel()  # noqa: E731
    flat = x.ravel()
    cols = []
    for i in range(flat.size):
        e = np.zeros_like(flat)
        e[i] = 1e-6
        cols.append((f((flat + e).reshape(x.shape)) - f((flat - e).reshape(x.shape))) / 2e-6)
    jac = np.stack(cols, 1)
    if jac.shape[0] != jac.shape[1]:   # StickBreaking/CorrCholesky: drop dependent outputs
        return None
    return np.linalg.slogdet(jac)[1]


@pytest.mark.parametrize("name", list(CASES))
def test_round_trip_and_log_det(name):
    make, gen, rank = CASES[name]
    t = make()
    x = gen(np.random.default_rng(1))
    xt = weft.to_tensor(x)
    y = t.forward(xt)
    np.testing.assert_allclose(t.inverse(y).numpy(), x, rtol=1e-6, atol=1e-8)
    assert tuple(y.shape) == t.forward_shape(x.shape)
    assert t.inverse_shape(tuple(y.shape)) == x.shape
    fldj = t.forward_log_det_jacobian(xt).numpy()
    np.testing.assert_allclose(t.inverse_log_det_jacobian(y).numpy(), -fldj, rtol=1e-6,
                               atol=1e-9)
    if name in ("StickBreaking", "CorrCholesky"):
        _check_constrained_logdet(t, x, fldj, name)
        return
    # per-event numerical log-det: events are the trailing `rank` dims
    batch = x.shape[:x.ndim - rank] if rank else x.shape
    if name in ("Stack", "Cat"):   # elementwise parts: the log-det keeps the element dims
        num = np.log(np.abs(np.diag(_full_jac(t, x))))
        np.testing.assert_allclose(fldj.ravel(), num, rtol=1e-5, atol=1e-7)
        return
    for idx in np.ndindex(*batch):
        sub = x[idx] if rank else x[idx]
        if rank == 0:
            num = np.log(abs(_full_jac(t, x)[np.ravel_multi_index(idx, x.shape)] @
                         np.eye(x.size)[np.ravel_multi_index(idx, x.shape)]))
        else:
            num = _jacobian_logdet(_Event(t, x, idx), sub, rank)
        np.testing.assert_allclose(fldj[idx], num, rtol=1e-5, atol=1e-7)


class _Event:
    """``t`` restricted to one event of ``x`` (the other entries fixed)."""

    def __init__(self, t, x, idx):
        self.t, self.x, self.idx = t, x, idx

    def forward(self, v):
        full = self.x.copy()
        full[self.idx] = v.numpy()
        return weft.to_tensor(self.t.forward(weft.to_tensor(full)).numpy()[self.idx])


def _full_jac(t, x):
    flat = x.ravel()
    cols = []
    for i in range(flat.size):
        e = np.zeros_like(flat)
        e[i] = 1e-6
        hi = t.forward(weft.to_tensor((flat + e).reshape(x.shape))).numpy().ravel()
        lo = t.forward(weft.to_tensor((flat - e).reshape(x.shape))).numpy().ravel()
        cols.append((hi - lo) / 2e-6)
    return np.stack(cols, 1)


def _check_constrained_logdet(t, x, fldj, name):
    """Maps onto a lower-dimensional manifold: the log-det is that of the map onto
    the free coordinates (the first K of the simplex, the strict lower triangle)."""
    for b in range(x.shape[0]):
        xb = x[b]
        k = xb.size

        def free(v):
            y = t.forward(weft.to_tensor(v)).numpy()
            if name == "StickBreaking":
                return y[:k]
            n = y.shape[-1]
            r, c = np.tril_indices(n, -1)
            return y[r, c]
        cols = []
        for i in range(k):
            e = np.zeros(k)
            e[i] = 1e-6
            cols.append((free(xb + e) - free(xb - e)) / 2e-6)
        jac = np.stack(cols, 1)
        if name == "CorrCholesky":
            # the free coordinates of row i are L[i, :i]; the map's log-det is the
            # log-volume on the sphere rows, which torch and weft define through the
            # stick-breaking factors: check it against the triangular Jacobian of
            # x -> (r = tanh x) -> L and the known diagonal structure instead
            y = t.forward(weft.to_tensor(xb)).numpy()
            n = y.shape[-1]
            r, c = np.tril_indices(n, -1)
            # dL[i, j]/dz[i, j] for z the tanh values: prod_{k<j} sqrt(1 - z_ik^2);
            # log-det = sum over the strict lower triangle of that plus the tanh part
            z = np.tanh(xb)
            zm = np.zeros((n, n))
            zm[r, c] = z
            logs = 0.0
            for i, j in zip(r, c):
                logs += 0.5 * np.sum(np.log1p(-zm[i, :j] ** 2))
            logs += np.sum(np.log1p(-z ** 2))
            np.testing.assert_allclose(fldj[b], logs, rtol=1e-6)
            continue
        np.testing.assert_allclose(fldj[b], np.linalg.slogdet(jac)[1], rtol=1e-5)


# ----------------------------------------------------------------------------------
# observed values and errors (api-distribution.md §3)

def test_observed_values():
    x = weft.to_tensor(1.0)
    chain = D.ChainTransform([D.AffineTransform(0.0, 2.0), D.ExpTransform()])
    assert abs(chain.forward_log_det_jacobian(x).item() - 2.6931) < 1e-4
    p = D.PowerTransform(3.0)
    assert abs(p.forward_log_det_jacobian(weft.to_tensor(2.0)).item() - 2.4849) < 1e-4
    assert D.StickBreakingTransform().forward_shape((4, 3)) == (4, 4)
    assert D.StickBreakingTransform().inverse_shape((4, 3)) == (4, 2)
    assert D.StickBreakingTransform().forward_log_det_jacobian(weft.ones([4, 3])).shape == [4]
    it = D.IndependentTransform(D.ExpTransform(), 1)
    assert it.forward_log_det_jacobian(weft.ones([4, 3])).shape == [4]
    rt = D.ReshapeTransform((3,), (3, 1))
    assert rt.forward_log_det_jacobian(weft.ones([4, 3])).shape == [4]
    neg, pos = D.AbsTransform().inverse(weft.to_tensor([2.0]))
    assert neg.numpy().tolist() == [-2.0] and pos.numpy().tolist() == [2.0]
    z0, z1 = D.AbsTransform().inverse_log_det_jacobian(weft.to_tensor([2.0]))
    assert z0.shape == [] and z0.item() == 0.0 and z1.item() == 0.0
    with np.errstate(divide="ignore"):
        assert D.TanhTransform().inverse(weft.to_tensor([1.0, -1.0])).numpy().tolist() == \
            [np.inf, -np.inf]
        assert D.SigmoidTransform().inverse(weft.to_tensor(0.0)).item() == -np.inf
    a = D.AffineTransform(1.0, 2.0).forward_log_det_jacobian(weft.zeros([3]))
    assert a.shape == [3]


def test_types():
    T = D.Type
    assert D.ChainTransform([D.ExpTransform(), D.TanhTransform()])._type == T.BIJECTION
    assert D.ChainTransform([D.ExpTransform(), D.SigmoidTransform()])._type == T.INJECTION
    assert D.ChainTransform([D.ExpTransform(), D.AbsTransform()])._type == T.OTHER
    assert D.StackTransform([D.ExpTransform(), D.AbsTransform()])._type == T.OTHER
    assert D.SigmoidTransform._type == T.INJECTION and D.SoftmaxTransform._type == T.OTHER
    assert T.is_injective(T.INJECTION) and not T.is_injective(T.SURJECTION)


def test_call_forms():
    t = D.ExpTransform()
    assert isinstance(t(D.Normal(0.0, 1.0)), D.TransformedDistribution)
    ch = t(D.AffineTransform(0.0, 2.0))   # t applied first
    assert isinstance(ch, D.ChainTransform)
    assert abs(ch.forward(weft.to_tensor(1.0)).item() - 2 * np.e) < 1e-5
    assert abs(t(weft.to_tensor(0.0)).item() - 1.0) < 1e-7


def test_errors():
    with pytest.raises(NotImplementedError, match="Forward not implemented"):
        D.Transform().forward(weft.to_tensor(1.0))
    with pytest.raises(NotImplementedError, match="non-injective"):
        D.AbsTransform().forward_log_det_jacobian(weft.to_tensor(1.0))
    with pytest.raises(NotImplementedError):
        D.SoftmaxTransform().forward_log_det_jacobian(weft.ones([3]))
    with pytest.raises(NotImplementedError):
        D.SoftmaxTransform().inverse_log_det_jacobian(weft.ones([3]))
    with pytest.raises(TypeError, match="loc"):
        D.AffineTransform("a", 1.0)
    with pytest.raises(TypeError):
        D.PowerTransform(None)
    with pytest.raises(TypeError):
        D.ChainTransform(D.ExpTransform())
    with pytest.raises(ValueError, match="grater than zero"):
        D.IndependentTransform(D.ExpTransform(), 0)
    with pytest.raises(ValueError, match=r"3!=4"):
        D.ReshapeTransform((3,), (2, 2))
    with pytest.raises(ValueError, match="Event shape mismatch"):
        D.ReshapeTransform((3, 1), (3,)).forward_shape((4, 3))
    st = D.StackTransform([D.ExpTransform(), D.ExpTransform()], axis=1)
    with pytest.raises(ValueError, match="Input size along 1"):
        st.forward(weft.ones([2, 3]))
    with pytest.raises(NotImplementedError):
        D.StackTransform([D.ExpTransform(), D.AbsTransform()], axis=0).inverse(weft.ones([2]))


def test_softmax_lower_cholesky_positive_definite():
    x = weft.to_tensor(np.random.default_rng(0).normal(size=(2, 3)))
    y = D.SoftmaxTransform().forward(x)
    np.testing.assert_allclose(y.numpy().sum(-1), 1.0)
    np.testing.assert_allclose(D.SoftmaxTransform().forward(D.SoftmaxTransform().inverse(y))
                               .numpy(), y.numpy())
    m = weft.to_tensor(np.random.default_rng(1).normal(size=(2, 3, 3)))
    lc = D.LowerCholeskyTransform()
    L = lc.forward(m)
    assert bool(D.constraints.lower_cholesky.check(L).all())
    np.testing.assert_allclose(lc.forward(lc.inverse(L)).numpy(), L.numpy())
    pd = D.PositiveDefiniteTransform()
    S = pd.forward(m)
    assert bool(D.constraints.positive_definite.check(S).all())
    np.testing.assert_allclose(pd.forward(pd.inverse(S)).numpy(), S.numpy(), rtol=1e-10)


def test_biject_to_and_transform_to():
    C = D.constraints
    rng = np.random.default_rng(2)
    for c in (C.real, C.positive, C.greater_than(1.5), C.less_than(-1.0),
              C.interval(-1.0, 3.0), C.unit_interval, C.simplex):
        for reg in (D.biject_to, D.transform_to):
            t = reg(c)
            x = weft.to_tensor(rng.normal(size=(3, 4)))
            y = t.forward(x)
            assert bool(c.check(y).all()), (c, reg)
    t = D.biject_to(C.corr_cholesky)
    y = t.forward(weft.to_tensor(rng.normal(size=(2, 6))))
    assert bool(C.corr_cholesky.check(y).all())
    with pytest.raises(NotImplementedError):
        D.biject_to(C.lower_cholesky)
    with pytest.raises(TypeError):
        D.biject_to(1.0)


def test_cumulative_distribution_transform():
    t = D.CumulativeDistributionTransform(D.Normal(np.float64(0.0), np.float64(1.0)))
    x = weft.to_tensor([-1.0, 0.0, 2.0], dtype="float64")
    from scipy import stats
    np.testing.assert_allclose(t.forward(x).numpy(), stats.norm.cdf(x.numpy()), rtol=1e-10)
    np.testing.assert_allclose(t.inverse(t.forward(x)).numpy(), x.numpy(), atol=1e-9)
    np.testing.assert_allclose(t.forward_log_det_jacobian(x).numpy(),
                               stats.norm.logpdf(x.numpy()), rtol=1e-10)


@pytest.mark.parametrize("name", list(CASES))
def test_gradients_of_forward_inverse_and_log_det(name):
    make, gen, rank = CASES[name]
    t = make()
    x = weft.to_tensor(gen(np.random.default_rng(2)))
    x.stop_gradient = False
    assert weft.autograd.gradcheck(lambda v: t.forward(v), [x])
    assert weft.autograd.gradcheck(lambda v: t.forward_log_det_jacobian(v), [x])
    y = t.forward(x).detach()
    y.stop_gradient = False
    assert weft.autograd.gradcheck(lambda v: t.inverse(v), [y])


def test_float32_inputs_keep_their_dtype():
    x = weft.to_tensor(np.array([0.3, 1.2], np.float32))
    for t in (D.AffineTransform(0.5, 2.0), D.PowerTransform(2.0), D.ExpTransform(),
              D.SigmoidTransform(), D.TanhTransform(), D.SoftplusTransform()):
        assert t.forward(x).dtype == np.float32, t
        assert t.forward_log_det_jacobian(x).dtype == np.float32, t
