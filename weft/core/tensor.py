"""The Tensor: one backend array plus autograd bookkeeping.

Operators and most methods are attached by ``weft.ops`` and ``weft.autograd``
when the package loads, so this module depends on nothing above ``core``.
"""
from __future__ import annotations

import numbers

import numpy as np

from . import dtype as _dt
from .place import (CPU, CUDAPlace, array_module, cupy_or_raise, move_array, parse_place,
                    place_of_array)

_ndarray = np.ndarray


class Tensor:
    """An n-dimensional array on a device, optionally recording gradients.

    Create tensors with :func:`weft.to_tensor` or the creation functions rather
    than with this class.

    >>> import weft
    >>> t = weft.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> t.shape, t.dtype
    ([2, 2], dtype('float32'))
    """

    __slots__ = ("_data", "stop_gradient", "_grad", "_node", "_oidx", "_version",
                 "_hooks", "name", "persistable", "__weakref__")

    # numpy defers to our reflected operators (np.float64(2) * t -> Tensor)
    __array_priority__ = 1000

    def __init__(self, data=None, dtype=None, place=None, stop_gradient=True):
        self._data = to_array(data, dtype, place)
        self.stop_gradient = stop_gradient
        self._grad = None
        self._node = None
        self._oidx = 0
        self._version = [0]
        self._hooks = None
        self.name = None
        self.persistable = False

    @classmethod
    def _wrap(cls, data):
        """Fast constructor around a backend array (no checks, no copy)."""
        t = object.__new__(cls)
        t._data = data
        t.stop_gradient = True
        t._grad = None
        t._node = None
        t._oidx = 0
        t._version = [0]
        t._hooks = None
        t.name = None
        t.persistable = False
        return t

    # -- metadata ------------------------------------------------------------------
    @property
    def shape(self):
        return list(self._data.shape)

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    ndimension = dim

    @property
    def size(self):
        return int(self._data.size)

    def numel(self):
        return int(self._data.size)

    @property
    def dtype(self):
        return self._data.dtype

    @property
    def place(self):
        d = self._data
        return CPU if type(d) is _ndarray else place_of_array(d)

    @property
    def is_leaf(self):
        return self._node is None

    @property
    def grad(self):
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"grad: expected a Tensor or None, got {type(value).__name__}")
            if value._data.shape != self._data.shape:
                raise ValueError(f"grad: expected shape {self.shape}, got {value.shape}")
        self._grad = value

    def _grad_ivar(self):
        return self._grad

    def gradient(self):
        """Deprecated: ``.grad`` as a numpy array, or None."""
        import warnings  # noqa: PLC0415

        warnings.warn("Tensor.gradient() is deprecated; use Tensor.grad", DeprecationWarning,
                      stacklevel=2)
        return None if self._grad is None else self._grad.numpy()

    def is_sparse(self):
        return False

    def is_sparse_coo(self):
        return False

    def is_sparse_csr(self):
        return False

    def is_dense(self):
        return True

    def is_complex(self):
        return self._data.dtype.kind == "c"

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    def is_integer(self):
        return self._data.dtype.kind in "iu"

    # -- conversion ----------------------------------------------------------------
    def numpy(self):
        """The values as a numpy array: no copy for a CPU tensor, a copy from a GPU.

        For a tensor that requires grad (``stop_gradient=False``) the CPU array is a
        **read-only** view: a write through it would change values saved for backward
        behind the version counter, so gradients would silently be wrong. Write through
        ``x.detach().numpy()`` (which shares the storage, as ``detach`` does) when
        that is really meant, or use ``x.numpy().copy()``. Other tensors give a
        writable view.

        >>> import weft
        >>> w = weft.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> w.numpy().flags.writeable, w.detach().numpy().flags.writeable
        (False, True)
        """
        d = self._data
        if type(d) is _ndarray:
            if not self.stop_gradient and d.flags.writeable:
                d = d.view()
                d.flags.writeable = False
            return d
        return d.get()

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        if dtype is not None and a.dtype != dtype:
            return a.astype(dtype)
        if copy:
            return a.copy()
        return a

    def tolist(self):
        return self.numpy().tolist()

    def item(self, *args):
        if args:
            return self.numpy().item(*args)
        if self._data.size != 1:
            raise ValueError(f"item(): only one-element tensors can be converted to a Python "
                             f"scalar, this one has shape {self.shape}")
        return self.numpy().item()

    def _scalar(self, kind):
        if self._data.size != 1:
            raise TypeError(f"only one-element tensors can be converted to Python {kind}, "
                            f"got shape {self.shape}")
        return self.numpy().reshape(()).item()

    def __float__(self):
        return float(self._scalar("float"))

    def __int__(self):
        return int(self._scalar("int").real if self.is_complex() else self._scalar("int"))

    def __complex__(self):
        return complex(self._scalar("complex"))

    def __bool__(self):
        if self._data.size != 1:
            raise ValueError(f"the truth value of a tensor with {self._data.size} elements is "
                             "ambiguous; use .any() or .all()")
        return bool(self.numpy().reshape(()).item())

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError(f"only integer tensors of one element can be used as an index, got "
                            f"{self.dtype.name} of shape {self.shape}")
        return int(self.numpy().reshape(()).item())

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-D tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-D tensor")
        for i in range(self._data.shape[0]):
            yield self[i]

    def __hash__(self):
        return id(self)

    # -- DLPack --------------------------------------------------------------------
    def __dlpack__(self, *args, **kwargs):
        return self._data.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._data.__dlpack_device__()

    # -- printing and pickling -----------------------------------------------------
    def __repr__(self):
        p = self.place
        place = "Place(cpu)" if not p.is_gpu else f"Place(gpu:{p.device_id})"
        vals = np.array2string(self.numpy(), separator=", ", precision=8,
                               prefix=" " * 7, threshold=1000, edgeitems=3)
        return (f"Tensor(shape={self.shape}, dtype={self.dtype.name}, place={place}, "
                f"stop_gradient={self.stop_gradient},\n       {vals})")

    def __str__(self):
        return self.__repr__()

    def __format__(self, spec):
        if self._data.ndim == 0 or self._data.size == 1 and spec:
            return format(self.item(), spec)
        return format(repr(self), spec)

    def __reduce__(self):
        p = self.place
        return (_rebuild, (self.numpy(), p.device_id if p.is_gpu else None,
                           self.stop_gradient))


