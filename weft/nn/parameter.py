"""Parameters: leaf tensors that train (``stop_gradient=False``), with Paddle's
attributes (``trainable``, ``optimize_attr``, ``regularizer``, ``need_clip``), the
``ParamAttr`` that configures them, and ``create_parameter``."""
from __future__ import annotations

import numbers
import re

import numpy as np

from ..core import dtype as _dt
from ..core.place import current_place, move_array, parse_place
from ..core.tensor import Tensor

# ---------------------------------------------------------------------------------
# unique names ("linear_0", "linear_0.w_0", ...), as Paddle generates them

_counters = {}


def unique_name(prefix):
    """``prefix_<n>`` with ``n`` counting the uses of ``prefix`` in this process."""
    n = _counters.get(prefix, 0)
    _counters[prefix] = n + 1
    return f"{prefix}_{n}"


def _snake(name):
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


class Parameter(Tensor):
    """A trainable leaf tensor (Paddle's ``EagerParamBase``).

    ``trainable`` is ``not stop_gradient``. ``optimize_attr['learning_rate']`` scales the
    optimizer's learning rate for this parameter, ``regularizer`` overrides the
    optimizer's ``weight_decay``, ``need_clip=False`` exempts it from gradient clipping.
    Build parameters with :func:`create_parameter` or ``Layer.create_parameter``.

    >>> import weft
    >>> p = weft.nn.Linear(2, 3).weight
    >>> isinstance(p, weft.Tensor), p.stop_gradient, p.trainable
    (True, False, True)
    """

    __slots__ = ("optimize_attr", "regularizer", "need_clip", "do_model_average",
                 "is_distributed")

    def __init__(self, shape, dtype, name=None, trainable=True, **kwargs):
        shape = [int(s) for s in shape]
        d = _dt.convert_dtype(dtype)
        data = move_array(np.zeros(shape, dtype=d), current_place())
        Tensor.__init__(self, data, stop_gradient=not trainable)
        self._init_attrs(name, kwargs)

    def _init_attrs(self, name, kw):
        self.name = name if name is not None else unique_name("param")
        self.persistable = True
        self.optimize_attr = kw.get("optimize_attr", {"learning_rate": 1.0})
        self.regularizer = kw.get("regularizer")
        self.need_clip = kw.get("need_clip", True)
        self.do_model_average = kw.get("do_model_average", True)
        self.is_distributed = False

    @classmethod
    def _from_array(cls, data, name=None, trainable=True, **kw):
        p = cls._wrap(data)
        p.stop_gradient = not trainable
        p._init_attrs(name, kw)
        return p

    @property
    def trainable(self):
        return not self.stop_gradient

    @trainable.setter
    def trainable(self, value):
        self.stop_gradient = not bool(value)

    def set_value(self, value):
        """Copy ``value`` (Tensor, numpy array or list) into this parameter in place;
        shapes must match, the dtype is converted."""
        _set_value(self, value, "set_value")

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    def __reduce__(self):
        p = self.place
        return (_rebuild_parameter,
                (self.numpy(), p.device_id if p.is_gpu else None, self.name, self.trainable,
                 dict(self.optimize_attr), self.need_clip))

    def __deepcopy__(self, memo):
        q = Parameter._from_array(self._data.copy(), name=self.name, trainable=self.trainable,
                                  optimize_attr=dict(self.optimize_attr),
                                  regularizer=self.regularizer, need_clip=self.need_clip)
        memo[id(self)] = q
        return q


def _rebuild_parameter(array, device_id, name, trainable, optimize_attr, need_clip):
    from ..core.place import CUDAPlace  # noqa: PLC0415

    data = array if device_id is None else move_array(array, CUDAPlace(device_id))
    return Parameter._from_array(data, name=name, trainable=trainable,
                                 optimize_attr=optimize_attr, need_clip=need_clip)


def _set_value(t, value, op):
    """Write ``value`` into tensor ``t``'s storage (no graph, version bumped)."""
    if isinstance(value, Tensor):
        arr = value._data
    else:
        arr = np.asarray(value)
        if arr.dtype.kind not in "biufc":
            raise TypeError(f"{op}: value must be a Tensor, numpy array or list of numbers, "
                            f"got {type(value).__name__}")
    if tuple(arr.shape) != tuple(t._data.shape):
        raise ValueError(f"{op}: value has shape {list(arr.shape)} but {t.name or 'the tensor'}"
                         f" has shape {t.shape}")
    arr = move_array(arr, t.place)
    d = t._data
    if d.flags.writeable if hasattr(d, "flags") else True:
        d[...] = arr
    else:
        t._data = arr.astype(d.dtype, copy=True)
    t._version[0] += 1


# ---------------------------------------------------------------------------------
# ParamAttr

