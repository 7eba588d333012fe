"""The op database: one :class:`OpInfo` per public op, iterated by the generic tests.

Entries live in ``tests/opdb/<family>.py`` (one list ``OPS`` per family) and are
gathered here as ``OP_DB``. An entry gives a sample-input generator, a numpy or
scipy reference, the supported dtypes, layouts and devices, and flags;
``tests/test_ops.py`` then checks every entry, for each layout and device it
declares, for forward values against the reference, the Tensor method, gradients
(``gradcheck``), second-order gradients (``gradgradcheck``), edge-case shapes, and
bad inputs. Adding an op means adding one entry.

Sparse operands are described by :class:`SparseArg` (a dense value, the stored
pattern and how to store it); a reference may describe a sparse result by
:class:`SparseOut` (or return a scipy.sparse array), so that the result's layout and
pattern are checked as well as its dense value.
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

FLOATS = (np.dtype("float32"), np.dtype("float64"))
COMPLEX = (np.dtype("complex64"), np.dtype("complex128"))
FLOAT_AND_COMPLEX = FLOATS + COMPLEX
INTS = (np.dtype("int32"), np.dtype("int64"))
ALL_NUMERIC = INTS + FLOATS
ALL = (np.dtype("bool"),) + INTS + FLOATS + COMPLEX

LAYOUTS = ("dense", "coo", "csr")
DEVICES = ("cpu", "gpu")

# forward tolerances by dtype (atol, rtol)
TOL = {
    np.dtype("float16"): (1e-2, 1e-2),
    np.dtype("float32"): (1e-5, 1e-4),
    np.dtype("float64"): (1e-10, 1e-7),
    np.dtype("complex64"): (1e-5, 1e-4),
    np.dtype("complex128"): (1e-10, 1e-7),
}


class SampleInput:
    """Positional and keyword arguments of one call.

    numpy arrays among ``input``/``args`` (and lists of arrays) become Tensors for the
    weft call; the reference receives them as numpy arrays. ``kwargs`` pass to both
    unless ``ref_kwargs`` overrides what the reference gets. ``name`` labels the case
    in failures ("0-D", "empty", "broadcast", "noncontig"...).
    """

    def __init__(self, input, *args, name="", ref_kwargs=None, grad_args=None, **kwargs):
        self.input = input
        self.args = args
        self.kwargs = kwargs
        self.name = name
        self.ref_kwargs = kwargs if ref_kwargs is None else ref_kwargs
        # indices (0 = input, 1.. = args) of the positions to differentiate; None = all arrays
        self.grad_args = grad_args

    def __repr__(self):
        def d(a):
            if isinstance(a, np.ndarray):
                return f"array{list(a.shape)}:{a.dtype.name}"
            if isinstance(a, (list, tuple)) and a and isinstance(a[0], np.ndarray):
                return "[" + ", ".join(d(x) for x in a) + "]"
            return repr(a)
        parts = [d(self.input)] + [d(a) for a in self.args] + \
            [f"{k}={d(v)}" for k, v in self.kwargs.items()]
        return f"SampleInput<{self.name}>({', '.join(parts)})"


@dataclass
class ErrorInput:
    """A call that must raise ``exc`` with a message matching ``match`` (a regex)."""

    sample: SampleInput
    exc: type
    match: str = ""


@dataclass
class OpInfo:
    name: str
    op: Callable
    ref: Callable | None
    sample_inputs: Callable[[np.dtype, np.random.Generator], Any]
    dtypes: tuple = FLOATS
    # dtypes on which gradients are checked (intersected with dtypes)
    grad_dtypes: tuple = (np.dtype("float64"), np.dtype("complex128"))
    supports_grad: bool = True
    supports_gradgrad: bool = True
    method: str | None = None          # Tensor method name, if Paddle has one
    # error_inputs(rng), or error_inputs(rng, layout) for an entry with a sparse layout
    error_inputs: Callable[..., Any] | None = None
    atol: float | None = None          # override the forward tolerance
    rtol: float | None = None
    check_dtype: bool = True           # output dtype must equal the reference's
    # if set, the reference's dtype is not comparable: the expected output dtype
    out_dtype: Callable[[np.dtype], np.dtype] | None = None
    gradcheck_kwargs: dict = field(default_factory=dict)
    # why a check is skipped, by check name ("forward", "grad", "gradgrad", ...)
    skips: dict = field(default_factory=dict)
    # the weft output to compare: e.g. lambda out: out[0] for ops returning tuples
    nondeterministic: bool = False
    # the layouts the entry exercises (LAYOUTS): of its sparse operands, or for the
    # sparse constructors, of the tensor they build; the generic tests run each one.
    # An entry with a sparse layout has a generator taking (dtype, rng, layout).
    layout: tuple = ("dense",)
    # the devices the op supports (DEVICES); GPU cases run only where CuPy sees a device
    device: tuple = ("cpu", "gpu")
    # what the reference receives for a SparseArg operand: "dense" (the numpy value),
    # "scipy" (a 2-D scipy.sparse array with the stored entries) or "arg" (the
    # SparseArg itself, for references that need the stored pattern)
    ref_sparse: str = "dense"

    def __post_init__(self):
        bad = [x for x in self.layout if x not in LAYOUTS]
        bad += [x for x in self.device if x not in DEVICES]
        if bad or not self.layout or not self.device or \
                self.ref_sparse not in ("dense", "scipy", "arg"):
            raise ValueError(f"OpInfo({self.name}): layout {self.layout}, device {self.device}, "
                             f"ref_sparse {self.ref_sparse!r}: unknown or empty")

    @property
    def is_sparse(self):
        return any(x != "dense" for x in self.layout)

    def samples(self, dtype, rng, layout="dense"):
        """The sample inputs for ``layout`` (dense-only generators take no layout)."""
        if not self.is_sparse:
            return self.sample_inputs(dtype, rng)
        return self.sample_inputs(dtype, rng, layout)

    def __repr__(self):
        return f"OpInfo({self.name})"


# ----------------------------------------------------------------------------------
# helpers for sample generators


def make_arg(shape, dtype, rng, low=-3.0, high=3.0, noncontig=False, exclude_zero=False):
    """A random array of ``dtype`` and ``shape`` with values in ``[low, high)``.

    ``noncontig`` returns a strided view with the same values layout;
    ``exclude_zero`` nudges values away from 0 (for division-like ops).
    """
    dtype = np.dtype(dtype)
    shape = tuple(shape)
    if dtype == np.bool_:
        a = rng.random(shape) < 0.5
    elif dtype.kind in "iu":
        lo, hi = int(np.floor(low)), int(np.ceil(high))
        a = rng.integers(lo, max(hi, lo + 1), size=shape).astype(dtype)
        if exclude_zero:
            a[a == 0] = 1
    else:
        a = rng.uniform(low, high, size=shape)
        if dtype.kind == "c":
            a = a + 1j * rng.uniform(low, high, size=shape)
        if exclude_zero:
            small = np.abs(a) < 0.2
            a = np.where(small, 0.5 + (a.real if dtype.kind == "c" else a) * 0, a)
        a = a.astype(dtype)
    a = np.asarray(a)  # 0-D arithmetic gives numpy scalars; samples must be arrays
    if noncontig and a.ndim >= 1 and a.size > 0:
        big = np.empty(shape[:-1] + (shape[-1] * 2,), dtype=dtype)
        big[..., ::2] = a
        a = big[..., ::2]
    return a


def matrix_arg(shape, dtype, rng):
    """A random (batch of) matrices with entries in [-1, 1) (the linalg entries' operand)."""
    return make_arg(shape, dtype, rng, -1.0, 1.0)


def well_conditioned(shape, dtype, rng):
    """Random square matrices ``[*, n, n]`` made well conditioned by adding ``n·I``."""
    n = shape[-1]
    return (make_arg(shape, dtype, rng, -1.0, 1.0) + n * np.eye(n)).astype(dtype)


def square_matrix_errors(op):
    """Error inputs every function of square matrices shares: a non-square, a 1-D and an
    integer or bool operand."""
    from weft import UnsupportedDtypeError

    def gen(rng):
        yield ErrorInput(SampleInput(matrix_arg((2, 3), "float64", rng)), ValueError,
                         f"{op}: x must be a batch of square matrices")
        yield ErrorInput(SampleInput(matrix_arg((3,), "float64", rng)), ValueError,
                         "at least 2-D")
        yield ErrorInput(SampleInput(np.ones((2, 2), np.int64)), UnsupportedDtypeError,
                         f"{op}: x has dtype int64")
        yield ErrorInput(SampleInput(np.ones((2, 2), np.bool_)), TypeError,
                         f"{op}: x has dtype bool")
    return gen


def conj_t(a):
    """The conjugate transpose of the last two axes."""
    return np.conj(np.swapaxes(a, -1, -2))


def unary_samples(low=-3.0, high=3.0, exclude_zero=False, shapes=None):
    """Samples for elementwise unary ops: the usual shapes plus 0-D, empty and non-contiguous."""
    shapes = shapes or [(5,), (3, 4)]

    def gen(dtype, rng):
        for s in shapes:
            yield SampleInput(make_arg(s, dtype, rng, low, high, exclude_zero=exclude_zero),
                              name=f"shape{list(s)}")
        yield SampleInput(make_arg((), dtype, rng, low, high, exclude_zero=exclude_zero),
                          name="0-D")
        yield SampleInput(make_arg((0, 3), dtype, rng, low, high), name="empty")
        yield SampleInput(make_arg((2, 3), dtype, rng, low, high, noncontig=True,
                                   exclude_zero=exclude_zero), name="noncontig")
    return gen


def binary_samples(low=-3.0, high=3.0, exclude_zero_rhs=False, scalar_rhs=True):
    """Samples for broadcasting binary ops, including 0-D, empty and Python-scalar operands."""
    def gen(dtype, rng):
        ez = exclude_zero_rhs

        def rhs(s):
            return make_arg(s, dtype, rng, low, high, exclude_zero=ez)

        yield SampleInput(make_arg((4,), dtype, rng, low, high), rhs((4,)), name="same")
        yield SampleInput(make_arg((3, 4), dtype, rng, low, high), rhs((4,)), name="broadcast")
        yield SampleInput(make_arg((3, 1), dtype, rng, low, high), rhs((1, 4)),
                          name="broadcast both")
        yield SampleInput(make_arg((), dtype, rng, low, high), rhs(()), name="0-D")
        yield SampleInput(make_arg((0, 4), dtype, rng, low, high), rhs((4,)), name="empty")
        yield SampleInput(make_arg((2, 3), dtype, rng, low, high, noncontig=True), rhs((2, 3)),
                          name="noncontig")
    return gen


def reduction_samples(low=-3.0, high=3.0, keepdim_kw="keepdim", axis_kw="axis"):
    """Samples for axis reductions: all axes, one axis, negative axis, list of axes, keepdim."""
    def gen(dtype, rng):
        a = make_arg((3, 4, 5), dtype, rng, low, high)
        yield SampleInput(a, name="all")
        yield SampleInput(a, **{axis_kw: 1}, name="axis=1")
        yield SampleInput(a, **{axis_kw: -1, keepdim_kw: True}, name="axis=-1 keepdim")
        yield SampleInput(a, **{axis_kw: [0, 2]}, name="axis=[0,2]")
        yield SampleInput(make_arg((), dtype, rng, low, high), name="0-D")
        yield SampleInput(make_arg((4,), dtype, rng, low, high, noncontig=True),
                          **{axis_kw: 0}, name="noncontig")
    return gen


# ----------------------------------------------------------------------------------
# sparse operands and results


def _half(v):
    """One of two parts that sum exactly to ``v`` (the other is ``v - part``)."""
    if v.dtype == np.bool_:
        return v.copy()  # duplicates of a bool tensor merge by `or`
    if v.dtype.kind in "iu":
        return v // 2
    return v * 0.25  # a power-of-two scaling: exact, and unequal halves tell the order


def _strided(a, axis):
    """``a`` as a view with stride 2 along ``axis`` (same values)."""
    shape = list(a.shape)
    shape[axis] *= 2
    big = np.zeros(shape, dtype=a.dtype)
    sl = [slice(None)] * a.ndim
    sl[axis] = slice(None, None, 2)
    big[tuple(sl)] = a
    return big[tuple(sl)]


class SparseArg:
    """A sparse operand of a sample: its dense value, which positions are stored, and how.

    ``dense`` is the value; positions outside ``pattern`` are zeroed. ``pattern`` is a
    bool array over the sparse axes (``dense.shape[:sparse_dim]``) marking the stored
    positions, which may hold 0 (explicit zeros); by default the positions whose
    value (trailing dense slice, for a hybrid COO) has a nonzero. ``layout``: "coo"
    (``sparse_dim`` sparse axes, default all; fewer gives a hybrid tensor) or "csr"
    (2-D, or 3-D batched). ``duplicates``: every other stored position is stored as
    two entries whose values sum to it (an uncoalesced COO / non-canonical CSR).
    ``shuffle``: the entries in random order (COO), or the columns unsorted inside
    each row (CSR). Without either, a COO is built coalesced and a CSR canonical.
    ``index_dtype``: int64 or int32. ``noncontig``: the components handed to the
    constructor are strided views. ``seed`` draws the duplicates' order.

    The weft tensor is built by :meth:`to_weft` (``to_sparse_coo``/``to_sparse_csr`` of
    the dense value where that gives the pattern, else ``sparse_coo_tensor`` /
    ``sparse_csr_tensor`` from the entries); a reference reads ``dense``, ``pattern``
    and the flags, or :meth:`scipy` for the stored entries as a scipy.sparse array.
    """

    def __init__(self, dense, layout, *, pattern=None, sparse_dim=None, duplicates=False,
                 shuffle=False, index_dtype="int64", noncontig=False, seed=0):
        dense = np.asarray(dense)
        nd = dense.ndim
        sd = nd if sparse_dim is None else int(sparse_dim)
        if layout not in ("coo", "csr") or not 1 <= sd <= nd or \
                layout == "csr" and (sd != nd or nd not in (2, 3)):
            raise ValueError(f"SparseArg: no {layout} layout with sparse_dim {sd} for shape "
                             f"{dense.shape}")
        sshape = dense.shape[:sd]
        if pattern is None:
            pattern = np.any(dense != 0, axis=tuple(range(sd, nd)))
        pattern = np.asarray(pattern, dtype=bool)
        if pattern.shape != sshape:
            raise ValueError(f"SparseArg: pattern shape {pattern.shape} != {sshape}")
        self.layout, self.sparse_dim, self.shape = layout, sd, dense.shape
        self.dtype = dense.dtype
        self.index_dtype = np.dtype(index_dtype)
        self.pattern = pattern
        self.duplicates, self.shuffle, self.noncontig = duplicates, shuffle, noncontig
        self.plain = not (duplicates or shuffle)  # coalesced COO / canonical CSR

        idx = np.stack(np.nonzero(pattern)).reshape(sd, -1).astype(np.int64)  # row-major
        vals = dense[tuple(idx)]
        rng = np.random.default_rng(seed)
        if duplicates and idx.shape[1]:
            # each split entry is followed by its second part (same coordinates)
            k = np.arange(0, idx.shape[1], 2)
            first = _half(vals[k])
            second = vals[k].copy() if vals.dtype == np.bool_ else vals[k] - first
            vals = vals.copy()
            vals[k] = first
            order = np.argsort(np.concatenate([np.arange(idx.shape[1]), k]), kind="stable")
            idx = np.concatenate([idx, idx[:, k]], axis=1)[:, order]
            vals = np.concatenate([vals, second])[order]
        if shuffle and idx.shape[1]:
            perm = rng.permutation(idx.shape[1])
            idx, vals = idx[:, perm], vals[perm]
        if layout == "csr" and idx.shape[1]:
            # rows grouped in order, the order inside each row kept (stable)
            order = np.argsort(np.ravel_multi_index(tuple(idx[:-1]), sshape[:-1]), kind="stable")
            idx, vals = idx[:, order], vals[order]
        self.entries = (idx, vals)  # as stored: [sd, nnz] coordinates, [nnz, *dense] values
        self.nnz = idx.shape[1]
        # the value with duplicates summed exactly as a coalesce does (a + b, in dtype)
        self.dense = np.zeros(dense.shape, dtype=dense.dtype)
        np.add.at(self.dense, tuple(idx), vals)

    def csr_components(self):
        """``(crows, cols, values)``: per-batch row pointers, each batch starting at 0."""
        idx, vals = self.entries
        *lead, m, _ = self.shape
        b = lead[0] if lead else 1
        rows = idx[0] * m + idx[1] if lead else idx[0]
        counts = np.bincount(rows, minlength=b * m).reshape(b, m)
        crows = np.zeros((b, m + 1), np.int64)
        crows[:, 1:] = np.cumsum(counts, axis=1)
        return crows.reshape(-1), idx[-1], vals

    def to_weft(self, place=None, stop_gradient=True):
        """The weft sparse tensor (a leaf; requiring grad when ``stop_gradient=False``)."""
        import weft
        from weft import sparse as S

        it = self.index_dtype
        nonzero = np.any(self.dense != 0, axis=tuple(range(self.sparse_dim, self.dense.ndim)))
        if self.plain and not self.noncontig and it == np.int64 and \
                np.array_equal(nonzero, self.pattern):
            d = weft.to_tensor(self.dense, place=place)
            t = d.to_sparse_coo(self.sparse_dim) if self.layout == "coo" else d.to_sparse_csr()
        elif self.layout == "coo":
            idx, vals = self.entries
            idx = idx.astype(it)
            if self.noncontig:
                idx, vals = _strided(idx, 1), _strided(vals, 0)
            t = S.sparse_coo_tensor(idx, vals, list(self.shape), place=place)
            if self.plain:
                t = S.coalesce(t).detach()  # sorted and unique already: flagged coalesced
        else:
            crows, cols, vals = self.csr_components()
            crows, cols = crows.astype(it), cols.astype(it)
            if self.noncontig:
                crows, cols, vals = _strided(crows, 0), _strided(cols, 0), _strided(vals, 0)
            t = S.sparse_csr_tensor(crows, cols, vals, list(self.shape), place=place)
        assert t.nnz() == self.nnz, f"{self}: built with {t.nnz()} entries"
        t.stop_gradient = stop_gradient
        return t

    def scipy(self):
        """The stored entries (duplicates and explicit zeros kept) as a scipy array."""
        import scipy.sparse as sp

        if len(self.shape) != 2:
            raise ValueError(f"{self}: scipy.sparse arrays are 2-D; give the reference the "
                             "SparseArg (ref_sparse='arg') or the dense value")
        if self.layout == "coo":
            idx, vals = self.entries
            return sp.coo_array((vals, (idx[0], idx[1])), shape=self.shape)
        crows, cols, vals = self.csr_components()
        return sp.csr_array((vals, cols, crows), shape=self.shape)

    def __repr__(self):
        flags = [f for f, on in (("dup", self.duplicates), ("shuffled", self.shuffle),
                                 ("noncontig", self.noncontig),
                                 (self.index_dtype.name, self.index_dtype != np.int64)) if on]
        hyb = f" sparse_dim={self.sparse_dim}" if self.sparse_dim < len(self.shape) else ""
        return (f"{self.layout}{list(self.shape)}:{self.dtype.name} nnz={self.nnz}{hyb}"
                + "".join(" " + f for f in flags))


class SparseOut:
    """A reference's description of a sparse result.

    ``layout`` ("coo"/"csr") and ``dense`` (the value) are always checked; the rest
    where the spec defines them: ``pattern`` (bool over the sparse axes: the stored
    coordinates), ``sparse_dim``, ``canonical`` (True: a coalesced COO / a CSR with
    strictly increasing columns in each row; False: a COO not flagged coalesced),
    ``index_dtype`` and ``nnz`` (the number of stored entries, duplicates counted).
    """

    def __init__(self, layout, dense, pattern=None, *, sparse_dim=None, canonical=None,
                 index_dtype=None, nnz=None):
        self.layout, self.dense = layout, np.asarray(dense)
        self.pattern = None if pattern is None else np.asarray(pattern, dtype=bool)
        self.sparse_dim, self.canonical, self.nnz = sparse_dim, canonical, nnz
        self.index_dtype = None if index_dtype is None else np.dtype(index_dtype)

    @classmethod
    def from_scipy(cls, m, **kw):
        """The result a scipy.sparse array describes (its stored coordinates = pattern)."""
        c = m.tocoo()
        pattern = np.zeros(m.shape, dtype=bool)
        pattern[c.row, c.col] = True
        layout = {"coo": "coo", "csr": "csr"}[m.format]
        return cls(layout, m.toarray(), pattern, **kw)

    def __repr__(self):
        return f"SparseOut({self.layout}{list(self.dense.shape)}:{self.dense.dtype.name})"


def is_sparse_tensor(t):
    return callable(getattr(t, "is_sparse", None)) and t.is_sparse()


def stored_coords(t):
    """``[sparse_dim, nnz]`` host coordinates of the entries of weft sparse ``t``, in
    storage order (CSR: batch, row, column)."""
    if t.is_sparse_coo():
        return t.indices().numpy().astype(np.int64).reshape(t.sparse_dim(), -1)
    crows = t.crows().numpy().astype(np.int64)
    cols = t.cols().numpy().astype(np.int64)
    *lead, m, _ = t.shape
    b = lead[0] if lead else 1
    counts = np.diff(crows.reshape(b, m + 1), axis=1).reshape(-1)
    flat = np.repeat(np.arange(b * m), counts)
    rows = [flat // m, flat % m] if lead else [flat]
    return np.stack(rows + [cols])


def stored_mask(t):
    """Bool array over the sparse axes of ``t``: True where an entry is stored."""
    sd = t.sparse_dim()
    mask = np.zeros(t.shape[:sd], dtype=bool)
    mask[tuple(stored_coords(t))] = True
    return mask


def is_canonical(t):
    """Entries unique and in row-major order (a coalesced COO's / canonical CSR's)."""
    c = stored_coords(t)
    if c.shape[1] < 2:
        return True
    lin = np.ravel_multi_index(tuple(c), tuple(t.shape[:t.sparse_dim()]))
    return bool((lin[1:] > lin[:-1]).all())


def same_pattern(a, b):
    """Same layout, shape and stored index arrays, index dtype included (values aside)."""
    if a.is_sparse_coo() != b.is_sparse_coo() or a.shape != b.shape:
        return False
    pairs = [(a.indices(), b.indices())] if a.is_sparse_coo() else \
        [(a.crows(), b.crows()), (a.cols(), b.cols())]
    return all(p.dtype == q.dtype and np.array_equal(p.numpy(), q.numpy()) for p, q in pairs)


def _is_array_list(x):
    return isinstance(x, (list, tuple)) and x and \
        all(isinstance(a, (np.ndarray, SparseArg)) for a in x)


def tensors_of(x, place=None, stop_gradient=True):
    """Convert numpy arrays and SparseArgs (and lists of them) in a sample to weft
    Tensors on ``place`` (default: the current device)."""
    import weft

    if isinstance(x, np.ndarray):
        return weft.to_tensor(x, place=place, stop_gradient=stop_gradient)
    if isinstance(x, SparseArg):
        return x.to_weft(place, stop_gradient)
    if _is_array_list(x):
        return type(x)(tensors_of(a, place, stop_gradient) for a in x)
    return x


def refs_of(x, ref_sparse="dense"):
    """What the reference receives for a sample argument: SparseArgs as the entry's
    ``ref_sparse`` says, everything else unchanged."""
    if isinstance(x, SparseArg):
        return {"dense": lambda: x.dense, "scipy": x.scipy, "arg": lambda: x}[ref_sparse]()
    if _is_array_list(x):
        return type(x)(refs_of(a, ref_sparse) for a in x)
    return x


# ----------------------------------------------------------------------------------
# gather the families

def _load():
    from tests import opdb

    ops = []
    for m in sorted(pkgutil.iter_modules(opdb.__path__), key=lambda m: m.name):
        mod = importlib.import_module(f"tests.opdb.{m.name}")
        ops.extend(mod.OPS)
    names = [o.name for o in ops]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise RuntimeError(f"duplicate OpInfo names: {sorted(dup)}")
    return ops


OP_DB = _load()
