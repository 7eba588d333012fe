"""Chi2(df): the chi-squared distribution, ``Gamma(df/2, 1/2)``."""
from __future__ import annotations

from . import _util, constraints
from .gamma import Gamma

__all__ = ["Chi2"]


class Chi2(Gamma):
    """The chi-squared distribution with ``df`` degrees of freedom: ``Gamma(df/2, 1/2)``
    (every method of :class:`Gamma`, including the implicit-gradient ``rsample``).

    >>> import weft
    >>> from weft.distribution import Chi2
    >>> d = Chi2(weft.to_tensor([1.0, 4.0]))
    >>> d.mean.tolist(), d.variance.tolist()
    ([1.0, 4.0], [2.0, 8.0])
    """

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df):
        (df,) = _util.to_tensors(df)
        self.df = df
        super().__init__(0.5 * df, 0.5)

    def _expanded_copy(self, new_batch):
        new = super()._expanded_copy(new_batch)
        new.df = 2.0 * new.concentration
        return new
