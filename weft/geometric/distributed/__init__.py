"""Graphs beyond one machine, on Dask: partitioned storage, distributed neighbour
sampling with the single-machine results, and row-partitioned SpMM.

Partitioning (:func:`partition_graph`, :func:`load_part`, :func:`edge_cut`) needs
only numpy and scipy.  :class:`DistGraph` and :class:`DistCSR` run on a
``dask.distributed.Client``; Dask is imported on first use (the optional extra
``weft[distributed]``), never by ``import weft``.  See ``docs/distributed.md``.
"""
from .graph import DistGraph
from .partition import (GraphPart, Partitioning, edge_cut, load_part, load_partitioning,
                        partition_graph)
from .spmm import DistCSR

__all__ = ["partition_graph", "load_partitioning", "load_part", "edge_cut", "Partitioning",
           "GraphPart", "DistGraph", "DistCSR"]
