"""Graph partitioning and the on-disk format of a partitioned graph.

A partitioning assigns every node to one part.  Part ``p`` owns its nodes and
their in-edges (an edge ``u -> v`` lives with ``v``'s owner), so sampling the
in-neighbours of a node, as :func:`weft.geometric.sample_neighbors` does, never
needs another part.  A partitioned graph is a directory:

``meta.json``
    the partitioning: its id, method, sizes, edge cut, index and feature dtypes,
    and for each part its file name, sizes and a digest of its arrays;
``assignment.npy``
    int32 ``[num_nodes]``: the owner of every node (what a client routes by);
``part-00000.npz`` ...
    one file per part, read alone by the worker that serves the part: ``owned``
    (the global ids of its nodes, ascending; local id ``i`` is ``owned[i]``),
    ``colptr`` / ``row`` (the CSC of their in-edges, local columns, global source
    ids, slots in the order of the whole graph's CSC), ``eids`` (each slot's edge
    id), ``halo`` (the sources it does not own, ascending: local ids
    ``len(owned) + j``), ``features`` (the owned rows, when given) and ``meta``
    (the partitioning id and the part's index).

The partitioning id is a digest of the whole input (assignment, graph, edge ids,
features), so a part written by another partitioning of the same directory, or of
another graph, is recognised as foreign when it is loaded.
"""
from __future__ import annotations

import hashlib
import json
import math
import os

import numpy as np

from ...core.tensor import Tensor

FORMAT = "weft-partition"
VERSION = 1
METHODS = ("hash", "range", "bfs")
_META = "meta.json"
_ASSIGN = "assignment.npy"


def _part_file(p):
    return f"part-{p:05d}.npz"


def _array(x, arg, op="partition_graph"):
    if isinstance(x, Tensor):
        x = x.numpy()
    if type(x).__module__.startswith("cupy"):
        x = x.get()
    if isinstance(x, (list, tuple)):
        x = np.asarray(x)
    if not isinstance(x, np.ndarray):
        raise TypeError(f"{op}: {arg} must be a Tensor or an array, got {type(x).__name__}")
    return x


def _index_array(x, arg, op="partition_graph"):
    a = _array(x, arg, op)
    if a.dtype not in (np.int32, np.int64):
        raise TypeError(f"{op}: {arg} must be an int32 or int64 tensor, got dtype {a.dtype}")
    return np.ascontiguousarray(a)


def _int(v, arg, low, op="partition_graph"):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{op}: {arg} must be an int, got {type(v).__name__}")
    if v < low:
        raise ValueError(f"{op}: {arg} must be >= {low}, got {v}")
    return int(v)


