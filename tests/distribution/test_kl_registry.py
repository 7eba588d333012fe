"""The KL registry: dispatch to the most specific pair, the ambiguity warning, the
errors of api-distribution.md §4, user registrations, the exponential-family
fallback."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import weft
import weft.distribution as D
from weft.distribution import kl as K


@pytest.fixture
def registry():
    """Registrations made by a test are removed afterwards."""
    saved = dict(K._REGISTRY)
    yield
    K._REGISTRY.clear()
    K._REGISTRY.update(saved)
    K._CACHE.clear()


class A(D.Normal):
    pass


class B(A):
    pass


def _const(v):
    return lambda p, q: weft.full([], v)


def test_most_specific_pair_wins(registry):
    D.register_kl(A, A)(_const(1.0))
    D.register_kl(B, A)(_const(2.0))
    D.register_kl(B, B)(_const(3.0))
    a, b = A(0.0, 1.0), B(0.0, 1.0)
    assert D.kl_divergence(a, a).item() == 1.0
    assert D.kl_divergence(b, a).item() == 2.0
    assert D.kl_divergence(b, b).item() == 3.0
    assert D.kl_divergence(a, b).item() == 1.0     # (A, A) matches via the subclass
    assert a.kl_divergence(b).item() == 1.0        # the method uses the same registry


def test_user_pair_for_subclasses_wins_over_base_pair(registry):
    D.register_kl(D.Normal, D.Normal)(_const(7.0))
    D.register_kl(A, A)(_const(1.0))
    assert D.kl_divergence(A(0.0, 1.0), A(0.0, 1.0)).item() == 1.0
    assert D.kl_divergence(A(0.0, 1.0), D.Normal(0.0, 1.0)).item() == 7.0


def test_ambiguity_warns_and_uses_left_first(registry):
    D.register_kl(B, A)(_const(1.0))
    D.register_kl(A, B)(_const(2.0))
    with pytest.warns(RuntimeWarning, match=r"Ambiguous kl_divergence\(B, B\)"):
        assert D.kl_divergence(B(0.0, 1.0), B(0.0, 1.0)).item() == 1.0


def test_unambiguous_dispatch_does_not_warn(registry):
    D.register_kl(A, A)(_const(1.0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        D.kl_divergence(B(0.0, 1.0), B(0.0, 1.0))


def test_errors(registry):
    with pytest.raises(NotImplementedError, match="No KL.*A.*Independent"):
        D.kl_divergence(A(0.0, 1.0), D.Independent(D.Normal(weft.zeros([2]), 1.0), 1))
    with pytest.raises(TypeError, match="register_kl"):
        A(0.0, 1.0).kl_divergence(D.Independent(D.Normal(weft.zeros([2]), 1.0), 1))
    with pytest.raises(TypeError, match="subclass of Distribution"):
        D.register_kl(int, A)
    with pytest.raises(TypeError):
        D.register_kl(1, A)
    with pytest.raises(TypeError, match="q must be a Distribution"):
        D.kl_divergence(A(0.0, 1.0), 3.0)


class _Exp(D.ExponentialFamily):
    """A minimal exponential family (the exponential law, natural parameter -rate) that
    only defines the three hooks, to test the generic entropy and Bregman KL."""

    def __init__(self, rate):
        self.rate = weft.to_tensor(rate, dtype="float64")
        self._dtype = self.rate._data.dtype
        super().__init__(tuple(self.rate.shape))

    @property
    def _natural_parameters(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -(-x).log()

    @property
    def _mean_carrier_measure(self):
        return 0.0


class _Exp2(_Exp):
    pass


def test_exponential_family_fallback():
    r1, r2 = np.array([0.5, 2.0]), np.array([1.5, 0.7])
    p, q = _Exp(r1), _Exp(r2)
    want = np.log(r1) - np.log(r2) + r2 / r1 - 1
    np.testing.assert_allclose(D.kl_divergence(p, q).numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(p.entropy().numpy(), 1 - np.log(r1), rtol=1e-12)
    with pytest.raises(NotImplementedError):
        D.kl_divergence(_Exp(r1), _Exp2(r2))     # only for the same type


def test_exponential_family_fallback_is_differentiable():
    rate = weft.to_tensor([0.5, 2.0], dtype="float64", stop_gradient=False)

    def kl(r):
        p = _Exp.__new__(_Exp)
        p.rate, p._dtype = r, r._data.dtype
        D.Distribution.__init__(p, tuple(r.shape))
        return D.kl_divergence(p, _Exp(np.array([1.5, 0.7])))

    assert weft.autograd.gradcheck(kl, [rate])
