"""weft: sparse and scientific computing on a tensor/autograd core over numpy and CuPy.

The top level follows PaddlePaddle 3.x, so ``import weft as paddle`` runs
Paddle-style code.
"""
import numpy as _np

from . import autograd, nn, ops, utils
from .autograd import enable_grad, grad, is_grad_enabled, no_grad, set_grad_enabled
from .core.dtype import (bfloat16, bool_ as bool, complex64, complex128, float16, float32,
                         float64, get_default_dtype, int8, int16, int32, int64,
                         set_default_dtype, uint8)
from .core.place import (CPUPlace, CUDAPlace, get_device, is_compiled_with_cuda,
                         set_device)
from .core.dlpack import from_dlpack
from .core.serialization import load, save
from .core.tensor import Tensor, is_tensor
from ._native import get_num_threads, set_num_threads
from .ops import *  # noqa: F401,F403
from .ops import __all__ as _ops_all

from . import incubate, optimizer, regularizer  # noqa: E402  (after the ops they use)
from .nn import ParamAttr, create_parameter  # noqa: E402

dtype = _np.dtype

__version__ = "0.1.0"
__all__ = ["Tensor", "is_tensor", "grad", "no_grad", "enable_grad", "set_grad_enabled",
           "is_grad_enabled", "CPUPlace", "CUDAPlace", "set_device", "get_device",
           "is_compiled_with_cuda", "get_default_dtype", "set_default_dtype", "bool", "int8",
           "uint8", "int16", "int32", "int64", "float16", "float32", "float64", "complex64",
           "complex128", "bfloat16", "dtype", "save", "load", "from_dlpack",
           "get_num_threads", "set_num_threads", "create_parameter", "ParamAttr", *_ops_all]
