"""Products and contractions: matmul (and mm, bmm, mv, dot, inner, outer), einsum,
tensordot, kron, cross, the diagonal view, and pairwise distances (cdist)."""
from __future__ import annotations

import functools
import math
import numbers
import numpy as np
import string

from ..autograd.engine import apply, defbatch, defmultilinear, defvjp, Primitive
from ..core import dtype as _dt
from ..core.args import check_same_place, diagonal_args, normalize_axis, tensor_arg, xp_of
from ..core.tensor import Tensor
from ._support import binary_operands, require_float
from .math.ufuncs import abs as _abs, cast_like, cj, pow as _pow, sign, where
from .primitives import diagonal as _diagonal
from .reduction.aggregate import sum as _sum
from .shape.views import _transpose, reshape, reshape_exact, unsqueeze


def _matmul_fwd(x, y):
    return np.matmul(x, y)


_matmul = Primitive("matmul", _matmul_fwd)


def _mT(t):
    """Swap the last two axes (rules call the primitive: their shapes are known good)."""
    nd = t.ndim
    if nd < 2:
        return t
    perm = list(range(nd))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return apply(_transpose, t, perm=tuple(perm))


def _mm(a, b):
    return apply(_matmul, a, b)


# 1-D operands use vector-matrix products directly (no transposes or reshapes);
# broadcast batch dimensions are summed by the engine.
def _matmul_vjp_x(g, ans, x, y):
    yc = cj(y)
    if y.ndim == 1:            # (..., n, k) @ (k,): outer product g y^T
        return reshape_exact(g, g.shape + [1]) * yc if x.ndim > 1 else g * yc
    if x.ndim == 1:            # (k,) @ (..., k, m) -> (..., m)
        if y.ndim == 2:
            return _mm(yc, g)
        return reshape_exact(_mm(yc, reshape_exact(g, g.shape + [1])), g.shape[:-1] + [y.shape[-2]])
    return _mm(g, _mT(yc))


def _matmul_vjp_y(g, ans, x, y):
    xc = cj(x)
    if x.ndim == 1:            # (k,) @ (..., k, m) -> (..., m): outer product x g^T
        if y.ndim == 1:
            return g * xc
        return reshape_exact(xc, [x.shape[0], 1]) * reshape_exact(g, g.shape[:-1] + [1, g.shape[-1]])
    if y.ndim == 1:            # (..., n, k) @ (k,) -> (..., n): g^T x
        if x.ndim == 2:
            return _mm(g, xc)
        return _mm(reshape_exact(g, g.shape[:-1] + [1, g.shape[-1]]), xc)
    return _mm(_mT(xc), g)


defvjp(_matmul, _matmul_vjp_x, _matmul_vjp_y, save={0: (0, 1), 1: (0, 1)}, save_out=False)
defmultilinear(_matmul)   # forward mode: dx @ y + x @ dy


def _matmul_bvjp_x(g, ans, x, y):
    """The x rule for a batch ``g`` of shape ``[B, *out]``: with a 1-D x the plain rule
    would put g on the wrong side of y (or broadcast B against k)."""
    if x.ndim > 1:             # the plain rule already broadcasts over g's batch axis
        return _matmul_vjp_x(g, ans, x, y)
    yc = cj(y)
    if y.ndim == 1:            # (k,) @ (k,): g is [B]
        return reshape_exact(g, g.shape + [1]) * yc
    if y.ndim == 2:            # [B, m] @ (m, k)
        return _mm(g, _mT(yc))
    r = _mm(reshape_exact(g, g.shape[:-1] + [1, g.shape[-1]]), _mT(yc))
    return reshape_exact(r, r.shape[:-2] + r.shape[-1:])


def _matmul_bvjp_y(g, ans, x, y):
    if x.ndim == 1 and y.ndim == 1:   # g is [B]: one outer product per row
        return reshape_exact(g, g.shape + [1]) * cj(x)
    return _matmul_vjp_y(g, ans, x, y)   # broadcasts over g's batch axis


