"""Custom differentiable ops: ``PyLayer`` (alias ``Function``) and ``PyLayerContext``.

``apply`` runs the user's ``forward`` with grad mode off and records one graph node
whose rule calls the user's ``backward``. The node is an ordinary engine node, so a
PyLayer takes part in every traversal like a built-in op: hooks, ``retain_graph``,
``create_graph`` (when ``backward`` is written with weft ops) and reentrant
backward calls all work unchanged.

The engine asks a node for one input's cotangent at a time, while ``backward``
produces all of them at once; the node therefore runs ``backward`` on the first
request of a traversal and serves the other inputs from that result.
"""
from __future__ import annotations

import functools

import numpy as np

from ..core.tensor import Tensor
from . import engine
from .api import _xp
from .forward import opaque as _forward_opaque
from .grad_mode import mode


def _float(t):
    return t._data.dtype.kind in "fc"


def _cast(t, dtype):
    return engine.support.cast(t, dtype)


class _NoMaterialise:
    """Stands in for an output dtype so the engine leaves absent cotangents as None;
    the PyLayer node materialises them itself when the context asks for it."""

    kind = "-"


class PyLayerContext:
    """The ``ctx`` passed to ``forward`` and ``backward`` of a :class:`PyLayer`.

    Any attribute may be set on it to carry values from forward to backward.
    """

    def __init__(self):
        self._saved = None
        self._not_inplace = ()
        self._non_differentiable = ()
        self._materialize_grads = True
        self._dtype_consistent = True
        self._inputs = ()

    def save_for_backward(self, *tensors):
        """Keep ``tensors`` (or None) for backward, subject to ``saved_tensors_hooks``.

        Modifying a saved tensor in place before backward makes ``saved_tensor()``
        raise ``RuntimeError``.
        """
        entries = []
        top = engine.saved_hooks.top
        for i, t in enumerate(tensors):
            if t is None:
                entries.append(None)
                continue
            if not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward: argument {i} must be a Tensor or None, got "
                                f"{type(t).__name__}")
            packed = None
            if top is not None:
                engine.saved_hooks.top = None   # no recursive packing inside the hook
                try:
                    packed = (top[1], top[0](t))
                finally:
                    engine.saved_hooks.top = top
            entries.append((t, t._version, t._version[0], packed))
        self._saved = tuple(entries)

    def saved_tensor(self):
        """The tensors given to ``save_for_backward``, as a tuple in the same order."""
        if self._saved is None:
            return ()
        out = []
        for i, e in enumerate(self._saved):
            if e is None:
                out.append(None)
                continue
            t, counter, v, packed = e
            if counter[0] != v:
                raise RuntimeError(
                    f"one of the tensors needed for gradient computation (saved tensor {i} of "
                    f"a PyLayer) has been modified by an inplace operation. Its version is "
                    f"{counter[0]} but the expected version is {v}.")
            if packed is not None:
                t = engine.unpack_saved(packed[0], packed[1], t, f"saved tensor {i} of a PyLayer")
            out.append(t)
        return tuple(out)

    def mark_not_inplace(self, *tensors):
        """Inputs that forward may return unchanged; such an output becomes a new tensor
        sharing the input's storage, so the input's own history is kept.

        An input returned unmarked makes the op in place on it (see ``PyLayer.apply``).
        """
        for i, t in enumerate(tensors):
            if not isinstance(t, Tensor):
                raise TypeError(f"mark_not_inplace: argument {i} must be a Tensor, got "
                                f"{type(t).__name__}")
        self._not_inplace = tuple(tensors)

    def mark_non_differentiable(self, *tensors):
        """Outputs that get ``stop_gradient=True``; backward still receives a (zero)
        gradient for each of them."""
        for i, t in enumerate(tensors):
            if not isinstance(t, Tensor):
                raise TypeError(f"mark_non_differentiable: argument {i} must be a Tensor, got "
                                f"{type(t).__name__}")
        self._non_differentiable = tuple(tensors)

    def set_materialize_grads(self, value):
        """True (default): outputs that did not reach the loss get zero gradients in
        backward; False: they get None."""
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"set_materialize_grads: value must be a bool, got "
                            f"{type(value).__name__}")
        self._materialize_grads = bool(value)

    def set_grad_in_dtype_consistent(self, flag):
        """True (default): each incoming gradient is cast to its output's dtype."""
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"set_grad_in_dtype_consistent: flag must be a bool, got "
                            f"{type(flag).__name__}")
        self._dtype_consistent = bool(flag)


