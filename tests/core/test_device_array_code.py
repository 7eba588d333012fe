"""Array code that runs on the GPU, tested on the CPU with numpy standing in for CuPy
(CI has no GPU): the scatter-adds and max/min scatters every device uses
(weft.core.scatter; on the GPU the max/min go through order-preserving integer images
of the float bits, since CuPy rounds float64 max/min to float32), and the fix-up of
complex division by zero.
"""
import numpy as np
import pytest
from hypothesis import given, strategies as st

from weft.core.scatter import _BITS, _ordered_bits, add_at, extreme_via_bits, max_at, min_at


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ordered_bits_sort_like_the_floats_and_map_back(dtype):
    rng = np.random.default_rng(0)
    tiny = np.finfo(dtype).smallest_subnormal
    a = np.concatenate([rng.standard_normal(500) * 10.0 ** rng.integers(-30, 30, 500),
                        [0.0, np.inf, -np.inf, tiny, -tiny]]).astype(dtype)
    it = _BITS[np.dtype(dtype)]
    k = _ordered_bits(np, a, it)
    np.testing.assert_array_equal(np.sort(a), a[np.argsort(k)])
    np.testing.assert_array_equal(_ordered_bits(np, k, it).view(dtype), a)


@given(st.integers(0, 2**32 - 1), st.sampled_from(["float16", "float32", "float64"]),
       st.sampled_from(["max", "min"]), st.booleans())
def test_extreme_via_bits_matches_numpy(seed, dtype, how, with_nan):
    rng = np.random.default_rng(seed)
    out = (rng.standard_normal((4, 3)) * 1e3).astype(dtype)
    src = (rng.standard_normal((9, 3)) * 1e3).astype(dtype)
    # values one float64 ulp apart: float32 rounding (CuPy's fmaxf) would tie them
    src[0, 0] = np.nextafter(out[1, 0], np.inf, dtype=out.dtype)
    if with_nan:
        src[rng.integers(0, 9), rng.integers(0, 3)] = np.nan
    idx = rng.integers(0, 4, 9)
    idx[0] = 1
    ufunc = np.maximum if how == "max" else np.minimum
    want = out.copy()
    ufunc.at(want, idx, src)
    got = extreme_via_bits(np, ufunc.at, np.add.at, out.copy(), idx, src)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype


def test_cpu_entry_points_are_numpy_ufunc_at():
    out = np.zeros(3, complex)
    add_at(out, np.array([0, 0, 2]), np.array([1j, 2, 3]))
    np.testing.assert_array_equal(out, [2 + 1j, 0, 3])
    m = np.full(2, -np.inf)
    max_at(m, np.array([0, 0, 1]), np.array([1.0, 5.0, np.nan]))
    np.testing.assert_array_equal(m, [5.0, np.nan])
    m = np.full(2, np.inf)
    min_at(m, np.array([1, 1]), np.array([3.0, -2.0]))
    np.testing.assert_array_equal(m, [np.inf, -2.0])


def test_gpu_complex_division_by_zero_follows_numpy():
    """The GPU's fix-up of complex division by zero (CUDA gives NaN + NaN j), run with
    numpy standing in for CuPy: numpy's own quotient wherever the divisor is 0."""
    from weft.ops.math.ufuncs import complex_division_by_zero
    x = np.array([[-2 + 3j, 0, 1j, 2, -1e300 - 1j]])
    y = np.array([[0j], [1 + 1j]])            # broadcast: a zero row and a non-zero row
    with np.errstate(all="ignore"):
        want = x / y
        cuda_like = np.where(y == 0, complex(np.nan, np.nan), want)
        got = complex_division_by_zero(np, x, y, cuda_like)
    np.testing.assert_array_equal(got, want)
    for real in (np.array([3.0, -2.0, 0.0]),):   # a real dividend, complex divisor
        with np.errstate(all="ignore"):
            w = real / np.zeros(3, complex)
            g = complex_division_by_zero(np, real, np.zeros(3, complex), np.full(3, np.nan + 0j))
        np.testing.assert_array_equal(g, w)
