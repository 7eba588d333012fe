"""Sparse tensor types: :class:`SparseCooTensor` and :class:`SparseCsrTensor`.

Design (api-sparse.md §1, design.md core decision 3):

* Both types subclass :class:`weft.Tensor`, and ``_data`` is the **values** array
  (``[nnz, *dense_shape]`` for COO, ``[nnz]`` for CSR). The autograd engine only
  ever looks at ``_data``, so dtype, place and differentiability checks, version
  counters and graph recording work unchanged: a sparse op is a ``Primitive``
  whose forward receives the values array (index arrays travel as params) and
  returns the output values; the result Tensor is then re-dressed as a sparse
  tensor sharing the node (:func:`wrap_coo` / :func:`wrap_csr`).
* The components live in extra slots: ``_indices`` ([sparse_dim, nnz] int32/int64)
  and ``_coalesced`` for COO; ``_crows`` ([B*(M+1)]) and ``_cols`` ([nnz], same
  dtype as crows) for CSR; ``_shape`` (tuple) for both. Component arrays are never
  widened or copied when they are passed along: int32 stays int32.
* Inside the engine the cotangent of a sparse tensor is a dense Tensor shaped like
  its values (the masked gradient read at the stored entries, in storage order).
  Where a gradient becomes visible (a leaf's ``.grad``, ``retain_grads()``,
  ``weft.grad`` results, leaf hooks) it is re-dressed as a sparse tensor with the
  tensor's own pattern, so ``x.grad`` is sparse with the same format, index dtype
  and pattern as ``x`` (masked semantics). A sparse cotangent handed to the engine
  (``backward(grad_tensor)``, a vjp returning a sparse tensor) must have the same
  pattern and is unwrapped back to its values.
* ``numpy()`` / ``np.asarray`` raise ``TypeError`` (call ``to_dense()`` first): no
  op densifies silently.
"""
from __future__ import annotations

import numpy as np

from ..autograd.engine import Primitive, apply, defvjp
from ..core.dtype import UnsupportedDtypeError
from ..core.tensor import Tensor
from ..ops.math.ufuncs import add

# values() and the values of a freshly built sparse tensor: the same array, a new graph
# node (so a sparse tensor built from a leaf is a non-leaf whose gradient reaches it)
IDENTITY = Primitive("sparse_values", lambda v: v, view=True)
defvjp(IDENTITY, lambda g, ans, v: g, save=(), save_out=False)


def values_of(x):
    """The stored values of sparse ``x`` as a dense Tensor sharing its storage
    (differentiable into ``x``); ``weft.sparse.values`` checks its argument, then calls this."""
    return apply(IDENTITY, x)


class SparseLayoutError(TypeError):
    """An accessor or op was used on a tensor of the wrong layout (e.g. ``crows()`` on COO)."""


def _read_only(a):
    """A read-only view of index array ``a``. A sparse tensor's pattern never changes
    (its coalesced/canonical flags and cached product plan rely on that), so the
    accessors hand out views that cannot write into it: weft's in-place ops copy such
    a view before writing. CuPy arrays have no such flag and are returned as they are."""
    if type(a) is not np.ndarray:
        return a
    v = a.view()
    v.flags.writeable = False
    return v


def _host(a):
    return a if type(a) is np.ndarray else a.get()


