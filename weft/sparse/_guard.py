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

import numpy as np

from . import _kernels as K
from .tensor import SparseBase, SparseCooTensor, SparseCsrTensor


def first_bad(row, bound):
    """Position of the first entry of ``row`` outside [0, bound), or -1."""
    xp = K.xp_of_array(row)
    bad = (row < 0) | (row >= bound)
    if not bool(bad.any()):
        return -1
    return int(xp.argmax(bad))


def check_crows(cr, b, m, nnz, op):
    xp = K.xp_of_array(cr)
    c = cr.reshape(b, m + 1) if b else cr.reshape(0, m + 1)
    for bb in range(b):
        row = c[bb]
        where = f"crows[{bb * (m + 1)}]" if b > 1 else "crows[0]"
        if int(row[0]) != 0:
            raise ValueError(f"{op}: {where} = {int(row[0])}, expected 0 (each batch's row "
                             "pointers start at 0)")
    if m and b:
        dec = c[:, 1:] < c[:, :-1]
        if bool(dec.any()):
            flat = int(xp.argmax(dec.reshape(-1)))
            bb, r = divmod(flat, m)
            pos = bb * (m + 1) + r + 1
            raise ValueError(f"{op}: crows must be non-decreasing, but crows[{pos}] = "
                             f"{int(cr[pos])} < crows[{pos - 1}] = {int(cr[pos - 1])}")
    if b:
        # Each batch's end is checked against nnz before the ends are added, so the
        # running total below stays within [0, 2 * nnz] and cannot wrap in int64
        # (crafted ends summing to 2**64 once passed as nnz = 0 and crashed slicing).
        ends = c[:, -1].astype(np.int64)
        over = ends > nnz
        if bool(over.any()):
            bb = int(xp.argmax(over))
            raise ValueError(f"{op}: crows[{bb * (m + 1) + m}] = {int(ends[bb])} (the end of "
                             f"batch {bb}'s row pointers) is larger than the number of "
                             f"non-zero ({nnz})")
        run = xp.cumsum(ends)
        past = run > nnz
        if bool(past.any()):
            bb = int(xp.argmax(past))
            raise ValueError(f"{op}: the sum of the last value of each batch's crows must be "
                             f"equal the number of non-zero ({nnz}), but batches 0..{bb} "
                             "already describe more")
        total = int(run[-1])
    else:
        total = 0
    if total != nnz:
        what = "the last value of crows" if b <= 1 else "the sum of the last value of each " \
            "batch's crows"
        raise ValueError(f"{op}: {what} must be equal the number of non-zero: got {total}, "
                         f"but cols has {nnz} entries")


def pattern_fault(t):
    """What is wrong with the index arrays of sparse tensor ``t``, or None."""
    shape = list(t._shape)
    try:
        if isinstance(t, SparseCsrTensor):
            cr, cl = t._crows, t._cols
            b = 1 if len(shape) == 2 else shape[0]
            m, n = shape[-2], shape[-1]
            if cr.ndim != 1 or cr.shape[0] != b * (m + 1):
                return f"crows has shape {list(cr.shape)}, expected [{b * (m + 1)}]"
            check_crows(cr, b, m, int(cl.shape[0]), "")
            k = first_bad(cl, n) if cl.shape[0] else -1
            if k >= 0:
                return f"cols[{k}] = {int(cl[k])} is out of range [0, {n})"
        elif isinstance(t, SparseCooTensor):
            idx = t._indices
            for d in range(idx.shape[0]):
                k = first_bad(idx[d], shape[d]) if idx.shape[1] else -1
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
