"""The Tensor model: shapes, conversion, printing, pickling, devices, DLPack
(api-core.md "Tensor model")."""
import importlib.util
import os
import pickle
import sys

import numpy as np
import pytest

import weft
from weft.core.dlpack import from_dlpack, to_dlpack

HAS_CUPY = importlib.util.find_spec("cupy") is not None
# importing torch takes seconds: only when already loaded or asked for
RUN_TORCH = importlib.util.find_spec("torch") is not None and (
    "torch" in sys.modules or os.environ.get("WEFT_TEST_TORCH") == "1")


# ----------------------------------------------------------------------------------
# shape, 0-D, scalars


def test_shape_is_a_list_and_metadata():
    t = weft.zeros([2, 3, 4])
    assert t.shape == [2, 3, 4] and isinstance(t.shape, list)
    assert t.ndim == 3 and t.dim() == 3 and t.ndimension() == 3
    assert t.size == 24 and t.numel() == 24
    assert len(t) == 2
    assert t.place == weft.CPUPlace() and t.place.is_cpu_place()


def test_0d_is_distinct_from_1_element():
    s = weft.to_tensor(3.0)
    v = weft.to_tensor([3.0])
    assert s.shape == [] and s.ndim == 0 and s.size == 1
    assert v.shape == [1] and v.ndim == 1
    assert weft.to_tensor([[1.0, 2.0]]).sum().shape == []     # full reductions are 0-D
    with pytest.raises(TypeError, match="0-D"):
        len(s)
    with pytest.raises(TypeError, match="0-D"):
        iter(s).__next__()


def test_python_scalar_conversions():
    assert float(weft.to_tensor([2.5])) == 2.5
    assert int(weft.to_tensor(3)) == 3
    assert int(weft.to_tensor([[7.9]])) == 7
    assert weft.to_tensor([[7]]).item() == 7 and isinstance(weft.to_tensor([[7]]).item(), int)
    assert isinstance(weft.to_tensor(1.5).item(), float)
    assert weft.to_tensor([1, 2, 3]).item(1) == 2
    assert complex(weft.to_tensor(1 + 2j)) == 1 + 2j
    assert bool(weft.to_tensor([True])) is True
    assert [1, 2, 3][weft.to_tensor(1)] == 2            # __index__


def test_scalar_conversion_errors():
    t = weft.to_tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="one-element"):
        float(t)
    with pytest.raises(TypeError, match="one-element"):
        int(t)
    with pytest.raises(ValueError, match="one-element"):
        t.item()
    with pytest.raises(ValueError, match="ambiguous"):
        bool(t)
    with pytest.raises(TypeError, match="index"):
        [1, 2][weft.to_tensor(1.0)]


def test_iteration_yields_rows():
    t = weft.to_tensor([[1, 2], [3, 4]])
    rows = list(t)
    assert len(rows) == 2 and rows[1].tolist() == [3, 4] and rows[0].shape == [2]


def test_type_predicates():
    assert weft.to_tensor(1.0).is_floating_point()
    assert weft.to_tensor(1j).is_complex()
    assert weft.to_tensor(1).is_integer()
    t = weft.to_tensor([1.0])
    assert t.is_dense() and not t.is_sparse() and not t.is_sparse_coo() and not t.is_sparse_csr()
    assert weft.is_tensor(t) and not weft.is_tensor(np.ones(1))


# ----------------------------------------------------------------------------------
# conversion


def test_to_tensor_copies_numpy_and_tensors():
    a = np.array([1.0, 2.0])
    t = weft.to_tensor(a)
    a[0] = 100.0
    assert t.tolist() == [1.0, 2.0]
    x = weft.to_tensor([1.0, 2.0], stop_gradient=False)
    y = weft.to_tensor(x)
    assert y is not x and y.stop_gradient and y.is_leaf
    assert not np.shares_memory(y.numpy(), x.numpy())
    y2 = weft.to_tensor(x * 2, stop_gradient=False)
    assert y2.is_leaf and not y2.stop_gradient


def test_to_tensor_sources():
    assert weft.to_tensor(5).tolist() == 5
    assert weft.to_tensor([[1, 2], [3, 4]]).shape == [2, 2]
    assert weft.to_tensor((1.0, 2.0)).tolist() == [1.0, 2.0]
    assert weft.to_tensor([weft.to_tensor(1.0), weft.to_tensor(2.0)]).tolist() == [1.0, 2.0]
    assert weft.to_tensor([1, 2], dtype="float64").dtype == weft.float64
    assert weft.to_tensor(np.arange(6).reshape(2, 3)[:, ::2]).tolist() == [[0, 2], [3, 5]]
    assert weft.to_tensor(np.float32(2.0)).dtype == weft.float32
    assert weft.to_tensor([1.0], place="cpu").place == weft.CPUPlace()


