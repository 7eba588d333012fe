"""Neighbour sampling on CSC graphs (``paddle.geometric.sample_neighbors`` and
``weighted_sample_neighbors``).

The graph is given in CSC form: the in-edges of node ``v`` occupy the slots
``colptr[v] .. colptr[v+1]-1`` of ``row``, which holds their source ids.  The
kernels live in ``csrc/graph/sampling.cpp``; this module converts and checks
the arguments and draws the seed.

Randomness: each call draws one seed from the generator of the inputs' device
(``weft.core.random.next_seed``), and input node ``i`` samples from its own
stream derived from ``(seed, i)``.  Results are therefore reproducible under
``weft.seed`` and do not depend on the number of threads.

GPU: CuPy inputs are sampled on the host (one device-to-host copy of the
inputs and a copy of the results back); the results are identical to the CPU
ones for the same seed.
"""
from __future__ import annotations


import numpy as np

from .._native import extension as _extension

from ..core import random as _random
from ..core.convert import to_array
from ..core.place import CPU, move_array, place_of_array
from ..core.args import int_arg
from ..core.tensor import Tensor

def _C():
    return _extension


def _array_of(x, arg, op):
    """The backend array behind a Tensor / array-like argument."""
    if isinstance(x, Tensor):
        return x._data
    if x is None:
        raise TypeError(f"{op}: {arg} must be a Tensor, got None")
    if isinstance(x, np.ndarray) or type(x).__module__.startswith("cupy"):
        return x
    if isinstance(x, (list, tuple)):
        if len(x) == 0:
            return np.zeros(0, np.int64)
        try:
            return to_array(x, copy=False, place=CPU)
        except (TypeError, ValueError):
            pass
    raise TypeError(f"{op}: {arg} must be a Tensor, got {type(x).__name__}")


def index_arg(x, arg, op, places):
    """A 1-D int32/int64 host array (an ``[n, 1]`` column is flattened).

    The device of ``x`` is appended to ``places`` so that callers can check that
    all inputs live on one device and return results there.
    """
    a = _array_of(x, arg, op)
    places.append(CPU if type(a) is np.ndarray else place_of_array(a))
    if a.dtype not in (np.int32, np.int64):
        raise TypeError(f"{op}: {arg} must be an int32 or int64 tensor, got dtype {a.dtype}")
    if a.ndim == 2 and a.shape[1] == 1:
        a = a.reshape(-1)
    if a.ndim != 1:
        raise ValueError(f"{op}: {arg} must be 1-D (or an [n, 1] column), got shape "
                         f"{list(a.shape)}")
    if type(a) is not np.ndarray:
        a = a.get()
    return np.ascontiguousarray(a)


def same_dtype(a, a_name, b, b_name, op):
    if a.dtype != b.dtype:
        raise ValueError(f"{op}: {a_name} has dtype {a.dtype} but {b_name} has dtype {b.dtype}; "
                         "they must have the same dtype")


def common_place(places, op):
    p = places[0]
    for q in places[1:]:
        if q != p:
            raise ValueError(f"{op}: the inputs live on different devices ({p} and {q}); move "
                             "them to one device first")
    return p


def wrap(arr, place):
    """A result array as a Tensor on ``place``."""
    return Tensor._wrap(arr if not place.is_gpu else move_array(arr, place))


def csc_args(row, colptr, input_nodes, op, places):
    """``row``, ``colptr`` and ``input_nodes`` as host index arrays of one dtype (their
    places appended to ``places``)."""
    row_a = index_arg(row, "row", op, places)
    colptr_a = index_arg(colptr, "colptr", op, places)
    nodes_a = index_arg(input_nodes, "input_nodes", op, places)
    same_dtype(row_a, "row", colptr_a, "colptr", op)
    same_dtype(row_a, "row", nodes_a, "input_nodes", op)
    # O(1) whole-graph check; the samplers check the ranges of the nodes they visit
    if colptr_a.shape[0] and int(colptr_a[-1]) != row_a.shape[0]:
        raise ValueError(f"{op}: colptr[-1] must equal the number of edges len(row) = "
                         f"{row_a.shape[0]}, got {int(colptr_a[-1])}")
    return row_a, colptr_a, nodes_a


