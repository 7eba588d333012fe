"""Probability distributions, transforms and KL divergences (``paddle.distribution``,
plus PyTorch's extra families, transforms and constraints).

Every family is in a module of its own; ``kl_divergence`` dispatches on the registered
pairs (closed forms in ``kl_pairs``). See ``docs/distribution.md``.
"""
from . import constraints, variable
from .constraints import Constraint
from .distribution import Distribution, set_validate_args
from .exponential_family import ExponentialFamily
from .independent import Independent
from .kl import kl_divergence, register_kl
from .transform import (AbsTransform, AffineTransform, CatTransform, ChainTransform,
                        CorrCholeskyTransform, CumulativeDistributionTransform, ExpTransform,
                        IndependentTransform, LowerCholeskyTransform,
                        PositiveDefiniteTransform, PowerTransform, ReshapeTransform,
                        SigmoidTransform, SoftmaxTransform, SoftplusTransform, StackTransform,
                        StickBreakingTransform, TanhTransform, Transform, Type, biject_to,
                        identity_transform, transform_to)
from .transformed_distribution import TransformedDistribution

# ---- families of helper `dist` ---------------------------------------------------
from .bernoulli import Bernoulli
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .exponential import Exponential
from .geometric import Geometric
from .gumbel import Gumbel
from .half_normal import HalfCauchy, HalfNormal
from .laplace import Laplace
from .lkj_cholesky import LKJCholesky
from .logistic_normal import LogisticNormal
from .lognormal import LogNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import LowRankMultivariateNormal, MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .relaxed import RelaxedBernoulli, RelaxedOneHotCategorical
from .truncated_normal import TruncatedNormal
from .uniform import Uniform

# ---- families of helper `distg` (Gamma-related; one import line per module) -------
from .gamma import Gamma
from .chi2 import Chi2
from .beta import Beta
from .dirichlet import Dirichlet
from .student_t import StudentT
from .binomial import Binomial
from .poisson import Poisson
from .weibull import Weibull
from .pareto import Pareto
from .kumaraswamy import Kumaraswamy
from .inverse_gamma import InverseGamma
from .fisher_snedecor import FisherSnedecor
from .negative_binomial import NegativeBinomial
from .von_mises import VonMises
from .wishart import Wishart

# ---- closed-form KL pairs (kl_pairs.py, registered on import) ----------------------
from . import kl_pairs as _kl_pairs  # noqa: E402

_kl_pairs.register_all()

__all__ = [
    "Distribution", "ExponentialFamily", "Independent", "TransformedDistribution",
    "kl_divergence", "register_kl", "set_validate_args", "constraints", "variable",
    "Constraint", "Type", "Transform", "AbsTransform", "AffineTransform", "ChainTransform",
    "ExpTransform", "IndependentTransform", "PowerTransform", "ReshapeTransform",
    "SigmoidTransform", "SoftmaxTransform", "StackTransform", "StickBreakingTransform",
    "TanhTransform", "SoftplusTransform", "CumulativeDistributionTransform", "CatTransform",
    "LowerCholeskyTransform", "CorrCholeskyTransform", "PositiveDefiniteTransform",
    "identity_transform", "biject_to", "transform_to",
    # families (dist)
    "Bernoulli", "Categorical", "Cauchy", "Exponential", "Geometric", "Multinomial",
    "OneHotCategorical", "Gumbel", "HalfCauchy", "HalfNormal", "Laplace", "LogNormal",
    "Normal", "Uniform", "MultivariateNormal", "LowRankMultivariateNormal", "LKJCholesky",
    "ContinuousBernoulli", "LogisticNormal", "MixtureSameFamily", "RelaxedBernoulli",
    "RelaxedOneHotCategorical", "TruncatedNormal",
    # families (distg)
    "Gamma", "Chi2", "Beta", "Dirichlet", "StudentT", "Binomial", "Poisson", "Weibull",
    "Pareto", "Kumaraswamy", "InverseGamma", "FisherSnedecor", "NegativeBinomial", "VonMises",
    "Wishart",
]
