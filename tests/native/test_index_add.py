"""weft._C.index_add_ (through weft._native) against np.add.at."""

import multiprocessing as mp
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from weft import _C, _native

VALUE_DTYPES = [np.float32, np.float64, np.complex64, np.complex128, np.int32, np.int64]
INDEX_DTYPES = [np.int32, np.int64]


def random_values(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        # Large magnitudes so that sums wrap: numpy wraps silently, so must we.
        return rng.integers(info.min // 4, info.max // 4, size=shape, dtype=dtype, endpoint=True)
    x = rng.standard_normal(shape)
    if dtype.kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def reference(out, index, src):
    expected = out.copy()
    np.add.at(expected, index, src)
    return expected


@pytest.fixture
def threads():
    """Set the thread count for a test and restore the default afterwards."""
    before = _native.get_num_threads()
    yield _native.set_num_threads
    _native.set_num_threads(before)


def assert_bit_equal(actual, expected):
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    # Compare bytes, not values: the kernel promises the sequential summation order.
    assert actual.tobytes() == expected.tobytes()


# ---------------------------------------------------------------- correctness


@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("rest", [(), (3,), (2, 5)], ids=["1d", "2d", "3d"])
def test_matches_add_at(dtype, index_dtype, rest):
    rng = np.random.default_rng(0)
    n, m = 7, 40  # m >> n: plenty of duplicates
    out = random_values(rng, (n,) + rest, dtype)
    index = rng.integers(0, n, size=m).astype(index_dtype)
    src = random_values(rng, (m,) + rest, dtype)
    expected = reference(out, index, src)
    result = _native.index_add_(out, index, src)
    assert result is out
    assert_bit_equal(out, expected)


@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    n=st.integers(1, 12),
    rest=st.lists(st.integers(0, 4), max_size=2).map(tuple),
    dtype=st.sampled_from(VALUE_DTYPES),
    index_dtype=st.sampled_from(INDEX_DTYPES),
)
def test_matches_add_at_property(data, n, rest, dtype, index_dtype):
    index = np.array(data.draw(st.lists(st.integers(0, n - 1), max_size=30)), dtype=index_dtype)
    rng = np.random.default_rng(0)
    out = random_values(rng, (n,) + rest, dtype)
    src = random_values(rng, (len(index),) + rest, dtype)
    expected = reference(out, index, src)
    _native.index_add_(out, index, src)
    assert_bit_equal(out, expected)


def test_empty_index():
    out = np.arange(6.0).reshape(3, 2)
    _native.index_add_(out, np.array([], dtype=np.int64), np.zeros((0, 2)))
    _native.index_add_(out, [], np.zeros((0, 2)))  # np.asarray([]) is float64, still accepted
    assert_bit_equal(out, np.arange(6.0).reshape(3, 2))


def test_empty_rows_still_bounds_checked():
    out = np.zeros((3, 0))
    _native.index_add_(out, np.array([0, 2]), np.zeros((2, 0)))
    with pytest.raises(IndexError):
        _native.index_add_(out, np.array([3]), np.zeros((1, 0)))


def test_all_to_one_row():
    out = np.zeros((4, 2), np.float32)
    src = np.full((1000, 2), 0.1, np.float32)
    expected = reference(out, np.zeros(1000, np.int64), src)
    _native.index_add_(out, np.zeros(1000, np.int64), src)
    assert_bit_equal(out, expected)


def test_integer_wraparound():
    out = np.array([np.iinfo(np.int32).max, 0], dtype=np.int32)
    _native.index_add_(out, np.array([0, 1]), np.array([1, -5], dtype=np.int32))
    assert out.tolist() == [np.iinfo(np.int32).min, -5]


def test_noncontiguous_inputs_are_copied():
    rng = np.random.default_rng(0)
    out = np.zeros((5, 3))
    src_full = rng.standard_normal((3, 20))
    src = src_full.T[::2]  # shape (10, 3), neither C- nor F-contiguous
    index_full = rng.integers(0, 5, size=20)
    index = index_full[::2]
    expected = reference(out, index, src)
    _native.index_add_(out, index, src)
    assert_bit_equal(out, expected)


def test_src_aliasing_out_is_copied():
    out = np.arange(8.0).reshape(4, 2)
    src = out[::-1]  # view of out: rows are read while rows are written
    expected = reference(out, np.array([0, 1, 2, 3]), src.copy())
    _native.index_add_(out, np.array([0, 1, 2, 3]), src)
    assert_bit_equal(out, expected)


def test_narrow_integer_index_dtypes_are_widened():
    out = np.zeros(4)
    _native.index_add_(out, np.array([3, 3, 0], dtype=np.uint8), np.ones(3))
    assert out.tolist() == [1.0, 0.0, 0.0, 2.0]


# ---------------------------------------------------------------- threads


def test_thread_count_roundtrip(threads):
    threads(3)
    assert _native.get_num_threads() == 3
    assert _C.get_num_threads() == 3
    with pytest.raises(ValueError, match="positive"):
        _native.set_num_threads(0)


# Sizes above the kernel's serial cutoff (32768 elements per thread), so that the
# parallel (bucketed) path runs: wide rows from 2 threads on, narrow rows from 4.
@pytest.mark.parametrize(
    "n, m, rest, dtype",
    [
        (1000, 240000, (), np.float64),
        (300, 80000, (3,), np.float32),
        (500, 2000, (64,), np.float64),
        (50, 3000, (40,), np.complex64),
        (3, 240000, (), np.float64),  # fewer rows than threads
    ],
)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
def test_bit_identical_across_thread_counts(threads, n, m, rest, dtype, index_dtype):
    rng = np.random.default_rng(0)
    out0 = random_values(rng, (n,) + rest, dtype)
    # Skewed destinations: a few rows get most of the entries.
    index = np.minimum(rng.zipf(1.5, size=m) - 1, n - 1).astype(index_dtype)
    src = random_values(rng, (m,) + rest, dtype)
    results = []
    for t in (1, 2, 4, 7):
        threads(t)
        out = out0.copy()
        _native.index_add_(out, index, src)
        results.append(out)
    expected = reference(out0, index, src)
    for out in results:
        assert_bit_equal(out, expected)


def _child_index_add(queue):
    out = np.zeros(100)
    _native.index_add_(out, np.arange(100000) % 100, np.ones(100000))
    queue.put(float(out.sum()))


@pytest.mark.skipif(sys.platform != "linux", reason="fork start method")
def test_usable_in_forked_child(threads):
    # A child forked after the parent started its thread pool has none of the
    # pool's workers (nor any lock they held); the kernels must run serially there.
    threads(4)
    out = np.zeros(100)
    _native.index_add_(out, np.arange(100000) % 100, np.ones(100000))  # parallel in the parent
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_child_index_add, args=(queue,))
    proc.start()
    proc.join(timeout=30)
    if proc.is_alive():
        proc.kill()
        pytest.fail("index_add_ hung in a forked child")
    assert proc.exitcode == 0
    assert queue.get(timeout=5) == 100000.0


