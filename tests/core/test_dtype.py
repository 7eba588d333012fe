"""dtypes, defaults and Paddle-style promotion (api-core.md "Tensor model")."""
import numpy as np
import pytest

import weft
from weft.core import dtype as dt

NAMES = ["bool", "int8", "uint8", "int16", "int32", "int64", "float16", "float32", "float64",
         "complex64", "complex128"]


@pytest.mark.parametrize("name", NAMES)
def test_dtypes_are_numpy_dtypes_and_compare_with_strings(name):
    d = getattr(weft, name)
    assert isinstance(d, np.dtype)
    assert d == np.dtype(name) and d == name
    t = weft.zeros([2], dtype=name)
    assert t.dtype == d and t.dtype == name
    assert dt.convert_dtype(name) == d
    assert dt.convert_dtype("paddle." + name) == d


def test_weft_dtype_is_the_class_of_every_dtype():
    assert all(isinstance(getattr(weft, n), weft.dtype) for n in NAMES)


def test_convert_dtype_aliases_and_errors():
    assert dt.convert_dtype(float) == weft.float32
    assert dt.convert_dtype(int) == weft.int64
    assert dt.convert_dtype(bool) == weft.bool
    assert dt.convert_dtype("double") == weft.float64
    assert dt.convert_dtype(np.float16) == weft.float16
    with pytest.raises(TypeError, match="dtype"):
        dt.convert_dtype("float128x")
    with pytest.raises(TypeError, match="dtype"):
        dt.convert_dtype(np.dtype("O"))
    with pytest.raises(TypeError):
        weft.zeros([2], dtype="not_a_dtype")


def test_bfloat16_is_optional():
    if weft.bfloat16 is None:
        pytest.skip("ml_dtypes is not installed")
    assert weft.zeros([2], dtype="bfloat16").dtype == weft.bfloat16


def test_defaults_of_to_tensor():
    assert weft.get_default_dtype() == "float32"
    assert weft.to_tensor(1.5).dtype == weft.float32
    assert weft.to_tensor(2).dtype == weft.int64
    assert weft.to_tensor(True).dtype == weft.bool
    assert weft.to_tensor(1 + 2j).dtype == weft.complex64
    assert weft.to_tensor([1, 2.5]).dtype == weft.float32
    assert weft.to_tensor([True, 2]).dtype == weft.int64
    assert weft.to_tensor([1, 2j]).dtype == weft.complex64
    assert weft.to_tensor([]).dtype == weft.float32
    assert weft.to_tensor(np.array([1.0])).dtype == weft.float64     # arrays keep theirs
    assert weft.to_tensor(np.array([1], dtype=np.int16)).dtype == weft.int16
    assert weft.to_tensor(np.float64(1.0)).dtype == weft.float64


def test_set_default_dtype():
    weft.set_default_dtype("float64")
    assert weft.get_default_dtype() == "float64"
    assert weft.to_tensor(1.5).dtype == weft.float64
    assert weft.to_tensor(1j).dtype == weft.complex128
    assert weft.zeros([1]).dtype == weft.float64
    i = weft.to_tensor([1, 2])
    assert (i / i).dtype == weft.float64
    assert (i * 0.5).dtype == weft.float64
    f32 = weft.to_tensor([1.0], dtype="float32")
    assert (f32 * 0.5).dtype == weft.float32     # weak scalar: the tensor's dtype wins
    weft.set_default_dtype(weft.float16)
    assert weft.to_tensor(1.5).dtype == weft.float16
    weft.set_default_dtype("float32")
    assert weft.to_tensor(1.5).dtype == weft.float32


def test_set_default_dtype_rejects_non_float():
    with pytest.raises(TypeError, match="set_default_dtype"):
        weft.set_default_dtype("int32")
    with pytest.raises(TypeError, match="set_default_dtype"):
        weft.set_default_dtype("complex64")
    with pytest.raises(TypeError):
        weft.set_default_dtype("nope")
    assert weft.get_default_dtype() == "float32"


# ----------------------------------------------------------------------------------
# promotion


PAIRS = [("int8", "uint8"), ("int32", "int64"), ("int32", "float32"), ("int64", "float32"),
         ("float16", "float32"), ("float32", "float64"), ("float32", "complex64"),
         ("float64", "complex64"), ("bool", "int8"), ("bool", "float16"),
         ("uint8", "int16"), ("complex64", "complex128")]


@pytest.mark.parametrize("a,b", PAIRS)
def test_tensor_tensor_promotion_follows_numpy(a, b):
    x = weft.ones([2], dtype=a)
    y = weft.ones([2], dtype=b)
    expect = np.promote_types(a, b)
    assert (x + y).dtype == expect
    assert (y * x).dtype == expect
    assert weft.add(x, y).dtype == expect
    assert dt.promote_types(np.dtype(a), np.dtype(b)) == expect


def test_float32_plus_float64_tensors():
    r = weft.to_tensor([1.0], dtype="float32") + weft.to_tensor([2.0], dtype="float64")
    assert r.dtype == weft.float64 and r.tolist() == [3.0]


@pytest.mark.parametrize("tdtype,scalar,expect", [
    ("float32", 2.5, "float32"),       # never widened within a category
    ("float16", 2.5, "float16"),
    ("float64", 2, "float64"),
    ("int32", 2, "int32"),
    ("int8", 3, "int8"),
    ("uint8", True, "uint8"),
    ("int32", 2.5, "float32"),         # moves up a category, to the default dtype
    ("int64", 2.5, "float32"),
    ("bool", 1, "int64"),
    ("bool", 1.5, "float32"),
    ("float32", 1j, "complex64"),      # complex scalar keeps the float precision
    ("float64", 1j, "complex128"),
    ("int32", 1j, "complex64"),
    ("complex64", 2.5, "complex64"),
])
def test_python_scalars_are_weak(tdtype, scalar, expect):
    t = weft.ones([2], dtype=tdtype)
    assert (t * scalar).dtype == expect
    assert (scalar * t).dtype == expect
    assert (t + scalar).dtype == expect
    assert dt.scalar_result_type(np.dtype(tdtype), scalar) == expect


def test_weak_scalar_follows_default_dtype():
    weft.set_default_dtype("float64")
    assert (weft.ones([1], dtype="int32") * 2.5).dtype == weft.float64
    assert (weft.ones([1], dtype="float32") * 2.5).dtype == weft.float32


def test_int_int_true_division_gives_default_float():
    a = weft.to_tensor([1, 2, 3])
    b = weft.to_tensor([2, 4, 4])
    r = a / b
    assert r.dtype == weft.float32
    np.testing.assert_allclose(r.numpy(), [0.5, 0.5, 0.75])
    assert (a / 2).dtype == weft.float32
    assert (a // 2).dtype == weft.int64
    assert weft.divide(a, b).dtype == weft.float32


def test_integer_scalar_overflow_is_an_error():
    with pytest.raises(ValueError, match="does not fit in int8"):
        weft.ones([1], dtype="int8") + 1000


def test_to_complex_and_to_real_helpers():
    assert dt.to_complex(weft.float64) == weft.complex128
    assert dt.to_complex(weft.float32) == weft.complex64
    assert dt.to_real(weft.complex128) == weft.float64
    assert dt.to_real(weft.float16) == weft.float16
    assert dt.is_differentiable(weft.complex64) and not dt.is_differentiable(weft.int32)
