"""OpInfo entries for the fused log-density primitives of weft.distribution
(``normal_log_prob``, ``beta_log_prob``, the reduction ``centered_moment_sum`` their
rules use, and ``sum_squares_cols`` of the Gaussian Mahalanobis distances), reached
through the families' ``log_prob``."""
import numpy as np
import scipy.special as sps
import scipy.stats

import weft
from tests.opinfo import FLOATS, ErrorInput, OpInfo, SampleInput, make_arg
from weft.distribution import Beta, MultivariateNormal, Normal


def _normal(x, loc, scale):
    return Normal(loc, scale).log_prob(x)


def _normal_ref(x, loc, scale):
    return np.asarray(scipy.stats.norm.logpdf(x, loc, scale)).astype(x.dtype)


def _normal_samples(dtype, rng):
    def scale(shape):
        return make_arg(shape, dtype, rng, 0.5, 2.0)
    yield SampleInput(make_arg((5,), dtype, rng), make_arg((), dtype, rng), scale(()),
                      name="one law, many values")
    yield SampleInput(make_arg((3, 4), dtype, rng), make_arg((4,), dtype, rng), scale((4,)),
                      name="batch")
    yield SampleInput(make_arg((4,), dtype, rng), make_arg((2, 1), dtype, rng), scale((2, 1)),
                      name="value broadcast")
    yield SampleInput(make_arg((), dtype, rng), make_arg((), dtype, rng), scale(()), name="0-D")
    yield SampleInput(make_arg((0, 3), dtype, rng), make_arg((3,), dtype, rng), scale((3,)),
                      name="empty")
    yield SampleInput(make_arg((3, 2), dtype, rng, noncontig=True), make_arg((), dtype, rng),
                      scale(()), name="noncontig")


def _normal_errors(rng):
    x = make_arg((3,), "float64", rng)
    yield ErrorInput(SampleInput(x, np.zeros(4), np.ones(4)), ValueError,
                     r"Normal.log_prob: value of shape \[3\] does not broadcast")


def _beta(x, a, b):
    return Beta(a, b).log_prob(x)


def _beta_ref(x, a, b):
    return np.asarray(scipy.stats.beta.logpdf(x, a, b)).astype(x.dtype)


def _beta_samples(dtype, rng):
    def par(shape):
        return make_arg(shape, dtype, rng, 0.6, 3.0)
    yield SampleInput(make_arg((6,), dtype, rng, 0.05, 0.95), par(()), par(()),
                      name="one law, many values")
    yield SampleInput(make_arg((3, 4), dtype, rng, 0.05, 0.95), par((4,)), par((4,)),
                      name="batch")
    yield SampleInput(make_arg((4,), dtype, rng, 0.05, 0.95), par((2, 1)), par((2, 1)),
                      name="value broadcast")
    yield SampleInput(make_arg((), dtype, rng, 0.05, 0.95), par(()), par(()), name="0-D")
    yield SampleInput(make_arg((0, 2), dtype, rng, 0.05, 0.95), par((2,)), par((2,)),
                      name="empty")
    yield SampleInput(make_arg((3, 2), dtype, rng, 0.05, 0.95, noncontig=True), par(()),
                      par(()), name="noncontig")
    # the 0·log 0 corners (α = 1 at x = 0, β = 1 at x = 1) and the support's ends: the
    # forward only (the density is not differentiable in x there)
    yield SampleInput(np.array([0.0, 1.0, 0.0, 1.0, 0.5], dtype),
                      np.array([1.0, 1.0, 2.0, 0.5, 1.0], dtype),
                      np.array([1.0, 1.0, 0.5, 2.0, 1.0], dtype), grad_args=(), name="ends")


def _beta_errors(rng):
    x = make_arg((3,), "float64", rng, 0.1, 0.9)
    yield ErrorInput(SampleInput(x, np.ones(4), np.ones(4)), ValueError,
                     r"Beta.log_prob: value of shape \[3\] does not broadcast")


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
    OpInfo("distribution.normal_log_prob", _normal, _normal_ref, _normal_samples, dtypes=FLOATS,
           error_inputs=_normal_errors),
    OpInfo("distribution.mvn_log_prob", _mvn, _mvn_ref, _mvn_samples, dtypes=FLOATS),
    OpInfo("distribution.beta_log_prob", _beta, _beta_ref, _beta_samples, dtypes=FLOATS,
           error_inputs=_beta_errors),
]
