"""The optimizer base class: parameter groups, learning rate (a number or an
``LRScheduler``), weight decay, gradient clipping, accumulators and their state dict.

An update runs on the backend arrays and writes each parameter's values in place
(bumping its version counter), so the tensors a layer holds stay the same objects,
remain leaves with ``stop_gradient=False``, and no graph is recorded. The order per
step is Paddle's: clip the gradients, add the regularization term
(``weight_decay``: a number means ``L2Decay``; a parameter's own ``regularizer``
wins), then apply the rule with ``lr * group learning_rate * param learning_rate``.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..autograd.grad_mode import no_grad
from ..core.tensor import Tensor
from ..nn.clip import ClipGradBase
from ..regularizer import L2Decay, WeightDecayRegularizer
from .lr import LRScheduler


def _real(v, op, arg):
    if isinstance(v, Tensor):
        if v.size != 1:
            raise TypeError(f"{op}: {arg} must be a number, got a tensor of shape {v.shape}")
        v = v.item()
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"{op}: {arg} must be a number, got {type(v).__name__}")
    return float(v)


def _in_range(v, lo, hi, op, arg, lo_open=False, hi_open=True):
    ok = (v > lo if lo_open else v >= lo) and (hi is None or (v < hi if hi_open else v <= hi))
    if not ok:
        left = "(" if lo_open else "["
        right = ")" if hi_open else "]"
        raise ValueError(f"{op}: {arg} must be in {left}{lo}, {'inf' if hi is None else hi}"
                         f"{right}, got {v}")
    return v


class Optimizer:
    """Base class of the optimizers; subclasses implement ``_update``.

    ``parameters``: a list of Tensors, or a list of dicts (parameter groups) each with
    ``'params'`` and optional overrides (``'learning_rate'`` as a multiplier,
    ``'weight_decay'``, ``'grad_clip'`` and the optimizer's own hyper-parameters).
    """

    _hyper = ()          # names of per-group hyper-parameters
    _decoupled = False   # AdamW applies its decay itself, not as a gradient term

    def __init__(self, learning_rate, parameters=None, weight_decay=None, grad_clip=None,
                 name=None):
        op = type(self).__name__
        if isinstance(learning_rate, LRScheduler):
            self._learning_rate = learning_rate
        else:
            if learning_rate is None:
                raise ValueError(f"{op}: learning_rate is not set")
            lr = _real(learning_rate, op, "learning_rate")
            if lr < 0:
                raise ValueError(f"{op}: learning_rate must be non-negative, got {lr}")
            self._learning_rate = lr
        if grad_clip is not None and not isinstance(grad_clip, ClipGradBase):
            raise TypeError(f"{op}: grad_clip must be a ClipGradByNorm, ClipGradByGlobalNorm "
                            f"or ClipGradByValue, got {type(grad_clip).__name__}")
        self._grad_clip = grad_clip
        self.regularization = None if self._decoupled else self._regularizer(weight_decay, op)
        self._name = name
        self._accumulators = {}      # accumulator name -> {id(param): Tensor}
        self._param_groups = self._make_groups(parameters, op)
        self._parameter_list = [p for g in self._param_groups for p in g["params"]]

    # -- construction helpers ------------------------------------------------------
    @staticmethod
    def _regularizer(weight_decay, op):
        if weight_decay is None:
            return None
        if isinstance(weight_decay, WeightDecayRegularizer):
            return weight_decay
        if isinstance(weight_decay, bool) or not isinstance(weight_decay, numbers.Real):
            raise TypeError(f"{op}: weight_decay must be a float or an L1Decay/L2Decay, got "
                            f"{type(weight_decay).__name__}")
        return L2Decay(float(weight_decay))

    def _defaults(self):
        d = {"learning_rate": 1.0, "weight_decay": self.regularization,
             "grad_clip": self._grad_clip}
        for k in self._hyper:
            d[k] = getattr(self, "_" + k)
        return d

    def _make_groups(self, parameters, op):
        if parameters is None:
            raise ValueError(f"{op}: parameters must be given (e.g. model.parameters())")
        if isinstance(parameters, Tensor):
            raise TypeError(f"{op}: parameters must be an iterable of Tensors, got a single "
                            "Tensor (wrap it in a list)")
        if isinstance(parameters, dict):
            raise TypeError(f"{op}: parameters must be a list of Tensors or a list of dicts "
                            "(parameter groups), not a dict")
        items = list(parameters)
        if not items:
            raise ValueError(f"{op}: got an empty parameter list")
        groups = []
        if all(isinstance(g, dict) for g in items):
            for i, g in enumerate(items):
                if "params" not in g:
                    raise ValueError(f"{op}: parameter group {i} has no 'params'")
                unknown = set(g) - {"params", *self._defaults()}
                if unknown:
                    raise ValueError(f"{op}: parameter group {i} has unknown options "
                                     f"{sorted(unknown)}")
                grp = self._defaults()
                grp.update(g)
                ps = grp["params"]
                grp["params"] = [ps] if isinstance(ps, Tensor) else list(ps)
                if "weight_decay" in g and not self._decoupled:
                    grp["weight_decay"] = self._regularizer(g["weight_decay"], op)
                grp["learning_rate"] = _real(grp["learning_rate"], op, "learning_rate")
                groups.append(grp)
        else:
            grp = self._defaults()
            grp["params"] = items
            groups.append(grp)
        for g in groups:
            for p in g["params"]:
                if not isinstance(p, Tensor):
                    raise TypeError(f"{op}: parameters must be Tensors, got "
                                    f"{type(p).__name__}")
                if p._data.dtype.kind not in "fc":
                    raise TypeError(f"{op}: parameters must be floating tensors, got "
                                    f"{p._data.dtype.name}")
        return groups

    # -- learning rate -----------------------------------------------------------------
    def get_lr(self):
        """The current learning rate (the scheduler's value when one is used)."""
        lr = self._learning_rate
        return float(lr()) if isinstance(lr, LRScheduler) else lr

    def set_lr(self, value):
        """Set a constant learning rate (not allowed while an LRScheduler drives it)."""
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"set_lr: value must be a float, got {type(value).__name__}")
        if isinstance(self._learning_rate, LRScheduler):
            raise RuntimeError("set_lr: the learning rate is an LRScheduler; use "
                               "set_lr_scheduler or step the scheduler instead")
        self._learning_rate = float(value)

    def set_lr_scheduler(self, scheduler):
        if not isinstance(scheduler, LRScheduler):
            raise TypeError(f"set_lr_scheduler: expected an LRScheduler, got "
                            f"{type(scheduler).__name__}")
        self._learning_rate = scheduler

    # -- accumulators --------------------------------------------------------------------
    def _acc_specs(self, group):
        """``[(name, fill, shape or None, dtype or None)]`` for each parameter."""
        return []

    def _acc(self, name, p, fill=0.0, shape=None, dtype=None):
        store = self._accumulators.setdefault(name, {})
        t = store.get(id(p))
        if t is None:
            d = p._data
            xp = np if type(d) is np.ndarray else _xp(d)
            if shape is None:
                arr = xp.full(d.shape, fill, dtype=d.dtype if dtype is None else dtype)
            else:
                arr = xp.full(shape, fill, dtype=dtype or d.dtype)
            t = store[id(p)] = Tensor._wrap(arr)
        return t._data

    def _ensure_accumulators(self):
        for g in self._param_groups:
            for p in g["params"]:
                for name, fill, shape, dtype in self._acc_specs(g):
                    self._acc(name, p, fill, shape, dtype)

    def _param_key(self, p, i):
        return p.name if getattr(p, "name", None) else f"param_{i}"

    # -- the update ------------------------------------------------------------------------
    def _preprocess(self, g, group):
        return g

    def _update(self, p, g, lr, group):
        raise NotImplementedError(f"{type(self).__name__} must implement _update (the "
                                  "optimizer's update rule)")

    def step(self):
        """Update every parameter that has a gradient, in place."""
        base_lr = self.get_lr()
        with no_grad():
            for group in self._param_groups:
                pg = [(p, p._grad) for p in group["params"]
                      if not p.stop_gradient and p._grad is not None]
                if not pg:
                    continue
                clip = group["grad_clip"]
                if clip is not None:
                    pg = clip(pg)
                reg = group["weight_decay"]
                glr = base_lr * group["learning_rate"]
                for p, g in pg:
                    if g is None:
                        continue
                    garr = self._preprocess(g._data, group)
                    r = getattr(p, "regularizer", None) or reg
                    if r is not None and not self._decoupled:
                        garr = garr + r.term(p._data)
                    attr = getattr(p, "optimize_attr", None)
                    lr = glr * attr["learning_rate"] if attr else glr
                    if garr.dtype != p._data.dtype:
                        garr = garr.astype(p._data.dtype)
                    self._update(p, garr, lr, group)
                    p._version[0] += 1

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Apply one :meth:`step` with the gradients already computed by
        ``loss.backward()`` (dygraph semantics); returns ``(None, params_grads)``."""
        pg = [(p, p.grad) for p in self._parameter_list if p.grad is not None]
        self.step()
        return None, pg

    def clear_grad(self, set_to_zero=True):
        """Clear the gradients of the optimized parameters (zeros, or None with
        ``set_to_zero=False``)."""
        for p in self._parameter_list:
            if not p.stop_gradient:
                p.clear_grad(set_to_zero)

    clear_gradients = clear_grad

    # -- state -------------------------------------------------------------------------------
    def state_dict(self):
        """Accumulators by Paddle-style name (``<param name>_<accumulator>_0``) and, with a
        scheduler, its state under ``"LR_Scheduler"``. Empty before the first step."""
        out = {}
        for i, p in enumerate(self._parameter_list):
            key = self._param_key(p, i)
            for name, store in self._accumulators.items():
                t = store.get(id(p))
                if t is not None:
                    out[f"{key}_{name}_0"] = t
        if isinstance(self._learning_rate, LRScheduler):
            out["LR_Scheduler"] = self._learning_rate.state_dict()
        return out

    def set_state_dict(self, state_dict):
        """Load a state dict from :meth:`state_dict` (values may be Tensors or arrays).
        Accumulators are matched by parameter name, or by position when the names differ
        (a re-created model) but the counts agree."""
        if not isinstance(state_dict, dict):
            raise TypeError(f"set_state_dict: expected a dict, got {type(state_dict).__name__}")
        sched = state_dict.get("LR_Scheduler")
        if sched is not None and isinstance(self._learning_rate, LRScheduler):
            self._learning_rate.set_state_dict(sched)
        self._ensure_accumulators()
        params = self._parameter_list
        for name, store in self._accumulators.items():
            suffix = f"_{name}_0"
            keys = [f"{self._param_key(p, i)}{suffix}" for i, p in enumerate(params)]
            if not all(k in state_dict for k in keys):
                saved = [k for k in state_dict if isinstance(k, str) and k.endswith(suffix)]
                if not saved:
                    continue
                if len(saved) != len(params):
                    raise ValueError(f"set_state_dict: the state dict has {len(saved)} "
                                     f"'{name}' accumulators but this optimizer has "
                                     f"{len(params)} parameters")
                keys = saved
            for p, k in zip(params, keys):
                t = store.get(id(p))
                if t is None:
                    continue
                v = state_dict[k]
                arr = v._data if isinstance(v, Tensor) else np.asarray(v)
                if tuple(arr.shape) != tuple(t._data.shape):
                    raise ValueError(f"set_state_dict: {k!r} has shape {list(arr.shape)} but "
                                     f"the accumulator has shape {list(t._data.shape)}")
                from ..core.place import move_array  # noqa: PLC0415

                t._data[...] = move_array(arr, t.place).astype(t._data.dtype, copy=False)

    set_dict = set_state_dict

    def __repr__(self):
        return f"{type(self).__name__}(learning_rate={self._learning_rate!r})"


def _xp(a):
    from ..core.args import xp_of  # noqa: PLC0415

    return xp_of(a)


__all__ = ["Optimizer"]