defbatch(_matmul, _matmul_bvjp_x, _matmul_bvjp_y)


def check_batch_broadcast(x, y, op):
    """Raise unless the batch dimensions (all but the last two) of ``x`` and ``y``
    broadcast together."""
    try:
        np.broadcast_shapes(tuple(x.shape[:-2]), tuple(y.shape[:-2]))
    except ValueError:
        raise ValueError(f"{op}: batch dimensions of {x.shape} and {y.shape} do not "
                         "broadcast") from None


def matmul(x, y, transpose_x=False, transpose_y=False, name=None):
    """Matrix product with numpy's broadcasting rules (1-D operands are vectors).

    >>> import weft
    >>> weft.matmul(weft.ones([2, 3]), weft.ones([3])).tolist()
    [3.0, 3.0]
    """
    x = tensor_arg(x, "x", "matmul")
    y = tensor_arg(y, "y", "matmul")
    x, y = binary_operands(x, y, "matmul")
    if x.ndim == 0 or y.ndim == 0:
        raise ValueError(f"matmul: x and y must be at least 1-D, got shapes {x.shape} and "
                         f"{y.shape}")
    if transpose_x:
        x = _mT(x)
    if transpose_y:
        y = _mT(y)
    k1 = x.shape[-1]
    k2 = y.shape[-2] if y.ndim >= 2 else y.shape[0]
    if k1 != k2:
        raise ValueError(f"matmul: x's last dimension ({k1}) must equal y's "
                         f"{'second-to-last' if y.ndim >= 2 else 'only'} dimension ({k2}); "
                         f"shapes {x.shape} and {y.shape}")
    check_batch_broadcast(x, y, "matmul")
    return apply(_matmul, x, y)


_LETTERS = string.ascii_letters


def _einsum_fwd(*ops, spec):
    r = np.einsum(spec, *ops, optimize=True)
    xp = xp_of(r) if hasattr(r, "shape") else np
    # pure relabellings ('ij->ji', 'ii->i') come back as views of an operand
    if any(xp.may_share_memory(r, o) for o in ops):
        r = r.copy()
    return r


_EINSUM_PRIMS = {}


def _einsum_prim(n):
    p = _EINSUM_PRIMS.get(n)
    if p is None:
        p = Primitive("einsum", _einsum_fwd, family=True)
        defvjp(p, *[functools.partial(_einsum_vjp, k) for k in range(n)], save_out=False)
        defmultilinear(p)   # forward mode: one einsum per operand's tangent
        _EINSUM_PRIMS[n] = p
    return p


def _einsum_apply(spec, ops):
    return apply(_einsum_prim(len(ops)), *ops, spec=spec)


def _einsum_vjp(k, g, ans, *ops, spec):
    lhs, out = spec.split("->")
    ins = lhs.split(",")
    target = ins[k]
    terms = [out] + [s for j, s in enumerate(ins) if j != k]
    tensors = [g] + [cj(o) for j, o in enumerate(ops) if j != k]
    size = {}
    for t, o in zip(terms, tensors):
        for c, n in zip(t, o._data.shape):
            size[c] = n if size.get(c, 1) == 1 else size[c]
    fresh = iter(c for c in _LETTERS if c not in set(spec))
    xp = xp_of(g)
    dt = g._data.dtype
    shape = ops[k]._data.shape
    res = []
    for pos, c in enumerate(target):
        n = shape[pos]
        if c in res:
            # d x[i, i] / d x[a, b] = delta(a, b): a fresh letter tied by the identity
            f = next(fresh)
            terms.append(c + f)
            tensors.append(Tensor._wrap(xp.eye(n, dtype=dt)))
            res.append(f)
            continue
        if size.get(c) != n:
            # c is summed inside operand k alone, or operand k is broadcast against size-1
            # partners: a vector of ones gives the cotangent its extent along c
            terms.append(c)
            tensors.append(Tensor._wrap(xp.ones(n, dtype=dt)))
            size[c] = n
        res.append(c)
    return _einsum_apply(",".join(terms) + "->" + "".join(res), tensors)


