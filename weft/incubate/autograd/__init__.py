"""Function-based autodiff (Paddle's ``paddle.incubate.autograd``), in eager mode.

Aliases only: the implementations live in ``weft.autograd.functional`` (``vjp``, ``jvp``
and ``forward_grad`` are also ``weft.autograd``'s).
"""
from ...autograd.functional.prim import (disable_prim, enable_prim, forward_grad, grad,
                                         prim_enabled)
from ...autograd.functional.transforms import Hessian, Jacobian, jvp, vjp

__all__ = ["vjp", "jvp", "Jacobian", "Hessian", "forward_grad", "grad", "enable_prim",
           "disable_prim", "prim_enabled"]
