"""Numerical gradient checking: ``gradcheck`` and ``gradgradcheck`` (api-autograd.md §7).

The analytic side is the real engine at the inputs' own dtype (:mod:`.analytic`);
the numerical side is a central difference evaluated in float64 on up-cast copies
of the checked inputs (:mod:`.numeric`). Every function is treated as a map between
real vector spaces (:mod:`.complex`), so one test covers real, complex and mixed
functions alike; sparse inputs and outputs are checked on their stored values
(:mod:`.sparse`).

Fast mode (the default) compares scalars: for a random unit direction ``u`` and a
random cotangent ``v``, ``<vjp(v), u>`` against ``<v, (f(x+eps u) - f(x-eps u)) / 2eps>``
— one VJP and two evaluations per direction instead of a full Jacobian, in the
spirit of PyTorch's fast gradcheck. The analytic side is evaluated on the
perturbation actually realised after rounding, so the comparison is exact to
first order even when the numerical side runs at reduced precision. Slow mode
compares full Jacobians (:mod:`.checker`); failures name the worst disagreement
(:mod:`.report`).
"""
from .api import gradcheck, gradgradcheck
from .report import GradcheckError

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]
