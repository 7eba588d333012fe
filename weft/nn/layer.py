"""``Layer``: the base class of models (Paddle's ``paddle.nn.Layer``).

A Layer owns parameters, buffers and sublayers, registered by attribute
assignment (``self.fc = Linear(...)``, ``self.w = self.create_parameter(...)``)
or explicitly (``add_parameter``, ``add_sublayer``, ``register_buffer``). Names
are hierarchical (``"encoder.0.weight"``) and drive ``state_dict`` /
``set_state_dict``. Moving or casting a layer (``to``) rewrites the storage of its
tensors in place, so references held by an optimizer stay valid.
"""
from __future__ import annotations

import collections
import numbers

from ..core import dtype as _dt
from ..core.place import move_array, parse_place
from ..core.tensor import Tensor
from .parameter import Parameter, _set_value, _snake, make_parameter, unique_name


class HookRemoveHelper:
    """Returned by the ``register_forward_*_hook`` methods; ``remove()`` unregisters."""

    _next = [0]

    def __init__(self, hooks):
        self._hooks = hooks
        HookRemoveHelper._next[0] += 1
        self._id = HookRemoveHelper._next[0]

    def remove(self):
        self._hooks.pop(self._id, None)


def _check_name(layer, name, what):
    if not isinstance(name, str):
        raise TypeError(f"{what}: the name must be a str, got {type(name).__name__}")
    if name == "":
        raise KeyError(f"{what}: the name must not be empty")
    if "." in name:
        raise KeyError(f"{what}: the name must not contain '.', got {name!r}")