def test_to_tensor_errors():
    with pytest.raises(ValueError, match="ragged"):
        weft.to_tensor([[1, 2], [3]])
    with pytest.raises(TypeError):
        weft.to_tensor("abc")
    with pytest.raises(TypeError):
        weft.to_tensor([1, "a"])
    with pytest.raises(TypeError):
        weft.to_tensor(object())
    with pytest.raises(TypeError):
        weft.to_tensor(np.array([object()]))
    with pytest.raises(ValueError, match="place"):
        weft.to_tensor([1.0], place="tpu")


def test_numpy_interop():
    t = weft.to_tensor([[1.0, 2.0]])
    a = np.asarray(t)
    assert isinstance(a, np.ndarray) and a.dtype == np.float32 and a.shape == (1, 2)
    assert np.shares_memory(a, t.numpy())                # no copy on CPU
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    assert np.array(t, copy=True) is not t.numpy()
    assert t.numpy() is t.numpy()
    r = np.float64(2.0) * t                              # numpy defers to Tensor
    assert isinstance(r, weft.Tensor)
    assert np.sum(np.asarray(t)) == 3.0


# ----------------------------------------------------------------------------------
# printing and pickling


def test_repr_format():
    t = weft.to_tensor([[1.5, 2.0], [3.0, 4.0]])
    r = repr(t)
    assert r.startswith("Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), "
                        "stop_gradient=True,\n")
    assert "[[1.5, 2. ]," in r and "[3. , 4. ]]" in r
    assert str(t) == r
    s = repr(weft.to_tensor(7))
    assert s == ("Tensor(shape=[], dtype=int64, place=Place(cpu), stop_gradient=True,\n"
                 "       7)")
    assert "stop_gradient=False" in repr(weft.to_tensor([1.0], stop_gradient=False))
    assert "dtype=complex64" in repr(weft.to_tensor([1j]))
    big = repr(weft.zeros([2000]))
    assert "..." in big and len(big) < 400


def test_format_of_scalars():
    assert f"{weft.to_tensor(1.23456):.2f}" == "1.23"
    assert f"{weft.to_tensor([2.5]):.1f}" == "2.5"


@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float32", "float64",
                                   "complex64", "complex128"])
def test_pickle_round_trip(dtype):
    t = weft.to_tensor(np.arange(6).reshape(2, 3) % 2, dtype=dtype, stop_gradient=False)
    u = pickle.loads(pickle.dumps(t))
    assert u.dtype == t.dtype and u.shape == t.shape and u.stop_gradient is False
    np.testing.assert_array_equal(u.numpy(), t.numpy())
    assert u.grad is None and u.is_leaf
    s = pickle.loads(pickle.dumps(weft.to_tensor(2.0)))
    assert s.shape == [] and s.stop_gradient is True


def test_pickle_non_contiguous_and_nested():
    base = weft.to_tensor(np.arange(12.0).reshape(3, 4))
    view = weft.to_tensor(base.numpy()[:, ::2])
    obj = {"a": [view, weft.to_tensor([1])], "b": (weft.to_tensor(1j),)}
    u = pickle.loads(pickle.dumps(obj))
    np.testing.assert_array_equal(u["a"][0].numpy(), base.numpy()[:, ::2])
    assert u["b"][0].dtype == weft.complex64


# ----------------------------------------------------------------------------------
# devices


def test_get_and_set_device_cpu():
    assert weft.get_device() == "cpu"
    assert weft.set_device("cpu") == weft.CPUPlace()
    assert weft.CPUPlace() == weft.CPUPlace() and weft.CUDAPlace(1) != weft.CUDAPlace(0)
    assert repr(weft.CUDAPlace(1)) == "Place(gpu:1)"
    with pytest.raises(ValueError, match="device"):
        weft.set_device("tpu")
    with pytest.raises(ValueError, match="device_id"):
        weft.CUDAPlace(-1)


