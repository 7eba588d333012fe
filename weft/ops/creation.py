"""Creation ops: from data (to_tensor), filled (zeros, ones, full, empty and their _like
forms), ranges (arange, linspace, logspace), eye, diagonals (diag, diagflat, diag_embed),
triangles (tril, triu), meshgrid, and copies (assign, clone).

The diagonal ops rest on the ``diagonal``/``diag_embed`` primitive pair of
``weft.ops.primitives``, each the other's adjoint, so every derivative order works."""
from __future__ import annotations

import numbers
import numpy as np

from ..autograd.engine import apply, deflinear, defvjp, Primitive
from ..autograd.inplace import inplace
from ..core import dtype as _dt
from ..core.args import (check_nonneg_shape, dtype_arg, int_arg, normalize_axis, reject_sparse,
                         shape_arg, tensor_arg, xp_of)
from ..core.convert import tensor_converter, to_array
from ..core.place import array_module, current_place, move_array, parse_place
from ..core.tensor import Tensor
from .primitives import copy, diag_embed as _diag_embed, diagonal
from .shape.views import broadcast_to, reshape


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    """Copy ``data`` into a new leaf Tensor.

    ``data``: a Python number, nested lists, a numpy/CuPy array, a Tensor, a DLPack
    producer, or a scipy.sparse matrix (which gives a sparse tensor). Python floats
    become the default dtype (float32), ints int64, bools bool; arrays keep theirs.

    >>> import weft
    >>> weft.to_tensor([1.5, 2.0]).dtype
    dtype('float32')
    >>> weft.to_tensor(2).shape
    []
    """
    convert = tensor_converter(data)  # scipy.sparse input: registered by weft.sparse
    if convert is not None:
        return convert(data, dtype, place, stop_gradient)
    if isinstance(data, Tensor) and data.is_sparse():
        t = data.clone() if dtype is None else data.astype(dtype)
        t = t.detach()
        t.stop_gradient = stop_gradient
        return t
    t = Tensor._wrap(to_array(data, dtype, place))
    t.stop_gradient = bool(stop_gradient)
    return t


def _fill(shape, value, dtype, place, op):
    shape = check_nonneg_shape(shape_arg(shape, op), op)
    p = parse_place(place)
    xp = array_module(p) if p.is_gpu else np
    return Tensor._wrap(xp.full(tuple(shape), value, dtype=dtype))


def _default(dtype, op):
    return dtype_arg(dtype, op, _dt.default_float())


def zeros(shape, dtype=None, name=None, *, place=None, stop_gradient=True):
    """A tensor of zeros (default dtype float32)."""
    t = _fill(shape, 0, _default(dtype, "zeros"), place, "zeros")
    t.stop_gradient = stop_gradient
    return t


def ones(shape, dtype=None, name=None, *, place=None, stop_gradient=True):
    """A tensor of ones (default dtype float32)."""
    t = _fill(shape, 1, _default(dtype, "ones"), place, "ones")
    t.stop_gradient = stop_gradient
    return t


def empty(shape, dtype=None, name=None, *, place=None):
    """An uninitialised tensor; weft fills it with zeros so results never depend on garbage."""
    return _fill(shape, 0, _default(dtype, "empty"), place, "empty")


def full(shape, fill_value, dtype=None, name=None, *, place=None):
    """A tensor filled with ``fill_value`` (default dtype float32, as in Paddle)."""
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if not isinstance(fill_value, (numbers.Number, np.generic)):
        raise TypeError(f"full: fill_value must be a number, got {type(fill_value).__name__}")
    return _fill(shape, fill_value, _default(dtype, "full"), place, "full")


def _like(x, value, dtype, op):
    x = tensor_arg(x, "x", op)
    d = dtype_arg(dtype, op, x._data.dtype)
    xp = np if type(x._data) is np.ndarray else array_module(x.place)
    return Tensor._wrap(xp.full(x._data.shape, value, dtype=d))


