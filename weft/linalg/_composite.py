"""Functions built from other differentiable weft ops (no primitives of their own):
``matrix_transpose``, ``vecdot``, ``matrix_power``, ``cholesky_solve``,
``cholesky_inverse``, ``pinv``, ``multi_dot``, ``cond``, ``matrix_norm``,
``vector_norm``, and
``matrix_rank`` (not differentiable). Their derivatives, of every order, come from
the ops used."""
from __future__ import annotations

import numbers

import numpy as np

from ..autograd.engine import apply
from ..core.args import check_same_place, normalize_axis, tensor_arg, xp_of
from ..core.tensor import Tensor
from ..ops.creation import eye, zeros
from ..ops.math.ufuncs import abs as abs_, cj, real, sqrt, where
from ..ops.products import _mm, _mT
from ..ops.reduction.aggregate import amax, amin, sum as _sum
from ..ops.shape.views import expand, unsqueeze
from ._common import backend_of, check_converged, compute_dtype, matrix_arg, mH, restore
from ._solvers import _tri, inv

__all__ = ["cholesky_inverse", "cholesky_solve", "cond", "matrix_norm", "matrix_power",
           "matrix_rank", "matrix_transpose", "multi_dot", "pinv", "vecdot", "vector_norm"]


def matrix_transpose(x, name=None):
    """Swap the last two axes of ``x`` (no conjugation); ``x`` must be at least 2-D.

    >>> import weft
    >>> weft.linalg.matrix_transpose(weft.to_tensor([[1, 2, 3]])).tolist()
    [[1], [2], [3]]
    """
    x = tensor_arg(x, "x", "matrix_transpose")
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose: x must be at least 2-D, got shape {x.shape}")
    return _mT(x)


def vecdot(x, y, axis=-1, name=None):
    """``sum(conj(x) * y, axis)`` with numpy broadcasting (``x`` is conjugated).

    >>> import weft
    >>> weft.linalg.vecdot(weft.to_tensor([1j, 2]), weft.to_tensor([1j, 1])).item()
    (3+0j)
    """
    x = tensor_arg(x, "x", "vecdot")
    y = tensor_arg(y, "y", "vecdot")
    check_same_place(x, y, "vecdot")
    for t, arg in ((x, "x"), (y, "y")):
        if t.ndim < 1:
            raise ValueError(f"vecdot: {arg} must be at least 1-D, got a 0-D Tensor")
    try:
        np.broadcast_shapes(tuple(x.shape), tuple(y.shape))
    except ValueError:
        raise ValueError(f"vecdot: the shapes of x {x.shape} and y {y.shape} do not "
                         "broadcast") from None
    prod = cj(x) * y
    return _sum(prod, axis=normalize_axis(axis, prod.ndim, "vecdot"))


def matrix_power(x, n, name=None):
    """``x`` (square, ``[*, m, m]``) to the integer power ``n``: ``n = 0`` gives the
    identity, ``n < 0`` the power of the inverse (singular → ``ValueError``).

    >>> import weft
    >>> a = weft.to_tensor([[1.0, 1.0], [0.0, 1.0]], dtype="float64")
    >>> weft.linalg.matrix_power(a, 3).tolist()
    [[1.0, 3.0], [0.0, 1.0]]
    """
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"matrix_power: n must be a Python int, got {type(n).__name__}")
    n = int(n)
    x, back = matrix_arg(x, "matrix_power")
    if n == 0:
        m = x.shape[-1]
        return restore(expand(eye(m, dtype=x._data.dtype), x.shape), back)
    if n < 0:
        x, n = inv(x), -n
    # binary powering: about 2·log2(n) products
    result, base = None, x
    while n:
        if n & 1:
            result = base if result is None else _mm(result, base)
        n >>= 1
        if n:
            base = _mm(base, base)
    return restore(result, back)


def _cholesky_args(b, factor, op, b_arg, f_arg):
    factor_t, back = matrix_arg(factor, op, f_arg)
    b = tensor_arg(b, b_arg, op)
    if b.ndim < 2:
        raise ValueError(f"{op}: the rank of input {b_arg} must be greater than or equal "
                         f"to 2, got shape {b.shape}")
    b, _ = matrix_arg(b, op, b_arg, square=False)
    check_same_place(b, factor_t, op)
    if b._data.dtype != factor_t._data.dtype:
        raise TypeError(f"{op}: {b_arg} and {f_arg} must have the same dtype, got "
                        f"{b._data.dtype.name} and {factor_t._data.dtype.name}")
    if b.shape[-2] != factor_t.shape[-1]:
        raise ValueError(f"{op}: {b_arg} must have {factor_t.shape[-1]} rows to match "
                         f"{f_arg} of shape {factor_t.shape}, got shape {b.shape}")
    return b, factor_t, back


