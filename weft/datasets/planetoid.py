"""The Planetoid citation graphs (Cora, CiteSeer) with the standard GCN split.

The archives are shipped inside the package (``weft/datasets/data/<name>.npz``, plain
numpy arrays, no pickles), so a fresh install needs nothing from the network. Each
holds the node features as CSR (``x_data``, ``x_indices``, ``x_indptr``,
``x_shape``), the labels ``y`` (-1 for the few CiteSeer nodes without one), the
symmetric ``edge_index`` [2, E] (row 0 source, row 1 destination, no self loops)
and the node ids of the train / val / test split.
"""
from __future__ import annotations

import os
import zipfile

import numpy as np

from ..core.tensor import Tensor

_DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
_NAMES = {"cora": "cora", "citeseer": "citeseer"}
_KEYS = ("x_data", "x_indices", "x_indptr", "x_shape", "y", "edge_index", "train_index",
         "val_index", "test_index")


class GraphData:
    """Attributes shared by the graph datasets: ``x``, ``y``, ``edge_index``, the
    split ``train_index`` / ``val_index`` / ``test_index`` and the counts
    ``num_nodes``, ``num_features``, ``num_classes``, ``num_edges``."""

    def __repr__(self):
        return (f"{type(self).__name__}(num_nodes={self.num_nodes}, "
                f"num_edges={self.num_edges}, num_features={self.num_features}, "
                f"num_classes={self.num_classes})")


def _corrupt(path, why):
    return ValueError(f"Planetoid: the archive {path} is corrupted or incomplete: {why}")


def _read_archive(path):
    """The arrays of one archive, checked for the layout the loader relies on."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"Planetoid: the archive {path} is missing; reinstall weft "
                                "(the Planetoid data ships inside the package)")
    try:
        with np.load(path, allow_pickle=False) as z:
            missing = [k for k in _KEYS if k not in z.files]
            if missing:
                raise _corrupt(path, f"missing arrays {missing}")
            a = {k: z[k] for k in _KEYS}
    except (OSError, zipfile.BadZipFile, EOFError, KeyError) as e:
        raise _corrupt(path, f"{type(e).__name__}: {e}") from e
    except ValueError as e:
        if str(e).startswith("Planetoid:"):
            raise
        raise _corrupt(path, f"{type(e).__name__}: {e}") from e
    _validate(a, path)
    return a


def _validate(a, path):
    if a["x_shape"].shape != (2,) or a["x_shape"].dtype.kind not in "iu":
        raise _corrupt(path, f"x_shape must be 2 integers, got {a['x_shape']!r}")
    n, f = (int(v) for v in a["x_shape"])
    ptr, ind, val = a["x_indptr"], a["x_indices"], a["x_data"]
    if ptr.ndim != 1 or ptr.shape[0] != n + 1 or ptr[0] != 0 or np.any(np.diff(ptr) < 0):
        raise _corrupt(path, f"x_indptr must be {n + 1} non-decreasing offsets from 0")
    if ind.shape != val.shape or ind.ndim != 1 or int(ptr[-1]) != ind.shape[0]:
        raise _corrupt(path, f"x_indptr ends at {int(ptr[-1])} but x_indices has "
                             f"{ind.shape} and x_data {val.shape} entries")
    if ind.size and (ind.min() < 0 or ind.max() >= f):
        raise _corrupt(path, f"x_indices out of range [0, {f})")
    if a["y"].shape != (n,):
        raise _corrupt(path, f"y must have {n} labels, got shape {a['y'].shape}")
    ei = a["edge_index"]
    if ei.ndim != 2 or ei.shape[0] != 2 or (ei.size and (ei.min() < 0 or ei.max() >= n)):
        raise _corrupt(path, f"edge_index must be [2, E] with node ids in [0, {n})")
    for k in ("train_index", "val_index", "test_index"):
        s = a[k]
        if s.ndim != 1 or (s.size and (s.min() < 0 or s.max() >= n)):
            raise _corrupt(path, f"{k} must be 1-D node ids in [0, {n})")


class Planetoid(GraphData):
    """A Planetoid citation graph with the semi-supervised split of Kipf & Welling.

    Args:
        name: ``'cora'`` or ``'citeseer'`` (case-insensitive).
        root: a directory holding ``<name>.npz`` to read instead of the copy shipped
            with weft (None: the shipped copy).

    Attributes:
        x: node features, a ``weft.sparse`` CSR tensor ``[num_nodes, num_features]``
            float32 (binary bag of words, not normalised).
        y: int64 ``[num_nodes]`` labels (-1 for the 15 unlabelled CiteSeer nodes).
        edge_index: int64 ``[2, E]``, row 0 source, row 1 destination, both directions
            of each citation, sorted by (source, destination), no self loops.
        train_index, val_index, test_index: int64 node ids (140/500/1000 for Cora,
            120/500/1000 for CiteSeer).
        num_nodes, num_features, num_classes, num_edges: ints.

    Raises ValueError for an unknown name (listing the available ones) or a corrupted
    archive, FileNotFoundError for a missing one; both name the file.

    >>> import weft
    >>> cora = weft.datasets.Planetoid("cora")
    >>> cora.num_nodes, cora.num_features, cora.num_classes, cora.edge_index.shape
    (2708, 1433, 7, [2, 10556])
    """

    def __init__(self, name, root=None):
        if not isinstance(name, str):
            raise TypeError(f"Planetoid: name must be a str, got {type(name).__name__}")
        key = name.lower()
        if key not in _NAMES:
            raise ValueError(f"Planetoid: unknown dataset name {name!r}; available: "
                             f"{', '.join(repr(k) for k in _NAMES)}")
        if root is not None and not isinstance(root, (str, os.PathLike)):
            raise TypeError(f"Planetoid: root must be a path or None, got "
                            f"{type(root).__name__}")
        self.name = key
        self.path = os.path.join(_DATA_DIR if root is None else os.fspath(root),
                                 f"{_NAMES[key]}.npz")
        a = _read_archive(self.path)
        from ..sparse.creation import sparse_csr_tensor  # noqa: PLC0415 (keeps import light)

        n, f = (int(v) for v in a["x_shape"])
        # crows and cols must share one index dtype; int64 fits every graph size
        self.x = sparse_csr_tensor(a["x_indptr"].astype(np.int64),
                                   a["x_indices"].astype(np.int64),
                                   a["x_data"].astype(np.float32), [n, f])
        self.y = Tensor._wrap(a["y"].astype(np.int64))
        self.edge_index = Tensor._wrap(np.ascontiguousarray(a["edge_index"], np.int64))
        self.train_index = Tensor._wrap(a["train_index"].astype(np.int64))
        self.val_index = Tensor._wrap(a["val_index"].astype(np.int64))
        self.test_index = Tensor._wrap(a["test_index"].astype(np.int64))
        self.num_nodes = n
        self.num_features = f
        self.num_classes = int(a["y"].max()) + 1 if n else 0
        self.num_edges = int(a["edge_index"].shape[1])


__all__ = ["Planetoid", "GraphData"]