# ---------------------------------------------------------------- bad input


def test_out_of_range_index():
    out = np.zeros((10, 2))
    index = np.array([0, 1, 2, 17, 4, 99])
    with pytest.raises(IndexError, match=r"index\[3\] = 17 is out of range \[0, 10\)"):
        _native.index_add_(out, index, np.ones((6, 2)))
    assert not out.any()  # checked before anything was written


def test_out_of_range_reports_first_bad_entry_for_any_thread_count(threads):
    out = np.zeros(10)
    m = 3 << 20  # the scan goes parallel from 2^20 entries per thread
    index = np.zeros(m, dtype=np.int32)
    index[[m - 5, 2 << 20, 7, m - 1]] = [11, -3, 12, 13]
    src = np.ones(m)
    for t in (1, 2, 4):
        threads(t)
        with pytest.raises(IndexError, match=r"index\[7\] = 12 is out of range \[0, 10\)"):
            _native.index_add_(out, index, src)
    assert not out.any()


@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
def test_negative_index(index_dtype):
    out = np.zeros(5)
    with pytest.raises(IndexError, match=r"index\[1\] = -1 is out of range \[0, 5\)"):
        _native.index_add_(out, np.array([0, -1], dtype=index_dtype), np.ones(2))


def test_index_into_empty_out():
    with pytest.raises(IndexError, match=r"index\[0\] = 0 is out of range \[0, 0\)"):
        _native.index_add_(np.zeros((0, 3)), np.array([0]), np.ones((1, 3)))


