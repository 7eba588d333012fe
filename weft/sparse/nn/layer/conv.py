"""Sparse convolution layers: Conv3D, Conv2D, SubmConv3D, SubmConv2D (api-sparse.md §5).

Parameters follow Paddle's sparse layers: ``weight [*kernel, in/groups, out]``
(channel-last, the layout the rulebook kernel multiplies by directly) initialised
Normal(0, sqrt(2 / (kernel volume * in_channels))) as Paddle's convolutions are, and
``bias [out]`` zeros (None when ``bias_attr=False``).
"""
from __future__ import annotations

import math

from ....nn.initializer import Normal
from ....nn.layer import Layer, _check_int
from .. import functional as F
from ..functional.conv import _int_seq


class _SparseConv(Layer):
    _dims = 3
    _subm = False
    _format = "NDHWC"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, padding_mode="zeros", key=None, weight_attr=None, bias_attr=None,
                 data_format=None, backend=None):
        super().__init__()
        cls = type(self).__name__
        S = self._dims
        self._in_channels = _check_int(in_channels, cls, "in_channels", 1)
        self._out_channels = _check_int(out_channels, cls, "out_channels", 1)
        # AssertionError: Paddle's error type for these checks (api-sparse.md §5)
        if groups != 1:
            raise AssertionError(f"{cls}: only support groups=1, got groups={groups}")
        if padding_mode != "zeros":
            raise AssertionError(f"{cls}: only support padding_mode='zeros', got "
                                 f"{padding_mode!r}")
        if backend not in (None, "igemm"):
            raise AssertionError(f"{cls}: backend must be None or 'igemm', got {backend!r}")
        data_format = self._format if data_format is None else data_format
        if data_format != self._format:
            raise ValueError(f"{cls}: data_format must be '{self._format}', got {data_format!r}")
        self._kernel_size = _int_seq(kernel_size, S, cls, "kernel_size", 1)
        if self._subm and any(k % 2 == 0 for k in self._kernel_size):
            raise ValueError(f"{cls}: a submanifold convolution needs odd kernel sizes, got "
                             f"{list(self._kernel_size)}")
        self._stride = _int_seq(stride, S, cls, "stride", 1)
        self._dilation = _int_seq(dilation, S, cls, "dilation", 1)
        self._padding = padding
        self._groups = groups
        self._key = key
        self._data_format = data_format
        fan_in = math.prod(self._kernel_size) * self._in_channels
        self.weight = self.create_parameter(
            [*self._kernel_size, self._in_channels // groups, self._out_channels],
            attr=weight_attr, default_initializer=Normal(0.0, (2.0 / fan_in) ** 0.5))
        self.bias = self.create_parameter([self._out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x):
        f = self._function()
        kw = {"key": self._key} if self._subm else {}
        return f(x, self.weight, bias=self.bias, stride=self._stride, padding=self._padding,
                 dilation=self._dilation, groups=self._groups, data_format=self._data_format,
                 **kw)

    def extra_repr(self):
        return (f"{self._in_channels}, {self._out_channels}, kernel_size="
                f"{list(self._kernel_size)}, stride={list(self._stride)}, padding="
                f"{self._padding}, dilation={list(self._dilation)}"
                + (f", key={self._key!r}" if self._key is not None else ""))


class Conv3D(_SparseConv):
    """Regular sparse 3-D convolution layer (:func:`weft.sparse.nn.functional.conv3d`).

    >>> import weft
    >>> conv = weft.sparse.nn.Conv3D(2, 4, 3, padding=1)
    >>> x = weft.sparse.sparse_coo_tensor([[0], [1], [1], [1]], [[1.0, 2.0]], [1, 3, 3, 3, 2])
    >>> conv(x).shape, conv.weight.shape, list(conv.state_dict())
    ([1, 3, 3, 3, 4], [3, 3, 3, 2, 4], ['weight', 'bias'])
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NDHWC"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, padding_mode, None, weight_attr, bias_attr, data_format)

    def _function(self):
        return F.conv3d


class Conv2D(_SparseConv):
    """Regular sparse 2-D convolution layer (:func:`weft.sparse.nn.functional.conv2d`);
    ``weight [kH, kW, in, out]``."""

    _dims = 2
    _format = "NHWC"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NHWC"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, padding_mode, None, weight_attr, bias_attr, data_format)

    def _function(self):
        return F.conv2d


class SubmConv3D(_SparseConv):
    """Submanifold sparse 3-D convolution layer (:func:`weft.sparse.nn.functional.subm_conv3d`):
    the output keeps the input's sites. Layers given one ``key`` share their rulebook.

    >>> import weft
    >>> conv = weft.sparse.nn.SubmConv3D(1, 2, 3, key="block1")
    >>> x = weft.sparse.sparse_coo_tensor([[0, 0], [0, 1], [1, 1], [1, 1]], [[1.0], [2.0]],
    ...                                   [1, 2, 2, 2, 1])
    >>> conv(x).indices().tolist()
    [[0, 0], [0, 1], [1, 1], [1, 1]]
    """

    _subm = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, padding_mode="zeros", key=None, weight_attr=None, bias_attr=None,
                 data_format="NDHWC", backend=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, padding_mode, key, weight_attr, bias_attr, data_format, backend)

    def _function(self):
        return F.subm_conv3d


class SubmConv2D(_SparseConv):
    """Submanifold sparse 2-D convolution layer (:func:`weft.sparse.nn.functional.subm_conv2d`)."""

    _dims = 2
    _subm = True
    _format = "NHWC"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, padding_mode="zeros", key=None, weight_attr=None, bias_attr=None,
                 data_format="NHWC", backend=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, padding_mode, key, weight_attr, bias_attr, data_format, backend)

    def _function(self):
        return F.subm_conv2d


__all__ = ["Conv3D", "Conv2D", "SubmConv3D", "SubmConv2D"]