class SparseBase(Tensor):
    __slots__ = ("_shape",)

    # -- metadata ------------------------------------------------------------------
    @property
    def shape(self):
        return list(self._shape)

    @property
    def ndim(self):
        return len(self._shape)

    def dim(self):
        return len(self._shape)

    ndimension = dim

    @property
    def size(self):
        n = 1
        for s in self._shape:
            n *= s
        return n

    def numel(self):
        return self.size

    def __len__(self):
        if not self._shape:
            raise TypeError("len() of a 0-D tensor")
        return self._shape[0]

    def is_sparse(self):
        return True

    def is_dense(self):
        return False

    def nnz(self):
        """Number of stored entries (index columns; duplicates and explicit zeros count)."""
        return int(self._data.shape[0])

    # -- no silent densification ---------------------------------------------------
    def numpy(self):
        raise TypeError(f"numpy(): {type(self).__name__} has no dense numpy form; call "
                        "to_dense() first (or weft.sparse.to_scipy for a scipy matrix)")

    def __array__(self, dtype=None, copy=None):
        raise TypeError(f"np.asarray: {type(self).__name__} has no dense numpy form; call "
                        "to_dense() first (or weft.sparse.to_scipy for a scipy matrix)")

    def tolist(self):
        raise TypeError("tolist(): call to_dense() first on a sparse tensor")

    def item(self, *args):
        raise TypeError("item(): call to_dense() first on a sparse tensor")

    def __iter__(self):
        raise TypeError("iteration over a sparse tensor; call to_dense() first")

    def __reduce__(self):
        raise TypeError("sparse tensors cannot be pickled yet; save their components")

    def __dlpack__(self, *args, **kwargs):
        raise TypeError("sparse tensors have no DLPack form; export their components")

    # -- shared accessors ----------------------------------------------------------
    # values, to_dense, to_sparse_coo, to_sparse_csr, coalesce and clone are attached
    # by convert.py, is_same_shape, astype and cast by structural.py (add_methods), the
    # modules that implement them; this module sits below both.

    def detach(self):
        """Same components and values storage, no history, ``stop_gradient=True``."""
        t = self._same_pattern(self._data)
        t._version = self._version
        return t

    # -- engine interface ----------------------------------------------------------
    def _same_pattern(self, data):
        """A tensor with this one's pattern around the values array ``data`` (no history)."""
        raise NotImplementedError(f"{type(self).__name__} must implement _same_pattern (each "
                                  "sparse layout rebuilds its own components)")

    def _grad_from_values(self, g):
        """The engine's values-shaped cotangent ``g`` as a sparse tensor of this pattern.

        The result shares ``g``'s graph (for ``create_graph``)."""
        t = self._same_pattern(g._data)
        t.stop_gradient = g.stop_gradient
        t._node = g._node
        t._oidx = g._oidx
        return t

    def _same_pattern_as(self, other):
        raise NotImplementedError(f"{type(self).__name__} must implement _same_pattern_as "
                                  "(pattern equality is layout-specific)")

    def _with_values(self, v):
        """A tensor of this pattern whose values are the Tensor ``v`` (gradients reach v)."""
        return adopt(self._same_pattern(v._data), v)

    def _values_cotangent(self, g, what="gradient"):
        """Check a cotangent for this tensor and return it as values-shaped dense Tensor."""
        if isinstance(g, SparseBase):
            if not self._same_pattern_as(g):
                raise ValueError(f"{what}: a sparse gradient must have the pattern (layout, "
                                 f"shape and indices) of the tensor it belongs to; got a "
                                 f"{type(g).__name__} of shape {g.shape} with {g.nnz()} "
                                 f"entries for a {type(self).__name__} of shape {self.shape} "
                                 f"with {self.nnz()} entries")
            return values_of(g)
        if g._data.shape != self._data.shape and list(g._data.shape) == self.shape:
            # a dense gradient of the whole tensor: keep it at the stored positions only
            # (_mask_dense is structural.mask_as, attached when structural loads)
            return values_of(self._mask_dense(g))
        return g

    def _add_grad(self, a, b):
        """``a + b`` for two gradients of this tensor (both of its pattern)."""
        return self._grad_from_values(add(_values_view(a), _values_view(b)))

    # -- printing ------------------------------------------------------------------
    def _place_text(self):
        p = self.place
        return "Place(cpu)" if not p.is_gpu else f"Place(gpu:{p.device_id})"

    @staticmethod
    def _arr_text(a, indent):
        return np.array2string(_host(a), separator=", ", precision=8, prefix=" " * indent,
                               threshold=1000, edgeitems=3)

    def __str__(self):
        return self.__repr__()


def _values_view(g):
    """The values of a sparse gradient (differentiable), or ``g`` itself when dense."""
    if isinstance(g, SparseBase):
        return values_of(g)
    return g


def _same_array(a, b):
    if a is b:
        return True
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    xp = np if type(a) is np.ndarray else __import__("cupy")
    return bool(xp.array_equal(a, b))


class SparseCooTensor(SparseBase):
    """A COO sparse tensor: ``indices()`` [sparse_dim, nnz] and ``values()`` [nnz, *dense].

    Build with :func:`weft.sparse.sparse_coo_tensor` or ``x.to_sparse_coo(k)``.

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 2])
    >>> x.nnz(), x.shape, x.is_sparse_coo()
    (2, [2, 2], True)
    """

    __slots__ = ("_indices", "_coalesced")

    def is_sparse_coo(self):
        return True

    def is_sparse_csr(self):
        return False

    def indices(self, name=None):
        """The [sparse_dim, nnz] index array as a Tensor (no copy, not differentiable;
        writing to it copies first, so this tensor's pattern never changes)."""
        return Tensor._wrap(_read_only(self._indices))

    def crows(self, name=None):
        raise SparseLayoutError("crows(): only effective for SparseCsrTensor, got a "
                                "SparseCooTensor")

    def cols(self, name=None):
        raise SparseLayoutError("cols(): only effective for SparseCsrTensor, got a "
                                "SparseCooTensor")

    def sparse_dim(self):
        return int(self._indices.shape[0])

    def dense_dim(self):
        return len(self._shape) - int(self._indices.shape[0])

    def is_coalesced(self):
        return bool(self._coalesced)

    def _same_pattern(self, data):
        return new_coo(data, self._indices, self._shape, self._coalesced)

    def _same_pattern_as(self, other):
        return (isinstance(other, SparseCooTensor) and other._shape == self._shape
                and other._data.shape == self._data.shape
                and _same_array(other._indices, self._indices))

    def __repr__(self):
        return (f"Tensor(shape={self.shape}, dtype={self.dtype.name}, place={self._place_text()}, "
                f"stop_gradient={self.stop_gradient}, layout=sparse_coo, nnz={self.nnz()},\n"
                f"       indices={self._arr_text(self._indices, 15)},\n"
                f"       values={self._arr_text(self._data, 14)})")


