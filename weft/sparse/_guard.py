"""Errors of public sparse functions name the function and the argument.

A sparse tensor built from caller-owned numpy arrays shares them (no copy), so a
caller can change its indices after construction. A native kernel then rejects the
arrays with a message about itself (``coo_to_csr: indices[0][1] = 7 ...``), which
names neither the function the user called nor the argument at fault. The
``@public`` decorator catches ``ValueError``/``IndexError`` from the function body
and, only then, validates every sparse argument again as its constructor did; an
argument that no longer passes is named in a ``ValueError`` that says what changed.
When every argument is still valid the original error propagates unchanged, so this
costs nothing on the normal path and never masks a genuine error.
"""
from __future__ import annotations

import functools
import inspect

from .tensor import SparseBase, SparseCooTensor, SparseCsrTensor


def pattern_fault(t):
    """What is wrong with the index arrays of sparse tensor ``t``, or None."""
    from . import creation as C  # noqa: PLC0415  (creation imports this package's types)

    shape = list(t._shape)
    try:
        if isinstance(t, SparseCsrTensor):
            cr, cl = t._crows, t._cols
            b = 1 if len(shape) == 2 else shape[0]
            m, n = shape[-2], shape[-1]
            if cr.ndim != 1 or cr.shape[0] != b * (m + 1):
                return f"crows has shape {list(cr.shape)}, expected [{b * (m + 1)}]"
            C._check_crows(cr, b, m, int(cl.shape[0]), "")
            k = C._first_bad(cl, n) if cl.shape[0] else -1
            if k >= 0:
                return f"cols[{k}] = {int(cl[k])} is out of range [0, {n})"
        elif isinstance(t, SparseCooTensor):
            idx = t._indices
            for d in range(idx.shape[0]):
                k = C._first_bad(idx[d], shape[d]) if idx.shape[1] else -1
                if k >= 0:
                    return (f"indices[{d}][{k}] = {int(idx[d][k])} is out of range "
                            f"[0, {shape[d]}) for shape {shape}")
    except ValueError as e:
        return str(e).removeprefix(": ")
    return None


def public(fn):
    """Decorate a public sparse function (its name is the op named in errors)."""
    op = fn.__name__
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (ValueError, IndexError) as e:
            culprit = _malformed_argument(sig, args, kwargs)
            if culprit is None:
                raise
            arg, fault = culprit
            raise ValueError(
                f"{op}: the sparse tensor {arg} is malformed: {fault}. Its index arrays are "
                "the arrays given to its constructor (shared, not copied); they must not be "
                "changed after construction (pass copies)") from e

    return wrapper


def _malformed_argument(sig, args, kwargs):
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError:
        return None
    for name, value in bound.arguments.items():
        for i, v in enumerate(value if isinstance(value, (list, tuple)) else (value,)):
            if isinstance(v, SparseBase):
                fault = pattern_fault(v)
                if fault is not None:
                    return (f"{name}[{i}]" if isinstance(value, (list, tuple)) else name), fault
    return None
