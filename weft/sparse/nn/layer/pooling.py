"""Sparse max pooling layer."""
from __future__ import annotations

from ....nn.layer import Layer
from .. import functional as F


class MaxPool3D(Layer):
    """:func:`weft.sparse.nn.functional.max_pool3d` as a layer. ``return_mask=True`` is
    accepted and ignored (the layer returns the output only, as Paddle's does).

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0], [1], [1], [1]], [[-2.0]], [1, 2, 2, 2, 1])
    >>> weft.sparse.nn.MaxPool3D(2)(x).values().tolist()
    [[-2.0]]
    """

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format="NDHWC", name=None):
        super().__init__()
        if data_format != "NDHWC":  # Paddle's error type (api-sparse.md §5)
            raise AssertionError(f"MaxPool3D: data_format must be 'NDHWC', got {data_format!r}")
        self._kernel_size, self._stride, self._padding = kernel_size, stride, padding
        self._return_mask, self._ceil_mode, self._data_format = return_mask, ceil_mode, data_format

    def forward(self, x):
        return F.max_pool3d(x, self._kernel_size, self._stride, self._padding, self._ceil_mode,
                            self._data_format)

    def extra_repr(self):
        return (f"kernel_size={self._kernel_size}, stride={self._stride}, "
                f"padding={self._padding}")


__all__ = ["MaxPool3D"]