def _csc_of(graph, num_nodes, eids):
    """``(row, colptr, eids, dst)`` of ``graph``: edge_index ``[2, E]`` (source,
    destination) or a ``(row, colptr)`` pair; eids in CSC slot order."""
    op = "partition_graph"
    if isinstance(graph, (tuple, list)):
        if len(graph) != 2:
            raise ValueError(f"{op}: graph must be an edge_index [2, E] or a (row, colptr) "
                             f"pair, got a sequence of {len(graph)}")
        row = _index_array(graph[0], "graph[0] (row)")
        colptr = _index_array(graph[1], "graph[1] (colptr)")
        if row.ndim != 1 or colptr.ndim != 1:
            raise ValueError(f"{op}: row and colptr must be 1-D, got shapes {list(row.shape)} "
                             f"and {list(colptr.shape)}")
        if row.dtype != colptr.dtype:
            raise ValueError(f"{op}: row has dtype {row.dtype} but colptr has dtype "
                             f"{colptr.dtype}; they must have the same dtype")
        if num_nodes is None:
            num_nodes = colptr.shape[0] - 1
        num_nodes = _int(num_nodes, "num_nodes", 1)
        if colptr.shape[0] != num_nodes + 1:
            raise ValueError(f"{op}: colptr must have num_nodes + 1 = {num_nodes + 1} entries, "
                             f"got {colptr.shape[0]}")
        if colptr[0] != 0 or colptr[-1] != row.shape[0] or np.any(np.diff(colptr) < 0):
            raise ValueError(f"{op}: colptr must start at 0, be non-decreasing and end at "
                             f"len(row) = {row.shape[0]}")
        dst = np.repeat(np.arange(num_nodes, dtype=np.int64), np.diff(colptr))
        perm = None
    else:
        ei = _index_array(graph, "graph (edge_index)")
        if ei.ndim != 2 or ei.shape[0] != 2:
            raise ValueError(f"{op}: edge_index must have shape [2, E] (sources, destinations), "
                             f"got {list(ei.shape)}")
        if num_nodes is None:
            num_nodes = int(ei.max()) + 1 if ei.size else 1
        num_nodes = _int(num_nodes, "num_nodes", 1)
        # the CSC slot order: edges sorted by destination, ties in input order
        perm = np.argsort(ei[1], kind="stable")
        row = np.ascontiguousarray(ei[0][perm])
        dst = ei[1][perm].astype(np.int64)
        colptr = np.zeros(num_nodes + 1, row.dtype)
        if dst.size and (dst[0] < 0 or dst[-1] >= num_nodes):
            bad = dst[0] if dst[0] < 0 else dst[-1]
            raise IndexError(f"{op}: edge_index holds destination {bad}, out of range "
                             f"[0, num_nodes = {num_nodes})")
        np.cumsum(np.bincount(dst, minlength=num_nodes), out=colptr[1:])
    if row.size and (row.min() < 0 or row.max() >= num_nodes):
        bad = row.min() if row.min() < 0 else row.max()
        raise IndexError(f"{op}: the graph holds source node {bad}, out of range "
                         f"[0, num_nodes = {num_nodes})")
    if eids is None:
        e = np.arange(row.shape[0], dtype=np.int64)
    else:
        e = _index_array(eids, "eids")
        if e.ndim != 1 or e.shape[0] != row.shape[0]:
            raise ValueError(f"partition_graph: eids must be 1-D with one entry per edge "
                             f"({row.shape[0]}), got shape {list(e.shape)}")
        if perm is not None:
            e = e[perm]
    return row, colptr, np.ascontiguousarray(e), dst, num_nodes


# ---------------------------------------------------------------------------------
# assignment methods

