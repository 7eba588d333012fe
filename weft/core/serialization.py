"""``weft.save`` / ``weft.load``: nested containers of tensors in a numpy ``.npz`` file.

The file holds one array per tensor (or numpy array) plus a JSON description of
the container structure, scalars and strings, stored as a numpy string array.
Nothing is pickled: ``load`` reads with ``allow_pickle=False``, so loading a file
can never run code. A Tensor round-trips its values, dtype, shape,
``stop_gradient`` and ``name``; tensors are loaded onto the current device.
"""
from __future__ import annotations

import json
import numbers
import os

import numpy as np

from . import dtype as _dt
from .tensor import Tensor

_FORMAT = "weft.save"
_VERSION = 1
_STRUCT_KEY = "__weft_structure__"


def _where(path):
    return "obj" + "".join(f"[{p!r}]" for p in path)


def _encode(obj, arrays, path):
    """JSON-able description of ``obj``; arrays are appended to ``arrays``."""
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, (np.ndarray, np.generic)):
        a = np.asarray(obj)
        if a.dtype.kind in "OV" and not _is_bf16(a.dtype):
            raise TypeError(f"save: {_where(path)} is a numpy array of dtype {a.dtype}, which "
                            "cannot be stored without pickling")
        entry = {"ndarray": _add_array(a, arrays), "scalar": isinstance(obj, np.generic)}
        entry.update(_dtype_entry(a))
        return entry
    if isinstance(obj, numbers.Integral):
        return int(obj)
    if isinstance(obj, float):
        if obj != obj or obj in (float("inf"), float("-inf")):
            return {"float": repr(obj)}  # JSON has no NaN/inf
        return obj
    if isinstance(obj, complex):
        return {"complex": [repr(obj.real), repr(obj.imag)]}
    if isinstance(obj, Tensor):
        if obj.is_sparse():
            raise TypeError(f"save: {_where(path)} is a sparse tensor; saving sparse tensors "
                            "is not supported yet (save its to_dense() or its components)")
        a = obj.numpy()
        entry = {"tensor": _add_array(a, arrays), "stop_gradient": bool(obj.stop_gradient)}
        entry.update(_dtype_entry(a))
        if obj.name is not None:
            entry["name"] = str(obj.name)
        return entry
    if isinstance(obj, dict):
        items = []
        for k, v in obj.items():
            if not (k is None or isinstance(k, (str, bool, int, float))):
                raise TypeError(f"save: {_where(path)} has a key of type {type(k).__name__}; "
                                "dict keys must be str, int, float, bool or None")
            items.append([_encode(k, arrays, path), _encode(v, arrays, path + [k])])
        return {"dict": items}
    if isinstance(obj, (list, tuple)):
        kind = "list" if isinstance(obj, list) else "tuple"
        return {kind: [_encode(v, arrays, path + [i]) for i, v in enumerate(obj)]}
    raise TypeError(f"save: cannot store {_where(path)} of type {type(obj).__name__}; supported "
                    "are Tensors, numpy arrays, dicts, lists, tuples, str, int, float, complex, "
                    "bool and None")


def _is_bf16(d):
    return _dt.bfloat16 is not None and d == _dt.bfloat16


def _dtype_entry(a):
    return {"dtype": "bfloat16" if _is_bf16(a.dtype) else a.dtype.str}


def _add_array(a, arrays):
    key = f"a{len(arrays)}"
    # bfloat16 has no .npy descriptor: store its bits
    arrays[key] = a.view(np.uint16) if _is_bf16(a.dtype) else a
    return key