def test_length_mismatch():
    with pytest.raises(ValueError, match="index has 12 entries but src has 10 rows"):
        _native.index_add_(np.zeros((5, 2)), np.zeros(12, np.int64), np.ones((10, 2)))
    with pytest.raises(ValueError, match="index has 12 entries but src has 10 rows"):
        _C.index_add_(np.zeros((5, 2)), np.zeros(12, np.int64), np.ones((10, 2)))


def test_trailing_shape_mismatch():
    with pytest.raises(ValueError, match=r"src has shape \(3, 4\) but out has shape \(5, 2\)"):
        _native.index_add_(np.zeros((5, 2)), np.zeros(3, np.int64), np.ones((3, 4)))
    with pytest.raises(ValueError, match=r"src has shape \(3, 4\) but out has shape \(5, 2\)"):
        _C.index_add_(np.zeros((5, 2)), np.zeros(3, np.int64), np.ones((3, 4)))


def test_dtype_mismatch():
    with pytest.raises(TypeError, match="src has dtype float32 but out has dtype float64"):
        _native.index_add_(np.zeros(5), np.array([1]), np.ones(1, np.float32))
    with pytest.raises(TypeError, match="src has dtype float32 but out has dtype float64"):
        _C.index_add_(np.zeros((5, 1)), np.array([1]), np.ones((1, 1), np.float32))


@pytest.mark.parametrize("bad", [np.float64, np.float32, np.bool_])
def test_non_integer_index(bad):
    with pytest.raises(TypeError, match=rf"index has dtype {np.dtype(bad).name}, expected one of int32, int64"):
        _native.index_add_(np.zeros(5), np.array([1, 0]).astype(bad), np.ones(2))


def test_unsupported_value_dtype():
    with pytest.raises(TypeError, match="out has dtype float16, expected one of float32, float64"):
        _native.index_add_(np.zeros(5, np.float16), np.array([1]), np.ones(1, np.float16))


def test_non_native_byte_order():
    out = np.zeros((5, 1), dtype=">f8")
    with pytest.raises(TypeError, match="non-native byte order"):
        _C.index_add_(out, np.array([1]), np.ones((1, 1), dtype=">f8"))


def test_noncontiguous_out():
    out = np.zeros((5, 4))[:, ::2]
    with pytest.raises(ValueError, match="out must be C-contiguous"):
        _native.index_add_(out, np.array([1]), np.ones((1, 2)))
    with pytest.raises(ValueError, match="out must be C-contiguous"):
        _C.index_add_(out, np.array([1]), np.ones((1, 2)))


def test_readonly_out():
    out = np.zeros((5, 1))
    out.flags.writeable = False
    with pytest.raises(ValueError, match="out is read-only"):
        _native.index_add_(out, np.array([1]), np.ones((1, 1)))


def test_kernel_rejects_what_the_wrapper_would_fix():
    out = np.zeros((5, 2))
    with pytest.raises(ValueError, match="src must be C-contiguous"):
        _C.index_add_(out, np.array([1, 2]), np.ones((4, 2))[::2])
    with pytest.raises(ValueError, match="index must be 1-D"):
        _C.index_add_(out, np.array([[1]]), np.ones((1, 2)))
    with pytest.raises(ValueError, match="src shares memory with out"):
        _C.index_add_(out, np.array([1]), out[2:3])
    with pytest.raises(TypeError):
        _C.index_add_([[0.0, 0.0]], np.array([0]), np.ones((1, 2)))  # lists are not converted
