"""Activation and softmax layers over sparse tensors (``weft.sparse.nn.functional``)."""
from __future__ import annotations

from ....nn.layer import Layer
from .. import functional as F


class ReLU(Layer):
    """:func:`weft.sparse.nn.functional.relu` as a layer.

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 1]], [-1.0, 2.0], [2])
    >>> weft.sparse.nn.ReLU()(x).values().tolist()
    [0.0, 2.0]
    """

    def __init__(self, name=None):
        super().__init__()

    def forward(self, x):
        return F.relu(x)


class ReLU6(Layer):
    """:func:`weft.sparse.nn.functional.relu6` as a layer."""

    def __init__(self, name=None):
        super().__init__()

    def forward(self, x):
        return F.relu6(x)


class LeakyReLU(Layer):
    """:func:`weft.sparse.nn.functional.leaky_relu` as a layer."""

    def __init__(self, negative_slope=0.01, name=None):
        super().__init__()
        self._negative_slope = negative_slope

    def forward(self, x):
        return F.leaky_relu(x, self._negative_slope)

    def extra_repr(self):
        return f"negative_slope={self._negative_slope}"


class Softmax(Layer):
    """:func:`weft.sparse.nn.functional.softmax` over ``axis`` as a layer."""

    def __init__(self, axis=-1, name=None):
        super().__init__()
        self._axis = axis

    def forward(self, x):
        return F.softmax(x, self._axis)

    def extra_repr(self):
        return f"axis={self._axis}"


__all__ = ["ReLU", "ReLU6", "LeakyReLU", "Softmax"]