class ParamAttr:
    """How ``create_parameter`` builds a parameter: its ``name``, ``initializer``, a
    ``learning_rate`` multiplier, a ``regularizer`` (overriding the optimizer's weight
    decay), whether it is ``trainable`` and whether gradient clipping applies
    (``need_clip``).

    >>> import weft
    >>> attr = weft.nn.ParamAttr(initializer=weft.nn.initializer.Constant(2.0))
    >>> weft.nn.Linear(1, 2, weight_attr=attr).weight.tolist()
    [[2.0, 2.0]]
    """

    def __init__(self, name=None, initializer=None, learning_rate=1.0, regularizer=None,
                 trainable=True, do_model_average=True, need_clip=True):
        if name is not None and not isinstance(name, str):
            raise TypeError(f"ParamAttr: name must be a str, got {type(name).__name__}")
        if isinstance(learning_rate, bool) or not isinstance(learning_rate, numbers.Real):
            raise TypeError(f"ParamAttr: learning_rate must be a number, got "
                            f"{type(learning_rate).__name__}")
        self.name = name
        self.initializer = initializer
        self.learning_rate = float(learning_rate)
        self.regularizer = regularizer
        self.trainable = bool(trainable)
        self.do_model_average = do_model_average
        self.need_clip = bool(need_clip)

    @staticmethod
    def _to_attr(arg):
        """None/True -> a default ParamAttr, False -> False (no parameter), a str -> its
        name, an initializer -> an attr using it."""
        from .initializer import Initializer  # noqa: PLC0415

        if arg is None or arg is True:
            return ParamAttr()
        if arg is False:
            return False
        if isinstance(arg, ParamAttr):
            return arg
        if isinstance(arg, str):
            return ParamAttr(name=arg)
        if isinstance(arg, Initializer):
            return ParamAttr(initializer=arg)
        if isinstance(arg, (list, tuple)):
            return [ParamAttr._to_attr(a) for a in arg]
        raise TypeError(f"ParamAttr: expected None, a bool, a str, an Initializer or a "
                        f"ParamAttr, got {type(arg).__name__}")

    def __repr__(self):
        return (f"ParamAttr(name={self.name!r}, initializer={self.initializer!r}, "
                f"learning_rate={self.learning_rate}, trainable={self.trainable})")


def _check_shape(shape, op):
    if isinstance(shape, Tensor):
        shape = shape.tolist()
    if isinstance(shape, numbers.Integral) and not isinstance(shape, bool):
        shape = [shape]
    if not isinstance(shape, (list, tuple)) or not all(
            isinstance(s, numbers.Integral) and not isinstance(s, bool) for s in shape):
        raise TypeError(f"{op}: shape must be a list of ints, got {shape!r}")
    if any(s < 0 for s in shape):
        raise ValueError(f"{op}: shape must be non-negative, got {list(shape)}")
    return [int(s) for s in shape]


def make_parameter(shape, dtype, attr, is_bias, default_initializer, name_prefix, place=None,
                   op="create_parameter"):
    """The shared builder behind ``weft.create_parameter`` and ``Layer.create_parameter``;
    returns None when ``attr`` is False."""
    from .initializer import Constant, Initializer, XavierUniform  # noqa: PLC0415

    attr = ParamAttr._to_attr(attr)
    if attr is False:
        return None
    shape = _check_shape(shape, op)
    d = _dt.convert_dtype(dtype if dtype is not None else _dt.default_float())
    if d.kind not in "fc":
        raise TypeError(f"{op}: dtype must be a floating or complex dtype, got {d.name}")
    init = attr.initializer or default_initializer
    if init is None:
        init = Constant(0.0) if is_bias else XavierUniform()
    if not isinstance(init, Initializer):
        raise TypeError(f"{op}: the initializer must be a weft.nn.initializer.Initializer, got "
                        f"{type(init).__name__}")
    p = parse_place(place) if place is not None else current_place()
    name = attr.name or unique_name(f"{name_prefix}.{'b' if is_bias else 'w'}")
    param = Parameter._from_array(
        move_array(np.zeros(shape, dtype=d), p), name=name, trainable=attr.trainable,
        optimize_attr={"learning_rate": attr.learning_rate}, regularizer=attr.regularizer,
        need_clip=attr.need_clip, do_model_average=attr.do_model_average)
    init(param)
    return param


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False,
                     default_initializer=None):
    """A new :class:`Parameter` of ``shape`` and ``dtype``, initialised by ``attr``'s
    initializer, else ``default_initializer``, else XavierUniform (zeros for a bias).

    >>> import weft
    >>> p = weft.nn.parameter.create_parameter([2, 3], 'float32')
    >>> p.shape, p.stop_gradient
    ([2, 3], False)
    """
    if attr is None and name is not None:
        attr = ParamAttr(name=name)
    if attr is False:
        raise ValueError("create_parameter: attr=False makes no parameter")
    return make_parameter(shape, dtype, attr, is_bias, default_initializer, "create_parameter")


__all__ = ["Parameter", "ParamAttr", "create_parameter"]
