"""Reverse-mode automatic differentiation (see api-autograd.md).

The engine, grad modes and the gradient checker load with ``import weft``; PyLayer
and the functional APIs (lazy Jacobian/Hessian, vjp, jvp) load on first use (PEP 562).
"""
import importlib as _importlib

from .api import backward, grad
from .engine import GaugeWarning, GraphFreedError
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .registry import PrimitiveRules, rules

# Not lazy: the subpackage weft.autograd.gradcheck has the function's name, and the
# import system binds a package's attribute to a submodule when it first loads it.
# Loading it here, with the from-import rebinding the name to the function
# afterwards, keeps weft.autograd.gradcheck the function whatever is imported later.
from .gradcheck import GradcheckError, gradcheck, gradgradcheck

_LAZY = {
    "Function": "function", "PyLayer": "function", "PyLayerContext": "function",
    "once_differentiable": "function", "jacobian": "functional", "hessian": "functional",
    "vjp": "functional", "jvp": "functional", "forward_grad": "functional",
    "saved_tensors_hooks": "saved_hooks",
}

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled",
           "is_grad_enabled", "GraphFreedError", "GaugeWarning", "rules", "PrimitiveRules", "gradcheck", "gradgradcheck", "GradcheckError",
           *_LAZY]


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module 'weft.autograd' has no attribute {name!r}")
    value = getattr(_importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