def _chol_solve(b, c, upper):
    """``(C Cᴴ)⁻¹ b`` for lower C, ``(Cᴴ C)⁻¹ b`` for upper C: two triangular solves."""
    if upper:    # Cᴴ z = b, then C x = z
        z = _tri_apply(cj(c), b, upper=True, transpose=True)
        return _tri_apply(c, z, upper=True, transpose=False)
    z = _tri_apply(c, b, upper=False, transpose=False)        # C z = b
    return _tri_apply(cj(c), z, upper=False, transpose=True)  # Cᴴ x = z


def _tri_apply(a, b, *, upper, transpose):
    return apply(_tri, a, b, upper=upper, transpose=transpose, unit=False)


def cholesky_solve(x, y, upper=False, name=None):
    """Solve ``A X = x`` where ``A = y yᴴ`` (``upper=False``) or ``yᴴ y`` (``upper=True``):
    **x is the right-hand side** ``[*, m, k]`` and **y the Cholesky factor** ``[*, m, m]``
    (only its lower/upper triangle is read). Batch dimensions broadcast.

    >>> import weft
    >>> l = weft.to_tensor([[2.0, 0.0], [1.0, 1.0]], dtype="float64")   # A = [[4, 2], [2, 2]]
    >>> weft.linalg.cholesky_solve(weft.to_tensor([[6.0], [4.0]], dtype="float64"), l).tolist()
    [[1.0], [1.0]]
    """
    b, c, back = _cholesky_args(x, y, "cholesky_solve", "x", "y")
    try:
        np.broadcast_shapes(tuple(b.shape[:-2]), tuple(c.shape[:-2]))
    except ValueError:
        raise ValueError(f"cholesky_solve: the batch dimensions of x {b.shape[:-2]} and y "
                         f"{c.shape[:-2]} do not broadcast") from None
    return restore(_chol_solve(b, c, bool(upper)), back)


def cholesky_inverse(x, upper=False, name=None):
    """``(L Lᴴ)⁻¹`` for a lower Cholesky factor ``x [*, n, n]`` (``(Uᴴ U)⁻¹`` with
    ``upper=True``): the inverse of the matrix ``x`` factors.

    >>> import weft
    >>> l = weft.to_tensor([[2.0, 0.0], [0.0, 1.0]], dtype="float64")
    >>> weft.linalg.cholesky_inverse(l).tolist()
    [[0.25, 0.0], [0.0, 1.0]]
    """
    c, back = matrix_arg(x, "cholesky_inverse")
    n = c.shape[-1]
    ident = expand(eye(n, dtype=c._data.dtype), c.shape)
    r = _chol_solve(ident, c, bool(upper))
    # the exact inverse is Hermitian; average out the rounding of the two solves
    return restore((r + mH(r)) * 0.5, back)



def _rcond_cutoff(rcond, top, op):
    """``rcond · top`` with ``rcond`` a float or a Tensor broadcast to the batch."""
    if isinstance(rcond, Tensor) or np.ndim(rcond) > 0:
        rcond = tensor_arg(rcond, "rcond", op)
        return unsqueeze(rcond.astype(top.dtype), -1) * top
    return float(rcond) * top


def pinv(x, rcond=1e-15, hermitian=False, name=None):
    """Moore–Penrose pseudo-inverse ``[*, n, m]`` of ``x [*, m, n]`` via the SVD (or,
    with ``hermitian=True``, the eigendecomposition of the lower triangle). Singular
    values at most ``rcond · σ_max`` (``rcond`` a float or a Tensor broadcast to the
    batch) are treated as 0. The gradient assumes the rank is locally constant.

    >>> import weft
    >>> a = weft.to_tensor([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]], dtype="float64")
    >>> weft.linalg.pinv(a).tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.5, 0.0]]
    """
    from ._spectral import eigh, svd  # noqa: PLC0415
    x, back = matrix_arg(x, "pinv", square=bool(hermitian))
    m, n = x.shape[-2], x.shape[-1]
    if min(m, n) == 0:
        return restore(zeros(x.shape[:-2] + [n, m], dtype=x._data.dtype), back)
    if hermitian:
        w, v = eigh(x)
        mag = abs_(w)
        keep = mag > _rcond_cutoff(rcond, mag.max(axis=-1, keepdim=True), "pinv")
        inv_w = where(keep, 1.0 / where(keep, w, 1.0), 0.0)
        r = _mm(v * unsqueeze(inv_w, -2).astype(x._data.dtype), mH(v))
    else:
        u, s, vh = svd(x)
        keep = s > _rcond_cutoff(rcond, s[..., :1], "pinv")
        inv_s = where(keep, 1.0 / where(keep, s, 1.0), 0.0)
        r = _mm(mH(vh) * unsqueeze(inv_s, -2).astype(x._data.dtype), mH(u))
    return restore(r, back)


