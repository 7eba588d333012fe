"""OpInfo entries for weft/ops/special.py (error, gamma and Bessel families, sinc, logit)."""
import numpy as np
import scipy.special as sps

import weft
from tests.opinfo import (FLOATS, ErrorInput, OpInfo, SampleInput, make_arg, unary_samples)


def _keep(f):
    """A scipy reference cast back to the input's dtype (scipy may widen float32)."""
    def ref(x, *args, **kw):
        return np.asarray(f(x, *args, **kw)).astype(x.dtype)
    return ref


def _real_errors(op):
    def gen(rng):
        yield ErrorInput(SampleInput(make_arg((3,), "complex64", rng)), TypeError, "real tensor")
        yield ErrorInput(SampleInput("abc"), TypeError, "Tensor")
    return gen


def _unary(name, ref, low, high, method=True, **kw):
    return OpInfo(name, getattr(weft, name), _keep(ref), unary_samples(low, high),
                  dtypes=FLOATS, method=name if method else None,
                  error_inputs=_real_errors(name), **kw)


def _polygamma_samples(dtype, rng):
    for n in (0, 1, 2, 3):
        yield SampleInput(make_arg((3, 4), dtype, rng, 0.5, 3.0), n, name=f"n={n}")
    yield SampleInput(make_arg((), dtype, rng, 0.5, 3.0), 1, name="0-D")
    yield SampleInput(make_arg((0, 2), dtype, rng, 0.5, 3.0), 2, name="empty")
    yield SampleInput(make_arg((2, 3), dtype, rng, 0.5, 3.0, noncontig=True), 1,
                      name="noncontig")


def _polygamma_errors(rng):
    x = make_arg((3,), "float64", rng, 0.5, 2.0)
    yield ErrorInput(SampleInput(x, -1), ValueError, "polygamma: n must be >= 0")
    yield ErrorInput(SampleInput(x, 1.5), TypeError, "polygamma: n must be an int")
    yield ErrorInput(SampleInput(make_arg((3,), "complex128", rng), 1), TypeError, "real")


def _multigammaln_samples(dtype, rng):
    for p in (1, 2, 3):
        yield SampleInput(make_arg((3, 4), dtype, rng, 1.2, 4.0), p, name=f"p={p}")
    yield SampleInput(make_arg((), dtype, rng, 1.5, 4.0), 2, name="0-D")
    yield SampleInput(make_arg((0,), dtype, rng, 1.5, 4.0), 2, name="empty")
    yield SampleInput(make_arg((2, 3), dtype, rng, 1.5, 4.0, noncontig=True), 3,
                      name="noncontig")


def _multigammaln_errors(rng):
    x = make_arg((3,), "float64", rng, 2.0, 3.0)
    yield ErrorInput(SampleInput(x, 0), ValueError, "multigammaln: p must be >= 1")
    yield ErrorInput(SampleInput(x, "2"), TypeError, "multigammaln: p must be an int")


def _gammainc_samples(dtype, rng):
    # both arguments are differentiable (the shape by series / continued fraction /
    # quadrature); the "large shape" case reaches the quadrature branch
    def a(s, lo=0.5, hi=3.0, **kw):
        return make_arg(s, dtype, rng, lo, hi, **kw)

    def b(s, lo=0.2, hi=4.0, **kw):
        return make_arg(s, dtype, rng, lo, hi, **kw)

    yield SampleInput(a((4,)), b((4,)), name="same")
    yield SampleInput(a((3, 1)), b((1, 4)), name="broadcast both")
    yield SampleInput(a(()), b((5,)), name="0-D shape")
    yield SampleInput(a((0, 2)), b((2,)), name="empty")
    yield SampleInput(a((2, 3), noncontig=True), b((2, 3), noncontig=True), name="noncontig")
    yield SampleInput(a((3,)), 1.5, name="scalar y")
    yield SampleInput(a((4,), 15.0, 40.0), b((4,), 10.0, 45.0), name="large shape")
    yield SampleInput(a((4,), 0.05, 0.5), b((4,), 1.5, 6.0), name="small shape, upper tail")


def _gammainc_errors(name):
    def gen(rng):
        x = make_arg((3,), "float64", rng, 0.5, 2.0)
        yield ErrorInput(SampleInput(-x, x), ValueError, f"{name}: x must be non-negative")
        yield ErrorInput(SampleInput(x, -x), ValueError, f"{name}: y must be non-negative")
        yield ErrorInput(SampleInput(x, make_arg((4,), "float64", rng, 0.5, 2.0)), ValueError,
                         "broadcast")
        yield ErrorInput(SampleInput(make_arg((3,), "complex128", rng), x), TypeError, "real")
    return gen


