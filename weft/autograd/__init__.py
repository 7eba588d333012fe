"""Reverse-mode automatic differentiation (see api-autograd.md)."""
from .api import backward, grad
from .engine import GraphFreedError
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .function import Function, PyLayer, PyLayerContext, once_differentiable
from .functional import hessian, jacobian
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .saved_hooks import saved_tensors_hooks

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled",
           "is_grad_enabled", "GraphFreedError", "gradcheck", "gradgradcheck",
           "GradcheckError", "PyLayer", "PyLayerContext", "Function", "once_differentiable",
           "jacobian", "hessian", "saved_tensors_hooks"]