def _parse_einsum(equation, shapes):
    """The explicit, ellipsis-free spec ``'ab,bc->ac'`` for ``equation`` and ``shapes``."""
    eq = equation.replace(" ", "")
    if eq.count("->") > 1:
        raise ValueError(f"einsum: equation {equation!r} has more than one '->'")
    lhs, out = eq.split("->") if "->" in eq else (eq, None)
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise ValueError(f"einsum: equation {equation!r} has {len(terms)} operand "
                         f"subscript(s) but {len(shapes)} operand(s) were given")
    for t in terms + ([out] if out is not None else []):
        rest = t.replace("...", "", 1)
        bad = [c for c in rest if c not in _LETTERS]
        if bad:
            raise ValueError(f"einsum: invalid subscript {bad[0]!r} in equation {equation!r}; "
                             "use letters a-z, A-Z and one '...' per operand")
    free = [c for c in _LETTERS if c not in eq]
    n_ell = 0
    for t, s in zip(terms, shapes):
        named = len(t.replace("...", ""))
        if "..." in t:
            if named > len(s):
                raise ValueError(f"einsum: operand subscripts {t!r} name {named} dimensions "
                                 f"but the operand has shape {list(s)}")
            n_ell = max(n_ell, len(s) - named)
        elif named != len(s):
            raise ValueError(f"einsum: operand subscripts {t!r} name {named} dimension(s) but "
                             f"the operand has shape {list(s)}")
    if n_ell > len(free):
        raise ValueError(f"einsum: too many dimensions in {equation!r}")
    ell = "".join(free[:n_ell])
    full = []
    for t, s in zip(terms, shapes):
        m = len(s) - len(t.replace("...", ""))
        full.append(t.replace("...", ell[n_ell - m:]) if "..." in t else t)
    if out is None:
        counts = {}
        for t in terms:
            for c in t.replace("...", ""):
                counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1))
    else:
        out = out.replace("...", ell)
        if len(set(out)) != len(out):
            raise ValueError(f"einsum: output subscripts of {equation!r} repeat a letter")
        missing = [c for c in out if c not in "".join(full)]
        if missing:
            raise ValueError(f"einsum: output subscript {missing[0]!r} of {equation!r} does "
                             "not occur in any operand")
    sizes = {}
    for t, s in zip(full, shapes):
        own = {}
        for c, n in zip(t, s):
            if own.setdefault(c, n) != n:
                raise ValueError(f"einsum: subscript {c!r} is repeated in {t!r} with "
                                 f"different sizes in shape {list(s)}")
            prev = sizes.get(c, 1)
            if n != prev and n != 1 and prev != 1:
                raise ValueError(f"einsum: subscript {c!r} has size {prev} in one operand and "
                                 f"{n} in another (shape {list(s)}) in {equation!r}")
            sizes[c] = max(prev, n) if n != 0 and prev != 0 else 0
    return ",".join(full) + "->" + out


def _promote_all(ops, op):
    from .cast import cast  # noqa: PLC0415

    d = ops[0]._data.dtype
    for o in ops[1:]:
        check_same_place(ops[0], o, op)
        d = _dt.promote_types(d, o._data.dtype)
    return [o if o._data.dtype == d else cast(o, d) for o in ops]