def zeros_like(x, dtype=None, name=None):
    """Zeros with the shape (and by default dtype and place) of ``x``."""
    return _like(x, 0, dtype, "zeros_like")


def ones_like(x, dtype=None, name=None):
    """Ones with the shape (and by default dtype and place) of ``x``."""
    return _like(x, 1, dtype, "ones_like")


def empty_like(x, dtype=None, name=None):
    """Like :func:`zeros_like` (weft never hands out uninitialised memory)."""
    return _like(x, 0, dtype, "empty_like")


def full_like(x, fill_value, dtype=None, name=None):
    """``fill_value`` with the shape (and by default dtype and place) of ``x``."""
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    return _like(x, fill_value, dtype, "full_like")


def arange(start=0, end=None, step=1, dtype=None, name=None):
    """Values in ``[start, end)`` spaced by ``step``; int64 for integer arguments.

    >>> import weft
    >>> weft.arange(5).tolist()
    [0, 1, 2, 3, 4]
    """
    vals = []
    for v in (start, end, step):
        if isinstance(v, Tensor):
            v = v.item()
        vals.append(v)
    start, end, step = vals
    if end is None:
        start, end = 0, start
    for nm, v in (("start", start), ("end", end), ("step", step)):
        if not isinstance(v, (numbers.Real, np.generic)) or isinstance(v, bool):
            raise TypeError(f"arange: {nm} must be a real number, got {type(v).__name__}")
    if step == 0:
        raise ValueError("arange: step must not be 0")
    if dtype is None:
        ints = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        d = _dt.int64 if ints else _dt.default_float()
    else:
        d = dtype_arg(dtype, "arange")
    p = parse_place(None)
    xp = array_module(p) if p.is_gpu else np
    return Tensor._wrap(xp.arange(start, end, step, dtype=d))


def _tri_fwd(x, k, upper):
    xp = xp_of(x)
    m, n = x.shape[-2:]
    keep = xp.tri(m, n, k - 1, dtype=bool) if upper else xp.tri(m, n, k, dtype=bool)
    if upper:
        keep = ~keep
    return xp.where(keep, x, xp.zeros((), dtype=x.dtype))


_tri_prim = Primitive("tril_triu", _tri_fwd)


# the fill value sits off the diagonal, so it never reaches the gradient of v
defvjp(_tri_prim, lambda g, ans, x, k, upper: apply(_tri_prim, g, k=k, upper=upper),
       save=(), save_out=False)
deflinear(_tri_prim)   # forward mode: the triangle of the tangent


def _number(v, op, arg):
    if isinstance(v, Tensor):
        if v.size != 1:
            raise ValueError(f"{op}: {arg} must be a number or a one-element Tensor, got "
                             f"shape {v.shape}")
        v = v.item()
    if not isinstance(v, numbers.Real) or isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{op}: {arg} must be a real number, got {type(v).__name__}")
    return v


def _count(v, op, arg):
    v = int_arg(v, op, arg)
    if v < 0:
        raise ValueError(f"{op}: {arg} must be non-negative, got {v}")
    return v


def _range_dtype(dtype, op):
    d = dtype_arg(dtype, op, _dt.default_float())
    if d.kind not in "iuf":
        raise TypeError(f"{op}: dtype must be an integer or floating dtype, got {d.name}")
    return d


def _on_device(arr):
    return Tensor._wrap(move_array(arr, current_place()))


def _spaced(start, stop, num):
    # Paddle's kernel: the first half counts up from start, the second half down from
    # stop, so both ends are exact and the rounding error is symmetric.
    i = np.arange(num, dtype=np.float64)
    if num == 1:
        return np.array([start], dtype=np.float64)
    step = (stop - start) / (num - 1)
    half = num // 2
    return np.where(i < half, start + step * i, stop - step * (num - 1 - i))