def _hash_assign(n, parts):
    # SplitMix64's finaliser on the id: consecutive ids land in unrelated parts,
    # which is what a "random" partitioning means, and needs no generator state
    z = np.arange(n, dtype=np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z ^= z >> np.uint64(31)
    return (z % np.uint64(parts)).astype(np.int32)


def range_assign(n, parts):
    # contiguous blocks of n // parts or one more ids, so that no part is empty
    sizes = np.full(parts, n // parts, np.int64)
    sizes[:n % parts] += 1
    return np.repeat(np.arange(parts, dtype=np.int32), sizes)


def _symmetric(row, dst, n):
    import scipy.sparse as sp

    a = sp.csr_matrix((np.ones(row.shape[0], np.int32), (dst, row.astype(np.int64))), (n, n))
    s = (a + a.T).tocsr()
    s.setdiag(0)
    s.eliminate_zeros()
    s.sort_indices()
    return s


def _bfs_assign(row, dst, n, parts, refine=4, imbalance=0.05, seed=0):
    """Parts grown by breadth-first search over the undirected graph (each part
    fills to ``n // parts`` or one more nodes, restarting from the smallest unassigned id
    when its search runs dry), then ``refine`` rounds of balanced label
    propagation: a node moves to the part holding most of its neighbours when
    that gains cut edges and keeps every part within ``imbalance`` of the mean."""
    s = _symmetric(row, dst, n)
    ptr, idx = s.indptr, s.indices
    assign = np.full(n, -1, np.int32)
    cursor = 0
    for p in range(parts):
        size = n // parts + (p < n % parts)
        filled = 0
        frontier = np.zeros(0, np.int64)
        while filled < size:
            if frontier.size == 0:
                while assign[cursor] >= 0:
                    cursor += 1
                frontier = np.array([cursor], np.int64)
                assign[cursor] = p
                filled += 1
                continue
            starts, ends = ptr[frontier], ptr[frontier + 1]
            lens = ends - starts
            if lens.sum() == 0:
                frontier = np.zeros(0, np.int64)
                continue
            slots = np.repeat(starts - np.concatenate([[0], np.cumsum(lens)[:-1]]), lens) + \
                np.arange(lens.sum())
            nb = idx[slots]
            nb = nb[assign[nb] < 0]
            # first-appearance order keeps the search breadth-first and deterministic
            _, first = np.unique(nb, return_index=True)
            nb = nb[np.sort(first)][:size - filled]
            assign[nb] = p
            filled += nb.size
            frontier = nb.astype(np.int64)
    if parts > 1 and refine:
        assign = _refine(s, assign, parts, refine, imbalance, seed)
    return assign


def _refine(s, assign, parts, rounds, imbalance, seed):
    import scipy.sparse as sp

    n = assign.shape[0]
    rng = np.random.default_rng(seed)
    hi = math.floor(n / parts * (1 + imbalance))
    lo = math.ceil(n / parts * (1 - imbalance))
    for _ in range(rounds):
        onehot = sp.csr_matrix((np.ones(n, np.int32), (np.arange(n), assign)), (n, parts))
        c = (s @ onehot).tocsr()
        best = np.asarray(c.argmax(axis=1)).ravel().astype(np.int32)
        gain = np.asarray(c.max(axis=1).todense()).ravel() - \
            np.asarray(c[np.arange(n), assign]).ravel()
        # half the nodes per round, so that neighbours do not swap in lock-step
        cand = np.flatnonzero((gain > 0) & (best != assign) & (rng.random(n) < 0.5))
        if cand.size == 0:
            break
        cand = cand[np.lexsort((cand, -gain[cand]))]   # best gains first, ties by id
        size = np.bincount(assign, minlength=parts)
        keep = np.ones(cand.size, bool)
        for src_or_dst, limit in ((assign[cand], size - lo), (best[cand], hi - size)):
            order = np.argsort(src_or_dst[keep], kind="stable")
            grp = src_or_dst[keep][order]
            rank = np.arange(grp.size) - np.searchsorted(grp, grp)
            ok = np.empty(grp.size, bool)
            ok[order] = rank < np.maximum(limit, 0)[grp]
            keep[np.flatnonzero(keep)] = ok
        moved = cand[keep]
        if moved.size == 0:
            break
        assign[moved] = best[moved]
    return assign


def edge_cut(graph, assignment, num_nodes=None):
    """Fraction of the edges of ``graph`` (edge_index or ``(row, colptr)``) whose two
    ends lie in different parts under ``assignment`` (``[num_nodes]`` part ids).

    >>> import numpy as np
    >>> from weft.geometric.distributed import edge_cut
    >>> edge_cut(np.array([[0, 1, 2], [1, 2, 3]]), np.array([0, 0, 1, 1]))
    0.3333333333333333
    """
    row, _, _, dst, n = _csc_of(graph, num_nodes, None)
    a = _index_array(assignment, "assignment", "edge_cut")
    if a.shape != (n,):
        raise ValueError(f"edge_cut: assignment must have shape [{n}], got {list(a.shape)}")
    if row.size == 0:
        return 0.0
    return float(np.count_nonzero(a[row] != a[dst]) / row.size)


def _digest(*arrays):
    h = hashlib.blake2b(digest_size=16)
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        if a.size:
            h.update(memoryview(a.reshape(-1)).cast("B"))
    return h.hexdigest()


# ---------------------------------------------------------------------------------
# writing and reading

class Partitioning:
    """What :func:`partition_graph` wrote (or :func:`load_partitioning` read).

    Attributes: ``path``, ``partition_id``, ``num_parts``, ``num_nodes``,
    ``num_edges``, ``method``, ``edge_cut`` (fraction of edges between parts),
    ``part_nodes`` / ``part_edges`` (per part), ``index_dtype``, ``feature_dtype``
    and ``feature_shape`` (None without features), ``meta`` (the parsed
    ``meta.json``).  ``assignment`` (int32 ``[num_nodes]``, read on first use) is
    the owner of every node.
    """

    def __init__(self, path, meta):
        self.path = os.fspath(path)
        self.meta = meta
        self.partition_id = meta["partition_id"]
        self.num_parts = meta["num_parts"]
        self.num_nodes = meta["num_nodes"]
        self.num_edges = meta["num_edges"]
        self.method = meta["method"]
        self.edge_cut = meta["edge_cut"]
        self.part_nodes = [p["num_nodes"] for p in meta["parts"]]
        self.part_edges = [p["num_edges"] for p in meta["parts"]]
        self.index_dtype = np.dtype(meta["index_dtype"])
        self.feature_dtype = None if meta["feature_dtype"] is None else np.dtype(
            meta["feature_dtype"])
        self.feature_shape = None if meta["feature_shape"] is None else tuple(
            meta["feature_shape"])
        self._assignment = None

    @property
    def assignment(self):
        if self._assignment is None:
            a = np.load(os.path.join(self.path, _ASSIGN), allow_pickle=False)
            if a.shape != (self.num_nodes,) or _digest(a) != self.meta["assignment_digest"]:
                raise ValueError(f"{os.path.join(self.path, _ASSIGN)} does not belong to "
                                 f"partitioning {self.partition_id} (digest mismatch)")
            self._assignment = a
        return self._assignment

    def __repr__(self):
        return (f"Partitioning({self.path!r}, id={self.partition_id}, method={self.method!r}, "
                f"num_parts={self.num_parts}, num_nodes={self.num_nodes}, "
                f"num_edges={self.num_edges}, edge_cut={self.edge_cut:.4f})")


class GraphPart:
    """One part in memory (see :func:`load_part`): ``part``, ``partition_id``,
    ``owned``, ``colptr``, ``row``, ``eids``, ``halo``, ``features`` (or None).

    ``local_ids(ids)`` maps global ids of owned nodes to local ids (the inverse of
    ``owned``); ``local_to_global`` is ``owned`` followed by ``halo``.
    """

    __slots__ = ("part", "partition_id", "num_nodes", "owned", "colptr", "row", "eids", "halo",
                 "features")

    def __init__(self, part, partition_id, num_nodes, owned, colptr, row, eids, halo, features):
        self.part, self.partition_id, self.num_nodes = part, partition_id, num_nodes
        self.owned, self.colptr, self.row, self.eids = owned, colptr, row, eids
        self.halo, self.features = halo, features

    @property
    def local_to_global(self):
        return np.concatenate([self.owned, self.halo])

    def local_ids(self, ids):
        """Local ids of the global ``ids``; ``ValueError`` if one is not owned here."""
        ids = np.asarray(ids)
        n = self.owned.shape[0]
        if n and int(self.owned[-1]) - int(self.owned[0]) == n - 1:
            # contiguous ids (range partitions, one part): an offset, no search
            loc = ids.astype(np.int64) - int(self.owned[0])
            bad = (loc < 0) | (loc >= n)
            if np.any(bad):
                i = int(np.flatnonzero(bad)[0])
                raise ValueError(f"part {self.part}: node {ids.flat[i]} is not owned by this "
                                 "part")
            return loc
        loc = np.searchsorted(self.owned, ids)
        bad = (loc >= self.owned.shape[0]) | (self.owned[np.minimum(loc, self.owned.shape[0] - 1)]
                                              != ids) if self.owned.size else np.ones(ids.shape,
                                                                                      bool)
        if np.any(bad):
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"part {self.part}: node {ids.flat[i]} is not owned by this part")
        return loc

    def nbytes(self):
        return sum(a.nbytes for a in (self.owned, self.colptr, self.row, self.eids, self.halo,
                                      self.features) if a is not None)


def partition_graph(graph, num_nodes, num_parts, path, method="hash", features=None, eids=None,
                    overwrite=False, seed=0):
    """Partition a graph's nodes into ``num_parts`` parts and write one file per part.

    Args:
        graph: an ``edge_index`` (int ``[2, E]``: sources, then destinations) or a
            CSC pair ``(row, colptr)`` (the in-edges of ``v`` are
            ``row[colptr[v]:colptr[v+1]]``).  An edge_index is turned into CSC by a
            stable sort on the destination; that CSC (same slot order) is the graph
            :class:`DistGraph` samples, exactly as
            :func:`weft.geometric.sample_neighbors` would sample it.
        num_nodes (int or None): number of nodes (None: ``len(colptr) - 1``, or
            ``max(edge_index) + 1``).
        num_parts (int): >= 1 and <= ``num_nodes``.
        path (str): directory to write (created if needed).
        method (str): ``"hash"`` (a fixed pseudo-random owner per node: the
            baseline "random" partitioning), ``"range"`` (contiguous id blocks, sizes differing by at most one) or
            ``"bfs"`` (parts grown by breadth-first search over the undirected
            graph, then a few rounds of balanced label propagation; parts stay
            within 5 % of ``num_nodes / num_parts``).
        features (Tensor or array, optional): ``[num_nodes, ...]`` node features,
            stored with their owners.
        eids (Tensor or array, optional): an id per edge (aligned with ``row``, or
            with the columns of ``edge_index``); default: the CSC slot index.
        overwrite (bool): replace an existing partitioning in ``path``.
        seed (int): seed of the label propagation's tie-breaking (``"bfs"``).

    Returns:
        a :class:`Partitioning`.

    >>> import tempfile, numpy as np
    >>> from weft.geometric.distributed import partition_graph, load_part
    >>> ei = np.array([[1, 2, 3, 0, 2], [0, 0, 1, 2, 3]])
    >>> d = tempfile.mkdtemp()
    >>> info = partition_graph(ei, 4, 2, d, method="range")
    >>> info.part_nodes, info.part_edges
    ([2, 2], [3, 2])
    >>> part = load_part(d, 1)
    >>> part.owned.tolist(), part.row.tolist(), part.halo.tolist()
    ([2, 3], [0, 2], [0])
    """
    op = "partition_graph"
    if method not in METHODS:
        raise ValueError(f"{op}: method must be one of {', '.join(map(repr, METHODS))}, got "
                         f"{method!r}")
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{op}: path must be a str or path-like, got {type(path).__name__}")
    row, colptr, e, dst, n = _csc_of(graph, num_nodes, eids)
    parts = _int(num_parts, "num_parts", 1)
    if parts > n:
        raise ValueError(f"{op}: num_parts must be <= num_nodes = {n}, got {parts}")
    if np.iinfo(np.int32).max < parts:
        raise ValueError(f"{op}: num_parts must fit int32, got {parts}")
    feats = None
    if features is not None:
        feats = np.ascontiguousarray(_array(features, "features"))
        if feats.ndim == 0 or feats.shape[0] != n:
            raise ValueError(f"{op}: features must have shape [num_nodes = {n}, ...], got "
                             f"{list(feats.shape)}")
    path = os.fspath(path)
    meta_path = os.path.join(path, _META)
    if os.path.exists(meta_path) and not overwrite:
        raise FileExistsError(f"{op}: {path} already holds a partitioning ({_META}); pass "
                              "overwrite=True to replace it")
    os.makedirs(path, exist_ok=True)

    if method == "hash":
        assign = _hash_assign(n, parts)
    elif method == "range":
        assign = range_assign(n, parts)
    else:
        assign = _bfs_assign(row, dst, n, parts, seed=seed)
    cut = float(np.count_nonzero(assign[row] != assign[dst]) / row.size) if row.size else 0.0
    pid = _digest(np.array([n, parts], np.int64), assign, colptr, row, e,
                  *(() if feats is None else (feats,)))

    if os.path.exists(meta_path):
        os.remove(meta_path)   # a half-written directory never looks complete
    for f in os.listdir(path):
        if f.startswith("part-") and f.endswith(".npz"):
            os.remove(os.path.join(path, f))
    np.save(os.path.join(path, _ASSIGN), assign, allow_pickle=False)
    deg = np.diff(colptr).astype(np.int64)
    order = np.argsort(assign, kind="stable")          # nodes by part, ascending ids within
    bounds = np.searchsorted(assign[order], np.arange(parts + 1))
    part_meta = []
    for p in range(parts):
        owned = order[bounds[p]:bounds[p + 1]].astype(np.int64)
        d = deg[owned]
        lptr = np.zeros(owned.size + 1, np.int64)
        np.cumsum(d, out=lptr[1:])
        slots = np.repeat(colptr[owned].astype(np.int64) - lptr[:-1], d) + np.arange(lptr[-1])
        prow, peids = row[slots], e[slots]
        halo = np.setdiff1d(prow.astype(np.int64), owned, assume_unique=False)
        arrays = dict(owned=owned, colptr=lptr.astype(row.dtype), row=prow, eids=peids, halo=halo)
        if feats is not None:
            arrays["features"] = feats[owned]
        digest = _digest(*arrays.values())
        pm = dict(partition_id=pid, part=p, num_parts=parts, num_nodes=n)
        np.savez(os.path.join(path, _part_file(p)), meta=np.array(json.dumps(pm)), **arrays)
        part_meta.append(dict(file=_part_file(p), num_nodes=int(owned.size),
                              num_edges=int(prow.size), num_halo=int(halo.size), digest=digest))
    meta = dict(format=FORMAT, version=VERSION, partition_id=pid, method=method, num_parts=parts,
                num_nodes=n, num_edges=int(row.size), edge_cut=cut,
                index_dtype=row.dtype.str, eids_dtype=e.dtype.str,
                feature_dtype=None if feats is None else feats.dtype.str,
                feature_shape=None if feats is None else list(feats.shape[1:]),
                assignment_digest=_digest(assign), parts=part_meta)
    with open(meta_path + ".tmp", "w") as f:
        json.dump(meta, f, indent=1)
    os.replace(meta_path + ".tmp", meta_path)
    return Partitioning(path, meta)


def load_partitioning(path):
    """The :class:`Partitioning` stored in directory ``path`` (reads ``meta.json``
    only).  ``FileNotFoundError`` if there is none, ``ValueError`` if it is not a
    weft partitioning."""
    meta_path = os.path.join(os.fspath(path), _META)
    if not os.path.exists(meta_path):
        raise FileNotFoundError(f"load_partitioning: {path} holds no partitioned graph (no "
                                f"{_META}); write one with partition_graph")
    with open(meta_path) as f:
        try:
            meta = json.load(f)
        except json.JSONDecodeError as err:
            raise ValueError(f"load_partitioning: {meta_path} is not valid JSON ({err})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"load_partitioning: {meta_path} is not a weft partitioning")
    if meta.get("version") != VERSION:
        raise ValueError(f"load_partitioning: {meta_path} has format version "
                         f"{meta.get('version')}, this weft reads version {VERSION}")
    return Partitioning(path, meta)


def load_part(path, part, partition_id=None):
    """Read part ``part`` of the partitioned graph in ``path`` (its own file and
    ``meta.json``, nothing else) as a :class:`GraphPart`.

    The part's recorded partitioning id must equal ``partition_id`` (default: the
    id in ``meta.json``) and its arrays must match the digest in ``meta.json``;
    otherwise ``ValueError``: the file is from another partitioning or was changed.
    A missing file raises ``FileNotFoundError``.
    """
    info = load_partitioning(path)
    p = _int(part, "part", 0, "load_part")
    if p >= info.num_parts:
        raise ValueError(f"load_part: part must be in [0, num_parts = {info.num_parts}), got {p}")
    expected = info.partition_id if partition_id is None else partition_id
    if info.partition_id != expected:
        raise ValueError(f"load_part: {path} now holds partitioning {info.partition_id}, not "
                         f"{expected} (was it re-partitioned?)")
    file = os.path.join(info.path, info.meta["parts"][p]["file"])
    if not os.path.exists(file):
        raise FileNotFoundError(f"load_part: part {p} of partitioning {expected} is missing: "
                                f"{file}")
    with np.load(file, allow_pickle=False) as z:
        pm = json.loads(str(z["meta"]))
        if pm.get("partition_id") != expected or pm.get("part") != p:
            raise ValueError(f"load_part: {file} is part {pm.get('part')} of partitioning "
                             f"{pm.get('partition_id')}, expected part {p} of {expected}")
        names = ["owned", "colptr", "row", "eids", "halo"]
        arrays = {k: z[k] for k in names}
        feats = z["features"] if "features" in z.files else None
    digest = _digest(*arrays.values(), *(() if feats is None else (feats,)))
    if digest != info.meta["parts"][p]["digest"]:
        raise ValueError(f"load_part: {file} does not match the digest recorded for part {p} "
                         f"in {_META} (the file was changed or belongs to another partitioning)")
    return GraphPart(p, expected, info.num_nodes, arrays["owned"], arrays["colptr"],
                     arrays["row"], arrays["eids"], arrays["halo"], feats)


__all__ = ["partition_graph", "load_partitioning", "load_part", "edge_cut", "Partitioning",
           "GraphPart", "METHODS"]
