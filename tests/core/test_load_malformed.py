"""weft.load on malformed files: one documented exception type (issue 16, item 19)."""
import io
import json
import os
import zipfile

import numpy as np
import pytest

import weft
from weft.core.serialization import LoadError, load, save


def _good_bytes():
    buf = io.BytesIO()
    save({"w": weft.to_tensor(np.arange(64, dtype=np.float32)), "step": 3}, buf)
    return buf.getvalue()


def _npz(members, compress=zipfile.ZIP_STORED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compress) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return io.BytesIO(buf.getvalue())


def _npy(a):
    b = io.BytesIO()
    np.save(b, a)
    return b.getvalue()


def _struct(root):
    return _npy(np.array(json.dumps({"format": "weft.save", "version": 1, "root": root})))


def test_truncated_files_raise_load_error():
    data = _good_bytes()
    for n in (0, 1, 10, len(data) // 2, len(data) - 1):
        with pytest.raises(LoadError, match="not a file written by weft.save"):
            load(io.BytesIO(data[:n]))


def test_crc_error_raises_load_error():
    data = bytearray(_good_bytes())
    i = data.index(np.arange(64, dtype=np.float32)[5:].tobytes())
    data[i] ^= 0xFF   # a flipped bit inside the stored array data
    with pytest.raises(LoadError, match="CRC|Bad"):
        load(io.BytesIO(bytes(data)))


def test_empty_file_and_directory(tmp_path):
    p = tmp_path / "empty.pdparams"
    p.write_bytes(b"")
    with pytest.raises(LoadError, match="empty.pdparams"):
        load(str(p))
    with pytest.raises(IsADirectoryError):
        load(str(tmp_path))
    with pytest.raises(FileNotFoundError):
        load(str(tmp_path / "missing"))
    assert issubclass(LoadError, ValueError)


@pytest.mark.parametrize("root", [
    {"tensor": "a9", "dtype": "<f4"},            # missing array
    {"tensor": 3, "dtype": "<f4"},               # reference of the wrong type
    {"tensor": "a0"},                            # no dtype
    {"tensor": "a0", "dtype": "not a dtype"},
    {"tensor": "a0", "dtype": "|O"},             # object dtype
    {"complex": 5},
    {"complex": ["x", "y"]},
    {"float": "1e999999"},
    {"dict": [[["unhashable"], 1]]},
    {"dict": 7},
    {"list": 3},
    {"bogus": 1},
    [1, 2],
    {"tensor": "a0", "dtype": "<f4", "name": 5},
])
def test_malformed_structure_raises_load_error(root):
    f = _npz({"__weft_structure__.npy": _struct(root), "a0.npy": _npy(np.zeros(3, np.float32))})
    with pytest.raises(LoadError):
        load(f)


def test_bad_json_and_metadata():
    for text in ["{", "[]", '{"format": "weft.save"}', "null"]:
        f = _npz({"__weft_structure__.npy": _npy(np.array(text))})
        with pytest.raises(LoadError):
            load(f)
    f = _npz({"__weft_structure__.npy": _npy(np.arange(3))})
    with pytest.raises(LoadError, match="not a string"):
        load(f)
    with pytest.raises(LoadError, match="no structure"):
        load(_npz({"a0.npy": _npy(np.zeros(3))}))


def test_deep_nesting_is_refused_not_recursion_error():
    root = 1
    for _ in range(150):
        root = {"list": [root]}
    with pytest.raises(LoadError, match="nested deeper"):
        load(_npz({"__weft_structure__.npy": _struct(root)}))
    deep = "[" * 100000 + "]" * 100000     # beyond JSON's own recursion limit
    with pytest.raises(LoadError, match="JSON"):
        load(_npz({"__weft_structure__.npy": _npy(np.array(deep))}))
    nested = []
    for _ in range(150):
        nested = [nested]
    with pytest.raises(ValueError, match="nested deeper"):
        save(nested, io.BytesIO())


def test_zip_bomb_member_larger_than_its_declared_shape():
    # a header declaring 3 floats followed by 50 MB of zeros, deflated to ~50 KB
    header = _npy(np.zeros(3, np.float32))
    bomb = header + bytes(50 << 20)
    f = _npz({"__weft_structure__.npy": _struct({"tensor": "a0", "dtype": "<f4"}),
              "a0.npy": bomb}, zipfile.ZIP_DEFLATED)
    assert len(f.getvalue()) < 200_000
    with pytest.raises(LoadError, match="declares 12 bytes"):
        load(f)


def test_header_shape_mismatch_and_bad_npy():
    short = _npy(np.zeros(4, np.float32))[:-4]
    f = _npz({"__weft_structure__.npy": _struct({"tensor": "a0", "dtype": "<f4"}),
              "a0.npy": short})
    with pytest.raises(LoadError, match="a0"):
        load(f)
    f = _npz({"__weft_structure__.npy": _struct({"tensor": "a0", "dtype": "<f4"}),
              "a0.npy": b"garbage"})
    with pytest.raises(LoadError, match="a0"):
        load(f)


def test_good_file_still_loads(tmp_path):
    p = os.path.join(tmp_path, "m.pdparams")
    with open(p, "wb") as fh:
        fh.write(_good_bytes())
    d = weft.load(p)
    assert d["step"] == 3 and d["w"].numpy().tolist() == list(range(64))
    assert d["w"].numpy().flags.writeable
