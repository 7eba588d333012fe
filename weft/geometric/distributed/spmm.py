"""``DistCSR``: a CSR matrix partitioned by rows across Dask workers, and its
product with a dense matrix, differentiable.

Part ``p`` holds the rows it owns as a CSR block whose columns are renumbered
to the distinct columns those rows touch (``cols_p``, ascending: the part's own
rows and its halo).  ``A @ X`` sends each part the rows ``X[cols_p]`` it needs
(``mode="halo"``) or the whole of ``X`` once to every worker
(``mode="broadcast"``, which then picks ``X[cols_p]`` itself); every part runs
weft's native SpMM on its block and the client places the results at the part's
rows.  Since a row is computed whole by one part, with its entries in the
original order, the result equals the single-machine ``weft.sparse.matmul``.

The backward of ``Y = A @ X`` is ``dX = Aᵀ @ dY``, the transposed distributed
product: part ``p`` receives ``dY`` at its rows, returns ``A_pᵀ @ dY_p`` on its
columns, and the client adds the contributions of all parts (in part order, so
the sum is deterministic).  The two products are each other's backward, so
gradients of any order work.  ``A`` itself is a constant (no gradient for its
values).
"""
from __future__ import annotations

import numpy as np

from ...autograd import PyLayer
from ...core.tensor import Tensor
from ...sparse import matmul as _sparse_matmul, sparse_csr_tensor, transpose as _sparse_transpose
from ...sparse.tensor import SparseBase, SparseCsrTensor
from ._cluster import Placement, aligned, client_arg
from .partition import Partitioning, _index_array, range_assign

MODES = ("halo", "broadcast")


class _Block:
    """One part's rows on its worker: CSR over local columns, plus its transpose
    (built on first use) as weft sparse tensors."""

    def __init__(self, crows, cols, values, ncols):
        self.crows, self.cols, self.values = aligned(crows), aligned(cols), aligned(values)
        self.ncols = ncols
        self._a = self._at = None

    def matrix(self, transpose):
        if self._a is None:
            shape = [self.crows.shape[0] - 1, self.ncols]
            self._a = sparse_csr_tensor(self.crows, self.cols, self.values, shape)
        if transpose and self._at is None:
            self._at = _sparse_transpose(self._a, [1, 0])
        return self._at if transpose else self._a

    def nbytes(self):
        return self.crows.nbytes + self.cols.nbytes + self.values.nbytes


class RowBlocks:
    """The actor on one worker holding the row blocks of the parts placed there:
    one call per worker and product, whatever the number of its parts."""

    def __init__(self):
        self.blocks = {}

    def add(self, part, crows, cols, values, ncols):
        self.blocks[part] = _Block(crows, cols, values, ncols)
        return self.blocks[part].nbytes()

    def forward(self, parts, xs, x_all):
        """``A_p @ X_p`` for each part: ``xs[i]`` is the part's slice of X (halo), or
        None with ``x_all`` the whole X and ``xs[i]`` the part's columns (broadcast)."""
        out = []
        for p, x in zip(parts, xs):
            if x_all is not None:
                x = x_all if x is None else x_all[x]
            out.append(_sparse_matmul(self.blocks[p].matrix(False),
                                      Tensor._wrap(aligned(x))).numpy())
        return out

    def backward(self, parts, gs):
        """``A_pᵀ @ G_p`` for each part, on the part's columns."""
        return [_sparse_matmul(self.blocks[p].matrix(True), Tensor._wrap(aligned(g))).numpy()
                for p, g in zip(parts, gs)]


def _as_slice(rows):
    """``rows`` (ascending) as a slice when they are contiguous: writing a part's
    result then is a block copy."""
    if rows.size and int(rows[-1]) - int(rows[0]) == rows.size - 1:
        return slice(int(rows[0]), int(rows[-1]) + 1)
    return rows


def _assignment_arg(parts, nrows, op):
    if isinstance(parts, Partitioning):
        a = parts.assignment
    elif isinstance(parts, (int, np.integer)) and not isinstance(parts, bool):
        if not 1 <= parts <= max(nrows, 1):
            raise ValueError(f"{op}: parts must be in [1, rows = {nrows}], got {parts}")
        return range_assign(nrows, int(parts)), int(parts)
    else:
        a = _index_array(parts, "parts", op)
    if a.shape != (nrows,):
        raise ValueError(f"{op}: parts must be an int, a Partitioning or an assignment of shape "
                         f"[rows = {nrows}], got shape {list(a.shape)}")
    if a.size and a.min() < 0:
        raise ValueError(f"{op}: the assignment holds a negative part id {a.min()}")
    return a.astype(np.int32), int(a.max()) + 1 if a.size else 1


