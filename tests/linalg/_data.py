"""Test data shared by the linalg driver tests: the four LAPACK dtypes, their
tolerances, and seeded random matrices."""
import numpy as np

DTYPES = ["float32", "float64", "complex64", "complex128"]
TOL = {"float32": 2e-4, "complex64": 2e-4, "float64": 1e-10, "complex128": 1e-10}


def mats(shape, dtype, seed=0):
    """Standard-normal entries of ``shape`` (real and imaginary parts for complex)."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)