def einsum(equation, *operands, name=None):
    """Einstein summation over ``operands`` (numpy's notation, with ``...`` broadcasting;
    implicit output = ellipsis dimensions, then the letters seen once, sorted).

    Broadcast (ellipsis) dimensions missing from an explicit output are summed.
    Operands may also be passed as one list. Differentiable in every operand, to
    any order, including traces and diagonals (``'ii->'``, ``'ii->i'``).

    >>> import weft
    >>> a = weft.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> weft.einsum('ii->', a).item(), weft.einsum('ij,j->i', a, weft.ones([2])).tolist()
    (5.0, [3.0, 7.0])
    """
    if not isinstance(equation, str):
        raise TypeError(f"einsum: equation must be a str, got {type(equation).__name__}")
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise ValueError("einsum: at least one operand is required")
    if len(operands) > len(_LETTERS):
        raise ValueError(f"einsum: at most {len(_LETTERS)} operands, got {len(operands)}")
    ops = _promote_all([tensor_arg(o, f"operands[{i}]", "einsum")
                        for i, o in enumerate(operands)], "einsum")
    spec = _parse_einsum(equation, [o._data.shape for o in ops])
    return _einsum_apply(spec, ops)


def _pair(x, y, op, xa="x", ya="y"):
    x = tensor_arg(x, xa, op)
    y = tensor_arg(y, ya, op)
    return binary_operands(x, y, op)


def mm(input, mat2, name=None):
    """Matrix product of ``input`` and ``mat2`` (Paddle's ``mm`` = ``matmul``: batch
    dimensions broadcast, 1-D operands are vectors).

    >>> import weft
    >>> weft.mm(weft.ones([2, 3]), weft.ones([3, 4])).shape
    [2, 4]
    """
    x, y = _pair(input, mat2, "mm", "input", "mat2")
    if x.ndim == 0 or y.ndim == 0:
        raise ValueError(f"mm: input and mat2 must be at least 1-D, got shapes {x.shape} and "
                         f"{y.shape}")
    k2 = y.shape[-2] if y.ndim >= 2 else y.shape[0]
    if x.shape[-1] != k2:
        raise ValueError(f"mm: input's last dimension ({x.shape[-1]}) must equal mat2's "
                         f"contracted dimension ({k2}); shapes {x.shape} and {y.shape}")
    return matmul(x, y)


def bmm(x, y, name=None):
    """Batched matrix product of 3-D tensors: ``[b, n, k] @ [b, k, m] -> [b, n, m]``.

    >>> import weft
    >>> weft.bmm(weft.ones([2, 3, 4]), weft.ones([2, 4, 5])).shape
    [2, 3, 5]
    """
    x, y = _pair(x, y, "bmm")
    if x.ndim != 3 or y.ndim != 3:
        raise ValueError(f"bmm: x and y must be 3-D, got shapes {x.shape} and {y.shape}")
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"bmm: batch sizes differ: x has {x.shape[0]} and y has {y.shape[0]} "
                         f"(shapes {x.shape} and {y.shape})")
    if x.shape[2] != y.shape[1]:
        raise ValueError(f"bmm: x's last dimension ({x.shape[2]}) must equal y's second "
                         f"dimension ({y.shape[1]}); shapes {x.shape} and {y.shape}")
    return matmul(x, y)


def dot(x, y, name=None):
    """Dot product of 1-D tensors, or of the rows of 2-D tensors (``[b, n] -> [b]``).

    No complex conjugation (``sum(x * y)``), as in Paddle.

    >>> import weft
    >>> x = weft.to_tensor([[1, 2, 3], [2, 4, 6]])
    >>> weft.dot(x, weft.to_tensor([[4, 5, 6], [4, 5, 6]])).tolist()
    [32, 64]
    """
    x, y = _pair(x, y, "dot")
    if x.ndim not in (1, 2) or y.ndim != x.ndim:
        raise ValueError(f"dot: x and y must both be 1-D or both be 2-D, got shapes {x.shape} "
                         f"and {y.shape}")
    if x.shape != y.shape:
        raise ValueError(f"dot: x and y must have the same shape, got {x.shape} and {y.shape}")
    return _einsum_apply("i,i->" if x.ndim == 1 else "bi,bi->b", [x, y])


