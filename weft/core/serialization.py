"""``weft.save`` / ``weft.load``: nested containers of tensors in a numpy ``.npz`` file.

The file holds one array per tensor (or numpy array) plus a JSON description of
the container structure, scalars and strings, stored as a numpy string array.
Nothing is pickled: ``load`` reads with ``allow_pickle=False``, so loading a file
can never run code. A Tensor round-trips its values, dtype, shape,
``stop_gradient`` and ``name``; tensors are loaded onto the current device.
"""
from __future__ import annotations

import errno
import json
import numbers
import os
import zipfile
import zlib

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
    if len(path) > _MAX_DEPTH:
        raise ValueError(f"save: the object is nested deeper than {_MAX_DEPTH} levels, which "
                         "load refuses")
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


class LoadError(ValueError):
    """``weft.load`` was given a file that is not a well-formed ``weft.save`` file.

    The message names the file and what is wrong with it. I/O failures (a missing
    file, a directory, a read error) raise ``OSError`` instead.
    """


# nesting deeper than this is refused by save and load alike (load must never hit
# Python's recursion limit on a crafted file)
_MAX_DEPTH = 100
# the JSON description of the structure; a state dict with 100k entries takes ~10 MB
_MAX_STRUCT_BYTES = 256 << 20


def _decode(node, arrays, return_numpy, place, depth=0):
    def bad(what):
        return arrays.error(f"{what} at nesting depth {depth}")

    if depth > _MAX_DEPTH:
        raise arrays.error(f"the structure is nested deeper than {_MAX_DEPTH} levels")
    if node is None or isinstance(node, (bool, str, int, float)):
        return node
    if not isinstance(node, dict) or len(node) < 1:
        raise bad(f"unrecognised entry {node!r:.80}")
    if "float" in node:
        v = node["float"]
        if v not in ("nan", "inf", "-inf"):
            raise bad(f"a float entry holds {v!r:.40}, expected 'nan', 'inf' or '-inf'")
        return float(v)
    if "complex" in node:
        v = node["complex"]
        try:
            re, im = v
            return complex(float(re), float(im))
        except (TypeError, ValueError):
            raise bad(f"a complex entry holds {v!r:.40}, expected two numbers") from None
    if "dict" in node:
        items = node["dict"]
        if not isinstance(items, list) or not all(isinstance(kv, list) and len(kv) == 2
                                                  for kv in items):
            raise bad("a dict entry is not a list of [key, value] pairs")
        out = {}
        for k, v in items:
            if not (k is None or isinstance(k, (str, bool, int, float))):
                raise bad(f"a dict key is {type(k).__name__}, expected str, int, float, bool "
                          "or None")
            out[k] = _decode(v, arrays, return_numpy, place, depth + 1)
        return out
    for kind in ("list", "tuple"):
        if kind in node:
            items = node[kind]
            if not isinstance(items, list):
                raise bad(f"a {kind} entry holds {type(items).__name__}, expected a list")
            seq = [_decode(v, arrays, return_numpy, place, depth + 1) for v in items]
            return seq if kind == "list" else tuple(seq)
    if "tensor" in node or "ndarray" in node:
        a = arrays.get(node.get("tensor", node.get("ndarray")), node.get("dtype"))
        if "ndarray" in node:
            return a[()] if node.get("scalar") is True else a
        if return_numpy:
            return a
        from .convert import to_array  # noqa: PLC0415

        name = node.get("name")
        if name is not None and not isinstance(name, str):
            raise bad(f"a tensor's name is {type(name).__name__}, expected a str")
        t = Tensor._wrap(to_array(a, None, place, copy=False))
        t.stop_gradient = bool(node.get("stop_gradient", True))
        t.name = name
        return t
    raise bad(f"unrecognised entry {node!r:.80}")


