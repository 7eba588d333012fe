"""Discrete Fourier transforms (``paddle.fft``): 18 transforms — complex (``fft``,
``ifft``), real-input (``rfft``, ``irfft``) and Hermitian (``hfft``, ``ihfft``), each in
1-D, 2-D and N-D — the frequency helpers ``fftfreq`` / ``rfftfreq`` and the shifts
``fftshift`` / ``ifftshift``, following api-fft.md.

Every transform is differentiable to any order (its adjoint is another transform) and
runs on the ``fft`` backend chosen for its tensor's device: ``pocketfft`` (scipy.fft,
the CPU default), ``mkl`` (mkl_fft) or ``cufft`` (CuPy); see
``weft.set_backend("fft", ...)`` and :mod:`weft.fft.backends`.
``weft.fft.scipy_backend`` runs ``scipy.fft`` calls through weft.

>>> import weft
>>> x = weft.to_tensor([1.0, 2.0, 3.0, 4.0], dtype="float64")
>>> weft.fft.irfft(weft.fft.rfft(x), n=4).tolist()
[1.0, 2.0, 3.0, 4.0]
"""
from ..core.backend import attach_tables as _attach_tables
from . import backends as _backends

# the registry (weft.core.backend) names the fft backends at `import weft`; their
# function tables live here, above core, and are attached when weft.fft loads
_attach_tables("fft", ("pocketfft", "mkl", "cufft"), _backends._load)

from ._api import *  # noqa: E402,F401,F403
from ._api import __all__  # noqa: E402
from . import scipy_backend  # noqa: E402,F401

__all__ = [*__all__, "scipy_backend"]