def inner(x, y, name=None):
    """Inner product over the last axis: ``out[i..., j...] = sum_k x[i..., k] y[j..., k]``
    (a plain product when either is 0-D).

    >>> import weft
    >>> weft.inner(weft.ones([2, 3]), weft.ones([4, 3])).shape
    [2, 4]
    """
    x, y = _pair(x, y, "inner")
    if not isinstance(x, Tensor) or not isinstance(y, Tensor) or x.ndim == 0 or y.ndim == 0:
        return x * y
    if x.shape[-1] != y.shape[-1]:
        raise ValueError(f"inner: the last dimensions of x and y must match, got shapes "
                         f"{x.shape} and {y.shape}")
    if x.ndim + y.ndim - 1 > len(_LETTERS):
        raise ValueError("inner: too many dimensions")
    a = _LETTERS[:x.ndim - 1]
    b = _LETTERS[x.ndim - 1:x.ndim + y.ndim - 2]
    k = _LETTERS[x.ndim + y.ndim - 2]
    return _einsum_apply(f"{a}{k},{b}{k}->{a}{b}", [x, y])


def outer(x, y, name=None):
    """Outer product of the flattened inputs: ``[x.size, y.size]``.

    >>> import weft
    >>> weft.outer(weft.to_tensor([1, 2]), weft.to_tensor([1, 10, 100])).tolist()
    [[1, 10, 100], [2, 20, 200]]
    """
    x, y = _pair(x, y, "outer")
    if not isinstance(x, Tensor):
        x = Tensor._wrap(xp_of(y).asarray(x, dtype=y._data.dtype))
    if not isinstance(y, Tensor):
        y = Tensor._wrap(xp_of(x).asarray(y, dtype=x._data.dtype))
    return _einsum_apply("i,j->ij", [reshape(x, [-1]), reshape(y, [-1])])


def mv(x, vec, name=None):
    """Matrix-vector product: ``x [m, n]`` times ``vec [n]`` gives ``[m]``.

    >>> import weft
    >>> weft.mv(weft.ones([2, 3]), weft.to_tensor([1.0, 2.0, 3.0])).tolist()
    [6.0, 6.0]
    """
    x, v = _pair(x, vec, "mv", "x", "vec")
    if x.ndim != 2:
        raise ValueError(f"mv: x must be 2-D, got shape {x.shape}")
    if v.ndim != 1:
        raise ValueError(f"mv: vec must be 1-D, got shape {v.shape}")
    if x.shape[1] != v.shape[0]:
        raise ValueError(f"mv: x has {x.shape[1]} columns but vec has {v.shape[0]} entries")
    return _einsum_apply("ij,j->i", [x, v])


def _axes_list(a, op):
    if isinstance(a, Tensor):
        a = a.tolist()
    if isinstance(a, (int, np.integer)) and not isinstance(a, bool):
        return [int(a)]
    if not isinstance(a, (list, tuple)):
        raise TypeError(f"{op}: axes must hold ints or sequences of ints, got {a!r}")
    out = []
    for v in a:
        if isinstance(v, Tensor):
            v = v.item()
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
            raise TypeError(f"{op}: axes must hold ints, got {v!r}")
        out.append(int(v))
    return out