def linspace(start, stop, num, dtype=None, name=None):
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive (default dtype
    float32; integer dtypes truncate toward zero, as Paddle does).

    >>> import weft
    >>> weft.linspace(0, 1, 5).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    """
    start = _number(start, "linspace", "start")
    stop = _number(stop, "linspace", "stop")
    num = _count(num, "linspace", "num")
    d = _range_dtype(dtype, "linspace")
    vals = _spaced(float(start), float(stop), num)
    return _on_device(vals.astype(d))


def logspace(start, stop, num, base=10.0, dtype=None, name=None):
    """``base ** linspace(start, stop, num)`` (default dtype float32).

    >>> import weft
    >>> weft.logspace(0, 2, 3).tolist()
    [1.0, 10.0, 100.0]
    """
    start = _number(start, "logspace", "start")
    stop = _number(stop, "logspace", "stop")
    num = _count(num, "logspace", "num")
    base = _number(base, "logspace", "base")
    d = _range_dtype(dtype, "logspace")
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        vals = np.power(float(base), _spaced(float(start), float(stop), num))
        if d.kind in "iu":
            # out-of-range values would be undefined in a C cast; saturate instead
            info = np.iinfo(d)
            vals = np.clip(np.nan_to_num(vals, nan=0.0), info.min, info.max)
    return _on_device(vals.astype(d))


def eye(num_rows, num_columns=None, dtype=None, name=None):
    """The ``num_rows x num_columns`` identity (default square, dtype float32).

    >>> import weft
    >>> weft.eye(2, 3).tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    m = _count(num_rows, "eye", "num_rows")
    n = m if num_columns is None else _count(num_columns, "eye", "num_columns")
    d = dtype_arg(dtype, "eye", _dt.default_float())
    p = current_place()
    if p.is_gpu:
        with array_module(p).cuda.Device(p.device_id):
            return Tensor._wrap(array_module(p).eye(m, n, dtype=d))
    return Tensor._wrap(np.eye(m, n, dtype=d))


def _int_arg(v, op, arg):
    if isinstance(v, Tensor) and v.size == 1 and v.dtype.kind in "iu":
        v = v.item()
    if not isinstance(v, numbers.Integral) or isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{op}: {arg} must be an int, got {type(v).__name__}")
    return int(v)


def diag(x, offset=0, padding_value=0, name=None):
    """1-D (or 0-D) ``x``: a square matrix with ``x`` on diagonal ``offset`` and
    ``padding_value`` elsewhere. 2-D ``x``: its diagonal ``offset`` as a 1-D tensor.

    >>> import weft
    >>> weft.diag(weft.to_tensor([1, 2])).tolist()
    [[1, 0], [0, 2]]
    >>> weft.diag(weft.to_tensor([[1, 2], [3, 4]]), offset=1).tolist()
    [2]
    """
    x = tensor_arg(x, "x", "diag")
    offset = _int_arg(offset, "diag", "offset")
    if isinstance(padding_value, Tensor):
        padding_value = padding_value.item()
    if not isinstance(padding_value, numbers.Number):
        raise TypeError(f"diag: padding_value must be a number, got "
                        f"{type(padding_value).__name__}")
    if x.ndim <= 1:
        if x.ndim == 0:
            x = reshape(x, [1])
        n = x.shape[0] + abs(offset)
        fill = np.asarray(padding_value).astype(x.dtype).item()
        return _diag_embed(x, offset, 0, 1, (n, n), fill)
    if x.ndim == 2:
        return diagonal(x, offset, 0, 1)
    raise ValueError(f"diag: x must be 0-D, 1-D or 2-D, got shape {x.shape}")


