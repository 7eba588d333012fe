"""OpInfo entries for the fused log-density primitives of weft.distribution
(``normal_log_prob``, ``beta_log_prob``, the reduction ``standardized_moment_sum`` their
rules use, and ``sum_squares_cols`` of the Gaussian Mahalanobis distances), reached
through the families' ``log_prob``."""
import numpy as np
import scipy.stats

from tests.opinfo import FLOATS, ErrorInput, OpInfo, SampleInput, make_arg
from weft.distribution import Beta, MultivariateNormal, Normal


def _log_prob(family):
    def op(x, *params):
        return family(*params).log_prob(x)
    return op


def _scipy_ref(logpdf):
    def ref(x, *params):
        return np.asarray(logpdf(x, *params)).astype(x.dtype)
    return ref


def _law_samples(value, first, second):
    """Samples of (value, first parameter, second parameter), each drawn from its
    (low, high) range: the shapes a log-density meets."""
    def gen(dtype, rng):
        def v(shape, **kw):
            return make_arg(shape, dtype, rng, *value, **kw)

        def p(shape):
            return make_arg(shape, dtype, rng, *first), make_arg(shape, dtype, rng, *second)
        yield SampleInput(v((5,)), *p(()), name="one law, many values")
        yield SampleInput(v((3, 4)), *p((4,)), name="batch")
        yield SampleInput(v((4,)), *p((2, 1)), name="value broadcast")
        yield SampleInput(v(()), *p(()), name="0-D")
        yield SampleInput(v((0, 3)), *p((3,)), name="empty")
        yield SampleInput(v((3, 2), noncontig=True), *p(()), name="noncontig")
    return gen


def _beta_samples(dtype, rng):
    yield from _law_samples((0.05, 0.95), (0.6, 3.0), (0.6, 3.0))(dtype, rng)
    # the 0·log 0 corners (α = 1 at x = 0, β = 1 at x = 1) and the support's ends: the
    # forward only (the density is not differentiable in x there)
    yield SampleInput(np.array([0.0, 1.0, 0.0, 1.0, 0.5], dtype),
                      np.array([1.0, 1.0, 2.0, 0.5, 1.0], dtype),
                      np.array([1.0, 1.0, 0.5, 2.0, 1.0], dtype), grad_args=(), name="ends")


def _shape_error(family):
    def gen(rng):
        x = make_arg((3,), "float64", rng, 0.1, 0.9)
        yield ErrorInput(SampleInput(x, np.full(4, 0.5), np.ones(4)), ValueError,
                         rf"{family}.log_prob: value of shape \[3\] does not broadcast")
    return gen


def _mvn(x, loc, scale_tril):
    return MultivariateNormal(loc, scale_tril=scale_tril).log_prob(x)


def _mvn_ref(x, loc, lt):
    d = x - loc
    lt = np.broadcast_to(lt, d.shape[:-1] + lt.shape[-2:])
    z = np.linalg.solve(lt, d[..., None])[..., 0]
    k = d.shape[-1]
    half_logdet = np.log(np.diagonal(lt, axis1=-2, axis2=-1)).sum(-1)
    return (-0.5 * (k * np.log(2 * np.pi) + (z * z).sum(-1)) - half_logdet).astype(x.dtype)


def _mvn_samples(dtype, rng):
    def tril(shape):
        a = np.tril(make_arg(shape, dtype, rng, -0.5, 0.5))
        return a + 1.5 * np.eye(shape[-1], dtype=dtype)
    yield SampleInput(make_arg((5, 3), dtype, rng), make_arg((3,), dtype, rng), tril((3, 3)),
                      name="shared factor")
    yield SampleInput(make_arg((2, 4, 2), dtype, rng), make_arg((4, 2), dtype, rng),
                      tril((4, 2, 2)), name="batch of factors")
    yield SampleInput(make_arg((3,), dtype, rng), make_arg((3,), dtype, rng), tril((3, 3)),
                      name="one vector")
    yield SampleInput(make_arg((0, 2), dtype, rng), make_arg((2,), dtype, rng), tril((2, 2)),
                      name="empty")


OPS = [
    OpInfo("distribution.normal_log_prob", _log_prob(Normal), _scipy_ref(scipy.stats.norm.logpdf),
           _law_samples((-3.0, 3.0), (-3.0, 3.0), (0.5, 2.0)), dtypes=FLOATS,
           error_inputs=_shape_error("Normal")),
    OpInfo("distribution.mvn_log_prob", _mvn, _mvn_ref, _mvn_samples, dtypes=FLOATS),
    OpInfo("distribution.beta_log_prob", _log_prob(Beta), _scipy_ref(scipy.stats.beta.logpdf),
           _beta_samples, dtypes=FLOATS, error_inputs=_shape_error("Beta")),
]
