"""RMSProp, Paddle's formulation (epsilon inside the square root)."""
from __future__ import annotations

from .optimizer import Optimizer, _in_range, _real


class RMSProp(Optimizer):
    """``ms = rho * ms + (1 - rho) * grad**2``; ``mom = momentum * mom + lr * grad /
    sqrt(ms + epsilon)`` (``centered``: ``sqrt(ms - mg**2 + epsilon)`` with
    ``mg = rho * mg + (1 - rho) * grad``); ``param -= mom``.

    >>> import weft
    >>> fc = weft.nn.Linear(2, 1)
    >>> opt = weft.optimizer.RMSProp(0.01, parameters=fc.parameters())
    >>> fc(weft.ones([1, 2])).sum().backward(); opt.step()
    >>> sorted(k.split('_0_')[-1] for k in opt.state_dict() if 'b_0' in k)
    ['mean_grad_0', 'mean_square_0', 'momentum_0']
    """

    _hyper = ("rho", "epsilon", "momentum", "centered")

    def __init__(self, learning_rate, rho=0.95, epsilon=1e-06, momentum=0.0, centered=False,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        op = "RMSProp"
        self._rho = _in_range(_real(rho, op, "rho"), 0.0, None, op, "rho")
        self._epsilon = _in_range(_real(epsilon, op, "epsilon"), 0.0, None, op, "epsilon")
        self._momentum = _in_range(_real(momentum, op, "momentum"), 0.0, None, op, "momentum")
        self._centered = bool(centered)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _acc_specs(self, group):
        return [("momentum", 0.0, None, None), ("mean_square", 0.0, None, None),
                ("mean_grad", 0.0, None, None)]

    def _update(self, p, g, lr, group):
        rho, eps = group["rho"], group["epsilon"]
        ms = self._acc("mean_square", p)
        mom = self._acc("momentum", p)
        mg = self._acc("mean_grad", p)
        ms *= rho
        ms += g * g * (1 - rho)
        if group["centered"]:
            mg *= rho
            mg += g * (1 - rho)
            denom = ms - mg * mg
        else:
            denom = ms.copy()
        denom += eps
        mom *= group["momentum"]
        mom += g / denom ** 0.5 * lr
        p._data -= mom


__all__ = ["RMSProp"]