def diagflat(x, offset=0, name=None):
    """A square matrix with the flattened ``x`` on diagonal ``offset``.

    >>> import weft
    >>> weft.diagflat(weft.to_tensor([[1, 2]])).tolist()
    [[1, 0], [0, 2]]
    """
    x = tensor_arg(x, "x", "diagflat")
    offset = _int_arg(offset, "diagflat", "offset")
    if x.ndim != 1:
        x = reshape(x, [-1]) if x.size else reshape(x, [0])
    n = x.shape[0] + abs(offset)
    return _diag_embed(x, offset, 0, 1, (n, n), 0)


def diag_embed(input, offset=0, dim1=-2, dim2=-1, name=None):  # noqa: A002 (Paddle's name)
    """Put the last axis of ``input`` on diagonal ``offset`` of new dimensions ``dim1`` and
    ``dim2`` (positions in the output, which has one more dimension); zeros elsewhere.

    >>> import weft
    >>> weft.diag_embed(weft.to_tensor([[1, 2]])).shape
    [1, 2, 2]
    """
    x = tensor_arg(input, "input", "diag_embed")
    if x.ndim < 1:
        raise ValueError(f"diag_embed: input must be at least 1-D, got shape {x.shape}")
    offset = _int_arg(offset, "diag_embed", "offset")
    nd = x.ndim + 1
    d1 = normalize_axis(dim1, nd, "diag_embed", "dim1")
    d2 = normalize_axis(dim2, nd, "diag_embed", "dim2")
    if d1 == d2:
        raise ValueError(f"diag_embed: dim1 and dim2 must differ, got dim1={dim1}, "
                         f"dim2={dim2} for an output with {nd} dimensions")
    n = x.shape[-1] + abs(offset)
    batch = iter(x.shape[:-1])
    shape = tuple(n if i in (d1, d2) else next(batch) for i in range(nd))
    return _diag_embed(x, offset, d1, d2, shape, 0)


def _tri(x, diagonal, upper, op):
    x = tensor_arg(x, "x", op)
    if x.ndim < 2:
        raise ValueError(f"{op}: x must have at least 2 dimensions, got shape {x.shape}")
    k = _int_arg(diagonal, op, "diagonal")
    return apply(_tri_prim, x, k=k, upper=upper)


def tril(x, diagonal=0, name=None):
    """The lower triangle of (each matrix in) ``x``: entries on and below diagonal
    ``diagonal`` are kept, the rest set to 0.

    >>> import weft
    >>> weft.tril(weft.to_tensor([[1, 2], [3, 4]])).tolist()
    [[1, 0], [3, 4]]
    """
    return _tri(x, diagonal, False, "tril")


def triu(x, diagonal=0, name=None):
    """The upper triangle of (each matrix in) ``x``: entries on and above diagonal
    ``diagonal`` are kept, the rest set to 0.

    >>> import weft
    >>> weft.triu(weft.to_tensor([[1, 2], [3, 4]])).tolist()
    [[1, 2], [0, 4]]
    """
    return _tri(x, diagonal, True, "triu")


def tril_(x, diagonal=0, name=None):
    """In-place :func:`tril`; returns ``x``."""
    _inplace_target(x, "tril_")
    return inplace(x, lambda old: _tri(old, diagonal, False, "tril_"), "tril_")


def triu_(x, diagonal=0, name=None):
    """In-place :func:`triu`; returns ``x``."""
    _inplace_target(x, "triu_")
    return inplace(x, lambda old: _tri(old, diagonal, True, "triu_"), "triu_")


def _inplace_target(x, op):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: x must be a Tensor, got {type(x).__name__}")


