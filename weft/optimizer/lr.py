"""Learning-rate schedules (``weft.optimizer.lr``), with Paddle's stepping convention.

A scheduler is built with the base rate and immediately steps once, so after
construction ``last_epoch == 0`` and ``scheduler()`` is the rate of epoch 0. Each
``step()`` advances ``last_epoch`` and recomputes ``last_lr``; ``step(epoch)`` jumps
to ``epoch`` (with the closed form where the schedule is recursive). Pass a
scheduler as an optimizer's ``learning_rate`` and call ``scheduler.step()`` once
per epoch (or per iteration) yourself.
"""
from __future__ import annotations

import math
import numbers
import warnings

import numpy as np


def _number(v, cls, arg):
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"{cls}: {arg} must be a number, got {type(v).__name__}")
    return float(v)


def _int(v, cls, arg, least=None):
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError(f"{cls}: {arg} must be an int, got {type(v).__name__}")
    if least is not None and v < least:
        raise ValueError(f"{cls}: {arg} must be >= {least}, got {v}")
    return int(v)


class LRScheduler:
    """Base class: subclasses implement :meth:`get_lr` for ``self.last_epoch``.

    >>> import weft
    >>> s = weft.optimizer.lr.StepDecay(0.1, step_size=2)
    >>> lrs = []
    >>> for _ in range(5):
    ...     lrs.append(round(s(), 4)); s.step()
    >>> lrs
    [0.1, 0.1, 0.01, 0.01, 0.001]
    """

    def __init__(self, learning_rate=0.1, last_epoch=-1, verbose=False):
        lr = _number(learning_rate, type(self).__name__, "learning_rate")
        if lr < 0:
            raise ValueError(f"{type(self).__name__}: learning_rate must be non-negative, got "
                             f"{lr}")
        self.base_lr = lr
        self.last_lr = lr
        self.last_epoch = _int(last_epoch, type(self).__name__, "last_epoch", -1)
        self.verbose = verbose
        self.step()

    def __call__(self):
        """The current learning rate."""
        return self.last_lr

    def step(self, epoch=None):
        """Advance one epoch, or jump to ``epoch``."""
        if epoch is None:
            self.last_epoch += 1
            self.last_lr = self.get_lr()
        else:
            self.last_epoch = _int(epoch, type(self).__name__, "epoch")
            closed = getattr(self, "_get_closed_form_lr", None)
            self.last_lr = closed() if closed is not None else self.get_lr()
        if self.verbose:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to "
                  f"{self.last_lr}.")

    def get_lr(self):
        raise NotImplementedError(f"{type(self).__name__} must implement get_lr (the "
                                  "learning rate at self.last_epoch)")

    def state_keys(self):
        self.keys = ["last_epoch", "last_lr"]

    def state_dict(self):
        """The schedule's position: ``last_epoch`` and ``last_lr`` (plus subclass state)."""
        self.state_keys()
        out = {}
        for k in self.keys:
            if k in self.__dict__:
                v = self.__dict__[k]
                if hasattr(v, "item") and getattr(v, "size", 1) == 1:
                    v = v.item()
                out[k] = v
        return out

    def set_state_dict(self, state_dict):
        """Restore a position saved by :meth:`state_dict`."""
        if not isinstance(state_dict, dict):
            raise TypeError(f"{type(self).__name__}.set_state_dict: expected a dict, got "
                            f"{type(state_dict).__name__}")
        self.state_keys()
        for k in self.keys:
            if k not in state_dict:
                raise RuntimeError(f"{type(self).__name__}.set_state_dict: the state dict has "
                                   f"no {k!r}")
            v = state_dict[k]
            if hasattr(v, "item") and getattr(v, "size", 1) == 1:
                v = v.item()
            self.__dict__[k] = v
        if len(state_dict) > len(self.keys):
            warnings.warn(f"{type(self).__name__}.set_state_dict: unused entries in the state "
                          "dict", stacklevel=2)

    set_dict = set_state_dict

    def __repr__(self):
        return f"{type(self).__name__}(last_epoch={self.last_epoch}, last_lr={self.last_lr})"


