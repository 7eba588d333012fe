"""Reductions: aggregates over axes, scans, order statistics and norms."""
from . import aggregate, cumulative, norms, statistics
from .aggregate import *  # noqa: F401,F403
from .cumulative import *  # noqa: F401,F403
from .norms import *  # noqa: F401,F403
from .statistics import *  # noqa: F401,F403

__all__ = [*aggregate.__all__, *cumulative.__all__, *statistics.__all__, *norms.__all__]
__tensor_methods__ = {**aggregate.__tensor_methods__, **cumulative.__tensor_methods__,
                      **statistics.__tensor_methods__, **norms.__tensor_methods__}
