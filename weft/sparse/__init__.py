"""weft.sparse: COO and CSR sparse tensors that are weft Tensors (api-sparse.md).

Sparse tensors take part in autograd like dense ones; the gradient of a sparse
input is sparse with the same pattern (masked). This package holds the types,
creation, layout conversions, scipy interop, and the structural, element-wise
and product functions; the native CPU kernels live in csrc/sparse/.

>>> import weft
>>> x = weft.to_tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse_coo(2)
>>> x.nnz(), x.to_sparse_csr().cols().tolist()
(2, [1, 0])
"""
from .binary import add, divide, install_elementwise_methods, multiply, prune, subtract
from .convert import coalesce, install_tensor_methods, to_dense, to_sparse_coo, to_sparse_csr
from .creation import from_scipy, sparse_coo_tensor, sparse_csr_tensor, to_scipy
from .matmul import addmm, install_sparse_methods, matmul, mv
from .pca import pca_lowrank
from .reduce import sum
from .shape import reshape, slice
from .spgemm import masked_matmul
from .structural import cast, is_same_shape, isnan, mask_as, transpose
from .tensor import SparseCooTensor, SparseCsrTensor, SparseLayoutError, UnsupportedDtypeError
from .unary import (abs, asin, asinh, atan, atanh, deg2rad, expm1, log1p, neg, pow, rad2deg, sin,
                    sinh, sqrt, square, tan, tanh)

install_tensor_methods()
install_sparse_methods()
install_elementwise_methods()

__all__ = ["SparseCooTensor", "SparseCsrTensor", "SparseLayoutError", "UnsupportedDtypeError",
           "sparse_coo_tensor", "sparse_csr_tensor", "from_scipy", "to_scipy",
           "to_dense", "to_sparse_coo", "to_sparse_csr", "coalesce",
           "transpose", "cast", "isnan", "is_same_shape", "mask_as", "matmul", "mv",
           "sum", "reshape", "slice",
           "add", "subtract", "multiply", "divide", "prune",
           "sin", "tan", "asin", "atan", "sinh", "tanh", "asinh", "atanh", "sqrt", "square",
           "log1p", "abs", "neg", "deg2rad", "rad2deg", "expm1", "pow",
           "masked_matmul", "addmm", "pca_lowrank"]


def __getattr__(name):
    # weft.sparse.nn builds on weft.nn, which `import weft.sparse` should not load
    if name == "nn":
        import importlib  # noqa: PLC0415

        return importlib.import_module(f"{__name__}.nn")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