# -- turning data into backend arrays (the constructor's job; weft.core.convert
# re-exports these)

def _infer_dtype(data):
    """dtype weft gives to nested Python data: bool < int64 < default float < complex."""
    rank = -1
    stack = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
            continue
        if isinstance(x, Tensor):
            x = x.numpy()
        if isinstance(x, np.ndarray):
            r = _dt._KIND_RANK.get(x.dtype.kind, 2)
        elif isinstance(x, (bool, np.bool_)):
            r = 0
        elif isinstance(x, numbers.Integral):
            r = 1
        elif isinstance(x, numbers.Real):
            r = 2
        elif isinstance(x, numbers.Complex):
            r = 3
        else:
            raise TypeError(f"to_tensor: data must be numbers, nested lists of numbers, "
                            f"arrays or Tensors; found an element of type {type(x).__name__}")
        rank = max(rank, r)
    # an empty list is a float tensor, as in numpy and Paddle
    return [_dt.default_float(), _dt.bool_, _dt.int64, _dt.default_float(),
            _dt.default_complex()][rank + 1]


def to_array(data, dtype=None, place=None, copy=True):
    """A backend array for ``data`` on ``place`` (default: the current device)."""
    target = parse_place(place)
    if dtype is not None:
        dtype = _dt.convert_dtype(dtype)
    if isinstance(data, Tensor):
        if data.is_sparse():
            raise TypeError("to_tensor: got a sparse tensor; use to_dense() first or "
                            "weft.sparse functions")
        arr = data._data
        if place is None:
            target = place_of_array(arr)
    elif isinstance(data, np.ndarray):
        arr = data
        if arr.dtype.kind in "OUSV" and arr.dtype.name not in ("bfloat16",):
            raise TypeError(f"to_tensor: numpy arrays of dtype {arr.dtype} are not supported")
    elif type(data).__module__.startswith("cupy"):
        arr = data
        if place is None:
            target = place_of_array(arr)
    elif isinstance(data, (bool, numbers.Number, np.generic)):
        d = dtype or _dt.dtype_of_scalar(data)
        arr = np.asarray(data, dtype=d)
    elif isinstance(data, (list, tuple)):
        d = dtype or _infer_dtype(data)
        try:
            arr = np.asarray([x.numpy() if isinstance(x, Tensor) else x for x in data]
                             if any(isinstance(x, Tensor) for x in data) else data, dtype=d)
        except ValueError as e:
            raise ValueError(f"to_tensor: data is a ragged nested sequence ({e})") from None
    elif hasattr(data, "__dlpack__"):
        arr = from_dlpack_array(data)
        if place is None:
            target = place_of_array(arr)
    elif hasattr(data, "__array__"):
        arr = np.asarray(data)
    else:
        raise TypeError(f"to_tensor: cannot convert data of type {type(data).__name__}")
    arr = move_array(arr, target)
    xp = array_module(target) if target.is_gpu else np
    if dtype is not None and arr.dtype != dtype:
        arr = arr.astype(dtype)
    elif copy:
        arr = xp.array(arr, copy=True)
    if arr.dtype.kind == "U":
        raise TypeError("to_tensor: strings are not numbers")
    return arr


def from_dlpack_array(obj):
    """Import a DLPack producer as a numpy or CuPy array without copying."""
    dev_type = obj.__dlpack_device__()[0] if hasattr(obj, "__dlpack_device__") else 1
    if int(dev_type) in (1, 3):  # kDLCPU, kDLCUDAHost
        return np.from_dlpack(obj)
    return cupy_or_raise("a CUDA DLPack tensor").from_dlpack(obj)


def _rebuild(array, device_id, stop_gradient):
    data = array if device_id is None else move_array(array, CUDAPlace(device_id))
    t = Tensor._wrap(data)
    t.stop_gradient = stop_gradient
    return t


def is_tensor(x):
    """True for weft Tensors (dense or sparse)."""
    return isinstance(x, Tensor)



def add_methods(cls, methods):
    """Attach ``methods`` (a dict name -> function) to ``cls``.

    The one way weft's packages give ``Tensor`` (and the sparse tensor types) their
    methods and operators: each op family lists them in a ``__tensor_methods__`` dict
    next to its ``__all__``, and the package that owns the family attaches the dicts
    when it loads, so a method is always the same function as its op.
    """
    for name, fn in methods.items():
        setattr(cls, name, fn)
