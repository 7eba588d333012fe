"""Adam and AdamW.

Paddle's form of the update folds the bias corrections into the step size,
``param -= lr * sqrt(1 - beta2^t) / (1 - beta1^t) * m / (sqrt(v) + eps * sqrt(1 - beta2^t))``,
which is exactly ``lr * m_hat / (sqrt(v_hat) + eps)``. The powers ``beta^t`` are kept
per parameter (``beta1_pow_acc``/``beta2_pow_acc``, as in Paddle's state dict) in
float64 so the corrections stay accurate for float32 parameters.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..core.tensor import Tensor
from .optimizer import Optimizer, _in_range, _real


class Adam(Optimizer):
    """Adam (Kingma & Ba) with coupled weight decay (``weight_decay`` adds
    ``coeff * param`` to the gradient) and optional AMSGrad.

    >>> import weft
    >>> fc = weft.nn.Linear(2, 1)
    >>> opt = weft.optimizer.Adam(learning_rate=0.01, parameters=fc.parameters())
    >>> fc(weft.ones([3, 2])).sum().backward(); b0 = fc.bias.item(); opt.step()
    >>> round(fc.bias.item() - b0, 4)
    -0.01
    """

    _hyper = ("beta1", "beta2", "epsilon", "amsgrad")

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08,
                 parameters=None, weight_decay=None, grad_clip=None, lazy_mode=False,
                 multi_precision=False, use_multi_tensor=False, amsgrad=False, name=None):
        self._set_betas(beta1, beta2, epsilon, amsgrad)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _set_betas(self, beta1, beta2, epsilon, amsgrad):
        op = type(self).__name__
        self._beta1 = _in_range(_real(beta1, op, "beta1"), 0.0, 1.0, op, "beta1")
        self._beta2 = _in_range(_real(beta2, op, "beta2"), 0.0, 1.0, op, "beta2")
        self._epsilon = _in_range(_real(epsilon, op, "epsilon"), 0.0, None, op, "epsilon")
        self._amsgrad = bool(amsgrad)

    def _acc_specs(self, group):
        specs = [("moment1", 0.0, None, None), ("moment2", 0.0, None, None),
                 ("beta1_pow_acc", group["beta1"], (1,), np.float64),
                 ("beta2_pow_acc", group["beta2"], (1,), np.float64)]
        if group["amsgrad"]:
            specs.append(("moment2_max", 0.0, None, None))
        return specs

    def _update(self, p, g, lr, group):
        b1, b2, eps = group["beta1"], group["beta2"], group["epsilon"]
        m = self._acc("moment1", p)
        v = self._acc("moment2", p)
        b1p_arr = self._acc("beta1_pow_acc", p, b1, (1,), np.float64)
        b2p_arr = self._acc("beta2_pow_acc", p, b2, (1,), np.float64)
        b1p, b2p = float(b1p_arr[0]), float(b2p_arr[0])
        # in place with one scratch buffer: the update is memory-bound, so passes and
        # allocations are what it costs
        buf = g * (1 - b1)
        m *= b1
        m += buf
        np.multiply(g, g, out=buf)
        buf *= 1 - b2
        v *= b2
        v += buf
        if group["amsgrad"]:
            vmax = self._acc("moment2_max", p)
            np.maximum(vmax, v, out=vmax)
            v = vmax
        c2 = math.sqrt(1 - b2p)
        lr_t = lr * c2 / (1 - b1p)
        np.sqrt(v, out=buf)
        buf += eps * c2
        np.divide(m, buf, out=buf)
        buf *= lr_t
        p._data -= buf
        b1p_arr *= b1
        b2p_arr *= b2


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): before each update
    ``param *= 1 - lr * weight_decay`` (``weight_decay`` default 0.01) for the parameters
    where ``apply_decay_param_fun(param.name)`` is true (all when it is None);
    ``lr_ratio(param)`` scales the learning rate per parameter.

    >>> import weft
    >>> fc = weft.nn.Linear(2, 1)
    >>> opt = weft.optimizer.AdamW(0.01, parameters=fc.parameters(), weight_decay=0.1)
    >>> fc(weft.ones([1, 2])).sum().backward(); opt.step()
    """

    _hyper = ("beta1", "beta2", "epsilon", "amsgrad", "coeff")
    _decoupled = True

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08,
                 parameters=None, weight_decay=0.01, use_lowprecision_moment=False,
                 lr_ratio=None, apply_decay_param_fun=None, grad_clip=None, lazy_mode=False,
                 multi_precision=False, amsgrad=False, name=None):
        if isinstance(weight_decay, Tensor):
            weight_decay = weight_decay.item()
        if weight_decay is None:
            weight_decay = 0.0
        if isinstance(weight_decay, bool) or not isinstance(weight_decay, numbers.Real):
            raise TypeError(f"AdamW: weight_decay must be a float or a Tensor, got "
                            f"{type(weight_decay).__name__}")
        if apply_decay_param_fun is not None and not callable(apply_decay_param_fun):
            raise TypeError("AdamW: apply_decay_param_fun must be callable")
        if lr_ratio is not None and not callable(lr_ratio):
            raise TypeError("AdamW: lr_ratio must be callable")
        self._coeff = float(weight_decay)
        self._apply_decay_param_fun = apply_decay_param_fun
        self._lr_ratio = lr_ratio
        self._set_betas(beta1, beta2, epsilon, amsgrad)
        Optimizer.__init__(self, learning_rate, parameters, None, grad_clip, name)

    def _make_groups(self, parameters, op):
        groups = super()._make_groups(parameters, op)
        for g in groups:
            wd = g.get("weight_decay")
            if wd is not None:
                # a group may set weight_decay for AdamW: it is the decoupled coefficient
                g["coeff"] = float(wd.coeff if hasattr(wd, "coeff") else wd)
                g["weight_decay"] = None
        return groups

    def _update(self, p, g, lr, group):
        if self._lr_ratio is not None:
            lr = lr * float(self._lr_ratio(p))
        coeff = group["coeff"]
        if coeff and (self._apply_decay_param_fun is None or
                      self._apply_decay_param_fun(getattr(p, "name", None))):
            p._data *= 1.0 - lr * coeff
        super()._update(p, g, lr, group)


__all__ = ["Adam", "AdamW"]
