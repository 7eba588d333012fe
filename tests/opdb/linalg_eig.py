"""OpInfo entries for weft.linalg.eig and eigvals (weft/linalg/_eig.py) against
numpy.linalg.eig (both LAPACK geev, so the order and the unit-norm vectors agree).

Eigenvectors have an arbitrary phase per column (api-linalg.md §2.2), so the gradient
entries check phase-invariant functions of them: ``|V|²`` elementwise and the
projector-like ``V diag(λ) V⁻¹`` products are invariant; random matrices have
distinct eigenvalues, so the order is stable under gradcheck's perturbations."""
import numpy as np
import scipy.linalg

import weft
from tests.opinfo import FLOAT_AND_COMPLEX, OpInfo, SampleInput
from tests.opinfo import matrix_arg as _a, square_matrix_errors


def _cdtype(dtype):
    return np.result_type(dtype, np.complex64)


def _ref_eig(a):
    if a.size == 0:
        return np.zeros(a.shape[:-1], _cdtype(a.dtype)), np.zeros(a.shape, _cdtype(a.dtype))
    # scipy's eig calls the LAPACK weft's default backend calls: the eigenvectors'
    # signs (real input) are LAPACK's choice and may differ between LAPACK builds
    # (numpy links its own), so the raw vectors are compared with scipy's
    w, v = scipy.linalg.eig(a, check_finite=False)
    return w.astype(_cdtype(a.dtype)), v.astype(_cdtype(a.dtype))


def _ref_eigvals(a):
    return _ref_eig(a)[0]


_SQUARE = [((3, 3), "2-D"), ((2, 3, 3), "batch"), ((2, 1, 2, 2), "2 batch dims"),
           ((1, 1), "1x1"), ((0, 0), "empty matrix"), ((0, 2, 2), "empty batch")]


def _samples(dtype, rng):
    for shape, name in _SQUARE:
        yield SampleInput(_a(shape, dtype, rng), name=name)
    if np.dtype(dtype).kind == "f":
        rot = np.array([[0.0, -2.0], [1.0, 0.5]], dtype)
        yield SampleInput(rot, name="real input, complex eigenvalues")


def _eig_invariant(x):
    w, v = weft.linalg.eig(x)
    return w, weft.abs(v) ** 2


def _ref_eig_invariant(x):
    w, v = _ref_eig(x)
    return w, (np.abs(v) ** 2).astype(np.finfo(w.dtype).dtype)


OPS = [
    OpInfo("linalg.eig", weft.linalg.eig, _ref_eig, _samples, dtypes=FLOAT_AND_COMPLEX,
           supports_grad=False, error_inputs=square_matrix_errors("eig")),
    # the phase-invariant part of eig's output: what a gradient is defined for
    OpInfo("linalg.eig_invariant", _eig_invariant, _ref_eig_invariant, _samples,
           dtypes=FLOAT_AND_COMPLEX),
    OpInfo("linalg.eigvals", weft.linalg.eigvals, _ref_eigvals, _samples,
           dtypes=FLOAT_AND_COMPLEX, error_inputs=square_matrix_errors("eigvals")),
]
