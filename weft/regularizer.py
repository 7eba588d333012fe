"""Weight-decay regularizers (``weft.regularizer``): passed as an optimizer's
``weight_decay`` or a ``ParamAttr``'s ``regularizer``, they add a penalty gradient to
the parameter's gradient before the update (coupled decay)."""
from __future__ import annotations

import numbers

from .core.tensor import Tensor


class WeightDecayRegularizer:
    """Base class: ``term(param_array)`` is the gradient of the penalty."""

    def __init__(self, coeff=0.0):
        if isinstance(coeff, bool) or not isinstance(coeff, numbers.Real):
            raise TypeError(f"{type(self).__name__}: coeff must be a number, got "
                            f"{type(coeff).__name__}")
        self._coeff = float(coeff)

    @property
    def coeff(self):
        return self._coeff

    def term(self, p):
        raise NotImplementedError(f"{type(self).__name__} must implement term (the decay "
                                  "added to a parameter's gradient)")

    def __call__(self, param, grad=None, block=None):
        """The penalty's gradient at ``param`` as a Tensor."""
        return Tensor._wrap(self.term(param._data))

    def __repr__(self):
        return f"{type(self).__name__}(coeff={self._coeff})"


class L2Decay(WeightDecayRegularizer):
    """L2 penalty ``coeff / 2 * ||w||^2``: adds ``coeff * w`` to the gradient.

    >>> import weft
    >>> weft.regularizer.L2Decay(0.1)(weft.to_tensor([1.0, -2.0])).tolist()
    [0.10000000149011612, -0.20000000298023224]
    """

    def term(self, p):
        return p * p.dtype.type(self._coeff)


class L1Decay(WeightDecayRegularizer):
    """L1 penalty ``coeff * ||w||_1``: adds ``coeff * sign(w)`` to the gradient.

    >>> import weft
    >>> weft.regularizer.L1Decay(0.1)(weft.to_tensor([1.0, -2.0])).tolist()
    [0.10000000149011612, -0.10000000149011612]
    """

    def term(self, p):
        import numpy as np  # noqa: PLC0415

        return np.sign(p) * p.dtype.type(self._coeff)


__all__ = ["L1Decay", "L2Decay", "WeightDecayRegularizer"]