class _Backward:
    """The rule behind a PyLayer node: one call of the user's backward per traversal."""

    __slots__ = ("cls", "ctx", "outs", "n_in", "arg_pos", "n_args", "slots", "cache", "served",
                 "expected")

    def __init__(self, cls, ctx, outs, n_in, arg_pos, n_args, slots):
        self.cls = cls
        self.ctx = ctx
        self.outs = outs          # (shape, dtype, xp) per Tensor output
        self.n_in = n_in
        self.arg_pos = arg_pos    # position among all arguments of each Tensor input
        self.n_args = n_args
        # per argument holding Tensors, in order: None for a Tensor, else the positions
        # of the Tensors inside a list/tuple argument
        self.slots = slots
        self.cache = None
        self.served = 0
        # the engine asks at most once per input that required grad when the op ran;
        # after that many requests the cached result is dropped
        self.expected = 0

    def grads(self, g, inputs):
        c = self.cache
        if c is not None and c[0] is g and c[1] == mode.enabled:
            res = c[2]
        else:
            res = self._run(g, inputs)
            self.cache = (g, mode.enabled, res)
            self.served = 0
        self.served += 1
        if self.served >= self.expected:
            self.cache = None
        return res

    def _run(self, g, inputs):
        ctx = self.ctx
        gs = [g] if len(self.outs) == 1 else list(g)
        for k, (shape, dtype, xp) in enumerate(self.outs):
            gk = gs[k]
            if gk is None:
                if ctx._materialize_grads:
                    gs[k] = Tensor._wrap(xp.zeros(shape, dtype=dtype))
            elif ctx._dtype_consistent and gk._data.dtype != dtype:
                gs[k] = _cast(gk, dtype)
        name = self.cls.__name__
        if self.cls.backward is PyLayer.backward:
            raise NotImplementedError(f"{name} defines no backward: a PyLayer needs a static "
                                      "backward(ctx, *grads) to be differentiated")
        res = self.cls.backward(ctx, *gs)
        if isinstance(res, (tuple, list)):
            res = tuple(res)
        else:
            res = (res,)
        n = self.n_in
        if any(k is not None for k in self.slots):
            res = self._flatten(res, name)
        if len(res) < n:
            raise ValueError(f"backward function should not return empty at {len(res)} position")
        if len(res) > n:
            # PyTorch-style backward: one value per argument, None for non-Tensors
            if len(res) == self.n_args and all(res[p] is None for p in range(self.n_args)
                                               if p not in self.arg_pos):
                res = tuple(res[p] for p in self.arg_pos)
            else:
                raise ValueError(f"{name}.backward returned {len(res)} gradients but forward "
                                 f"has {n} Tensor input(s); return one per Tensor input")
        for i, (r, x) in enumerate(zip(res, inputs)):
            if r is None:
                continue
            if not isinstance(r, Tensor):
                raise ValueError(f"{name}.backward: the gradient for Tensor input {i} must be a "
                                 f"Tensor or None, got {type(r).__name__}")
            if r._data.shape != x._data.shape and not x.is_sparse():
                raise ValueError(f"{name}.backward: the gradient for Tensor input {i} has shape "
                                 f"{r.shape} but the input has shape {x.shape}")
        return res


    def _flatten(self, res, name):
        """One gradient per Tensor input from a backward that returns, for a list/tuple
        argument of forward, a list/tuple of gradients (one per Tensor in it, or one per
        element with None for the non-Tensors). A flat result is accepted as it is."""
        if len(res) == self.n_in and not any(isinstance(r, (list, tuple)) for r in res):
            return res
        if len(res) != len(self.slots):
            raise ValueError(f"{name}.backward returned {len(res)} values but forward has "
                             f"{len(self.slots)} argument(s) holding Tensors; return one per "
                             "such argument (a list of gradients for a list argument)")
        flat = []
        for k, (r, slot) in enumerate(zip(res, self.slots)):
            if slot is None:
                flat.append(r)
                continue
            if r is None:
                flat.extend([None] * len(slot[0]))
                continue
            if not isinstance(r, (list, tuple)):
                raise ValueError(f"{name}.backward: value {k} answers a list/tuple argument of "
                                 f"forward and must be a list/tuple of gradients, got "
                                 f"{type(r).__name__}")
            pos, length = slot
            if len(r) == len(pos):
                flat.extend(r)
            elif len(r) == length and all(r[j] is None for j in range(length) if j not in pos):
                flat.extend(r[j] for j in pos)
            else:
                raise ValueError(f"{name}.backward: value {k} has {len(r)} gradients but the "
                                 f"list/tuple argument holds {len(pos)} Tensor(s)")
        return tuple(flat)


