"""weft: sparse and scientific computing on a tensor/autograd core over numpy and CuPy.

The top level follows PaddlePaddle 3.x, so ``import weft as paddle`` runs
Paddle-style code.
"""
import importlib as _importlib

# The native kernels run on weft's own thread pool, whose idle workers sleep
# instead of spinning (csrc/common/parallel.h): nothing here touches OMP_* or the
# OpenMP runtime that PyTorch, scikit-learn and BLAS builds share in this process.
from . import _native  # noqa: F401  (loads the extension weft._C)

import numpy as _np  # noqa: E402

from . import autograd, ops, sparse
from .autograd import enable_grad, grad, is_grad_enabled, no_grad, set_grad_enabled
from .core.dtype import (bfloat16, bool_ as bool, complex64, complex128, float16, float32,
                         float64, get_default_dtype, int8, int16, int32, int64,
                         set_default_dtype, uint8)
from .core.backend import backend, get_backend, set_backend
from .core.place import (CPUPlace, CUDAPlace, get_device, is_compiled_with_cuda,
                         set_device)
from .core.tensor import Tensor, is_tensor
from ._native import get_num_threads, set_num_threads
from .ops import *  # noqa: F401,F403
from .ops import __all__ as _ops_all
from .sparse.tensor import SparseLayoutError, UnsupportedDtypeError

# Subpackages and a few names load on first use, so that `import weft` stays fast
# and pays only for the core (PEP 562).
_LAZY_MODULES = {"nn", "optimizer", "regularizer", "incubate", "utils", "geometric",
                 "datasets", "examples", "device", "fft", "linalg",
                 "distribution"}
_LAZY_NAMES = {"save": "core.serialization", "load": "core.serialization",
               "from_dlpack": "core.dlpack",
               "show_config": "core.config", "ParamAttr": "nn", "create_parameter": "nn",
               "inverse": "linalg._solvers"}


def __getattr__(name):
    if name in _LAZY_MODULES:
        value = _importlib.import_module(f"{__name__}.{name}")
    elif name in _LAZY_NAMES:
        value = getattr(_importlib.import_module(f"{__name__}.{_LAZY_NAMES[name]}"), name)
    else:
        raise AttributeError(f"module 'weft' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | _LAZY_MODULES | set(_LAZY_NAMES))


dtype = _np.dtype

from ._version import __version__  # noqa: E402
__all__ = ["Tensor", "is_tensor", "grad", "no_grad", "enable_grad", "set_grad_enabled",
           "is_grad_enabled", "CPUPlace", "CUDAPlace", "set_device", "get_device",
           "is_compiled_with_cuda", "get_default_dtype", "set_default_dtype", "bool", "int8",
           "uint8", "int16", "int32", "int64", "float16", "float32", "float64", "complex64",
           "complex128", "bfloat16", "dtype", "save", "load", "from_dlpack",
           "get_num_threads", "set_num_threads", "set_backend", "backend", "get_backend",
           "show_config", "create_parameter", "ParamAttr", "SparseLayoutError",
           "UnsupportedDtypeError", "sparse", *_ops_all]