class _Archive:
    """The arrays of an opened ``.npz`` file, read on demand and checked: each member's
    decompressed size must be exactly what its ``.npy`` header declares, so a crafted
    member can make load allocate no more than the shapes it declares."""

    def __init__(self, zf, name):
        self.zf = zf
        self.name = name
        self.members = {i.filename: i for i in zf.infolist()}

    def error(self, what):
        return LoadError(f"load: {self.name} is not a valid weft.save file: {what}")

    def read(self, key, max_bytes=None):
        info = self.members.get(key + ".npy")
        if info is None:
            raise self.error(f"array {key!r:.40} is missing from the archive")
        try:
            with self.zf.open(info) as f:
                version = np.lib.format.read_magic(f)
                if version == (1, 0):
                    shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
                elif version in ((2, 0), (3, 0)):
                    shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
                else:
                    raise ValueError(f"unsupported .npy version {version}")
                if dtype.hasobject or dtype.kind == "V":
                    raise ValueError(f"dtype {dtype} cannot be loaded without pickling")
                need = int(np.prod(shape, dtype=object)) * dtype.itemsize
                have = info.file_size - f.tell()
                if need != have:
                    raise ValueError(f"its header declares {need} bytes of data but the member "
                                     f"holds {have}")
                if max_bytes is not None and need > max_bytes:
                    raise ValueError(f"{need} bytes is more than the limit of {max_bytes}")
                data = f.read(need)
                if len(data) != need:
                    raise ValueError("the member ends early")
        except (ValueError, EOFError, zipfile.BadZipFile, NotImplementedError, zlib.error,
                OverflowError) as e:
            raise self.error(f"array {key!r:.40}: {e}") from None
        a = np.frombuffer(data, dtype=dtype)
        if shape:
            a = a.reshape(shape, order="F" if fortran else "C")
        else:
            a = a.reshape(())
        return a.copy() if not a.flags.writeable else a

    def get(self, key, dtype):
        if not isinstance(key, str):
            raise self.error(f"an array reference is {type(key).__name__}, expected a str")
        if not isinstance(dtype, str):
            raise self.error(f"array {key!r:.40} has no dtype string")
        a = self.read(key)
        if dtype == "bfloat16":
            if _dt.bfloat16 is None:
                raise TypeError("load: the file holds bfloat16 data, which needs the "
                                "ml_dtypes package")
            if a.dtype != np.uint16:
                raise self.error(f"bfloat16 array {key!r:.40} is stored as {a.dtype}")
            return a.view(_dt.bfloat16)
        if a.dtype.str != dtype:
            try:
                want = np.dtype(dtype)
            except TypeError:
                raise self.error(f"array {key!r:.40} has dtype {dtype!r:.40}") from None
            if want.hasobject or want.kind == "V":
                raise self.error(f"array {key!r:.40} has dtype {dtype!r:.40}")
            a = a.astype(want)
        return a


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

    ``path``: a file name or a readable, seekable binary file object. Tensors come
    back on the current device with their dtype, shape, ``stop_gradient`` and
    ``name``; ``return_numpy=True`` gives numpy arrays instead of Tensors.

    Nothing in the file is executed. A file that is not a well-formed ``weft.save``
    file (truncated, corrupt, crafted) raises :class:`LoadError`, a ``ValueError``
    naming the file and the fault; I/O failures raise ``OSError``
    (``FileNotFoundError``, ``IsADirectoryError``). Each array may decompress to no
    more than the shape its header declares, and the structure may nest at most
    100 levels.

    >>> import io, weft
    >>> from weft.core.serialization import load, LoadError
    >>> try:
    ...     load(io.BytesIO(b"not a zip"))
    ... except LoadError as e:
    ...     print(type(e).__name__, isinstance(e, ValueError))
    LoadError True
    """
    return_numpy = configs.pop("return_numpy", False)
    if not isinstance(return_numpy, bool):
        raise TypeError(f"load: return_numpy must be a bool, got {type(return_numpy).__name__}")
    if configs:
        raise TypeError(f"load: unexpected keyword argument(s) {sorted(configs)}")
    if hasattr(path, "read"):
        name = repr(getattr(path, "name", path))
        source = path
    else:
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"load: path must be a str, os.PathLike or a binary file object, "
                            f"got {type(path).__name__}")
        p = os.fspath(path)
        name = repr(p)
        if os.path.isdir(p):
            raise IsADirectoryError(errno.EISDIR, "load: is a directory, not a file", p)
        if not os.path.exists(p):
            raise FileNotFoundError(errno.ENOENT, "load: no such file", p)
        source = p
    try:
        zf = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError) as e:
        raise LoadError(f"load: {name} is not a file written by weft.save (not a valid zip "
                        f"archive: {e or type(e).__name__})") from None
    with zf:
        arch = _Archive(zf, name)
        if _STRUCT_KEY + ".npy" not in arch.members:
            raise LoadError(f"load: {name} is not a file written by weft.save (no structure "
                            "record)")
        text = arch.read(_STRUCT_KEY, _MAX_STRUCT_BYTES)
        if text.dtype.kind != "U" or text.ndim != 0:
            raise arch.error("the structure record is not a string")
        try:
            meta = json.loads(str(text[()]))
        except (ValueError, RecursionError) as e:
            raise arch.error(f"the structure record is not valid JSON ({type(e).__name__})") \
                from None
        if not isinstance(meta, dict) or meta.get("format") != _FORMAT \
                or not isinstance(meta.get("version"), int) or "root" not in meta:
            raise LoadError(f"load: {name} is not a file written by weft.save")
        if meta["version"] > _VERSION:
            raise LoadError(f"load: {name} was written by a newer weft (format version "
                            f"{meta['version']}, this version reads up to {_VERSION})")
        try:
            return _decode(meta["root"], arch, return_numpy, None)
        except RecursionError:
            raise arch.error("the structure is nested too deeply") from None


__all__ = ["save", "load", "LoadError"]