def sample_size_arg(sample_size, op, arg="sample_size"):
    """An int (Python / numpy int, or a 1-element int Tensor); negative means "all"."""
    s = int_arg(sample_size, op, arg)
    return -1 if s < 0 else min(s, (1 << 63) - 1)


def _bool_arg(v, arg, op):
    if not isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{op}: {arg} must be a bool, got {type(v).__name__}")
    return bool(v)


def _sample(op, row, colptr, input_nodes, sample_size, eids, return_eids, perm_buffer=None,
            edge_weight=None):
    """Shared body of the public samplers; ``op`` names the caller in messages."""
    return_eids = _bool_arg(return_eids, "return_eids", op)
    if return_eids and eids is None:
        raise ValueError(f"{op}: `eids` should not be None if `return_eids` is True.")
    places = []
    row_a, colptr_a, nodes_a = csc_args(row, colptr, input_nodes, op, places)
    if colptr_a.shape[0] == 0:
        raise ValueError(f"{op}: colptr must have num_nodes + 1 >= 1 entries, got an empty tensor")
    k = sample_size_arg(sample_size, op)
    eids_a = None
    if eids is not None and return_eids:
        eids_a = index_arg(eids, "eids", op, places)
        if eids_a.shape[0] != row_a.shape[0]:
            raise ValueError(f"{op}: eids must have one entry per edge (len(row) = "
                             f"{row_a.shape[0]}), got {eids_a.shape[0]}")
    elif eids is not None:  # validated although unused, so that bad input never passes silently
        e = index_arg(eids, "eids", op, places)
        if e.shape[0] != row_a.shape[0]:
            raise ValueError(f"{op}: eids must have one entry per edge (len(row) = "
                             f"{row_a.shape[0]}), got {e.shape[0]}")
    if perm_buffer is not None:
        pb = index_arg(perm_buffer, "perm_buffer", op, places)
        if pb.shape[0] != row_a.shape[0]:
            raise ValueError(f"{op}: perm_buffer must have one entry per edge (len(row) = "
                             f"{row_a.shape[0]}), got {pb.shape[0]}")
    w = None
    if edge_weight is not None:
        w = _array_of(edge_weight, "edge_weight", op)
        places.append(CPU if type(w) is np.ndarray else place_of_array(w))
        if w.dtype not in (np.float32, np.float64):
            raise TypeError(f"{op}: edge_weight must be a float32 or float64 tensor, got dtype "
                            f"{w.dtype}")
        if w.ndim == 2 and w.shape[1] == 1:
            w = w.reshape(-1)
        if w.ndim != 1 or w.shape[0] != row_a.shape[0]:
            raise ValueError(f"{op}: edge_weight must be 1-D with one entry per edge (len(row) = "
                             f"{row_a.shape[0]}), got shape {list(w.shape)}")
        w = np.ascontiguousarray(w if type(w) is np.ndarray else w.get())
    place = common_place(places, op)
    seed = _random.next_seed(place)
    if w is None:
        nbrs, count, out_eids = _C().sample_neighbors(row_a, colptr_a, nodes_a, k, eids_a, seed, op)
    else:
        nbrs, count, out_eids = _C().weighted_sample_neighbors(row_a, colptr_a, w, nodes_a, k,
                                                               eids_a, seed, op)
    if return_eids:
        return wrap(nbrs, place), wrap(count, place), wrap(out_eids, place)
    return wrap(nbrs, place), wrap(count, place)


