"""The numerical side: central differences of ``func`` in float64.

The checked inputs are up-cast to float64/complex128 copies and ``func`` is evaluated
under no_grad at ``x +- eps d``; a function that cannot run in float64 (a
dtype-specific kernel) is differenced at the inputs' own precision instead. Each
difference comes with the perturbation actually realised after rounding, so the
analytic side can be evaluated on exactly that step.
"""
from __future__ import annotations

import numpy as np

from ...core.tensor import Tensor
from ..grad_mode import no_grad
from .common import EPS, host, like, _prec
from .complex import wide


class _Numeric:
    """func evaluated under no_grad at perturbed float64 copies of the checked inputs."""

    def __init__(self, func, seq, checked, positions, user_eps, name):
        self.func = func
        self.seq = seq
        self.checked = checked
        self.positions = positions
        self.name = name
        self.base = {i: host(seq[i]) for i in checked}
        try:
            self.run({})
        except Exception:
            if all(seq[i]._data.dtype == self.base[i].dtype for i in checked):
                raise
            # a dtype-specific kernel: difference at the inputs' own precision instead
            self.base = {i: seq[i].numpy().copy() for i in checked}
            self.run({})
        self.base_wide = {i: np.asarray(b, dtype=wide(b.dtype)) for i, b in self.base.items()}
        # outputs rounded to less than float64 (a cast inside func) need a larger step
        prec = max([_prec(b.dtype) for b in self.base.values()] +
                   [_prec(o.dtype) for o in self._raw], default=0)
        self.eps = user_eps if user_eps is not None else EPS[prec]

    def run(self, pert):
        args = list(self.seq)
        for i in self.checked:
            a = pert.get(i)
            if a is None:
                a = self.base[i].copy()
            args[i] = Tensor._wrap(like(a, self.seq[i]))
        with no_grad():
            res = self.func(*args)
        if isinstance(res, Tensor):
            res = (res,)
        if not isinstance(res, (list, tuple)):
            raise TypeError(f"{self.name}: func must return a Tensor or a sequence of Tensors, "
                            f"got {type(res).__name__}")
        try:
            raw = [res[j] for j in self.positions]
            self._raw = [r.numpy() for r in raw]
        except (IndexError, AttributeError):
            raise ValueError(f"{self.name}: func returned differently structured outputs when "
                             "evaluated at float64 copies of the inputs") from None
        return [np.asarray(r, dtype=wide(r.dtype)) for r in self._raw]

    def perturbed(self, i, d):
        """``base + d`` in the numeric dtype, and the realised perturbation in wide dtype."""
        b = self.base[i]
        p = np.asarray(self.base_wide[i] + d).astype(b.dtype)
        return p, np.asarray(p, dtype=self.base_wide[i].dtype) - self.base_wide[i]

    def diff(self, i, d):
        """Output differences f(x + d) - f(x - d) and the realised 2d."""
        xp, dp = self.perturbed(i, d)
        xm, dm = self.perturbed(i, -d)
        fp = self.run({i: xp})
        fm = self.run({i: xm})
        return [a - b for a, b in zip(fp, fm)], dp - dm
