"""weft.save / weft.load: nested containers of tensors in a pickle-free .npz."""
import io
import json
import zipfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import weft
from weft.core.serialization import load, save

DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "float16", "float32", "float64",
          "complex64", "complex128"]


def roundtrip(obj, tmp_path, name="obj.pdparams", **kw):
    p = tmp_path / name
    save(obj, str(p))
    return load(str(p), **kw)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 0, 3), (2, 3)])
def test_tensor_round_trip(tmp_path, dtype, shape):
    a = (np.arange(int(np.prod(shape))).reshape(shape) % 3).astype(dtype)
    t = weft.to_tensor(a, stop_gradient=dtype not in ("float32", "complex128"))
    u = roundtrip(t, tmp_path)
    assert isinstance(u, weft.Tensor)
    assert u.dtype == t.dtype and u.shape == t.shape and u.stop_gradient == t.stop_gradient
    np.testing.assert_array_equal(u.numpy(), a)
    assert u.is_leaf and u.grad is None


def test_nested_structure_round_trip(tmp_path):
    w = weft.to_tensor([[1.0, 2.0]], stop_gradient=False)
    w.name = "linear_0.w_0"
    obj = {
        "model": {"w": w, "b": weft.zeros([2])},
        "opt": [1, 2.5, "adam", None, True, False, 1 + 2j, float("inf"), -0.0],
        "shape": (3, (4, [5])),
        7: "int key",
        2.5: "float key",
        None: "none key",
        "arr": np.arange(3, dtype=np.int16),
        "np_scalar": np.float32(1.5),
        "big": 2 ** 80,
        "unicode": "größe ✓",
        "empty": {"d": {}, "l": [], "t": ()},
    }
    r = roundtrip(obj, tmp_path)
    assert set(r) == set(obj)
    np.testing.assert_array_equal(r["model"]["w"].numpy(), [[1.0, 2.0]])
    assert r["model"]["w"].stop_gradient is False and r["model"]["w"].name == "linear_0.w_0"
    assert r["model"]["b"].stop_gradient is True and r["model"]["b"].name is None
    assert r["opt"][:7] == obj["opt"][:7]
    assert r["opt"][7] == float("inf") and str(r["opt"][8]) == "-0.0"
    assert r["shape"] == (3, (4, [5])) and isinstance(r["shape"][1], tuple)
    assert r[7] == "int key" and r[2.5] == "float key" and r[None] == "none key"
    assert isinstance(r["arr"], np.ndarray) and r["arr"].dtype == np.int16
    assert isinstance(r["np_scalar"], np.float32) and r["np_scalar"] == 1.5
    assert r["big"] == 2 ** 80 and r["unicode"] == "größe ✓"
    assert r["empty"] == {"d": {}, "l": [], "t": ()}
    assert type(r["opt"][1]) is float and type(r["opt"][0]) is int and r["opt"][4] is True


def test_nan_round_trip(tmp_path):
    r = roundtrip([float("nan"), complex(float("nan"), 1.0)], tmp_path)
    assert np.isnan(r[0]) and np.isnan(r[1].real) and r[1].imag == 1.0


def test_non_contiguous_and_intermediate_tensors(tmp_path):
    base = np.arange(12.0).reshape(3, 4)
    x = weft.to_tensor([1.0, 2.0], stop_gradient=False)
    obj = {"view": weft.to_tensor(base[:, ::2]), "y": x * 2}
    r = roundtrip(obj, tmp_path)
    np.testing.assert_array_equal(r["view"].numpy(), base[:, ::2])
    assert r["y"].is_leaf and r["y"].stop_gradient is False       # history is not saved
    np.testing.assert_array_equal(r["y"].numpy(), [2.0, 4.0])


def test_same_tensor_twice_loads_as_two_tensors(tmp_path):
    t = weft.to_tensor([1.0])
    a, b = roundtrip([t, t], tmp_path)
    assert a is not b and a.tolist() == b.tolist() == [1.0]


def test_return_numpy(tmp_path):
    r = roundtrip({"w": weft.to_tensor([1, 2], dtype="int32")}, tmp_path, return_numpy=True)
    assert isinstance(r["w"], np.ndarray) and r["w"].dtype == np.int32


def test_file_objects(tmp_path):
    buf = io.BytesIO()
    save({"w": weft.to_tensor([3.0])}, buf)
    buf.seek(0)
    assert load(buf)["w"].tolist() == [3.0]