def matrix_rank(x, tol=None, hermitian=False, atol=None, rtol=None, name=None):
    """The numerical rank (int64 ``[*]``) of ``x [*, m, n]``: the number of singular
    values (absolute eigenvalues of the lower triangle with ``hermitian=True``) above
    the threshold: ``tol`` alone, or ``max(atol, rtol · σ_max)`` (missing ``atol`` = 0,
    missing ``rtol`` = ``max(m, n) · eps`` when ``atol`` is None or ≤ 0, else 0), or
    by default ``σ_max · max(m, n) · eps``. Not differentiable.

    >>> import weft
    >>> weft.linalg.matrix_rank(weft.to_tensor([[1.0, 2.0], [2.0, 4.0]])).item()
    1
    """
    op = "matrix_rank"
    if tol is not None and (atol is not None or rtol is not None):
        raise ValueError(f"{op}: Only support to use tol alone or use atol and rtol without "
                         "tol")
    x, _ = matrix_arg(x, op, square=False)
    if hermitian and x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{op}: with hermitian=True x must be square, got shape {x.shape}")
    d = x._data
    xp = xp_of(d)
    m, n = d.shape[-2], d.shape[-1]
    if min(m, n) == 0:
        return Tensor._wrap(xp.zeros(d.shape[:-2], dtype=np.int64))
    be = backend_of(d, op)
    if hermitian:
        s, _, info = be.eigh(d, True, False)
        s = xp.abs(s)
    else:
        _, s, _, info = be.svd(d, "N")
    check_converged(op, info, d.shape[:-2])
    top = s.max(axis=-1)

    def value(t):   # a float, or a Tensor / array broadcast to the batch
        if isinstance(t, Tensor):
            return t._data.astype(s.dtype)
        return xp.asarray(t, dtype=s.dtype)

    if tol is not None:
        thr = xp.broadcast_to(xp.asarray(value(tol), dtype=s.dtype), top.shape)
    else:
        eps_rtol = max(m, n) * np.finfo(s.dtype).eps
        a = 0.0 if atol is None else value(atol)
        if rtol is None:
            # per matrix: the default relative cut-off applies where atol is not positive
            r = eps_rtol if atol is None else xp.where(xp.asarray(a) <= 0, eps_rtol, 0.0)
        else:
            r = value(rtol)
        thr = xp.maximum(xp.asarray(a, dtype=s.dtype), xp.asarray(r, dtype=s.dtype) * top)
    return Tensor._wrap(xp.asarray((s > thr[..., None]).sum(axis=-1), dtype=np.int64))