@pytest.mark.skipif(HAS_CUPY, reason="CuPy is installed")
def test_set_device_gpu_without_cupy_names_cupy():
    with pytest.raises(RuntimeError, match="CuPy"):
        weft.set_device("gpu")
    assert weft.get_device() == "cpu"
    assert weft.is_compiled_with_cuda() is False
    with pytest.raises(RuntimeError, match="CuPy"):
        weft.to_tensor([1.0], place="gpu:0")


@pytest.mark.skipif(not weft.is_compiled_with_cuda(), reason="needs a GPU")
def test_device_mismatch_raises_value_error():
    a = weft.to_tensor([1.0], place="cpu")
    b = weft.to_tensor([1.0], place="gpu")
    with pytest.raises(ValueError, match="Place"):
        a + b


# ----------------------------------------------------------------------------------
# DLPack


def test_from_dlpack_numpy_is_zero_copy():
    a = np.arange(6.0).reshape(2, 3)
    t = from_dlpack(a)
    assert t.shape == [2, 3] and t.dtype == weft.float64 and t.stop_gradient
    a[0, 0] = 42.0
    assert t.numpy()[0, 0] == 42.0
    assert np.shares_memory(t.numpy(), a)


@pytest.mark.parametrize("dtype", ["bool", "int8", "int32", "int64", "float16", "float32",
                                   "float64", "complex64", "complex128"])
def test_dlpack_round_trip_dtypes(dtype):
    t = weft.to_tensor(np.arange(4) % 2, dtype=dtype)
    u = from_dlpack(to_dlpack(t))
    assert u.dtype == t.dtype and u.shape == t.shape
    assert np.shares_memory(u.numpy(), t.numpy())
    v = from_dlpack(t)                                   # Tensor is a producer itself
    assert np.shares_memory(v.numpy(), t.numpy())
    w = np.from_dlpack(t)                                # and numpy can consume it
    assert np.shares_memory(w, t.numpy())


def test_dlpack_0d_and_non_contiguous():
    s = from_dlpack(to_dlpack(weft.to_tensor(3.5)))
    assert s.shape == [] and s.item() == 3.5
    a = np.arange(12.0).reshape(3, 4)[:, ::2]
    t = from_dlpack(a)
    np.testing.assert_array_equal(t.numpy(), a)
    assert np.shares_memory(t.numpy(), a)


def test_to_dlpack_returns_a_capsule_consumable_once():
    c = to_dlpack(weft.to_tensor([1.0, 2.0]))
    assert type(c).__name__ == "PyCapsule"
    assert from_dlpack(c).tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="already consumed"):
        from_dlpack(c)


def test_dlpack_errors():
    with pytest.raises(TypeError, match="__dlpack__"):
        from_dlpack([1, 2, 3])
    with pytest.raises(TypeError, match="Tensor"):
        to_dlpack(np.ones(2))


@pytest.mark.skipif(not RUN_TORCH, reason="needs PyTorch and WEFT_TEST_TORCH=1")
def test_dlpack_with_torch():
    import torch

    tt = torch.arange(4, dtype=torch.float32)
    w = from_dlpack(tt)
    tt[0] = 5.0
    assert w.tolist() == [5.0, 1.0, 2.0, 3.0]
    w2 = from_dlpack(torch.utils.dlpack.to_dlpack(tt))      # a torch capsule
    assert w2.tolist() == [5.0, 1.0, 2.0, 3.0]
    back = torch.from_dlpack(to_dlpack(weft.to_tensor([1.0, 2.0], dtype="float64")))
    assert back.dtype == torch.float64 and back.tolist() == [1.0, 2.0]
    back2 = torch.from_dlpack(weft.to_tensor([3, 4]))
    assert back2.tolist() == [3, 4]


def test_to_tensor_accepts_dlpack_producers():
    class Producer:
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, **kwargs):
            return self.a.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    a = np.arange(3.0)
    t = weft.to_tensor(Producer(a))
    assert t.tolist() == [0.0, 1.0, 2.0]
    assert not np.shares_memory(t.numpy(), a)            # to_tensor copies
    u = from_dlpack(Producer(a))
    assert np.shares_memory(u.numpy(), a)                # from_dlpack does not


@pytest.mark.skipif(not hasattr(weft, "from_dlpack"), reason="weft.from_dlpack not exported yet")
def test_top_level_exports():
    assert weft.from_dlpack is from_dlpack
    assert weft.utils.dlpack.to_dlpack is to_dlpack
    assert weft.utils.dlpack.from_dlpack is from_dlpack