def sample_neighbors(row, colptr, input_nodes, sample_size=-1, eids=None, return_eids=False,
                     perm_buffer=None, name=None):
    """Sample in-neighbours of ``input_nodes`` uniformly without replacement.

    Args:
        row (Tensor): 1-D int32/int64, the source id of every edge in CSC order.
        colptr (Tensor): 1-D ``[num_nodes + 1]``, same dtype; node ``v``'s in-edges
            are the slots ``colptr[v] .. colptr[v+1]-1`` of ``row``.
        input_nodes (Tensor): 1-D node ids in ``[0, num_nodes)`` (same dtype);
            duplicates are sampled independently.
        sample_size (int): neighbours per node; ``k = min(sample_size, deg)``, and
            a negative value (the default) means all of them.
        eids (Tensor, optional): 1-D int32/int64 edge ids in the slot order of ``row``.
        return_eids (bool): also return the ids of the sampled edges (needs ``eids``).
        perm_buffer (Tensor, optional): Paddle's GPU scratch buffer; checked
            (int, one entry per edge) and ignored.
        name: ignored.

    Returns:
        ``(out_neighbors, out_count)`` or ``(out_neighbors, out_count, out_eids)``:
        the samples of all nodes concatenated (row's dtype), the number per node
        (int32), and the matching edge ids (eids' dtype).  When ``k == deg`` a node
        returns all its in-neighbours in CSC order; otherwise ``k`` distinct slots,
        each k-subset equally likely, listed in slot order.

    Each call draws one seed from the device's generator (reproducible under
    ``weft.seed``); the result does not depend on the thread count.  CuPy inputs
    are sampled on the host and the results copied back.

    Raises:
        TypeError: non-integer index tensors, non-int ``sample_size``.
        ValueError: mismatched dtypes or lengths, a malformed ``colptr``,
            ``return_eids`` without ``eids``.
        IndexError: an input node outside ``[0, num_nodes)``.

    >>> import weft
    >>> row = weft.to_tensor([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7])
    >>> colptr = weft.to_tensor([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13])
    >>> nbrs, cnt = weft.geometric.sample_neighbors(row, colptr, weft.to_tensor([0, 8, 1, 2]))
    >>> nbrs.tolist(), cnt.tolist()
    ([3, 7, 9, 7, 0, 9, 1], [2, 2, 2, 1])
    """
    return _sample("sample_neighbors", row, colptr, input_nodes, sample_size, eids, return_eids,
                   perm_buffer)


def weighted_sample_neighbors(row, colptr, edge_weight, input_nodes, sample_size=-1, eids=None,
                              return_eids=False, name=None):
    """Sample in-neighbours without replacement with probability proportional to a weight.

    As :func:`sample_neighbors`, with ``edge_weight`` (1-D float32/float64, one
    non-negative, non-NaN weight per edge, aligned with ``row``).  When
    ``k < deg`` the slots are drawn by A-Res (Efraimidis-Spirakis): each slot gets
    the key ``u**(1/w)`` (computed as ``-log(u)/w``) and the ``k`` best keys win,
    which is sequential weighted sampling without replacement.  Zero-weight
    edges are taken only after every positive-weight edge of the node (then
    uniformly), and ``+inf`` weights before all others.  The chosen slots are
    listed in CSC order.  Only the weights of the input nodes' in-edges are read
    (and checked).

    Raises:
        ValueError: a negative or NaN weight, or as :func:`sample_neighbors`.
        TypeError: a non-float ``edge_weight``, or as :func:`sample_neighbors`.

    >>> import weft
    >>> row = weft.to_tensor([1, 2, 3, 4])
    >>> colptr = weft.to_tensor([0, 4, 4, 4, 4, 4])
    >>> w = weft.to_tensor([0.0, 0.0, 0.0, 1.0])
    >>> nbrs, cnt = weft.geometric.weighted_sample_neighbors(row, colptr, w,
    ...                                                      weft.to_tensor([0]), sample_size=2)
    >>> 4 in nbrs.tolist(), cnt.tolist()
    (True, [2])
    """
    if edge_weight is None:
        raise TypeError("weighted_sample_neighbors: edge_weight must be a Tensor, got None")
    return _sample("weighted_sample_neighbors", row, colptr, input_nodes, sample_size, eids,
                   return_eids, edge_weight=edge_weight)


__all__ = ["sample_neighbors", "weighted_sample_neighbors"]
