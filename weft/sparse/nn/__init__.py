"""weft.sparse.nn: layers over sparse tensors (api-sparse.md §5, 11 layers) and
``functional`` (§4, 12 functions): submanifold and regular sparse convolutions on
native rulebook kernels, max pooling, batch normalisation, activations, softmax and
sparse attention. Inputs are channel-last COO tensors ``[N, D, H, W, C]`` (or
``[N, H, W, C]``) whose values are ``[nnz, C]``.

>>> import weft
>>> net = weft.nn.Sequential(weft.sparse.nn.SubmConv3D(1, 4, 3, key="s"),
...                          weft.sparse.nn.BatchNorm(4), weft.sparse.nn.ReLU())
>>> x = weft.sparse.sparse_coo_tensor([[0, 0], [0, 1], [1, 1], [1, 1]], [[1.0], [2.0]],
...                                   [1, 2, 2, 2, 1])
>>> net(x).shape
[1, 2, 2, 2, 4]
"""
from . import functional
from .layer.activation import LeakyReLU, ReLU, ReLU6, Softmax
from .layer.conv import Conv2D, Conv3D, SubmConv2D, SubmConv3D
from .layer.norm import BatchNorm, SyncBatchNorm
from .layer.pooling import MaxPool3D

__all__ = ["functional", "ReLU", "ReLU6", "LeakyReLU", "Softmax", "BatchNorm", "SyncBatchNorm",
           "Conv3D", "Conv2D", "SubmConv3D", "SubmConv2D", "MaxPool3D"]