class SparseCsrTensor(SparseBase):
    """A CSR sparse tensor, 2-D ``[M, N]`` or batched 3-D ``[B, M, N]``.

    Components: ``crows()`` [B*(M+1)] (per-batch row pointers, each starting at 0),
    ``cols()`` [nnz] and ``values()`` [nnz].

    >>> import weft
    >>> x = weft.sparse.sparse_csr_tensor([0, 1, 2], [1, 0], [3.0, 4.0], [2, 2])
    >>> x.crows().tolist(), x.is_sparse_csr()
    ([0, 1, 2], True)
    """

    # _canonical: whether the columns strictly increase inside every row (sorted, no
    # duplicates); None until someone checks. _plan: the products' view of the
    # pattern (sparse/matmul.py), which caches row ids and the transposed pattern that
    # dense @ sparse products and gradients need. The components never change, so
    # both are kept and handed to every tensor sharing them.
    __slots__ = ("_crows", "_cols", "_canonical", "_plan")

    def is_sparse_coo(self):
        return False

    def is_sparse_csr(self):
        return True

    def indices(self, name=None):
        raise SparseLayoutError("indices(): only effective for SparseCooTensor, got a "
                                "SparseCsrTensor")

    def crows(self, name=None):
        return Tensor._wrap(_read_only(self._crows))

    def cols(self, name=None):
        return Tensor._wrap(_read_only(self._cols))

    def sparse_dim(self):
        return len(self._shape)

    def dense_dim(self):
        return 0

    def is_coalesced(self):
        raise SparseLayoutError("is_coalesced(): only effective for SparseCooTensor, got a "
                                "SparseCsrTensor")

    def _same_pattern(self, data):
        t = new_csr(data, self._crows, self._cols, self._shape, self._canonical)
        t._plan = getattr(self, "_plan", None)
        return t

    def _same_pattern_as(self, other):
        return (isinstance(other, SparseCsrTensor) and other._shape == self._shape
                and other._data.shape == self._data.shape
                and _same_array(other._crows, self._crows)
                and _same_array(other._cols, self._cols))

    def __repr__(self):
        return (f"Tensor(shape={self.shape}, dtype={self.dtype.name}, place={self._place_text()}, "
                f"stop_gradient={self.stop_gradient}, layout=sparse_csr, nnz={self.nnz()},\n"
                f"       crows={self._arr_text(self._crows, 13)},\n"
                f"       cols={self._arr_text(self._cols, 12)},\n"
                f"       values={self._arr_text(self._data, 14)})")


# ----------------------------------------------------------------------------------
# constructors used by the package (no validation: callers have checked)


def new_coo(data, indices, shape, coalesced=False):
    t = SparseCooTensor._wrap(data)
    t._indices = indices
    t._shape = tuple(int(s) for s in shape)
    t._coalesced = bool(coalesced)
    return t


def new_csr(data, crows, cols, shape, canonical=None):
    t = SparseCsrTensor._wrap(data)
    t._crows = crows
    t._cols = cols
    t._shape = tuple(int(s) for s in shape)
    t._canonical = canonical
    t._plan = None
    return t


def adopt(t, v):
    """Give sparse ``t`` the values tensor ``v``'s graph position.

    A values tensor that is itself a leaf requiring grad is first passed through an
    identity op, so the sparse tensor is a non-leaf and gradients reach ``v``."""
    if not v.stop_gradient:
        if v._node is None:
            v = apply(IDENTITY, v)
            t._data = v._data
        t.stop_gradient = False
        t._node = v._node
        t._oidx = v._oidx
        t._version = v._version
    return t


def wrap_coo(values, indices, shape, coalesced=False):
    """A SparseCooTensor around the values Tensor ``values`` (its graph kept)."""
    return adopt(new_coo(values._data, indices, shape, coalesced), values)


def wrap_csr(values, crows, cols, shape, canonical=None):
    """A SparseCsrTensor around the values Tensor ``values`` (its graph kept);
    ``canonical=True`` records that the caller built sorted, duplicate-free rows."""
    return adopt(new_csr(values._data, crows, cols, shape, canonical), values)


def is_sparse_tensor(x):
    return isinstance(x, SparseBase)


__all__ = ["SparseCooTensor", "SparseCsrTensor", "SparseLayoutError", "UnsupportedDtypeError"]
