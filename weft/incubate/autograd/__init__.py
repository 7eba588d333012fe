"""Function-based autodiff (Paddle's ``paddle.incubate.autograd``), in eager mode."""
from .functional import (Hessian, Jacobian, disable_prim, enable_prim, forward_grad, grad, jvp,
                         prim_enabled, vjp)

__all__ = ["vjp", "jvp", "Jacobian", "Hessian", "forward_grad", "grad", "enable_prim",
           "disable_prim", "prim_enabled"]
