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


def _unary(name, ref, low, high, **kw):
    return OpInfo(name, getattr(weft, name), _keep(ref), unary_samples(low, high),
                  dtypes=FLOATS, method=name, error_inputs=_real_errors(name), **kw)


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
    # the shape parameter x is not differentiable: only y (index 1) is checked
    def a(s, **kw):
        return make_arg(s, dtype, rng, 0.5, 3.0, **kw)

    def b(s, **kw):
        return make_arg(s, dtype, rng, 0.2, 4.0, **kw)

    yield SampleInput(a((4,)), b((4,)), grad_args=(1,), name="same")
    yield SampleInput(a((3, 1)), b((1, 4)), grad_args=(1,), name="broadcast both")
    yield SampleInput(a(()), b((5,)), grad_args=(1,), name="0-D shape")
    yield SampleInput(a((0, 2)), b((2,)), grad_args=(1,), name="empty")
    yield SampleInput(a((2, 3), noncontig=True), b((2, 3), noncontig=True), grad_args=(1,),
                      name="noncontig")
    yield SampleInput(a((3,)), 1.5, grad_args=(1,), name="scalar y")


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


OPS = [
    _unary("erf", sps.erf, -2.0, 2.0),
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
    # y must broadcast to the updated x; x (the shape) is not differentiable
    yield SampleInput(make_arg((3, 4), dtype, rng, 0.5, 3.0), make_arg((4,), dtype, rng, 0.2, 4.0),
                      grad_args=(1,), name="broadcast")
    yield SampleInput(make_arg((), dtype, rng, 0.5, 3.0), make_arg((), dtype, rng, 0.2, 4.0),
                      grad_args=(1,), name="0-D")


_BY_NAME = {o.name: o for o in OPS}
OPS += [_ip_like(n + "_", _BY_NAME[n])
        for n in ("erf", "erfinv", "lgamma", "gammaln", "digamma", "polygamma", "multigammaln",
                  "i0", "logit", "sinc")]
OPS += [_ip_like(n + "_", _BY_NAME[n], _gammainc_ip_samples) for n in ("gammainc", "gammaincc")]