class StepDecay(LRScheduler):
    """``base_lr * gamma ** (epoch // step_size)``."""

    def __init__(self, learning_rate, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        self.step_size = _int(step_size, "StepDecay", "step_size", 1)
        self.gamma = _number(gamma, "StepDecay", "gamma")
        if self.gamma >= 1.0:
            raise ValueError(f"StepDecay: gamma should be < 1.0, got {gamma}")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.gamma ** (self.last_epoch // self.step_size)


class MultiStepDecay(LRScheduler):
    """``base_lr * gamma ** (number of milestones <= epoch)``."""

    def __init__(self, learning_rate, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        ms = [_int(m, "MultiStepDecay", "milestones") for m in milestones]
        if ms != sorted(ms):
            raise ValueError(f"MultiStepDecay: milestones must be increasing, got {ms}")
        self.milestones = ms
        self.gamma = _number(gamma, "MultiStepDecay", "gamma")
        if self.gamma >= 1.0:
            raise ValueError(f"MultiStepDecay: gamma should be < 1.0, got {gamma}")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        k = sum(1 for m in self.milestones if self.last_epoch >= m)
        return self.base_lr * self.gamma ** k


class ExponentialDecay(LRScheduler):
    """``base_lr * gamma ** epoch`` with ``0 < gamma < 1``."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = _number(gamma, "ExponentialDecay", "gamma")
        if not 0.0 < self.gamma < 1.0:
            raise ValueError(f"ExponentialDecay: gamma must be in (0, 1), got {gamma}")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.gamma ** self.last_epoch


class CosineAnnealingDecay(LRScheduler):
    """Cosine annealing from ``base_lr`` to ``eta_min`` over ``T_max`` epochs, computed
    recursively (SGDR without restarts); ``step(epoch)`` uses the closed form
    ``eta_min + (base_lr - eta_min) (1 + cos(pi epoch / T_max)) / 2``.

    >>> import weft
    >>> s = weft.optimizer.lr.CosineAnnealingDecay(1.0, T_max=2)
    >>> s.step(); round(s(), 4)
    0.5
    """

    def __init__(self, learning_rate, T_max, eta_min=0, last_epoch=-1, verbose=False):
        self.T_max = _int(T_max, "CosineAnnealingDecay", "T_max", 1)
        self.eta_min = _number(eta_min, "CosineAnnealingDecay", "eta_min")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        e, t = self.last_epoch, self.T_max
        if e == 0:
            return self.base_lr
        if (e - 1 - t) % (2 * t) == 0:
            return self.last_lr + (self.base_lr - self.eta_min) * (1 - math.cos(math.pi / t)) / 2
        return ((1 + math.cos(math.pi * e / t)) / (1 + math.cos(math.pi * (e - 1) / t))
                * (self.last_lr - self.eta_min) + self.eta_min)

    def _get_closed_form_lr(self):
        return self.eta_min + (self.base_lr - self.eta_min) * \
            (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2


class LambdaDecay(LRScheduler):
    """``base_lr * lr_lambda(epoch)``."""

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise TypeError(f"LambdaDecay: lr_lambda must be callable, got "
                            f"{type(lr_lambda).__name__}")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.lr_lambda(self.last_epoch)


class PiecewiseDecay(LRScheduler):
    """``values[i]`` for epochs in ``[boundaries[i-1], boundaries[i])``."""

    def __init__(self, boundaries, values, last_epoch=-1, verbose=False):
        if len(values) != len(boundaries) + 1:
            raise ValueError(f"PiecewiseDecay: values needs len(boundaries) + 1 = "
                             f"{len(boundaries) + 1} entries, got {len(values)}")
        self.boundaries = list(boundaries)
        self.values = [float(v) for v in values]
        super().__init__(self.values[0], last_epoch, verbose)

    def get_lr(self):
        for b, v in zip(self.boundaries, self.values):
            if self.last_epoch < b:
                return v
        return self.values[-1]


class LinearWarmup(LRScheduler):
    """Linear warm-up from ``start_lr`` to ``end_lr`` over ``warmup_steps``, then
    ``learning_rate`` (a number, or a scheduler stepped from 0 after the warm-up).

    >>> import weft
    >>> s = weft.optimizer.lr.LinearWarmup(0.5, warmup_steps=2, start_lr=0.0, end_lr=0.5)
    >>> out = []
    >>> for _ in range(4):
    ...     out.append(s()); s.step()
    >>> out
    [0.0, 0.25, 0.5, 0.5]
    """

    def __init__(self, learning_rate, warmup_steps, start_lr, end_lr, last_epoch=-1,
                 verbose=False):
        if not isinstance(learning_rate, (numbers.Real, LRScheduler)) or \
                isinstance(learning_rate, bool):
            raise TypeError(f"LinearWarmup: learning_rate must be a number or an LRScheduler, "
                            f"got {type(learning_rate).__name__}")
        self.learning_rate = learning_rate if isinstance(learning_rate, LRScheduler) \
            else float(learning_rate)
        self.warmup_steps = _int(warmup_steps, "LinearWarmup", "warmup_steps", 1)
        self.start_lr = _number(start_lr, "LinearWarmup", "start_lr")
        self.end_lr = _number(end_lr, "LinearWarmup", "end_lr")
        if not self.end_lr > self.start_lr:
            raise ValueError(f"LinearWarmup: end_lr ({end_lr}) must be greater than start_lr "
                             f"({start_lr})")
        super().__init__(start_lr, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch < self.warmup_steps:
            return (self.end_lr - self.start_lr) * float(self.last_epoch) / \
                float(self.warmup_steps) + self.start_lr
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.step(self.last_epoch - self.warmup_steps)
            return self.learning_rate()
        return self.learning_rate

    def state_dict(self):
        out = super().state_dict()
        if isinstance(self.learning_rate, LRScheduler):
            out["LinearWarmup_LR"] = self.learning_rate.state_dict()
        return out

    def set_state_dict(self, state_dict):
        inner = state_dict.get("LinearWarmup_LR") if isinstance(state_dict, dict) else None
        rest = {k: v for k, v in state_dict.items() if k != "LinearWarmup_LR"} \
            if isinstance(state_dict, dict) else state_dict
        super().set_state_dict(rest)
        if isinstance(self.learning_rate, LRScheduler):
            if inner is None:
                raise RuntimeError("LinearWarmup.set_state_dict: the state dict has no "
                                   "'LinearWarmup_LR' for the wrapped scheduler")
            self.learning_rate.set_state_dict(inner)


class ReduceOnPlateau(LRScheduler):
    """Multiply the rate by ``factor`` when ``metrics`` (passed to ``step``) has not
    improved for more than ``patience`` epochs; ``threshold``/``threshold_mode`` define
    improvement (relative or absolute), ``cooldown`` epochs are skipped after a
    reduction, and the rate never goes below ``min_lr`` (changes under ``epsilon`` are
    ignored).

    >>> import weft
    >>> s = weft.optimizer.lr.ReduceOnPlateau(1.0, patience=1, factor=0.5)
    >>> for loss in [3.0, 3.0, 3.0, 3.0]:
    ...     s.step(loss)
    >>> s()
    0.5
    """

    def __init__(self, learning_rate, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, epsilon=1e-8, verbose=False):
        mode = str(mode).lower()
        if mode not in ("min", "max"):
            raise ValueError(f"ReduceOnPlateau: mode must be 'min' or 'max', got {mode!r}")
        threshold_mode = str(threshold_mode).lower()
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"ReduceOnPlateau: threshold_mode must be 'rel' or 'abs', got "
                             f"{threshold_mode!r}")
        self.factor = _number(factor, "ReduceOnPlateau", "factor")
        if self.factor >= 1.0:
            raise ValueError(f"ReduceOnPlateau: factor should be < 1.0, got {factor}")
        lr = _number(learning_rate, "ReduceOnPlateau", "learning_rate")
        self.mode, self.threshold_mode = mode, threshold_mode
        self.patience = _int(patience, "ReduceOnPlateau", "patience", 0)
        self.threshold = _number(threshold, "ReduceOnPlateau", "threshold")
        self.cooldown = _int(cooldown, "ReduceOnPlateau", "cooldown", 0)
        self.min_lr = _number(min_lr, "ReduceOnPlateau", "min_lr")
        self.epsilon = _number(epsilon, "ReduceOnPlateau", "epsilon")
        self.cooldown_counter = 0
        self.best = None
        self.num_bad_epochs = 0
        self.base_lr = self.last_lr = lr
        self.last_epoch = 0
        self.verbose = verbose

    def state_keys(self):
        self.keys = ["cooldown_counter", "best", "num_bad_epochs", "last_epoch", "last_lr"]

    def step(self, metrics, epoch=None):
        """Record this epoch's ``metrics`` (a number or a one-element Tensor/array)."""
        self.last_epoch = self.last_epoch + 1 if epoch is None else \
            _int(epoch, "ReduceOnPlateau", "epoch")
        if hasattr(metrics, "size") and hasattr(metrics, "shape"):
            if metrics.size != 1:
                raise ValueError(f"ReduceOnPlateau.step: metrics must have one element, got "
                                 f"shape {list(metrics.shape)} (reduce it with mean first)")
            metrics = float(np.asarray(metrics).reshape(()))
        elif isinstance(metrics, bool) or not isinstance(metrics, numbers.Real):
            raise TypeError(f"ReduceOnPlateau.step: metrics must be a number or a one-element "
                            f"Tensor, got {type(metrics).__name__}")
        current = float(metrics)
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            return
        if self.best is None or self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.num_bad_epochs > self.patience:
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
            new_lr = max(self.last_lr * self.factor, self.min_lr)
            if self.last_lr - new_lr > self.epsilon:
                self.last_lr = new_lr
                if self.verbose:
                    print(f"Epoch {self.last_epoch}: ReduceOnPlateau set learning rate to "
                          f"{self.last_lr}.")

    def _is_better(self, current, best):
        if self.mode == "min":
            return current < (best - best * self.threshold if self.threshold_mode == "rel"
                              else best - self.threshold)
        return current > (best + best * self.threshold if self.threshold_mode == "rel"
                          else best + self.threshold)

    def get_lr(self):
        return self.last_lr


__all__ = ["LRScheduler", "StepDecay", "MultiStepDecay", "ExponentialDecay",
           "CosineAnnealingDecay", "LambdaDecay", "PiecewiseDecay", "LinearWarmup",
           "ReduceOnPlateau"]
