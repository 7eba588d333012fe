"""``DistGraph``: a partitioned graph served by Dask workers.

Each part of a :func:`partition_graph` directory is loaded once, by one worker,
and stays there (held by a Dask actor pinned to that worker); node features live
with their owners.  The client holds only the node -> part assignment and routes every
request by it: a batch of nodes is split by owner and each part gets one task
per call (per hop for multi-hop sampling), never one per node.

Determinism.  The single-machine samplers draw one seed per call (per hop) from
weft's CPU generator and sample input position ``i`` from the stream keyed by
``(seed, i)``.  DistGraph draws the same seeds, in the same order, on the client
and sends every part the positions its nodes hold in the whole batch; the
kernel keys each node's stream by that position (the ``positions`` argument of
the native sampler).  A part holds its nodes' in-edges in the slot order of the
whole graph's CSC, so every node draws and returns exactly what it would on one
machine, whatever the number of parts and workers.
"""
from __future__ import annotations

import numpy as np

from ..._native import extension as _C
from ...core import random as _random
from ...core.place import CPU
from ...core.tensor import Tensor
from ..khop import khop_loop
from ..sampling import _bool_arg, index_arg, sample_size_arg
from ._cluster import Placement, aligned, client_arg
from .partition import load_part, load_partitioning


# ---------------------------------------------------------------------------------
# the worker side: one actor per part (module-level so that workers import it)

class PartServer:
    """Holds one part on its worker and answers the client's requests."""

    def __init__(self, path, part, partition_id):
        self.gpart = load_part(path, part, partition_id)

    def sample(self, nodes, positions, k, seed, with_eids, with_deg, op):
        gp = self.gpart
        local = gp.local_ids(nodes).astype(gp.row.dtype)
        nb, cnt, e = _C.sample_neighbors(gp.row, gp.colptr, local, k,
                                         gp.eids if with_eids else None, seed, op,
                                         positions=aligned(positions))
        deg = (gp.colptr[local + 1] - gp.colptr[local]) if with_deg else None
        return nb, cnt, e, deg

    def features(self, ids):
        return self.gpart.features[self.gpart.local_ids(ids)]

    def stats(self):
        gp = self.gpart
        return dict(part=gp.part, nodes=int(gp.owned.size), edges=int(gp.row.size),
                    halo=int(gp.halo.size), nbytes=int(gp.nbytes()))


# ---------------------------------------------------------------------------------

def _ids_arg(ids, arg, op, num_nodes, dtype):
    a = index_arg(ids, arg, op, [])
    bad = np.flatnonzero((a < 0) | (a >= num_nodes))
    if bad.size:
        raise IndexError(f"{op}: {arg}[{bad[0]}] = {a[bad[0]]} is out of range [0, num_nodes = "
                         f"{num_nodes}) of the partitioned graph")
    return np.ascontiguousarray(a.astype(dtype, copy=False))


def _by_owner(assignment, nodes):
    """``[(part, positions)]``: the positions of ``nodes`` owned by each part
    (ascending), parts without any left out."""
    owner = assignment[nodes]
    if owner.size and owner.max() < 1 << 15:
        owner = owner.astype(np.int16)     # numpy's stable sort is a radix sort on 16 bits
    order = np.argsort(owner, kind="stable")
    sorted_owner = owner[order]
    cuts = np.flatnonzero(np.diff(sorted_owner)) + 1
    groups = np.split(order, cuts)
    return [(int(owner[g[0]]), g.astype(np.int64)) for g in groups if g.size]