class PyLayer:
    """Base class of custom ops with a hand-written backward.

    Subclass it with ``@staticmethod forward(ctx, *args, **kwargs)`` and
    ``@staticmethod backward(ctx, *grads)`` and call ``MyLayer.apply(...)``.
    ``forward`` runs with grad mode off; the outputs of ``apply`` require grad when
    any Tensor input does. ``backward`` receives one gradient per Tensor output
    and returns one gradient (or None) per Tensor input, in order.

    >>> import weft
    >>> class Cube(weft.autograd.PyLayer):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x ** 3
    ...     @staticmethod
    ...     def backward(ctx, dy):
    ...         (x,) = ctx.saved_tensor()
    ...         return 3 * x ** 2 * dy
    >>> x = weft.to_tensor([1.0, 2.0], stop_gradient=False)
    >>> Cube.apply(x).sum().backward()
    >>> x.grad.tolist()
    [3.0, 12.0]
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("PyLayer subclasses must define a static forward(ctx, ...)")

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("PyLayer subclasses must define a static backward(ctx, ...)")

    def __init__(self, *args, **kwargs):
        raise TypeError(f"{type(self).__name__} is not instantiated: call "
                        f"{type(self).__name__}.apply(...)")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run ``forward`` on the arguments and record the op for backward.

        Tensors inside list/tuple arguments are differentiable inputs too; backward
        returns a list/tuple of their gradients in that argument's place. If forward
        returns one of its Tensor inputs itself, the op is in place on it (as in
        Paddle: refused for a leaf that requires grad, and nodes that saved the input
        see its version change) unless ``ctx.mark_not_inplace`` names it.
        """
        if cls.forward is PyLayer.forward:
            raise NotImplementedError(f"{cls.__name__}: a PyLayer must define forward (and "
                                      "backward) as static methods")
        ctx = PyLayerContext()
        inputs = []
        arg_pos = []
        slots = []
        for p, a in enumerate(args):
            if isinstance(a, Tensor):
                arg_pos.append(p)
                inputs.append(a)
                slots.append(None)
            elif isinstance(a, (list, tuple)):
                pos = [j for j, e in enumerate(a) if isinstance(e, Tensor)]
                if pos:
                    inputs.extend(a[j] for j in pos)
                    slots.append((pos, len(a)))
        for v in kwargs.values():
            if isinstance(v, Tensor):
                inputs.append(v)
                slots.append(None)
        prev = mode.enabled
        mode.enabled = False
        try:
            out = cls.forward(ctx, *args, **kwargs)
        finally:
            mode.enabled = prev
        seq = isinstance(out, (tuple, list))
        items = list(out) if seq else [out]
        if not any(isinstance(o, Tensor) for o in items):
            raise ValueError(f"{cls.__name__}.forward must return a Tensor or a list/tuple "
                             f"holding at least one Tensor, got {type(out).__name__}")
        record = prev and any(not t.stop_gradient and _float(t) for t in inputs)
        if not record:
            return out
        in_ids = {id(t) for t in inputs}
        not_inplace = {id(t) for t in ctx._not_inplace}
        non_diff = {id(t) for t in ctx._non_differentiable}
        seen = set()
        pos = []
        marked = []
        inplace = []
        for k, o in enumerate(items):
            if not isinstance(o, Tensor):
                continue
            marked.append(id(o) in non_diff)
            if id(o) in seen or id(o) in not_inplace:
                # returned again, or an input forward must not update: a new tensor
                # sharing its storage, so the original's history is not overwritten
                o = Tensor._wrap(o._data)
                o._version = items[k]._version
                items[k] = o
            elif id(o) in in_ids:
                if o._node is None and not o.stop_gradient and _float(o):
                    raise ValueError(
                        f"{cls.__name__}.forward returned its input unchanged, which makes the "
                        "op in place on it, but that input is a leaf Tensor that doesn't stop "
                        "gradient and can't use inplace strategy; call "
                        "ctx.mark_not_inplace(x) in forward to return it as a new tensor")
                inplace.append(o)
            seen.add(id(o))
            pos.append(k)
        touts = [items[k] for k in pos]
        ctx._inputs = tuple(inputs)
        bw = _Backward(cls, ctx, tuple((o._data.shape, o._data.dtype, _xp(o)) for o in touts),
                       len(inputs), arg_pos, len(args), slots)
        bw.expected = sum(1 for t in inputs if not t.stop_gradient and _float(t))
        prim = engine.Primitive(cls.__name__, None, n_out=len(touts), register=False)
        prim.vjps = tuple(_input_rule(bw, i) for i in range(len(inputs)))
        prim.save = ()
        prim.save_out = False
        node = engine._record(prim, tuple(inputs), {}, tuple(o._data for o in touts))
        if engine._fwd_active:
            # a forward-mode pass does not see this node op by op: jvp then takes the
            # double-vjp trick over the whole function (weft.autograd.forward)
            _forward_opaque(inputs)
        if len(touts) > 1:
            node.out_meta = tuple((o._data.shape, _NoMaterialise) for o in touts)
        for o in inplace:
            # an in-place op: whoever saved the input's old values must find out
            o._version[0] += 1
        for k, o in enumerate(touts):
            if _float(o) and not marked[k]:
                o.stop_gradient = False
                o._node = node
                o._oidx = k
            else:
                o.stop_gradient = True
        if not seq:
            return items[0]
        return tuple(items) if isinstance(out, tuple) else items