def _csr_arrays(matrix, op):
    """``(crows, cols, values, shape)`` of a weft CSR / COO tensor or a scipy matrix."""
    if isinstance(matrix, SparseBase):
        if len(matrix.shape) != 2:
            raise ValueError(f"{op}: matrix must be 2-D, got shape {list(matrix.shape)}")
        if not isinstance(matrix, SparseCsrTensor):
            matrix = matrix.to_sparse_csr()
        return (np.asarray(matrix.crows().numpy()), np.asarray(matrix.cols().numpy()),
                np.asarray(matrix.values().numpy()), tuple(matrix.shape))
    if hasattr(matrix, "tocsr") and hasattr(matrix, "shape"):
        m = matrix.tocsr()
        if m.ndim != 2:
            raise ValueError(f"{op}: matrix must be 2-D, got shape {list(m.shape)}")
        return m.indptr, m.indices, m.data, tuple(m.shape)
    raise TypeError(f"{op}: matrix must be a weft sparse tensor or a scipy.sparse matrix, got "
                    f"{type(matrix).__name__}")


class DistCSR:
    """A 2-D sparse matrix ``A [M, N]`` partitioned by rows over a Dask cluster.

    Args:
        client: a ``dask.distributed.Client`` with at least one worker.
        matrix: a weft CSR (or COO) tensor, or a scipy.sparse matrix (float32/float64
            or complex values).
        parts: the row -> part assignment: an int (contiguous blocks of rows, sizes differing by at most one), an int
            array ``[M]``, or a :class:`Partitioning` (its node assignment, for the
            adjacency of a partitioned graph).
        mode (str): ``"halo"`` (each product sends each part only the rows of X its
            columns touch) or ``"broadcast"`` (X goes once to every worker).
        timeout (float): seconds any call may wait for the workers.
        workers (list of str, optional): the worker addresses to use (default all);
            part ``p`` goes to worker ``p mod W``.

    ``A @ X`` (or :meth:`matmul`) takes a dense Tensor ``X [N, K]`` of the matrix's
    dtype and returns ``[M, K]``, differentiable in X to any order.

    Raises: ``TypeError`` / ``ValueError`` for a bad client, matrix, assignment or
    mode, or a client without workers; ``RuntimeError`` if a worker holding a part
    dies; ``TimeoutError`` past ``timeout``.
    """

    op = "DistCSR"

    def __init__(self, client, matrix, parts, mode="halo", timeout=120.0, workers=None):
        op = self.op
        client_arg(client, op)
        if mode not in MODES:
            raise ValueError(f"{op}: mode must be one of {', '.join(map(repr, MODES))}, got "
                             f"{mode!r}")
        crows, cols, values, shape = _csr_arrays(matrix, op)
        assign, nparts = _assignment_arg(parts, shape[0], op)
        self.shape, self.dtype, self.mode = shape, values.dtype, mode
        self._place = Placement(client, nparts, timeout, op, workers)
        self.client = self._place.client
        crows = crows.astype(np.int64)
        deg = np.diff(crows)
        order = np.argsort(assign, kind="stable")
        bounds = np.searchsorted(assign[order], np.arange(nparts + 1))
        self._rows, self._cols, blocks = [], [], []
        for p in range(nparts):
            rows = order[bounds[p]:bounds[p + 1]].astype(np.int64)
            d = deg[rows]
            lptr = np.zeros(rows.size + 1, np.int64)
            np.cumsum(d, out=lptr[1:])
            slots = np.repeat(crows[rows] - lptr[:-1], d) + np.arange(lptr[-1])
            pc = cols[slots].astype(np.int64)
            ucols, local = np.unique(pc, return_inverse=True)
            self._rows.append(_as_slice(rows))
            # None: the part touches every column, X goes as it is (no gather)
            self._cols.append(None if ucols.size == shape[1] else ucols)
            blocks.append((lptr, local.astype(np.int64), np.ascontiguousarray(values[slots]),
                           ucols.size))
        # one actor per worker used; its parts, in part order
        place = self._place
        self._workers = sorted(set(place.part_worker))
        self._parts_of = {w: [p for p in range(nparts) if place.part_worker[p] == w]
                          for w in self._workers}
        self._futures, actors = place.actors(RowBlocks, lambda i: (), self._workers)
        self._servers = dict(zip(self._workers, actors))
        calls = [place.call(self._servers[place.part_worker[p]], "add", p, *blocks[p])
                 for p in range(nparts)]
        self.part_nbytes = place.gather(calls, "placing the row blocks", count=False)
        place.reset_stats()

    @property
    def num_parts(self):
        return len(self._rows)

    @property
    def stats(self):
        """``tasks``, ``bytes_sent``, ``bytes_received`` since :meth:`reset_stats`."""
        return dict(self._place.stats)

    def reset_stats(self):
        self._place.reset_stats()

    def close(self):
        if self._servers:
            self._servers = {}
            self.client.cancel(self._futures)

    def __repr__(self):
        return (f"DistCSR(shape={list(self.shape)}, dtype={self.dtype}, "
                f"num_parts={self.num_parts}, mode={self.mode!r})")

    def _alive(self):
        if not self._servers:
            raise RuntimeError(f"{self.op}: the matrix was closed")

    def _product(self, x, transpose):
        """``A @ x`` or ``Aᵀ @ x`` on host arrays: one actor call per worker."""
        self._alive()
        place = self._place
        if transpose:
            what = "computing Aᵀ @ G"
            calls = [place.call(self._servers[w], "backward", ps,
                                [x[self._rows[p]] for p in ps]) for w, ps in self._parts_of.items()]
            out = np.zeros((self.shape[1], x.shape[1]), x.dtype)
            for ps, rs in zip(self._parts_of.values(), place.gather(calls, what)):
                for p, r in zip(ps, rs):    # in part order: a deterministic sum
                    if self._cols[p] is None:
                        out += r
                    else:
                        out[self._cols[p]] += r
            return out
        what = "computing A @ X"
        if self.mode == "broadcast":   # X once per worker; each part picks its columns there
            calls = [place.call(self._servers[w], "forward", ps, [self._cols[p] for p in ps], x)
                     for w, ps in self._parts_of.items()]
        else:                          # each part gets the rows of X its columns touch
            calls = [place.call(self._servers[w], "forward", ps,
                                [x if self._cols[p] is None else x[self._cols[p]] for p in ps],
                                None) for w, ps in self._parts_of.items()]
        results = place.gather(calls, what)
        if self.num_parts == 1 and isinstance(self._rows[0], slice) and \
                self._rows[0] == slice(0, self.shape[0]):
            return aligned(results[0][0], writeable=True)
        out = np.empty((self.shape[0], x.shape[1]), x.dtype)   # every row has one owner
        for ps, rs in zip(self._parts_of.values(), results):
            for p, r in zip(ps, rs):
                out[self._rows[p]] = r
        return out

    def matmul(self, x):
        """``A @ x`` for a dense Tensor ``x [N, K]`` of the matrix's dtype."""
        op = f"{self.op}.matmul"
        if not isinstance(x, Tensor):
            raise TypeError(f"{op}: x must be a dense Tensor, got {type(x).__name__}")
        if len(x.shape) != 2 or x.shape[0] != self.shape[1]:
            raise ValueError(f"{op}: x must have shape [{self.shape[1]}, K] for a "
                             f"{list(self.shape)} matrix, got {list(x.shape)}")
        if np.dtype(x.numpy().dtype) != self.dtype:
            raise ValueError(f"{op}: x has dtype {x.numpy().dtype} but the matrix has dtype "
                             f"{self.dtype}; cast one of them")
        return _DistMatmul.apply(x, self, False)

    def __matmul__(self, x):
        return self.matmul(x)


class _DistMatmul(PyLayer):
    """``A @ x`` (``transpose=False``) or ``Aᵀ @ x``; each is the other's vjp."""

    @staticmethod
    def forward(ctx, x, mat, transpose):
        ctx.mat, ctx.transpose = mat, transpose
        return Tensor._wrap(mat._product(np.ascontiguousarray(x.numpy()), transpose))

    @staticmethod
    def backward(ctx, g):
        return _DistMatmul.apply(g, ctx.mat, not ctx.transpose)


__all__ = ["DistCSR"]