def _logit_samples(dtype, rng):
    yield SampleInput(make_arg((3, 4), dtype, rng, 0.05, 0.95), name="no eps")
    # values on both sides of [eps, 1 - eps]: clipped entries have gradient 0
    yield SampleInput(make_arg((3, 4), dtype, rng, -0.3, 1.3), eps=0.2, name="eps=0.2")
    yield SampleInput(make_arg((), dtype, rng, 0.1, 0.9), eps=1e-6, name="0-D")
    yield SampleInput(make_arg((0, 3), dtype, rng, 0.1, 0.9), name="empty")
    yield SampleInput(make_arg((2, 3), dtype, rng, 0.1, 0.9, noncontig=True), name="noncontig")


def _logit_ref(x, eps=None):
    if eps is not None:
        x = np.clip(x, eps, 1 - eps)
    return sps.logit(x).astype(x.dtype)


def _logit_errors(rng):
    x = make_arg((3,), "float64", rng, 0.1, 0.9)
    yield ErrorInput(SampleInput(x, eps=-0.1), ValueError, r"logit: eps must be in \[0, 0.5\]")
    yield ErrorInput(SampleInput(x, eps="a"), TypeError, "logit: eps must be a float")
    yield ErrorInput(SampleInput(make_arg((3,), "complex64", rng)), TypeError, "real")


def _tuple_samples(*ranges, grad_args=None):
    """Samples of an n-ary elementwise op: one value range per operand."""
    def gen(dtype, rng):
        shapes = [[(4,)] * len(ranges), [(3, 1)] + [(1, 4)] * (len(ranges) - 1),
                  [()] + [(5,)] * (len(ranges) - 1), [(0, 2)] + [(2,)] * (len(ranges) - 1)]
        for name, sh in zip(("same", "broadcast", "0-D first", "empty"), shapes):
            yield SampleInput(*[make_arg(s, dtype, rng, lo, hi) for s, (lo, hi) in
                                zip(sh, ranges)], grad_args=grad_args, name=name)
        yield SampleInput(*[make_arg((2, 3), dtype, rng, lo, hi, noncontig=True)
                            for lo, hi in ranges], grad_args=grad_args, name="noncontig")
    return gen


def _nary_errors(op, nargs):
    def gen(rng):
        x = make_arg((3,), "float64", rng, 0.2, 0.8)
        yield ErrorInput(SampleInput(*([x] * (nargs - 1) + [make_arg((4,), "float64", rng)])),
                         ValueError, f"{op}: the shapes of the operands do not broadcast")
        yield ErrorInput(SampleInput(*([make_arg((3,), "complex128", rng)] + [x] * (nargs - 1))),
                         TypeError, "real")
    return gen


def _nary(name, ref, samples, **kw):
    return OpInfo(name, getattr(weft, name),
                  lambda *a: np.asarray(ref(*a)).astype(a[0].dtype), samples, dtypes=FLOATS,
                  error_inputs=_nary_errors(name, kw.pop("nargs", 2)), **kw)


def _betainc_samples(about_mean):
    """Shapes and a last argument (x for betainc, the probability for betaincinv): the
    generic n-ary cases, then the branches of the shape derivatives: small shapes (power
    series), large shapes (continued fraction, both sides of the symmetry) and unequal
    ones; for betainc x lies about the mean a/(a+b), where I is neither 0 nor 1."""
    plain = _tuple_samples((0.5, 3.0), (0.5, 3.0), (0.1, 0.9))

    def gen(dtype, rng):
        yield from plain(dtype, rng)
        for name, (alo, ahi), (blo, bhi) in (("small shapes", (0.05, 0.4), (0.05, 0.4)),
                                             ("large shapes", (20.0, 60.0), (20.0, 60.0)),
                                             ("unequal shapes", (0.3, 1.0), (15.0, 40.0))):
            a, b = make_arg((4,), dtype, rng, alo, ahi), make_arg((4,), dtype, rng, blo, bhi)
            last = make_arg((4,), dtype, rng, 0.3, 0.7)
            if about_mean:
                last = (a / (a + b) * (0.7 + last)).astype(dtype)
            yield SampleInput(a, b, last, name=name)
    return gen


def _log_ndtr_samples(dtype, rng):
    yield from unary_samples(-5.0, 5.0)(dtype, rng)
    # the far lower tail, where ndtr underflows and the log-space derivative matters
    yield SampleInput(make_arg((4,), dtype, rng, -30.0, -20.0), name="lower tail")


def _ndtri_exp_samples(dtype, rng):
    yield from unary_samples(-6.0, -0.05)(dtype, rng)
    # beyond ndtri(exp(y)): exp underflows (float32's range ends near -87), and y near 0
    yield SampleInput(make_arg((4,), dtype, rng, -80.0, -60.0), name="lower tail")
    yield SampleInput(make_arg((4,), dtype, rng, -1e-3, -1e-5), name="near zero")


