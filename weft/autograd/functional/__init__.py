"""Functional autodiff: lazily evaluated Jacobians and Hessians of computed tensors
(:mod:`.lazy`), ``vjp``/``jvp`` and the flattened Jacobian/Hessian of a function
(:mod:`.transforms`, Paddle's ``incubate.autograd``), and the eager prim-mode APIs
(:mod:`.prim`). ``Jacobian``/``Hessian`` here are the objects ``jacobian``/``hessian``
return; the function-based classes of the same name are ``transforms.Jacobian``/
``Hessian`` (``weft.incubate.autograd.Jacobian``/``Hessian``).
"""
from .lazy import Hessian, Jacobian, hessian, jacobian
from .prim import forward_grad
from .transforms import jvp, vjp

__all__ = ["jacobian", "hessian", "Jacobian", "Hessian", "vjp", "jvp", "forward_grad"]
