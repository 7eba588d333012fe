"""Linear algebra on batches of matrices (``paddle.linalg``), following api-linalg.md.

The spec's 40 functions: the solvers and factorisations ``inv``, ``solve``,
``triangular_solve``, ``cholesky``, ``cholesky_solve``, ``cholesky_inverse``, ``det``,
``slogdet``, ``eig``, ``eigvals``, ``eigh``, ``eigvalsh``, ``svd``, ``svdvals``, ``qr``,
``householder_product``, ``ormqr``, ``lu``, ``lu_unpack``, ``lu_solve``, ``lstsq``,
``pinv``, ``cond``, ``matrix_exp``, ``matrix_norm``, ``vector_norm``, ``matrix_power``,
``matrix_rank``, ``multi_dot``, ``matrix_transpose``, ``vecdot``, ``cov``, ``corrcoef``,
the randomized ``svd_lowrank`` and ``pca_lowrank`` (batched, numpy-style broadcast of
solver batch dimensions, real and complex, differentiable to any order except
``matrix_rank``), the emulated ``fp8_fp8_half_gemm_fused``, and the products
re-exported from the top level:
``weft.linalg.matmul is weft.matmul``, and likewise ``diagonal``, ``norm`` and
``cross``.

The dense CPU factorisations run on the ``linalg`` backend chosen with
``weft.set_backend("linalg", ...)`` (see :mod:`weft.linalg.backends`): ``lapack``,
weft's batch-parallel driver over scipy's LAPACK (the default), ``mkl``, or
``cusolver`` for CuPy arrays.

Matrix arguments are ``[*, m, n]`` with any number of leading batch dimensions;
float16/bfloat16 input is computed in float32 and cast back; integer or bool input
raises ``weft.UnsupportedDtypeError``.

>>> import weft
>>> a = weft.to_tensor([[4.0, 2.0], [2.0, 3.0]], dtype="float64")
>>> weft.linalg.solve(a, weft.linalg.matmul(a, weft.ones([2, 1], dtype="float64"))).tolist()
[[1.0], [1.0]]
"""
from ..core.backend import attach_tables as _attach_tables
from . import backends as _backends

# the registry (weft.core.backend) names the linalg backends at `import weft`; their
# function tables live here, above core, and are attached when weft.linalg loads
_attach_tables("linalg", ("lapack", "mkl", "cusolver"), _backends._load)

from ..ops.products import cross, diagonal, matmul  # noqa: E402
from ..ops.reduction.norms import norm
from ._solvers import cholesky, det, inv, slogdet, solve, triangular_solve
from ._composite import (cholesky_inverse, cholesky_solve, cond, matrix_norm, matrix_power,
                         matrix_rank, matrix_transpose, multi_dot, pinv, vecdot,
                         vector_norm)
from ._eig import eig, eigvals
from ._expm import matrix_exp
from ._lstsq import lstsq
from ._lu import lu, lu_solve, lu_unpack
from ._qr import householder_product, ormqr, qr
from ._lowrank import pca_lowrank, svd_lowrank
from ._fp8 import fp8_fp8_half_gemm_fused
from ._spectral import eigh, eigvalsh, svd, svdvals
from ._stats import corrcoef, cov
from . import _forward  # noqa: E402,F401 (registers the forward-mode rules)

__all__ = ["cholesky", "cholesky_inverse", "cholesky_solve", "cond", "corrcoef", "cov",
           "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh",
           "fp8_fp8_half_gemm_fused", "householder_product", "inv",
           "lstsq", "lu", "lu_solve", "lu_unpack", "matmul", "matrix_exp", "matrix_norm",
           "matrix_power", "matrix_rank", "matrix_transpose", "multi_dot", "norm", "ormqr",
           "pca_lowrank", "pinv", "qr", "slogdet", "solve", "svd", "svd_lowrank", "svdvals",
           "triangular_solve", "vecdot", "vector_norm"]