OPS = [
    _unary("erf", sps.erf, -2.0, 2.0),
    _unary("erfc", sps.erfc, -2.0, 2.0, method=False),
    _unary("erfcx", sps.erfcx, -2.0, 3.0, method=False),
    _unary("ndtr", sps.ndtr, -3.0, 3.0, method=False),
    _unary("ndtri", sps.ndtri, 0.05, 0.95, method=False),
    OpInfo("log_ndtr", weft.log_ndtr, _keep(sps.log_ndtr), _log_ndtr_samples, dtypes=FLOATS,
           error_inputs=_real_errors("log_ndtr")),
    OpInfo("ndtri_exp", weft.ndtri_exp, _keep(sps.ndtri_exp), _ndtri_exp_samples,
           dtypes=FLOATS, error_inputs=_real_errors("ndtri_exp")),
    _nary("xlog1py", sps.xlog1py, _tuple_samples((-2.0, 2.0), (-0.5, 2.0))),
    _nary("betaln", sps.betaln, _tuple_samples((0.3, 4.0), (0.3, 4.0))),
    # every argument is differentiable (the shapes by the jets of weft/ops/_ibeta_shape.py)
    _nary("betainc", sps.betainc, _betainc_samples(True), nargs=3),
    _nary("betaincinv", sps.betaincinv, _betainc_samples(False), nargs=3),
    _nary("gammaincinv", sps.gammaincinv, _tuple_samples((0.5, 3.0), (0.1, 0.9))),
    _unary("erfinv", sps.erfinv, -0.9, 0.9),
    _unary("lgamma", sps.gammaln, 0.2, 4.0),
    _unary("gammaln", sps.gammaln, 0.2, 4.0),
    _unary("digamma", sps.digamma, 0.3, 4.0),
    _unary("i0", sps.i0, -3.0, 3.0),
    _unary("i0e", sps.i0e, -3.0, 3.0),
    _unary("i1", sps.i1, -3.0, 3.0),
    _unary("i1e", sps.i1e, -3.0, 3.0),
    _unary("sinc", np.sinc, -2.0, 2.0),
    OpInfo("polygamma", weft.polygamma, _keep(lambda x, n: sps.polygamma(n, x)),
           _polygamma_samples, dtypes=FLOATS, method="polygamma",
           error_inputs=_polygamma_errors),
    OpInfo("multigammaln", weft.multigammaln, _keep(sps.multigammaln), _multigammaln_samples,
           dtypes=FLOATS, method="multigammaln", error_inputs=_multigammaln_errors),
    OpInfo("gammainc", weft.gammainc,
           lambda x, y: np.asarray(sps.gammainc(x, y)).astype(x.dtype), _gammainc_samples,
           dtypes=FLOATS, method="gammainc", error_inputs=_gammainc_errors("gammainc")),
    OpInfo("gammaincc", weft.gammaincc,
           lambda x, y: np.asarray(sps.gammaincc(x, y)).astype(x.dtype), _gammainc_samples,
           dtypes=FLOATS, method="gammaincc", error_inputs=_gammainc_errors("gammaincc")),
    OpInfo("logit", weft.logit, _logit_ref, _logit_samples, dtypes=FLOATS, method="logit",
           error_inputs=_logit_errors),
]


# in-place twins, run on ``x * 1`` so that the gradient checks go through the update
def _ip_like(name, base, samples=None):
    fn = getattr(weft, name)

    def op(x, *args, **kwargs):
        return fn(x * 1, *args, **kwargs)
    op.__name__ = name
    return OpInfo(name, op, base.ref, samples or base.sample_inputs, dtypes=base.dtypes)


def _gammainc_ip_samples(dtype, rng):
    # y must broadcast to the updated x
    yield SampleInput(make_arg((3, 4), dtype, rng, 0.5, 3.0), make_arg((4,), dtype, rng, 0.2, 4.0),
                      name="broadcast")
    yield SampleInput(make_arg((), dtype, rng, 0.5, 3.0), make_arg((), dtype, rng, 0.2, 4.0),
                      name="0-D")


_BY_NAME = {o.name: o for o in OPS}
OPS += [_ip_like(n + "_", _BY_NAME[n])
        for n in ("erf", "erfinv", "lgamma", "gammaln", "digamma", "polygamma", "multigammaln",
                  "i0", "logit", "sinc")]
OPS += [_ip_like(n + "_", _BY_NAME[n], _gammainc_ip_samples) for n in ("gammainc", "gammaincc")]
