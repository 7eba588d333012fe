"""weft as a backend of ``scipy.fft`` (its uarray protocol, as ``cupyx.scipy.fft``):

>>> import numpy as np, scipy.fft, weft
>>> x = np.array([1.0, 2.0, 3.0, 4.0])
>>> with scipy.fft.set_backend(weft.fft.scipy_backend):
...     y = scipy.fft.rfft(x)          # computed by weft.fft.rfft
>>> y.tolist()
[(10+0j), (-2+2j), (-2+0j)]

The 18 transforms of scipy.fft that weft has (``fft`` ... ``ihfftn``) run through
weft, on whatever fft backend weft has chosen for the array's device (numpy arrays on
the CPU, CuPy arrays on the GPU), and return an array of the input's kind. scipy's
dtype rules are kept: integer and bool input is computed in float64, as scipy does.
``overwrite_x`` and ``workers`` are accepted and do not change the result (weft uses
its own thread count, :func:`weft.get_num_threads`). Everything else — the DCT / DST
families, ``fht``, a ``plan`` argument, non-array input such as a sparse matrix —
returns ``NotImplemented``, so scipy falls back to its own implementation.
"""
from __future__ import annotations

import numpy as np

from ..core.tensor import Tensor as _Tensor
from . import _api

__ua_domain__ = "numpy.scipy.fft"

_ONE_D = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
_MULTI_D = tuple(b + k for k in ("2", "n") for b in _ONE_D)


def _array(x):
    """x as a numpy or CuPy array scipy's rules would compute on, or None."""
    if hasattr(x, "__cuda_array_interface__"):
        a = x
    elif isinstance(x, np.ndarray) or isinstance(x, (list, tuple, int, float, complex)):
        a = np.asarray(x)
    elif isinstance(x, np.generic):
        a = np.asarray(x)
    else:
        return None
    if a.dtype.kind in "biu":
        a = a.astype(np.float64)    # scipy.fft computes integer and bool input in float64
    return a


def _run(f, x, **kw):
    a = _array(x)
    if a is None:
        return NotImplemented
    if kw.get("norm") is None:
        kw["norm"] = "backward"
    return f(_Tensor._wrap(a), **kw)._data


def _one_d(f):
    def impl(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
        if plan is not None:
            return NotImplemented
        return _run(f, x, n=n, axis=axis, norm=norm)
    return impl


def _multi_d(f, default_axes):
    def impl(x, s=None, axes=default_axes, norm=None, overwrite_x=False, workers=None, *,
             plan=None):
        if plan is not None:
            return NotImplemented
        return _run(f, x, s=s, axes=axes, norm=norm)
    return impl


_IMPL = {name: _one_d(getattr(_api, name)) for name in _ONE_D}
_IMPL.update({name: _multi_d(getattr(_api, name), (-2, -1) if name.endswith("2") else None)
              for name in _MULTI_D})


def __ua_function__(method, args, kwargs):
    impl = _IMPL.get(getattr(method, "__name__", None))
    if impl is None:
        return NotImplemented
    return impl(*args, **kwargs)


__all__ = ["__ua_domain__", "__ua_function__"]