def _decode(node, arrays, return_numpy, place):
    if node is None or isinstance(node, (bool, str, int, float)):
        return node
    if isinstance(node, dict) and len(node) >= 1:
        if "float" in node:
            return float(node["float"])
        if "complex" in node:
            re, im = node["complex"]
            return complex(float(re), float(im))
        if "dict" in node:
            return {_decode(k, arrays, return_numpy, place):
                    _decode(v, arrays, return_numpy, place) for k, v in node["dict"]}
        if "list" in node:
            return [_decode(v, arrays, return_numpy, place) for v in node["list"]]
        if "tuple" in node:
            return tuple(_decode(v, arrays, return_numpy, place) for v in node["tuple"])
        if "tensor" in node or "ndarray" in node:
            key = node.get("tensor", node.get("ndarray"))
            a = arrays[key]
            if node["dtype"] == "bfloat16":
                if _dt.bfloat16 is None:
                    raise TypeError("load: the file holds bfloat16 data, which needs the "
                                    "ml_dtypes package")
                a = a.view(_dt.bfloat16)
            elif a.dtype.str != node["dtype"]:
                a = a.astype(np.dtype(node["dtype"]))
            if "ndarray" in node:
                return a[()] if node.get("scalar") else a
            if return_numpy:
                return a
            from .convert import to_array  # noqa: PLC0415

            t = Tensor._wrap(to_array(a, None, place, copy=False))
            t.stop_gradient = bool(node.get("stop_gradient", True))
            t.name = node.get("name")
            return t
    raise ValueError(f"load: unrecognised entry in the file's structure: {node!r:.80}")


def save(obj, path, protocol=4, **configs):
    """Write ``obj`` (Tensors, numpy arrays and scalars/strings, nested in dicts, lists and
    tuples) to ``path`` (a file name or a writable binary file object).

    The format is a numpy ``.npz`` archive; no Python code is pickled. ``path`` is
    used as given (no suffix is appended) and missing parent directories are
    created. ``protocol`` is accepted for Paddle compatibility and ignored.

    >>> import os, tempfile, weft
    >>> from weft.core.serialization import save, load
    >>> p = os.path.join(tempfile.mkdtemp(), "state.pdparams")
    >>> save({"w": weft.to_tensor([1.0, 2.0]), "step": 3}, p)
    >>> d = load(p)
    >>> d["w"].tolist(), d["step"]
    ([1.0, 2.0], 3)
    """
    if not isinstance(protocol, int) or isinstance(protocol, bool) or not 2 <= protocol <= 5:
        raise ValueError(f"save: protocol must be an int in [2, 5], got {protocol!r}")
    arrays = {}
    root = _encode(obj, arrays, [])
    meta = json.dumps({"format": _FORMAT, "version": _VERSION, "root": root},
                      separators=(",", ":"))
    arrays[_STRUCT_KEY] = np.array(meta)
    if hasattr(path, "write"):
        np.savez(path, **arrays)
        return
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"save: path must be a str, os.PathLike or a binary file object, got "
                        f"{type(path).__name__}")
    path = os.fspath(path)
    if path == "" or os.path.isdir(path):
        raise ValueError(f"save: path must name a file, got {path!r}")
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def load(path, **configs):
    """Read an object written by :func:`save`.

    ``path``: a file name or a readable binary file object. Tensors come back on the
    current device with their dtype, shape, ``stop_gradient`` and ``name``;
    ``return_numpy=True`` gives numpy arrays instead of Tensors.
    """
    return_numpy = configs.pop("return_numpy", False)
    if not isinstance(return_numpy, bool):
        raise TypeError(f"load: return_numpy must be a bool, got {type(return_numpy).__name__}")
    if configs:
        raise TypeError(f"load: unexpected keyword argument(s) {sorted(configs)}")
    if not hasattr(path, "read"):
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"load: path must be a str, os.PathLike or a binary file object, "
                            f"got {type(path).__name__}")
        if not os.path.isfile(path):
            raise FileNotFoundError(f"load: no such file: {os.fspath(path)!r}")
    try:
        npz = np.load(path, allow_pickle=False)
    except (ValueError, OSError) as e:
        raise ValueError(f"load: {path!r} is not a file written by weft.save ({e})") from None
    if not isinstance(npz, np.lib.npyio.NpzFile) or _STRUCT_KEY not in npz.files:
        raise ValueError(f"load: {path!r} is not a file written by weft.save")
    with npz:
        meta = json.loads(str(npz[_STRUCT_KEY][()]))
        if meta.get("format") != _FORMAT or not isinstance(meta.get("version"), int):
            raise ValueError(f"load: {path!r} is not a file written by weft.save")
        if meta["version"] > _VERSION:
            raise ValueError(f"load: {path!r} was written by a newer weft (format version "
                             f"{meta['version']}, this version reads up to {_VERSION})")
        arrays = {k: npz[k] for k in npz.files if k != _STRUCT_KEY}
    return _decode(meta["root"], arrays, return_numpy, None)


__all__ = ["save", "load"]