class DistGraph:
    """A graph partitioned by :func:`partition_graph`, served by the workers of a
    ``dask.distributed.Client``.

    Args:
        client: a ``dask.distributed.Client`` with at least one worker.
        path (str): the partitioned graph's directory; every worker must be able to
            read it (a shared file system on a real cluster).
        timeout (float): seconds any one call (and the initial load) may wait for
            the workers before raising ``TimeoutError``; a lost worker is reported
            within a fraction of a second as ``RuntimeError``.
        workers (list of str, optional): the addresses of the workers to use
            (default: all the client's workers).

    Part ``p`` is loaded by worker ``p mod W`` (the W workers sorted by address), held by
    a Dask actor there until :meth:`close`; requests go from the client straight to
    that actor.  Results are weft Tensors on the CPU.

    Raises (construction): ``TypeError`` for a non-Client, ``ValueError`` for a
    client without workers, a part from another partitioning or a changed part
    file, ``FileNotFoundError`` for a missing part.
    """

    op = "DistGraph"

    def __init__(self, client, path, timeout=120.0, workers=None):
        client_arg(client, self.op)     # Dask present, a Client: before touching any file
        self.info = load_partitioning(path)
        self._assign = self.info.assignment
        self.num_nodes = self.info.num_nodes
        self.num_parts = self.info.num_parts
        self._dtype = self.info.index_dtype
        self._place = Placement(client, self.num_parts, timeout, self.op, workers)
        self.client = self._place.client
        info = self.info
        self._futures, self._parts = self._place.actors(
            PartServer, lambda p: (info.path, p, info.partition_id))
        self._place.reset_stats()

    # -- bookkeeping ----------------------------------------------------------------
    @property
    def part_workers(self):
        """The address of the worker holding each part."""
        return list(self._place.part_worker)

    @property
    def stats(self):
        """Counts since the last :meth:`reset_stats`: ``tasks``, ``bytes_sent`` and
        ``bytes_received`` (the arrays of requests and replies)."""
        return dict(self._place.stats)

    def reset_stats(self):
        self._place.reset_stats()

    def part_stats(self):
        """Per part: its worker, nodes, edges, halo size and bytes held."""
        self._alive("reading part statistics")
        out = self._place.gather([self._place.call(a, "stats") for a in self._parts],
                                 "reading part statistics")
        for s in out:
            s["worker"] = self._place.part_worker[s["part"]]
        return out

    def close(self):
        """Release the parts on the workers."""
        if self._parts:
            self._parts = []
            self.client.cancel(self._futures)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return (f"DistGraph({self.info.path!r}, num_nodes={self.num_nodes}, "
                f"num_parts={self.num_parts}, workers={len(set(self._place.part_worker))})")

    def _alive(self, what):
        # a lost worker is noticed by the call itself (Placement.gather), which saves
        # a round trip to the scheduler per call
        if not self._parts:
            raise RuntimeError(f"{self.op}: the graph was closed")

    # -- sampling -------------------------------------------------------------------
    def _sample_hop(self, nodes, k, seed, with_eids, with_deg, op):
        """One hop: ``(neighbors, count, eids|None, deg|None)`` for ``nodes``, as the
        native sampler returns them for the whole batch."""
        groups = _by_owner(self._assign, nodes)
        futures = [self._place.call(self._parts[p], "sample", nodes[pos], pos, k, seed, with_eids,
                                    with_deg, op) for p, pos in groups]
        results = self._place.gather(futures, f"sampling {nodes.size} nodes")
        n = nodes.size
        if len(groups) == 1:                        # one part owns the whole batch
            return tuple(aligned(a, writeable=True) for a in results[0])
        count = np.zeros(n, np.int32)
        for (_, pos), (_, cnt, _, _) in zip(groups, results):
            count[pos] = cnt
        offset = np.zeros(n + 1, np.int64)
        np.cumsum(count, out=offset[1:])
        nbrs = np.empty(int(offset[-1]), self._dtype)
        eids = np.empty(int(offset[-1]), self.info.meta["eids_dtype"]) if with_eids else None
        deg = np.zeros(n, np.int64) if with_deg else None
        for (_, pos), (nb, cnt, e, d) in zip(groups, results):
            c = cnt.astype(np.int64)
            local_start = np.cumsum(c) - c
            slots = np.repeat(offset[pos] - local_start, c) + np.arange(nb.size)
            nbrs[slots] = nb
            if with_eids:
                eids[slots] = e
            if with_deg:
                deg[pos] = d
        return nbrs, count, eids, deg

    def sample_neighbors(self, input_nodes, sample_size=-1, return_eids=False):
        """:func:`weft.geometric.sample_neighbors` on the whole graph: for the same
        ``weft.seed`` the result is identical to
        ``sample_neighbors(row, colptr, input_nodes, sample_size, eids=..., return_eids=...)``
        on the graph's CSC (``eids``: the ids given to :func:`partition_graph`,
        default the CSC slot index).  ``input_nodes`` may be int32 or int64; results
        have the graph's index dtype (counts int32).
        """
        op = f"{self.op}.sample_neighbors"
        return_eids = _bool_arg(return_eids, "return_eids", op)
        k = sample_size_arg(sample_size, op)
        nodes = _ids_arg(input_nodes, "input_nodes", op, self.num_nodes, self._dtype)
        self._alive("sampling")
        seed = _random.next_seed(CPU)
        nbrs, count, eids, _ = self._sample_hop(nodes, k, seed, return_eids, False, op)
        out = (Tensor._wrap(nbrs), Tensor._wrap(count))
        return out + (Tensor._wrap(eids),) if return_eids else out

    def khop_sampler(self, input_nodes, sample_sizes, return_eids=False):
        """:func:`weft.geometric.khop_sampler` on the whole graph (the semantics of
        ``incubate.graph_khop_sampler``): ``(edge_src, edge_dst, sample_index,
        reindex_nodes)`` plus ``edge_eids`` when ``return_eids``, identical to the
        single-machine result for the same ``weft.seed``.  Hop ``h`` sends one task
        to each part owning a node of its frontier; re-indexing runs on the client.
        """
        op = f"{self.op}.khop_sampler"
        return_eids = _bool_arg(return_eids, "return_eids", op)
        if not isinstance(sample_sizes, (list, tuple)) or len(sample_sizes) == 0:
            raise TypeError(f"{op}: sample_sizes must be a non-empty list of ints, got "
                            f"{sample_sizes!r}")
        sizes = [sample_size_arg(s, op, f"sample_sizes[{i}]") for i, s in enumerate(sample_sizes)]
        nodes = _ids_arg(input_nodes, "input_nodes", op, self.num_nodes, self._dtype)
        if nodes.size == 0:
            raise ValueError(f"{op}: input_nodes must not be empty")
        self._alive("sampling")

        def sample_hop(frontier, k, first):
            nb, cnt, e, deg = self._sample_hop(frontier, k, _random.next_seed(CPU), return_eids,
                                               first, op)
            return nb, cnt, e, first and bool(np.any(deg > 0))

        src, dst, sample_index, reindex_nodes, eids = khop_loop(nodes, sizes, self.num_nodes,
                                                                sample_hop, op)
        out = (Tensor._wrap(src.reshape(-1, 1)), Tensor._wrap(dst.reshape(-1, 1)),
               Tensor._wrap(sample_index), Tensor._wrap(reindex_nodes))
        return out + (Tensor._wrap(eids),) if return_eids else out

    # -- features -------------------------------------------------------------------
    def fetch_features(self, ids):
        """The features of nodes ``ids`` (1-D int32/int64, any order, repeats
        allowed) as a Tensor ``[len(ids), *feature_shape]``, gathered from their
        owners with one task per part."""
        op = f"{self.op}.fetch_features"
        if self.info.feature_dtype is None:
            raise ValueError(f"{op}: the partitioned graph in {self.info.path} has no node "
                             "features (pass features= to partition_graph)")
        a = _ids_arg(ids, "ids", op, self.num_nodes, np.int64)
        self._alive("fetching features")
        groups = _by_owner(self._assign, a)
        futures = [self._place.call(self._parts[p], "features", a[pos]) for p, pos in groups]
        results = self._place.gather(futures, f"fetching the features of {a.size} nodes")
        out = np.empty((a.size,) + self.info.feature_shape, self.info.feature_dtype)
        for (_, pos), r in zip(groups, results):
            out[pos] = r
        return Tensor._wrap(out)


__all__ = ["DistGraph"]