def _input_rule(bw, i):
    def rule(g, ans, *inputs):
        return bw.grads(g, inputs)[i]
    return rule


Function = PyLayer


def once_differentiable(backward):
    """Decorate a PyLayer ``backward`` that is not itself differentiable.

    It runs with grad mode off; when a higher-order derivative is requested
    (``create_graph=True``), differentiating its results raises ``RuntimeError``
    instead of silently giving zeros.
    """
    if not callable(backward):
        raise TypeError(f"once_differentiable: expected a function, got "
                        f"{type(backward).__name__}")

    @functools.wraps(backward)
    def wrapper(ctx, *grads):
        create = mode.enabled
        mode.enabled = False
        try:
            res = backward(ctx, *grads)
        finally:
            mode.enabled = create
        if not create:
            return res
        sources = [t for t in (*grads, *getattr(ctx, "_inputs", ()))
                   if isinstance(t, Tensor) and not t.stop_gradient and _float(t)]
        if not sources:
            return res
        name = getattr(backward, "__qualname__", "backward")
        single = not isinstance(res, (tuple, list))
        items = [res] if single else list(res)
        for k, r in enumerate(items):
            if isinstance(r, Tensor) and _float(r):
                items[k] = _poisoned(r, sources, name)
        return items[0] if single else tuple(items)

    return wrapper


def _poisoned(r, sources, name):
    """``r`` on a graph node whose rule refuses to run."""
    def refuse(*_):
        raise RuntimeError(f"{name} is decorated with once_differentiable, so its results "
                           "cannot be differentiated again")

    prim = engine.Primitive(f"{name} (once_differentiable)", None, register=False)
    prim.vjps = tuple(refuse for _ in sources)
    prim.save = ()
    prim.save_out = False
    t = Tensor._wrap(r._data)
    t._node = engine._record(prim, tuple(sources), {}, (r._data,))
    if engine._fwd_active:
        _forward_opaque(sources)
    t.stop_gradient = False
    return t


__all__ = ["PyLayer", "PyLayerContext", "Function", "once_differentiable"]
