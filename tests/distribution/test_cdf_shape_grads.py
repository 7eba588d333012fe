"""cdf/icdf gradients in the shape parameters of the families built on the regularized
incomplete beta (StudentT, FisherSnedecor, Binomial, NegativeBinomial): gradcheck in
float64 and central differences of scipy.stats; Beta's, which api-distribution.md §2
defines as raising, raise."""
import numpy as np
import pytest
import scipy.special as sps
from scipy import stats

import weft
import weft.distribution as D
from weft.autograd import gradcheck, gradgradcheck


def _leaf(v):
    return weft.to_tensor(np.asarray(v, dtype=np.float64), stop_gradient=False)


def _const(v):
    return weft.to_tensor(np.asarray(v, dtype=np.float64))


def _fd(f, params, i, rel=1e-6):
    """Central difference of the scipy function ``f(*params)`` in parameter ``i``."""
    h = rel * np.abs(params[i])
    up = [p + h if k == i else p for k, p in enumerate(params)]
    dn = [p - h if k == i else p for k, p in enumerate(params)]
    return (f(*up) - f(*dn)) / (2 * h)


DF = [0.7, 3.0, 45.0, 1500.0]
LOC, SCALE = [0.1, -0.3, 0.5, 0.0], [1.2, 0.6, 2.0, 1.0]


def test_student_t_cdf_and_icdf_gradients():
    df, loc, sc = _leaf(DF), _leaf(LOC), _leaf(SCALE)
    x, q = _const([-1.5, 0.4, 3.0, -0.2]), _const([0.1, 0.5, 0.97, 0.3])
    assert gradcheck(lambda df, loc, sc: D.StudentT(df, loc, sc).cdf(x), (df, loc, sc))
    assert gradcheck(lambda df, loc, sc: D.StudentT(df, loc, sc).icdf(q), (df, loc, sc))
    assert gradgradcheck(lambda df: D.StudentT(df, loc, sc).cdf(x), (df,))
    p = [np.asarray(v) for v in (DF, LOC, SCALE)]
    (g,) = weft.grad(D.StudentT(df, loc, sc).cdf(x).sum(), [df])
    want = _fd(lambda d, m, s: stats.t.cdf(x.numpy(), d, m, s), p, 0)
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-6, atol=1e-12)
    (g,) = weft.grad(D.StudentT(df, loc, sc).icdf(q).sum(), [df])
    want = _fd(lambda d, m, s: stats.t.ppf(q.numpy(), d, m, s), p, 0)
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-6, atol=1e-12)


def test_fisher_snedecor_cdf_and_icdf_gradients():
    d1, d2 = _leaf([1.5, 4.0, 30.0, 600.0]), _leaf([2.5, 6.0, 9.0, 300.0])
    x, q = _const([0.3, 1.0, 2.5, 1.05]), _const([0.1, 0.5, 0.9, 0.6])
    assert gradcheck(lambda a, b: D.FisherSnedecor(a, b).cdf(x), (d1, d2))
    assert gradcheck(lambda a, b: D.FisherSnedecor(a, b).icdf(q), (d1, d2))
    assert gradgradcheck(lambda a, b: D.FisherSnedecor(a, b).cdf(x), (d1, d2))
    p = [d1.numpy(), d2.numpy()]
    got = weft.grad(D.FisherSnedecor(d1, d2).cdf(x).sum(), [d1, d2])
    for i in range(2):
        want = _fd(lambda a, b: stats.f.cdf(x.numpy(), a, b), p, i)
        np.testing.assert_allclose(got[i].numpy(), want, rtol=1e-6, atol=1e-12)
    got = weft.grad(D.FisherSnedecor(d1, d2).icdf(q).sum(), [d1, d2])
    for i in range(2):
        want = _fd(lambda a, b: stats.f.ppf(q.numpy(), a, b), p, i)
        np.testing.assert_allclose(got[i].numpy(), want, rtol=1e-6, atol=1e-12)