def test_path_used_as_given_and_parents_created(tmp_path):
    p = tmp_path / "a" / "b" / "model.pdparams"
    save([weft.to_tensor(1)], p)                    # os.PathLike accepted
    assert p.exists() and not (tmp_path / "a" / "b" / "model.pdparams.npz").exists()
    assert load(p)[0].tolist() == 1


def test_file_is_plain_npz_without_pickles(tmp_path):
    p = tmp_path / "x.npz"
    save({"w": weft.to_tensor([1.0, 2.0]), "s": "hello"}, str(p))
    with np.load(str(p), allow_pickle=False) as z:   # readable without pickle
        for k in z.files:
            assert z[k].dtype.kind != "O"
        meta = json.loads(str(z["__weft_structure__"][()]))
    assert meta["format"] == "weft.save" and meta["version"] == 1
    with zipfile.ZipFile(p) as zf:
        assert all(n.endswith(".npy") for n in zf.namelist())


def test_save_rejects_unsupported_objects(tmp_path):
    p = str(tmp_path / "bad")
    with pytest.raises(TypeError, match=r"obj\['layer'\]\[1\] of type object"):
        save({"layer": [1, object()]}, p)
    with pytest.raises(TypeError, match="cannot be stored without pickling"):
        save(np.array([object()]), p)
    with pytest.raises(TypeError, match="dict keys"):
        save({(1, 2): 3}, p)
    with pytest.raises(TypeError, match="path"):
        save([1], 123)
    with pytest.raises(ValueError, match="protocol"):
        save([1], p, protocol=9)
    with pytest.raises(ValueError, match="must name a file"):
        save([1], str(tmp_path))


def test_load_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        load(str(tmp_path / "missing.pdparams"))
    plain = tmp_path / "plain.npz"
    np.savez(plain, a=np.ones(2))
    with pytest.raises(ValueError, match="not a file written by weft.save"):
        load(str(plain))
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"not a zip file at all")
    with pytest.raises(ValueError, match="not a file written by weft.save"):
        load(str(junk))
    with pytest.raises(TypeError, match="unexpected keyword"):
        load(str(plain), foo=1)
    with pytest.raises(TypeError, match="path"):
        load(3.5)


def test_load_refuses_pickled_payloads(tmp_path):
    # a forged file whose payload is an object array: loading must not unpickle it
    p = tmp_path / "evil.npz"
    meta = json.dumps({"format": "weft.save", "version": 1, "root": {"ndarray": "a0",
                                                                      "dtype": "|O"}})
    np.savez(p, a0=np.array([{"x": 1}], dtype=object), __weft_structure__=np.array(meta))
    with pytest.raises(ValueError, match="pickle"):
        load(str(p))


def test_load_rejects_newer_format(tmp_path):
    p = tmp_path / "new.npz"
    meta = json.dumps({"format": "weft.save", "version": 99, "root": 1})
    np.savez(p, __weft_structure__=np.array(meta))
    with pytest.raises(ValueError, match="newer weft"):
        load(str(p))


@pytest.mark.skipif(not hasattr(weft, "save"), reason="weft.save not exported yet")
def test_top_level_exports():
    assert weft.save is save and weft.load is load


_leaves = st.one_of(st.none(), st.booleans(), st.integers(-10 ** 6, 10 ** 6),
                    st.floats(allow_nan=False), st.text(max_size=5),
                    st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=0,
                             max_size=4).map(lambda v: weft.to_tensor(v, dtype="float64")))
_trees = st.recursive(_leaves, lambda c: st.one_of(
    st.lists(c, max_size=3), st.tuples(c, c), st.dictionaries(st.text(max_size=3), c,
                                                              max_size=3)), max_leaves=8)


def _same(a, b):
    if isinstance(a, weft.Tensor):
        return (isinstance(b, weft.Tensor) and a.dtype == b.dtype and a.shape == b.shape
                and np.array_equal(a.numpy(), b.numpy()))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    return type(a) is type(b) and a == b


@settings(derandomize=True, max_examples=25, deadline=None)
@given(_trees)
def test_round_trip_property(tree):
    buf = io.BytesIO()
    save(tree, buf)
    buf.seek(0)
    assert _same(tree, load(buf))