def _tensordot_axes(axes, nx, ny):
    op = "tensordot"
    if isinstance(axes, Tensor):
        axes = axes.tolist()
    if isinstance(axes, bool) or not isinstance(axes, (int, np.integer, list, tuple)):
        raise TypeError(f"{op}: axes must be an int, a list/tuple or a Tensor, got "
                        f"{type(axes).__name__}")
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if not 0 <= n <= min(nx, ny):
            raise ValueError(f"{op}: axes = {n} must be in [0, {min(nx, ny)}] for inputs with "
                             f"{nx} and {ny} dimensions")
        return list(range(nx - n, nx)), list(range(n))
    axes = list(axes)
    if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in axes):
        ax = ay = [int(a) for a in axes]       # one flat list: same axes of x and y
    else:
        seqs = [_axes_list(a, op) for a in axes[:2]]
        ax, ay = (seqs[0], seqs[0]) if len(seqs) == 1 else seqs
    # Paddle extends the shorter list with the tail of the longer one
    if len(ax) < len(ay):
        ax = ax + ay[len(ax):]
    elif len(ay) < len(ax):
        ay = ay + ax[len(ay):]
    ax = [normalize_axis(a, nx, op, "axes") for a in ax]
    ay = [normalize_axis(a, ny, op, "axes") for a in ay]
    for lst, w in ((ax, "x"), (ay, "y")):
        if len(set(lst)) != len(lst):
            raise ValueError(f"{op}: the axes of {w} repeat an axis: {lst}")
    return ax, ay


def tensordot(x, y, axes=2, name=None):
    """Contract ``x`` and ``y`` over pairs of axes; the output has x's free axes then y's.

    ``axes``: an int ``n`` (last n of x with first n of y), a flat list (the same axes
    of both), ``[axes_x, axes_y]`` (the shorter completed by the tail of the longer), or
    a Tensor holding one of these. Contracted sizes must match or be 1 (broadcast).

    >>> import weft
    >>> weft.tensordot(weft.ones([2, 3, 4]), weft.ones([3, 4, 5])).shape
    [2, 5]
    """
    x, y = _pair(x, y, "tensordot")
    ax, ay = _tensordot_axes(axes, x.ndim, y.ndim)
    for a, b in zip(ax, ay):
        sa, sb = x.shape[a], y.shape[b]
        if sa != sb and sa != 1 and sb != 1:
            raise ValueError(f"tensordot: contracted axis {a} of x (size {sa}) does not match "
                             f"axis {b} of y (size {sb}); shapes {x.shape} and {y.shape}")
    if x.ndim + y.ndim - len(ax) > len(_LETTERS):
        raise ValueError("tensordot: too many dimensions")
    letters = iter(_LETTERS)
    tx = [next(letters) for _ in range(x.ndim)]
    ty = [None] * y.ndim
    for a, b in zip(ax, ay):
        ty[b] = tx[a]
    ty = [c if c is not None else next(letters) for c in ty]
    out = [c for i, c in enumerate(tx) if i not in ax] + \
        [c for i, c in enumerate(ty) if i not in ay]
    return _einsum_apply(f"{''.join(tx)},{''.join(ty)}->{''.join(out)}", [x, y])


def kron(x, y, name=None):
    """Kronecker product (numpy's ``kron``: the shorter shape is padded with leading 1s).

    >>> import weft
    >>> weft.kron(weft.to_tensor([1, 2]), weft.to_tensor([1, 10])).tolist()
    [1, 10, 2, 20]
    """
    x, y = _pair(x, y, "kron")
    if not isinstance(x, Tensor) or not isinstance(y, Tensor):
        return x * y
    n = max(x.ndim, y.ndim)
    if 2 * n > len(_LETTERS):
        raise ValueError("kron: too many dimensions")
    xs = [1] * (n - x.ndim) + x.shape
    ys = [1] * (n - y.ndim) + y.shape
    a, b = _LETTERS[:n], _LETTERS[n:2 * n]
    spec = f"{a},{b}->{''.join(p + q for p, q in zip(a, b))}"
    r = _einsum_apply(spec, [reshape_exact(x, xs), reshape_exact(y, ys)])
    return reshape_exact(r, [p * q for p, q in zip(xs, ys)])