def test_count_families_cdf_gradients():
    n, p = _leaf([5.0, 10.0, 3.0, 40.0]), _leaf([0.3, 0.6, 0.5, 0.45])
    k = _const([2.0, 4.0, 1.0, 17.0])
    assert gradcheck(lambda p: D.Binomial(n, p).cdf(k), (p,))
    # total_count (integral, so gradcheck cannot perturb it) through the continuous
    # extension I_{1-p}(n - k, k + 1), against scipy's incomplete beta differenced
    (g,) = weft.grad(D.Binomial(n, p).cdf(k).sum(), [n])
    want = _fd(lambda nn: sps.betainc(nn - k.numpy(), k.numpy() + 1.0, 1.0 - p.numpy()),
               [n.numpy()], 0)
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-6, atol=1e-12)
    r = _leaf([0.5, 3.0, 12.0, 2.0])
    assert gradcheck(lambda r, p: D.NegativeBinomial(r, probs=p).cdf(k), (r, p))
    # against the incomplete beta itself, differenced by scipy
    (g,) = weft.grad(D.NegativeBinomial(r, probs=p).cdf(k).sum(), [r])
    want = _fd(lambda rr: stats.nbinom.cdf(k.numpy(), rr, 1.0 - p.numpy()), [r.numpy()], 0)
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-6, atol=1e-12)


def test_beta_cdf_and_icdf_refuse_parameter_gradients_as_the_spec_says():
    a, b = _leaf([2.0, 0.5]), _leaf([3.0, 1.5])
    v = _leaf([0.4, 0.7])
    d = D.Beta(a, b)
    for method, arg in (("cdf", v), ("icdf", v)):
        out = getattr(d, method)(arg).sum()
        for param in (a, b):
            with pytest.raises(NotImplementedError, match=f"Beta.{method}: the gradient with "
                                                          "respect to alpha and beta"):
                weft.grad(out, [param], retain_graph=True)
        # the value gradient is there: the density, and its reciprocal at the quantile
        (g,) = weft.grad(out, [v])
        z = d.icdf(v).detach().numpy()
        dens = stats.beta.pdf(v.numpy() if method == "cdf" else z, a.detach().numpy(),
                              b.detach().numpy())
        np.testing.assert_allclose(g.numpy(), dens if method == "cdf" else 1.0 / dens,
                                   rtol=1e-10)
    # under no_grad nothing is recorded, so nothing is refused either
    with weft.no_grad():
        np.testing.assert_allclose(D.Beta(a, b).cdf(v).numpy(),
                                   stats.beta.cdf([0.4, 0.7], [2.0, 0.5], [3.0, 1.5]), rtol=1e-12)
    # constant parameters: no refusal, the same values as scipy
    d = D.Beta(a.detach(), b.detach())
    np.testing.assert_allclose(d.cdf(v.detach()).numpy(),
                               stats.beta.cdf([0.4, 0.7], [2.0, 0.5], [3.0, 1.5]), rtol=1e-12)
    # the Beta CDF as a function of its shapes is weft.betainc, which is differentiable
    assert gradcheck(lambda a, b: weft.betainc(a, b, v.detach()), (a, b))
    assert gradcheck(lambda a, b: weft.betaincinv(a, b, v.detach()), (a, b))


def test_student_t_at_the_median_has_finite_gradients():
    # value == loc (cdf) and q == 1/2 (icdf): the incomplete beta's chain rule would be
    # inf * 0 there; the gradient is the density (its reciprocal) and 0 in df
    df, loc, sc = _leaf([0.5, 4.0]), _leaf([1.0, -2.0]), _leaf([2.0, 0.5])
    v = _leaf([1.0, -2.0])
    got = weft.grad(D.StudentT(df, loc, sc).cdf(v).sum(), [df, loc, sc, v])
    dens = stats.t.pdf(0.0, df.numpy()) / sc.numpy()
    np.testing.assert_allclose(got[0].numpy(), 0.0, atol=0)
    np.testing.assert_allclose(got[1].numpy(), -dens, rtol=1e-12)
    np.testing.assert_allclose(got[2].numpy(), 0.0, atol=0)
    np.testing.assert_allclose(got[3].numpy(), dens, rtol=1e-12)
    q = _leaf([0.5, 0.5])
    got = weft.grad(D.StudentT(df, loc, sc).icdf(q).sum(), [df, loc, sc, q])
    np.testing.assert_allclose([g.numpy() for g in got[:3]], [[0, 0], [1, 1], [0, 0]], atol=0)
    np.testing.assert_allclose(got[3].numpy(), 1.0 / dens, rtol=1e-12)
    # and the second derivatives stay those of the smooth function
    assert gradgradcheck(lambda df, v: D.StudentT(df, loc, sc).cdf(v), (df, v))
