"""Adagrad."""
from __future__ import annotations

from .optimizer import Optimizer, _in_range, _real


class Adagrad(Optimizer):
    """``moment += grad**2``; ``param -= lr * grad / (sqrt(moment) + epsilon)``, the moment
    starting at ``initial_accumulator_value``.

    >>> import weft
    >>> fc = weft.nn.Linear(2, 1)
    >>> opt = weft.optimizer.Adagrad(0.1, parameters=fc.parameters())
    >>> fc(weft.ones([1, 2])).sum().backward(); b0 = fc.bias.item(); opt.step()
    >>> round(fc.bias.item() - b0, 4)
    -0.1
    """

    _hyper = ("epsilon",)

    def __init__(self, learning_rate, epsilon=1e-06, parameters=None, weight_decay=None,
                 grad_clip=None, name=None, initial_accumulator_value=0.0):
        self._epsilon = _in_range(_real(epsilon, "Adagrad", "epsilon"), 0.0, None, "Adagrad",
                                  "epsilon")
        self._initial = _in_range(_real(initial_accumulator_value, "Adagrad",
                                        "initial_accumulator_value"), 0.0, None, "Adagrad",
                                  "initial_accumulator_value")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _acc_specs(self, group):
        return [("moment", self._initial, None, None)]

    def _update(self, p, g, lr, group):
        m = self._acc("moment", p, self._initial)
        m += g * g
        d = (m ** 0.5)
        d += group["epsilon"]
        p._data -= g / d * lr


__all__ = ["Adagrad"]
