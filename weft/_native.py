"""The one door to the compiled extension ``weft._C`` (every package reaches it as
``weft._native.extension``), and thin numpy-facing wrappers over some of its kernels.

The extension is required: a missing or stale build should fail loudly at
import time rather than fall back to slow Python loops.  These wrappers accept
arbitrary shapes and layouts on the read-only side, flatten to the 2-D,
C-contiguous views the kernels take, and leave every dtype, bound and shape
check to the kernel (which raises before touching memory).
"""

import importlib

import numpy as np

# By name rather than `from . import _C`: the extension is not Python source, and an
# import-graph checker would read that line as importing the whole weft package.
extension = _C = importlib.import_module(f"{__package__}._C")

__all__ = ["extension", "index_add_", "get_num_threads", "set_num_threads"]


def get_num_threads():
    """Number of threads of weft's native kernels (default: ``OMP_NUM_THREADS`` if set, which
    weft only reads, else the CPUs this process may run on)."""
    return _C.get_num_threads()


def set_num_threads(n):
    """Set the number of threads native kernels use. Results never depend on it."""
    n = int(n)
    _C.set_num_threads(n)


def index_add_(out, index, src):
    """In place ``out[index[i], ...] += src[i, ...]``, duplicates accumulated in order of ``i``.

    Bit-identical to ``np.add.at(out, index, src)`` for any thread count.

    Args:
        out: writeable C-contiguous array of shape ``[n, *rest]``; float32, float64,
            complex64, complex128, int32 or int64.
        index: integer array of shape ``[m]`` with entries in ``[0, n)`` (negative
            entries are an error: normalise Python-style indices first).
        src: array of shape ``[m, *rest]`` with ``out``'s dtype, any layout.

    Returns:
        ``out``.

    Example:
        >>> import numpy as np
        >>> out = np.zeros(3)
        >>> index_add_(out, np.array([0, 2, 0]), np.array([1.0, 2.0, 3.0]))
        array([4., 0., 2.])
    """
    if not isinstance(out, np.ndarray):
        raise TypeError(f"index_add_: out must be a numpy.ndarray, got {type(out).__name__}")
    if out.ndim == 0:
        raise ValueError("index_add_: out must have at least 1 dimension, got a 0-D array")
    if not out.flags.c_contiguous:
        raise ValueError(
            f"index_add_: out must be C-contiguous since it is written in place "
            f"(got shape {out.shape}, strides {out.strides})"
        )
    index = np.asarray(index)
    if index.ndim != 1:
        raise ValueError(f"index_add_: index must be 1-D, got shape {index.shape}")
    if index.size == 0 and index.dtype.kind not in "iu":
        index = index.astype(np.int64)  # np.asarray([]) is float64; an empty index is still fine
    elif index.dtype.kind in "iu" and index.dtype not in (np.int32, np.int64):
        index = index.astype(np.int64)  # kernels take int32/int64; widen the other integer types
    src = np.asarray(src)
    rest = out.shape[1:]
    if src.ndim == 0 or src.shape[0] != index.shape[0]:
        rows = src.shape[0] if src.ndim else "no"
        raise ValueError(f"index_add_: index has {index.shape[0]} entries but src has {rows} rows")
    if src.shape[1:] != rest:
        raise ValueError(
            f"index_add_: src has shape {src.shape} but out has shape {out.shape}; "
            f"dimensions after the first must match"
        )
    if src.dtype != out.dtype:
        raise TypeError(f"index_add_: src has dtype {src.dtype} but out has dtype {out.dtype}; they must match")
    index = np.ascontiguousarray(index)
    if np.may_share_memory(src, out):
        src = src.copy()
    else:
        src = np.ascontiguousarray(src)
    if np.may_share_memory(index, out):
        index = index.copy()
    inner = 1
    for d in rest:
        inner *= d
    _C.index_add_(out.reshape(out.shape[0], inner), index, src.reshape(src.shape[0], inner))
    return out