class Layer:
    """Base class of all layers: override ``forward`` and call the layer.

    >>> import weft
    >>> class MLP(weft.nn.Layer):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc1 = weft.nn.Linear(4, 8)
    ...         self.fc2 = weft.nn.Linear(8, 2)
    ...     def forward(self, x):
    ...         return self.fc2(weft.nn.functional.relu(self.fc1(x)))
    >>> m = MLP()
    >>> m(weft.ones([3, 4])).shape, [n for n, _ in m.named_parameters()]
    ([3, 2], ['fc1.weight', 'fc1.bias', 'fc2.weight', 'fc2.bias'])
    """

    def __init__(self, name_scope=None, dtype="float32"):
        d = object.__setattr__
        d(self, "training", True)
        d(self, "_parameters", collections.OrderedDict())
        d(self, "_sub_layers", collections.OrderedDict())
        d(self, "_buffers", collections.OrderedDict())
        d(self, "_non_persistable_buffer_names_set", set())
        d(self, "_forward_pre_hooks", collections.OrderedDict())
        d(self, "_forward_post_hooks", collections.OrderedDict())
        d(self, "_dtype", _dt.convert_dtype(dtype) if dtype is not None else _dt.default_float())
        d(self, "_full_name", unique_name(name_scope or _snake(type(self).__name__)))

    # -- calling -------------------------------------------------------------------
    def forward(self, *inputs, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must implement forward()")

    def __call__(self, *inputs, **kwargs):
        if not self._forward_pre_hooks and not self._forward_post_hooks:
            return self.forward(*inputs, **kwargs)
        for hook in list(self._forward_pre_hooks.values()):
            r = hook(self, inputs)
            if r is not None:
                inputs = r if isinstance(r, tuple) else (r,)
        out = self.forward(*inputs, **kwargs)
        for hook in list(self._forward_post_hooks.values()):
            r = hook(self, inputs, out)
            if r is not None:
                out = r
        return out

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """``hook(layer, inputs)`` runs before ``forward``; a non-None result replaces the
        inputs (a non-tuple is wrapped in one)."""
        return self._add_hook(self._forward_pre_hooks, hook, prepend)

    def register_forward_post_hook(self, hook, *, prepend=False, with_kwargs=False,
                                   always_call=False):
        """``hook(layer, inputs, output)`` runs after ``forward``; a non-None result
        replaces the output."""
        return self._add_hook(self._forward_post_hooks, hook, prepend)

    @staticmethod
    def _add_hook(hooks, hook, prepend):
        if not callable(hook):
            raise TypeError(f"register hook: the hook must be callable, got "
                            f"{type(hook).__name__}")
        h = HookRemoveHelper(hooks)
        hooks[h._id] = hook
        if prepend:
            hooks.move_to_end(h._id, last=False)
        return h

    # -- registration ----------------------------------------------------------------
    def __setattr__(self, name, value):
        params = self.__dict__.get("_parameters")
        if params is None:
            if isinstance(value, (Parameter, Layer)):
                raise RuntimeError(f"{type(self).__name__}: call super().__init__() before "
                                   f"assigning parameters or sublayers (assigning {name!r})")
            object.__setattr__(self, name, value)
            return
        layers, buffers = self._sub_layers, self._buffers
        if isinstance(value, Parameter):
            self._forget(name)
            params[name] = value
        elif isinstance(value, Layer):
            self._forget(name)
            layers[name] = value
        elif name in params:
            params[name] = self._slot_value(value, name, "parameter", "Parameter", ())
        elif name in layers:
            layers[name] = self._slot_value(value, name, "sublayer", "Layer", ())
        elif name in buffers:
            buffers[name] = self._slot_value(value, name, "buffer", "Tensor", Tensor)
        else:
            object.__setattr__(self, name, value)

    def _slot_value(self, value, name, slot, expected, allowed):
        """``value`` for a registered slot: None, or an instance of ``allowed`` (a
        Parameter/Layer arrives through the branches above, so only None is left for
        those slots)."""
        if value is not None and not (allowed and isinstance(value, allowed)):
            raise TypeError(f"{type(self).__name__}: cannot assign a {type(value).__name__} to "
                            f"the {slot} {name!r} (a {expected} or None is expected)")
        return value

    def _forget(self, name):
        for dct in (self._parameters, self._sub_layers, self._buffers):
            dct.pop(name, None)
        self._non_persistable_buffer_names_set.discard(name)
        self.__dict__.pop(name, None)

    def __getattr__(self, name):
        d = self.__dict__
        for key in ("_parameters", "_sub_layers", "_buffers"):
            dct = d.get(key)
            if dct is not None and name in dct:
                return dct[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for key in ("_parameters", "_sub_layers", "_buffers"):
            dct = self.__dict__.get(key)
            if dct is not None and name in dct:
                del dct[name]
                self._non_persistable_buffer_names_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._sub_layers)
                      | set(self._buffers))

    def add_parameter(self, name, parameter):
        """Register ``parameter`` (a Parameter or None) under ``name``; returns it."""
        _check_name(self, name, "add_parameter")
        if name in self.__dict__ or (hasattr(type(self), name)):
            raise KeyError(f"add_parameter: the attribute {name!r} already exists")
        if parameter is not None and not isinstance(parameter, Parameter):
            raise TypeError(f"add_parameter: parameter must be a Parameter (see "
                            f"create_parameter) or None, got {type(parameter).__name__}")
        self._forget(name)
        self._parameters[name] = parameter
        return parameter

    def add_sublayer(self, name, sublayer):
        """Register ``sublayer`` (a Layer or None) under ``name``; returns it."""
        if not isinstance(name, str):
            raise TypeError(f"add_sublayer: the name must be a str, got {type(name).__name__}")
        if sublayer is not None and not isinstance(sublayer, Layer):
            raise TypeError(f"add_sublayer: sublayer must be a Layer, got "
                            f"{type(sublayer).__name__}")
        self._forget(name)
        self._sub_layers[name] = sublayer
        return sublayer

    def register_buffer(self, name, tensor, persistable=True):
        """Register a non-trainable tensor; persistable buffers are part of the state dict."""
        _check_name(self, name, "register_buffer")
        if name in self.__dict__ or name in self._parameters or name in self._sub_layers:
            raise KeyError(f"register_buffer: the attribute {name!r} already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"register_buffer: the buffer must be a Tensor or None, got "
                            f"{type(tensor).__name__}")
        self._buffers[name] = tensor
        if persistable:
            self._non_persistable_buffer_names_set.discard(name)
        else:
            self._non_persistable_buffer_names_set.add(name)

    def create_parameter(self, shape, attr=None, dtype=None, is_bias=False,
                         default_initializer=None, device=None):
        """A new Parameter (not yet registered: assign it to an attribute). ``attr=False``
        returns None; the default initializer is XavierUniform (zeros for a bias)."""
        if isinstance(attr, str) and attr == "":
            attr = None
        return make_parameter(shape, self._dtype if dtype is None else dtype, attr, is_bias,
                              default_initializer, self._full_name, device,
                              op=f"{type(self).__name__}.create_parameter")

    def create_tensor(self, name=None, persistable=None, dtype=None):
        """An empty (0-element) tensor of this layer's dtype, for buffers filled later."""
        import numpy as np  # noqa: PLC0415

        t = Tensor._wrap(np.zeros([0], dtype=_dt.convert_dtype(dtype or self._dtype)))
        t.name = name
        t.persistable = bool(persistable)
        return t

    create_variable = create_tensor

    # -- traversal -----------------------------------------------------------------
    def named_sublayers(self, prefix="", include_self=False, layers_set=None,
                        remove_duplicate=True):
        """``(name, layer)`` over all sublayers, depth first (this layer first when
        ``include_self``); a layer reachable twice is listed once."""
        if layers_set is None:
            layers_set = set()
        if include_self and (not remove_duplicate or id(self) not in layers_set):
            layers_set.add(id(self))
            yield prefix, self
        for key, layer in self._sub_layers.items():
            if layer is None:
                continue
            p = f"{prefix}.{key}" if prefix else key
            yield from layer.named_sublayers(p, True, layers_set, remove_duplicate)

    def sublayers(self, include_self=False):
        return [layer for _, layer in self.named_sublayers(include_self=include_self)]

    def named_children(self):
        seen = set()
        for name, layer in self._sub_layers.items():
            if layer is not None and id(layer) not in seen:
                seen.add(id(layer))
                yield name, layer

    def children(self):
        for _, layer in self.named_children():
            yield layer

    def _named_members(self, attr, prefix, include_sublayers, remove_duplicate):
        seen = set()
        layers = self.named_sublayers(prefix=prefix, include_self=True) if include_sublayers \
            else [(prefix, self)]
        for lp, layer in layers:
            for name, t in getattr(layer, attr).items():
                if t is None or (remove_duplicate and id(t) in seen):
                    continue
                seen.add(id(t))
                yield (f"{lp}.{name}" if lp else name), t

    def named_parameters(self, prefix="", include_sublayers=True, remove_duplicate=True):
        """``(name, parameter)`` pairs, this layer's first, then its sublayers' in order."""
        yield from self._named_members("_parameters", prefix, include_sublayers,
                                       remove_duplicate)

    def parameters(self, include_sublayers=True):
        """All parameters as a list (each once)."""
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def named_buffers(self, prefix="", include_sublayers=True, remove_duplicate=True):
        yield from self._named_members("_buffers", prefix, include_sublayers, remove_duplicate)

    def buffers(self, include_sublayers=True):
        return [b for _, b in self.named_buffers(include_sublayers=include_sublayers)]

    def apply(self, fn):
        """Call ``fn`` on every sublayer (children first) and then on this layer."""
        for layer in self.children():
            layer.apply(fn)
        fn(self)
        return self

    # -- modes -----------------------------------------------------------------------
    def train(self, mode=True):
        """Training mode for this layer and all sublayers (``train(False)`` = ``eval()``)."""
        for layer in self.sublayers(include_self=True):
            object.__setattr__(layer, "training", bool(mode))
        return self

    def eval(self):
        """Evaluation mode (dropout off, batch norm on running statistics)."""
        return self.train(False)

    def clear_gradients(self, set_to_zero=True):
        for p in self.parameters():
            if p.trainable:
                p.clear_grad(set_to_zero)

    clear_grad = clear_gradients

    # -- state -----------------------------------------------------------------------
    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix="",
                   use_hook=True, keep_vars=True):
        """An ordered dict of every parameter and persistable buffer by structured name
        (``"fc1.weight"``); the values are the tensors themselves (not copies)."""
        dest = collections.OrderedDict() if destination is None else destination
        layers = self.named_sublayers(include_self=True) if include_sublayers else [("", self)]
        for lp, layer in layers:
            pre = structured_name_prefix + (f"{lp}." if lp else "")
            for name, p in layer._parameters.items():
                if p is not None:
                    dest[pre + name] = p
            for name, b in layer._buffers.items():
                if b is not None and name not in layer._non_persistable_buffer_names_set:
                    dest[pre + name] = b
        return dest

    def set_state_dict(self, state_dict, use_structured_name=True):
        """Copy values from ``state_dict`` (Tensors or numpy arrays) into the parameters and
        buffers in place. Keys are structured names, or tensor names with
        ``use_structured_name=False``. Returns ``(missing_keys, unexpected_keys)``; a shape
        mismatch raises ``ValueError``."""
        if not isinstance(state_dict, dict):
            raise TypeError(f"set_state_dict: state_dict must be a dict, got "
                            f"{type(state_dict).__name__}")
        own = self.state_dict()
        missing, used = [], set()
        for key, t in own.items():
            k = key if use_structured_name else (t.name or key)
            if k not in state_dict:
                missing.append(key)
                continue
            used.add(k)
            v = state_dict[k]
            if not isinstance(v, Tensor):
                import numpy as np  # noqa: PLC0415

                v = np.asarray(v)
            if list(v.shape) != t.shape:
                raise ValueError(f"set_state_dict: {key!r} has shape {list(v.shape)} in the "
                                 f"state dict but {t.shape} in the layer")
            _set_value(t, v, "set_state_dict")
        unexpected = [k for k in state_dict if k not in used]
        return missing, unexpected

    set_dict = set_state_dict
    load_dict = set_state_dict

    # -- devices and dtypes -------------------------------------------------------------
    def to(self, device=None, dtype=None, blocking=None, non_blocking=None):
        """Move (``device``) and/or cast (``dtype``, floating tensors only) every parameter
        and buffer in place; returns the layer."""
        place = parse_place(device) if device is not None else None
        d = _dt.convert_dtype(dtype) if dtype is not None else None
        if d is not None and d.kind not in "fc":
            raise TypeError(f"Layer.to: dtype must be a floating or complex dtype, got {d.name}")
        for t in list(self.parameters()) + list(self.buffers()):
            data = t._data
            if d is not None and data.dtype.kind == "f" and data.dtype != d:
                data = data.astype(d)
            if place is not None and t.place != place:
                data = move_array(data, place)
            if data is not t._data:
                t._data = data
                t._version[0] += 1
                if t._grad is not None:
                    g = t._grad._data
                    if d is not None and g.dtype != data.dtype:
                        g = g.astype(data.dtype)
                    if place is not None:
                        g = move_array(g, place)
                    t._grad = Tensor._wrap(g)
        if d is not None:
            for layer in self.sublayers(include_self=True):
                object.__setattr__(layer, "_dtype", d)
        return self

    def astype(self, dtype=None):
        return self.to(dtype=dtype)

    def float(self, excluded_layers=None):
        return self.to(dtype="float32")

    def double(self):
        return self.to(dtype="float64")

    def half(self):
        return self.to(dtype="float16")

    # -- naming and printing ---------------------------------------------------------
    def full_name(self):
        return self._full_name

    def extra_repr(self):
        return ""

    def __repr__(self):
        lines = []
        for name, layer in self._sub_layers.items():
            r = repr(layer).replace("\n", "\n  ")
            lines.append(f"({name}): {r}")
        main = f"{type(self).__name__}({self.extra_repr()}"
        if lines:
            main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    def __getstate__(self):
        return self.__dict__

    def __setstate__(self, state):
        self.__dict__.update(state)


def _check_int(v, op, arg, least=0):
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError(f"{op}: {arg} must be an int, got {type(v).__name__}")
    if v < least:
        raise ValueError(f"{op}: {arg} must be >= {least}, got {v}")
    return int(v)


__all__ = ["Layer", "HookRemoveHelper"]