def _chain_order(dims):
    """Cost-optimal parenthesisation of a matrix chain with shapes ``dims[i] × dims[i+1]``
    (the classic O(n³) dynamic programme); ``split[i][j]`` is where (i..j) splits."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def multi_dot(x, name=None):
    """The product of a list of matrices, evaluated in the cheapest order. The first
    may be 1-D (a row vector) and the last 1-D (a column vector); their axes are
    removed from the result.

    >>> import weft
    >>> a = weft.ones([3], dtype="float64")
    >>> b = weft.ones([3, 4], dtype="float64")
    >>> weft.linalg.multi_dot([a, b, weft.ones([4], dtype="float64")]).item()
    12.0
    """
    op = "multi_dot"
    if not isinstance(x, (list, tuple)) or len(x) < 2:
        n = len(x) if isinstance(x, (list, tuple)) else type(x).__name__
        raise ValueError(f"{op}: the number of input tensors should > 1, got {n}")
    ts = [tensor_arg(t, f"x[{i}]", op) for i, t in enumerate(x)]
    last = len(ts) - 1
    for i, t in enumerate(ts):
        ok = t.ndim == 2 or (t.ndim == 1 and i in (0, last))
        if not ok:
            raise ValueError(f"{op}: x[{i}] must be 2-D (the first and last may be 1-D), "
                             f"got shape {t.shape}")
        check_same_place(ts[0], t, op)
        if t._data.dtype != ts[0]._data.dtype:
            raise TypeError(f"{op}: all inputs must have the same dtype, got "
                            f"{ts[0]._data.dtype.name} and {t._data.dtype.name} (x[{i}])")
    row, col = ts[0].ndim == 1, ts[-1].ndim == 1
    if row:
        ts[0] = unsqueeze(ts[0], 0)
    if col:
        ts[-1] = unsqueeze(ts[-1], -1)
    for i in range(last):
        if ts[i].shape[1] != ts[i + 1].shape[0]:
            raise ValueError(f"{op}: x[{i}] of shape {x[i].shape} and x[{i + 1}] of shape "
                             f"{x[i + 1].shape} cannot be multiplied")
    split = _chain_order([ts[0].shape[0]] + [t.shape[1] for t in ts])

    def product(i, j):
        if i == j:
            return ts[i]
        k = split[i][j]
        return _mm(product(i, k), product(k + 1, j))

    r = product(0, last)
    if col:
        r = r[..., 0]
    if row:
        r = r[0]
    return r


def _matrix_norm_for_cond(x, p):
    """The matrix norms cond needs, each differentiable to every order (the nuclear norm
    through svdvals, the others through abs, sums and max/min)."""
    from ._spectral import svdvals  # noqa: PLC0415
    if p == "fro":
        return sqrt(_sum(real(x * cj(x)), axis=[-2, -1]))
    if p == "nuc":
        return _sum(svdvals(x), axis=-1)
    a = abs_(x)
    sums = _sum(a, axis=-2) if p in (1, -1) else _sum(a, axis=-1)
    return amax(sums, axis=-1) if p > 0 else amin(sums, axis=-1)


def cond(x, p=None, name=None):
    """Condition number of each matrix of ``x [*, m, n]`` (real ``[*]``).

    ``p`` None, 2 or -2: ``σ_max/σ_min`` (-2: ``σ_min/σ_max``) from the singular
    values, any shape; ``inf`` only where σ_min is exactly 0. ``p`` in 'fro', 'nuc',
    1, -1, inf, -inf: ``norm(x, p) · norm(inv(x), p)``, square only; ``inf`` for an
    exactly singular matrix (numpy's convention).

    >>> import weft
    >>> weft.linalg.cond(weft.to_tensor([[2.0, 0.0], [0.0, 0.5]], dtype="float64")).item()
    4.0
    """
    from ._spectral import svdvals  # noqa: PLC0415
    valid = p is None or (p in ("fro", "nuc") if isinstance(p, str) else
                          isinstance(p, numbers.Real) and not isinstance(p, bool)
                          and p in (2, -2, 1, -1, np.inf, -np.inf))
    if not valid:
        raise ValueError(f"cond: p must be one of None, 2, -2, 'fro', 'nuc', 1, -1, inf, "
                         f"-inf, got {p!r}")
    x, back = matrix_arg(x, "cond", square=p not in (None, 2, -2))
    if x._data.size == 0:
        raise ValueError(f"cond: the condition number of an empty matrix is undefined, "
                         f"got shape {x.shape}")
    if p in (None, 2, -2):
        s = svdvals(x)
        hi, lo = s[..., 0], s[..., -1]
        with np.errstate(divide="ignore", invalid="ignore"):   # σ_min = 0 gives inf
            return restore(lo / hi if p == -2 else hi / lo, back)
    # exactly singular matrices (LU finds a zero pivot) give inf; the rest use inv
    d = x._data
    xp = xp_of(d)
    n = d.shape[-1]
    singular = xp.zeros(d.shape[:-2], dtype=bool)
    flat = d.reshape((-1, n, n))
    sflat = singular.reshape(-1)
    try:
        xp.linalg.inv(d)
    except np.linalg.LinAlgError:
        for i in range(flat.shape[0]):
            try:
                xp.linalg.inv(flat[i])
            except np.linalg.LinAlgError:
                sflat[i] = True
    if xp is not np:   # cuSOLVER reports a singular matrix as inf/NaN entries
        sflat |= ~xp.isfinite(xp.linalg.inv(flat)).reshape(flat.shape[0], -1).all(axis=1)
    mask = Tensor._wrap(singular)
    ident = eye(n, dtype=d.dtype)
    safe = where(unsqueeze(unsqueeze(mask, -1), -1), ident, x)
    r = _matrix_norm_for_cond(safe, p) * _matrix_norm_for_cond(inv(safe), p)
    return restore(where(mask, float("inf"), r), back)


_MATRIX_P = ("fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf)


def matrix_norm(x, p="fro", axis=(-2, -1), keepdim=False, name=None):
    """Matrix norm over the two dimensions ``axis`` of ``x``: ``p`` one of 'fro',
    'nuc', 1 / -1 (max / min column abs-sum), inf / -inf (max / min row abs-sum),
    2 / -2 (largest / smallest singular value). Output ``[*]`` (``keepdim`` keeps the
    two axes as size 1). Differentiable to every order.

    >>> import weft
    >>> a = weft.to_tensor([[1.0, -2.0], [3.0, 4.0]], dtype="float64")
    >>> weft.linalg.matrix_norm(a, p=1).item(), weft.linalg.matrix_norm(a, p=float("inf")).item()
    (6.0, 7.0)
    """
    from ._spectral import svdvals  # noqa: PLC0415
    op = "matrix_norm"
    valid = p in ("fro", "nuc") if isinstance(p, str) else \
        isinstance(p, numbers.Real) and not isinstance(p, bool) and p in _MATRIX_P
    if not valid:
        raise ValueError(f"{op}: just support p value 'fro','nuc',1,-1,inf,-inf,2,-2, "
                         f"found {p!r}")
    x = tensor_arg(x, "x", op)
    if x.ndim < 2:
        raise ValueError(f"{op}: x must be at least 2-D, got shape {x.shape}")
    if not isinstance(axis, (list, tuple)) or len(axis) != 2:
        raise ValueError(f"{op}: axis must be a list of two dimensions, got {axis!r}")
    a0 = normalize_axis(axis[0], x.ndim, op)
    a1 = normalize_axis(axis[1], x.ndim, op)
    if a0 == a1:
        raise ValueError(f"{op}: the two axes must differ, got {axis!r}")
    x, back = compute_dtype(x, op)
    rest = [i for i in range(x.ndim) if i not in (a0, a1)]
    m = x.transpose(rest + [a0, a1])
    if m._data.size == 0 and p not in ("fro", "nuc"):
        raise ValueError(f"{op}: the p={p!r} norm of an empty matrix is undefined, got "
                         f"shape {x.shape}")
    if p in (2, -2):
        s = svdvals(m)
        r = amax(s, axis=-1) if p == 2 else amin(s, axis=-1)
    else:
        r = _matrix_norm_for_cond(m, p)
    if keepdim:
        shape = list(x.shape)
        shape[a0] = shape[a1] = 1
        r = r.reshape(shape)
    return restore(r, back)


def vector_norm(x, p=2.0, axis=None, keepdim=False, name=None, *, dtype=None, out=None):
    """Vector ``p``-norm over all elements (``axis=None``) or the given axis / axes:
    ``p`` any real number, ``0`` (count of nonzeros), ``inf`` / ``-inf`` (max / min
    absolute value). ``dtype`` casts ``x`` first. The gradient at a zero vector is 0
    (a subgradient); the ±inf norms split it among ties.

    >>> import weft
    >>> weft.linalg.vector_norm(weft.to_tensor([[3.0, 0.0], [0.0, -4.0]])).item()
    5.0
    """
    from ..core.args import dtype_arg  # noqa: PLC0415
    from ..ops.cast import cast  # noqa: PLC0415
    from ..ops.reduction._helpers import float_input  # noqa: PLC0415
    from ..ops.reduction.norms import _pnorm_p  # noqa: PLC0415
    op = "vector_norm"
    if isinstance(p, (str, bool)) or not isinstance(p, numbers.Real):
        raise ValueError(f"{op}: only valid p type is int and float, got {p!r}")
    x = tensor_arg(x, "x", op)
    if dtype is not None:
        x = cast(x, dtype_arg(dtype, op))
    x = float_input(x, op)
    if isinstance(axis, Tensor):
        axis = axis.tolist()
    axes = tuple(range(x.ndim)) if axis is None else \
        tuple(normalize_axis(a, x.ndim, op) for a in
              (axis if isinstance(axis, (list, tuple)) else [axis]))
    if len(set(axes)) != len(axes):
        raise ValueError(f"{op}: axis has repeated dimensions, got {axis!r}")
    p = float(p)
    if p == -np.inf and all(x.shape[a] == 0 for a in axes) and x._data.size == 0:
        raise ValueError(f"{op}: the -inf norm of an empty vector (x has shape {x.shape}) "
                         "is undefined")
    r = apply(_pnorm_p, x, p=p, axis=axes, keepdim=bool(keepdim))
    if out is None:
        return r
    out._data = r._data       # the values only: out does not join the autograd graph
    out._version[0] += 1
    return out
