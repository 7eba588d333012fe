"""SGD with (Nesterov) momentum, Paddle's formulation."""
from __future__ import annotations

from .optimizer import Optimizer, _in_range, _real


class Momentum(Optimizer):
    """``velocity = momentum * velocity + grad``; then ``param -= lr * velocity``, or with
    ``use_nesterov`` ``param -= lr * (grad + momentum * velocity)``. ``grad`` is scaled by
    ``rescale_grad`` and includes the weight-decay term (L2 for a float).

    >>> import weft
    >>> fc = weft.nn.Linear(2, 1)
    >>> opt = weft.optimizer.Momentum(0.1, momentum=0.9, parameters=fc.parameters())
    >>> fc(weft.ones([1, 2])).sum().backward(); opt.step()
    >>> sorted(opt.state_dict())[0].endswith('_velocity_0')
    True
    """

    _hyper = ("momentum", "use_nesterov", "rescale_grad")

    def __init__(self, learning_rate=0.001, momentum=0.9, parameters=None, use_nesterov=False,
                 weight_decay=None, grad_clip=None, multi_precision=False, rescale_grad=1.0,
                 use_multi_tensor=False, name=None):
        self._momentum = _in_range(_real(momentum, "Momentum", "momentum"), 0.0, None,
                                   "Momentum", "momentum")
        self._use_nesterov = bool(use_nesterov)
        self._rescale_grad = _real(rescale_grad, "Momentum", "rescale_grad")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _acc_specs(self, group):
        return [("velocity", 0.0, None, None)]

    def _preprocess(self, g, group):
        r = group["rescale_grad"]
        return g if r == 1.0 else g * r

    def _update(self, p, g, lr, group):
        mu = group["momentum"]
        v = self._acc("velocity", p)
        v *= mu
        v += g
        if group["use_nesterov"]:
            p._data -= (g + v * mu) * lr
        else:
            p._data -= v * lr


__all__ = ["Momentum"]
