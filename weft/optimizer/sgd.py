"""Stochastic gradient descent."""
from __future__ import annotations

from .optimizer import Optimizer


class SGD(Optimizer):
    """``param -= lr * grad`` (``grad`` including the weight-decay term).

    >>> import weft
    >>> fc = weft.nn.Linear(2, 1)
    >>> opt = weft.optimizer.SGD(learning_rate=0.1, parameters=fc.parameters())
    >>> fc(weft.ones([4, 2])).sum().backward()
    >>> b0 = fc.bias.item(); opt.step(); opt.clear_grad()
    >>> round(fc.bias.item() - b0, 4)
    -0.4
    """

    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None,
                 multi_precision=False, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _update(self, p, g, lr, group):
        p._data -= g * lr


__all__ = ["SGD"]