def cross(x, y, axis=9, name=None, *, dim=None):
    """Cross product of 3-vectors along ``axis`` (alias ``dim``); ``x`` and ``y`` must
    have equal shapes.

    ``axis=9`` (Paddle's default, also ``None``) means the first axis of size 3.

    >>> import weft
    >>> weft.cross(weft.to_tensor([1.0, 0.0, 0.0]), weft.to_tensor([0.0, 1.0, 0.0])).tolist()
    [0.0, 0.0, 1.0]
    """
    if dim is not None:
        axis = dim
    x, y = _pair(x, y, "cross")
    if x.shape != y.shape:
        raise ValueError(f"cross: x and y must have the same shape, got {x.shape} and {y.shape}")
    if x._data.dtype == np.bool_:
        raise TypeError("cross: x and y must be numeric, got bool")
    if axis is None or (axis == 9 and not isinstance(axis, bool)):
        sizes3 = [i for i, s in enumerate(x.shape) if s == 3]
        if not sizes3:
            raise ValueError(f"cross: no axis of size 3 in shape {x.shape}; there must be at "
                             "least one dimension of size 3")
        ax = sizes3[0]
    else:
        ax = normalize_axis(axis, x.ndim, "cross")
        if x.ndim == 0 or x.shape[ax] != 3:
            raise ValueError(f"cross: axis {axis} must have size 3, but x has shape {x.shape}")
    if x.ndim + 3 > len(_LETTERS):
        raise ValueError("cross: too many dimensions")
    other = iter(c for c in _LETTERS if c not in "IJK")
    base = [next(other) for _ in range(x.ndim)]

    def term(c):
        t = list(base)
        t[ax] = c
        return "".join(t)

    xp = xp_of(x)
    eps = np.zeros((3, 3, 3))
    eps[0, 1, 2] = eps[1, 2, 0] = eps[2, 0, 1] = 1
    eps[0, 2, 1] = eps[2, 1, 0] = eps[1, 0, 2] = -1
    eps = Tensor._wrap(xp.asarray(eps, dtype=x._data.dtype))
    return _einsum_apply(f"IJK,{term('J')},{term('K')}->{term('I')}", [eps, x, y])


def diagonal(x, offset=0, axis1=0, axis2=1, name=None):
    """Diagonals of the planes spanned by ``axis1`` and ``axis2`` (default: the first two
    axes), as a new last axis; ``offset > 0`` is above the main diagonal.

    >>> import weft
    >>> weft.diagonal(weft.to_tensor([[1, 2], [3, 4]]), offset=-1).tolist()
    [3]
    """
    x = tensor_arg(x, "x", "diagonal")
    offset, a1, a2 = diagonal_args(x, offset, axis1, axis2, "diagonal")
    return _diagonal(x, int(offset), a1, a2)


def _cdist_fwd(x, y, p, use_mm):
    xp = xp_of(x)
    if use_mm:
        # |x|^2 + |y|^2 - 2 x.y: one matmul instead of a [.., P, R, M] difference tensor
        x2 = (x * x).sum(-1)[..., :, None]
        y2 = (y * y).sum(-1)[..., None, :]
        d2 = x2 + y2 - 2 * (x @ xp.swapaxes(y, -1, -2))
        return xp.sqrt(xp.maximum(d2, 0))
    a = xp.abs(x[..., :, None, :] - y[..., None, :, :])
    if p == 0:
        return (a != 0).sum(-1).astype(x.dtype)
    if p == 1:
        return a.sum(-1)
    if p == 2:
        return xp.sqrt((a * a).sum(-1))
    if math.isinf(p):
        return a.max(-1) if a.shape[-1] else a.sum(-1)
    return (a ** p).sum(-1) ** (1.0 / p)


def _cdist_partial(g, d, x, y, p):
    """``g * d dist / d diff`` on the [..., P, R, M] differences (subgradient 0 where the
    distance or a coordinate difference is 0)."""
    diff = unsqueeze(x, -2) - unsqueeze(y, -3)
    g = unsqueeze(g, -1)
    if p == 0:
        return diff * 0
    if p == 1:
        return g * sign(diff)
    d = unsqueeze(d, -1)
    dz = d == 0
    dsafe = where(dz, d + 1, d)
    if p == 2:
        return where(dz, diff * 0, g * diff / dsafe)
    a = _abs(diff)
    if math.isinf(p):
        # the gradient of a max is split evenly among the coordinates that attain it
        hit = cast_like(a == d, a)
        return g * sign(diff) * hit / _sum(hit, axis=-1, keepdim=True)
    az = a == 0
    w = sign(diff) * _pow(where(az, a + 1, a) / dsafe, p - 1)
    return where(dz | az, diff * 0, g * w)