def meshgrid(*args, indexing="ij", name=None):
    """Coordinate grids from 1-D tensors (given as arguments or as one list).

    With ``indexing='ij'`` output ``i`` varies along axis ``i`` and all outputs have
    shape ``[len(x0), len(x1), ...]``; ``'xy'`` swaps the first two axes (numpy's
    Cartesian convention). Returns a list of new tensors.

    >>> import weft
    >>> a, b = weft.meshgrid(weft.to_tensor([1, 2]), weft.to_tensor([3, 4, 5]))
    >>> a.shape, b[0].tolist()
    ([2, 3], [3, 4, 5])
    """
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    if indexing not in ("ij", "xy"):
        raise ValueError(f"meshgrid: indexing must be 'ij' or 'xy', got {indexing!r}")
    if not args:
        return []
    xs = [tensor_arg(a, f"args[{i}]", "meshgrid") for i, a in enumerate(args)]
    for i, t in enumerate(xs):
        if t.ndim > 1:
            raise ValueError(f"meshgrid: every input must be 1-D, args[{i}] has shape "
                             f"{t.shape}")
        if t.dtype != xs[0].dtype:
            raise TypeError(f"meshgrid: all inputs must have the same dtype, args[0] is "
                            f"{xs[0].dtype.name} but args[{i}] is {t.dtype.name}")
    sizes = [t.size for t in xs]
    axes = list(range(len(xs)))
    if indexing == "xy" and len(xs) >= 2:
        axes[0], axes[1] = 1, 0
    full = [0] * len(xs)
    for i, a in enumerate(axes):
        full[a] = sizes[i]
    out = []
    for i, t in enumerate(xs):
        view = [1] * len(xs)
        view[axes[i]] = sizes[i]
        # a copy, so that the grids never alias their inputs
        out.append(copy(broadcast_to(reshape(t, view), full)))
    return out


def clone(x, name=None):
    """A copy of ``x`` that stays on the autograd graph (gradients flow back to ``x``).

    >>> import weft
    >>> a = weft.to_tensor([1.0], stop_gradient=False)
    >>> b = weft.clone(a); b.stop_gradient
    False
    """
    x = tensor_arg(x, "x", "clone")
    return copy(x)


def assign(x, output=None):
    """Copy ``x`` (a Tensor, numpy array, list or number) into a new tensor, or into
    ``output`` in place when it is given (same shape; numbers and arrays are cast to its
    dtype). Differentiable with respect to a Tensor ``x``.

    >>> import weft
    >>> out = weft.zeros([2])
    >>> _ = weft.assign(weft.to_tensor([1.0, 2.0]), out)
    >>> out.tolist()
    [1.0, 2.0]
    """
    if isinstance(x, Tensor):
        if x.is_sparse():
            reject_sparse("assign", "x")
        src = x
    else:
        d = output.dtype if isinstance(output, Tensor) else None
        try:
            arr = to_array(x, d, output.place if isinstance(output, Tensor) else None)
        except (TypeError, ValueError) as e:
            raise TypeError(f"assign: x must be a Tensor, array, list or number ({e})") \
                from None
        src = Tensor._wrap(arr)
    if output is None:
        return copy(src)
    if not isinstance(output, Tensor):
        raise TypeError(f"assign: output must be a Tensor or None, got {type(output).__name__}")
    if src.shape != output.shape:
        raise ValueError(f"assign: x has shape {src.shape} but output has shape {output.shape}")
    if src.dtype != output.dtype:
        raise TypeError(f"assign: x has dtype {src.dtype.name} but output has dtype "
                        f"{output.dtype.name}; cast x first")

    def compute(old):
        new = copy(src)
        if old.stop_gradient:
            return new
        # the old value of output no longer matters: it gets a zero gradient
        from .math.ufuncs import where  # noqa: PLC0415

        return where(Tensor._wrap(xp_of(old).asarray(True)), new, old)

    return inplace(output, compute, "assign")


__all__ = ["to_tensor", "zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like", "arange", "linspace", "logspace", "eye", "diag", "diagflat", "diag_embed", "tril", "triu", "tril_", "triu_", "meshgrid", "clone", "assign"]
__tensor_methods__ = {"diag": diag, "diagflat": diagflat, "diag_embed": diag_embed, "tril": tril, "triu": triu, "tril_": tril_, "triu_": triu_, "clone": clone}
