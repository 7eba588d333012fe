"""weft.sparse.nn.functional: sparse convolutions, pooling, activations, softmax and
attention on COO/CSR tensors (api-sparse.md §4, 12 functions).

>>> import weft
>>> x = weft.sparse.sparse_coo_tensor([[0], [1], [1], [1]], [[-1.0, 2.0]], [1, 3, 3, 3, 2])
>>> weft.sparse.nn.functional.relu(x).values().tolist()
[[0.0, 2.0]]
"""
from .activation import leaky_relu, relu, relu6, softmax
from .attention import attention
from .conv import conv2d, conv3d, subm_conv2d, subm_conv2d_igemm, subm_conv3d, subm_conv3d_igemm
from .pooling import max_pool3d

__all__ = ["conv2d", "conv3d", "subm_conv2d", "subm_conv3d", "subm_conv2d_igemm",
           "subm_conv3d_igemm", "max_pool3d", "relu", "relu6", "leaky_relu", "softmax",
           "attention"]
