"""MKL's DFTI interface, called directly, for the ``mkl`` backend's N-D forward real
transforms.

mkl_fft computes an N-D real transform in passes: a 1-D real transform along the last
axis into a temporary, then complex transforms along the other axes. One DFTI
descriptor of rank k does the same transform in one call over the data, as PyTorch
does (rfft2 of float32 [64, 256, 256]: about 8 ms against mkl_fft's 12 on the 2-core
test machine). This module builds such descriptors through ctypes from the runtime
library of the ``mkl`` package (the one the ``mkl`` linalg backend loads) and keeps
them in a :class:`~weft.fft.backends.PlanCache`.

Only the forward (r2c) direction goes this way. MKL's N-D inverse of a one-sided
spectrum that is not Hermitian along the other axes (a cotangent, say) is not the
transform weft defines (complex transforms along the other axes, then c2r along the
last, as numpy and pocketfft), so c2r stays with mkl_fft.

A descriptor describes one batch dimension besides the k transformed axes, in strides
of elements. ``plan_layout`` returns None where an array's batch dimensions do not
merge into one (or a stride is not a whole number of elements); the backend then uses
mkl_fft. Any DFTI status other than 0 while a descriptor is built also gives None
(an older MKL without a setting used here, say); a failure of the transform itself
raises.

Enumeration values are those of oneMKL's ``mkl_dfti.h``.
"""
from __future__ import annotations

import ctypes
import threading

import numpy as np

# configuration parameters
_NUMBER_OF_TRANSFORMS = 7
_CONJUGATE_EVEN_STORAGE, _PLACEMENT, _PACKED_FORMAT = 10, 11, 21
_FWD_DISTANCE, _BWD_DISTANCE, _FWD_STRIDES, _BWD_STRIDES = 58, 59, 60, 61
# configuration values
_REAL, _SINGLE, _DOUBLE = 33, 35, 36
_COMPLEX_COMPLEX, _NOT_INPLACE, _CCE_FORMAT = 39, 44, 57

_PRECISION = {np.dtype(np.float32): _SINGLE, np.dtype(np.float64): _DOUBLE}
# a C long holds every stride and count MKL takes (MKL_LONG is long in the LP64 API)
_LONG_MAX = 2 ** (8 * ctypes.sizeof(ctypes.c_long) - 1) - 1


class DFTIError(RuntimeError):
    """A DFTI call returned a status other than 0."""


class DFTI:
    """The DFTI functions of MKL's runtime library at ``path``."""

    def __init__(self, path):
        lib = ctypes.CDLL(path)
        self._create = lib.DftiCreateDescriptor
        self._set = lib.DftiSetValue
        self._commit = lib.DftiCommitDescriptor
        self._forward = lib.DftiComputeForward
        self._free = lib.DftiFreeDescriptor
        self._message = lib.DftiErrorMessage
        for f in (self._create, self._set, self._commit, self._forward, self._free):
            f.restype = ctypes.c_long
        self._message.restype = ctypes.c_char_p
        self._message.argtypes = [ctypes.c_long]

    def _check(self, status, what):
        if status != 0:
            text = self._message(status).decode(errors="replace").strip()
            raise DFTIError(f"weft.fft (mkl): {what} failed with DFTI status {status}: {text}")

    def real_plan(self, layout):
        """A committed descriptor for the real transform ``layout`` (see plan_layout)."""
        dtype, lengths, count, rstrides, rdist, cstrides, cdist = layout
        handle = ctypes.c_void_p()
        k = len(lengths)
        dims = (ctypes.c_long * k)(*lengths)
        # rank 1 takes the length itself, rank k > 1 a pointer to k lengths
        size = ctypes.c_long(lengths[0]) if k == 1 else dims
        self._check(self._create(ctypes.byref(handle), ctypes.c_int(_PRECISION[dtype]),
                                 ctypes.c_int(_REAL), ctypes.c_long(k), size),
                    "DftiCreateDescriptor")
        plan = _Plan(self, handle)

        def put(param, value):
            self._check(self._set(handle, ctypes.c_int(param), value), "DftiSetValue")

        # the one-sided spectrum as complex numbers (CCE), results in a new array
        put(_CONJUGATE_EVEN_STORAGE, ctypes.c_int(_COMPLEX_COMPLEX))
        put(_PACKED_FORMAT, ctypes.c_int(_CCE_FORMAT))
        put(_PLACEMENT, ctypes.c_int(_NOT_INPLACE))
        put(_FWD_STRIDES, (ctypes.c_long * (k + 1))(0, *rstrides))
        put(_BWD_STRIDES, (ctypes.c_long * (k + 1))(0, *cstrides))
        if count > 1:
            put(_NUMBER_OF_TRANSFORMS, ctypes.c_long(count))
            put(_FWD_DISTANCE, ctypes.c_long(rdist))
            put(_BWD_DISTANCE, ctypes.c_long(cdist))
        self._check(self._commit(handle), "DftiCommitDescriptor")
        return plan


class _Plan:
    """A committed descriptor, freed with its last reference. Calls on one plan are
    serialised: the cache hands the same plan to every thread."""

    def __init__(self, dfti, handle):
        self._dfti = dfti
        self._handle = handle
        self._lock = threading.Lock()

    def forward(self, src, dst):
        with self._lock:
            self._dfti._check(self._dfti._forward(self._handle, ctypes.c_void_p(src.ctypes.data),
                                                  ctypes.c_void_p(dst.ctypes.data)),
                              "DftiComputeForward")

    def __del__(self):
        if self._handle:
            self._dfti._free(ctypes.byref(self._handle))
            self._handle = None


def _element_strides(a, axes):
    """``a``'s strides along ``axes`` in elements, or None where one is not a whole
    number of elements or is negative."""
    out = []
    for ax in axes:
        s, r = divmod(a.strides[ax], a.itemsize)
        if r or s < 0:
            return None
        out.append(s)
    return out


def _merged_batch(shape, strides):
    """(count, stride) of the batch dimensions as one, or None where they do not merge."""
    dims = [(n, s) for n, s in zip(shape, strides) if n != 1]
    count, stride = 1, 0
    for n, s in reversed(dims):
        if count == 1:
            count, stride = n, s
        elif s == stride * count:
            count *= n
        else:
            return None
    return count, stride


def plan_layout(real, spec, axes):
    """The descriptor key of a real transform between ``real`` and the one-sided
    ``spec`` over ``axes`` (distinct, non-negative, the last one halved), or None."""
    if real.dtype not in _PRECISION or 0 in real.shape or 0 in spec.shape:
        return None
    batch = [d for d in range(real.ndim) if d not in axes]
    rs = _element_strides(real, list(axes) + batch)
    cs = _element_strides(spec, list(axes) + batch)
    if rs is None or cs is None:
        return None
    k = len(axes)
    rb = _merged_batch([real.shape[d] for d in batch], rs[k:])
    cb = _merged_batch([spec.shape[d] for d in batch], cs[k:])
    if rb is None or cb is None or rb[0] != cb[0]:
        return None
    lengths = tuple(real.shape[d] for d in axes)
    if max(lengths + (rb[0],) + tuple(rs) + tuple(cs) + (rb[1], cb[1])) > _LONG_MAX:
        return None
    return (real.dtype, lengths, rb[0], tuple(rs[:k]), rb[1], tuple(cs[:k]), cb[1])
