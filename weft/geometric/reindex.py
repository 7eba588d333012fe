"""Re-indexing of sampled subgraphs (``paddle.geometric.reindex_graph`` and
``reindex_heter_graph``).

Sampling returns global node ids; message passing on the sampled subgraph wants
compact ids ``0 .. n-1``.  ``out_nodes`` lists the centre nodes ``x`` first (as
given) and then every other neighbour id in order of first appearance; ``src``
and ``dst`` are the edge endpoints as positions in ``out_nodes``.

The kernel (``csrc/graph/reindex.cpp``) is one ordered pass with a dense table
when the ids span a small range and an open-addressing hash table otherwise.
CuPy inputs are re-indexed on the host and the results copied back.
"""
from __future__ import annotations

from .sampling import _C, common_place, index_arg, same_dtype, wrap


def _buffer_arg(buf, arg, op, places):
    # Paddle's GPU hash-table scratch: only its type and rank are meaningful here
    if buf is not None:
        index_arg(buf, arg, op, places)


def _reindex(op, x, neighbors, count, value_buffer, index_buffer, heter):
    places = []
    xa = index_arg(x, "x", op, places)
    if xa.shape[0] == 0:
        raise ValueError(f"{op}: x must contain at least one node (the first of dims should not "
                         "be equal to 0)")
    if heter:
        if not isinstance(neighbors, (list, tuple)) or not isinstance(count, (list, tuple)):
            raise TypeError(f"{op}: neighbors and count must be lists of tensors (one per edge "
                            f"type), got {type(neighbors).__name__} and {type(count).__name__}")
        if len(neighbors) != len(count):
            raise ValueError(f"{op}: neighbors and count must have the same length (one entry "
                             f"per edge type), got {len(neighbors)} and {len(count)}")
        names = [(f"neighbors[{t}]", f"count[{t}]") for t in range(len(neighbors))]
    else:
        neighbors, count = [neighbors], [count]
        names = [("neighbors", "count")]
    nbs, cnts = [], []
    for nb, c, (nn, cn) in zip(neighbors, count, names):
        nba = index_arg(nb, nn, op, places)
        same_dtype(nba, nn, xa, "x", op)
        ca = index_arg(c, cn, op, places)
        if ca.shape[0] != xa.shape[0]:
            raise ValueError(f"{op}: {cn} must have one entry per node of x ({xa.shape[0]}), "
                             f"got {ca.shape[0]}")
        nbs.append(nba)
        cnts.append(ca)
    _buffer_arg(value_buffer, "value_buffer", op, places)
    _buffer_arg(index_buffer, "index_buffer", op, places)
    place = common_place(places, op)
    src, dst, out = _C().reindex_graph(xa, nbs, cnts, heter, op)
    return wrap(src, place), wrap(dst, place), wrap(out, place)


def reindex_graph(x, neighbors, count, value_buffer=None, index_buffer=None, name=None):
    """Relabel a sampled graph with compact ids.

    Args:
        x (Tensor): 1-D int32/int64 centre node ids (non-empty).
        neighbors (Tensor): 1-D, x's dtype: the sampled neighbours of all centre
            nodes concatenated (e.g. the first output of :func:`sample_neighbors`).
        count (Tensor): 1-D int32 (weft also takes int64) of ``len(x)``, the number
            of neighbours of each centre node; ``sum(count) == len(neighbors)``.
        value_buffer, index_buffer (Tensor, optional): Paddle's GPU hash-table
            scratch; checked (1-D int) and ignored.
        name: ignored.

    Returns:
        ``(reindex_src, reindex_dst, out_nodes)``, all of x's dtype: ``out_nodes`` is
        ``x`` in its own order (duplicates kept) followed by each distinct neighbour
        not in ``x`` in order of first appearance; ``reindex_src[i]`` is the position
        of ``neighbors[i]`` in ``out_nodes`` and ``reindex_dst`` the position of
        ``x[j]`` repeated ``count[j]`` times.  An id occurring several times in ``x``
        always resolves to its last position.

    Raises:
        TypeError: non-integer tensors.
        ValueError: empty ``x``, mismatched dtypes, ``len(count) != len(x)``,
            negative counts or ``sum(count) != len(neighbors)``.

    >>> import weft
    >>> src, dst, out = weft.geometric.reindex_graph(
    ...     weft.to_tensor([0, 1, 2]), weft.to_tensor([8, 9, 0, 4, 7, 6, 7]),
    ...     weft.to_tensor([2, 3, 2], dtype="int32"))
    >>> src.tolist(), dst.tolist(), out.tolist()
    ([3, 4, 0, 5, 6, 7, 6], [0, 0, 1, 1, 1, 2, 2], [0, 1, 2, 8, 9, 4, 7, 6])
    """
    return _reindex("reindex_graph", x, neighbors, count, value_buffer, index_buffer, False)


def reindex_heter_graph(x, neighbors, count, value_buffer=None, index_buffer=None, name=None):
    """:func:`reindex_graph` for several edge types sharing one set of nodes.

    ``neighbors`` and ``count`` are lists with one tensor per edge type (each
    ``count[t]`` of ``len(x)``).  One ``out_nodes`` is built over all types in list
    order; ``reindex_src`` and ``reindex_dst`` are the per-type results
    concatenated.

    >>> import weft
    >>> t = weft.to_tensor
    >>> src, dst, out = weft.geometric.reindex_heter_graph(
    ...     t([0, 1, 2]), [t([8, 9, 0, 4, 7, 6, 7]), t([0, 2, 3, 5, 1])],
    ...     [t([2, 3, 2], dtype="int32"), t([1, 3, 1], dtype="int32")])
    >>> out.tolist()
    [0, 1, 2, 8, 9, 4, 7, 6, 3, 5]
    """
    return _reindex("reindex_heter_graph", x, neighbors, count, value_buffer, index_buffer, True)


__all__ = ["reindex_graph", "reindex_heter_graph"]