def _cdist_vjp_x(g, ans, x, y, p, use_mm):
    return _sum(_cdist_partial(g, ans, x, y, p), axis=-2)


def _cdist_vjp_y(g, ans, x, y, p, use_mm):
    return -_sum(_cdist_partial(g, ans, x, y, p), axis=-3)


_cdist = Primitive("cdist", _cdist_fwd)
defvjp(_cdist, _cdist_vjp_x, _cdist_vjp_y)
_CDIST_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                "donot_use_mm_for_euclid_dist")


def cdist(x, y, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary", name=None):
    """p-norm distances between the rows of ``x [..., P, M]`` and ``y [..., R, M]``:
    ``[..., P, R]`` (batch dimensions broadcast).

    ``p = 0`` counts differing coordinates, ``p = inf`` is the largest coordinate
    difference. For ``p = 2`` the ``use_mm`` modes compute ``|x|^2 + |y|^2 - 2 x.y``
    with one matmul (always, or when P > 25 or R > 25), which is faster but less
    accurate for nearby points. Gradients use the subgradient 0 at zero distance;
    for ``p = inf`` ties split the gradient evenly.

    >>> import weft
    >>> weft.cdist(weft.to_tensor([[0.0, 0.0]]), weft.to_tensor([[3.0, 4.0], [1.0, 0.0]])).tolist()
    [[5.0, 1.0]]
    """
    x = tensor_arg(x, "x", "cdist")
    y = tensor_arg(y, "y", "cdist")
    for t, w in ((x, "x"), (y, "y")):
        if t._data.dtype.kind not in "iuf":
            raise TypeError(f"cdist: {w} must be a real floating tensor, got "
                            f"{t._data.dtype.name}")
        if t.ndim < 2:
            raise ValueError(f"cdist: {w} must be at least 2-D ([..., points, features]), got "
                             f"shape {t.shape}")
    x, y = binary_operands(require_float(x, "cdist"), require_float(y, "cdist", "y"), "cdist")
    if x.shape[-1] != y.shape[-1]:
        raise ValueError(f"cdist: x and y must have the same number of features (last "
                         f"dimension), got shapes {x.shape} and {y.shape}")
    check_batch_broadcast(x, y, "cdist")
    if isinstance(p, Tensor):
        p = p.item()
    if not isinstance(p, numbers.Real) or isinstance(p, bool):
        raise TypeError(f"cdist: p must be a number, got {type(p).__name__}")
    p = float(p)
    if not p >= 0:
        raise ValueError(f"cdist: p must be non-negative, got {p}")
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"cdist: compute_mode must be one of {list(_CDIST_MODES)}, got "
                         f"{compute_mode!r}")
    use_mm = p == 2 and (compute_mode == _CDIST_MODES[1] or (
        compute_mode == _CDIST_MODES[0] and (x.shape[-2] > 25 or y.shape[-2] > 25)))
    return apply(_cdist, x, y, p=p, use_mm=use_mm)



# declared when the module loads, so weft.autograd.rules() lists it
_einsum_prim(1)
__all__ = ["matmul", "mm", "bmm", "dot", "inner", "outer", "mv", "einsum", "tensordot", "kron", "cross", "diagonal", "cdist"]
__tensor_methods__ = {"matmul": matmul, "mm": mm, "bmm": bmm, "dot": dot, "inner": inner, "outer": outer, "mv": mv, "tensordot": tensordot, "kron": kron, "cross": cross, "diagonal": diagonal, "cdist": cdist}
