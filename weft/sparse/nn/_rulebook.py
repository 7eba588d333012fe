"""Rulebooks and the rulebook convolution primitives of weft.sparse.nn.

A *rulebook* lists, for every kernel offset k, the (input row, output row) pairs the
offset connects (csrc/sparse/conv_rulebook.cpp builds it on CPU; the array-module
version below serves GPU arrays). A sparse convolution is then

    out[o] = sum over offsets k, pairs (i, o) of k:  x[i] @ W[k]

computed per offset as gather -> GEMM -> scatter-add (csrc/sparse/conv.cpp, on
scipy's BLAS). Two primitives cover every derivative order:

* ``conv(x, W; transpose=False)``   the sum above; ``transpose=True`` runs the pairs
  backwards with ``W[k]^T`` (the feature gradient)
* ``wgrad(x, g)``                   ``dW[k] = sum_pairs x[i]^T g[o]``

Their vjps are again ``conv`` and ``wgrad`` (each is bilinear), so ``create_graph``
works to any order:

    conv(x, W):      dx = conv(g, W; not transpose),  dW = wgrad(x, g) (roles swapped if transposed)
    wgrad(x, g):     dx = conv(g, H; transpose),      dg = conv(x, H)
"""
from __future__ import annotations

import threading
import weakref

import numpy as np

from ..._native import extension as _C
from ...autograd.engine import Primitive, apply, defvjp
from .. import _kernels as K

_HAS_NATIVE = hasattr(_C, "sparse_conv_rulebook")
_NATIVE_VALUES = (np.dtype(np.float32), np.dtype(np.float64))


class Rulebook:
    """Pairs of one convolution geometry over one active set (backend arrays)."""

    __slots__ = ("offsets", "in_rows", "out_rows", "identity", "n_in", "n_out", "out_indices",
                 "host_offsets")

    def __init__(self, offsets, in_rows, out_rows, identity, n_in, n_out, out_indices):
        self.offsets, self.in_rows, self.out_rows = offsets, in_rows, out_rows
        self.identity, self.n_in, self.n_out = int(identity), int(n_in), int(n_out)
        self.out_indices = out_indices
        self.host_offsets = [int(v) for v in (offsets.get() if hasattr(offsets, "get")
                                              else offsets)]

    @property
    def kernel_volume(self):
        return len(self.host_offsets) - 1

    @property
    def num_pairs(self):
        return self.host_offsets[-1]


# ----------------------------------------------------------------------------------
# construction

def build(indices, batch, in_shape, kernel, stride, padding, dilation, out_shape, subm):
    """The rulebook of ``indices`` ([1 + S, nnz], duplicate-free) or None when the
    input repeats a coordinate (the caller coalesces and asks again)."""
    nnz = indices.shape[1]
    args = [list(map(int, a)) for a in (in_shape, kernel, stride, padding, dilation, out_shape)]
    if _HAS_NATIVE and type(indices) is np.ndarray:
        r = _C.sparse_conv_rulebook(np.ascontiguousarray(indices), int(batch), *args, bool(subm))
        if r is None:
            return None
        out_idx, offsets, pin, pout, ident = r
        n_out = nnz if subm else out_idx.shape[1]
        return Rulebook(offsets, pin, pout, ident, nnz, n_out, out_idx)
    return _build_xp(indices, batch, *args, subm)


def _offsets_of(kernel):
    """Per-axis index of every kernel offset, row-major: [K, S] int64."""
    return np.stack(np.unravel_index(np.arange(int(np.prod(kernel))), kernel), axis=1)


def _build_xp(indices, batch, in_shape, kernel, stride, padding, dilation, out_shape, subm):
    """Array-module rulebook (GPU arrays): sorted keys and binary searches, the same
    pairs in the same order as the native kernel."""
    xp = K.xp_of_array(indices)
    S = len(in_shape)
    nnz = indices.shape[1]
    idx = indices.astype(np.int64)
    in_full = [int(batch)] + list(in_shape)
    out_full = [int(batch)] + list(out_shape)
    keys = K.linear_index(idx, in_full, xp)
    order = xp.argsort(keys)
    skeys = keys[order]
    if nnz > 1 and bool(xp.any(skeys[1:] == skeys[:-1])):
        return None
    koff = xp.asarray(_offsets_of(kernel))
    st, pd, dl = (xp.asarray(np.asarray(v, dtype=np.int64)) for v in (stride, padding, dilation))
    firsts, seconds, counts = [], [], [0]
    if subm:
        for k in range(koff.shape[0]):
            p = idx[1:] - pd[:, None] + (koff[k] * dl)[:, None]
            inside = xp.all((p >= 0) & (p < xp.asarray(list(in_shape))[:, None]), axis=0)
            pk = xp.where(inside[None, :], p, 0)
            nk = K.linear_index(xp.concatenate([idx[:1], pk]), in_full, xp)
            pos = xp.minimum(xp.searchsorted(skeys, nk), max(nnz - 1, 0))
            hit = inside & (skeys[pos] == nk) if nnz else inside
            o = xp.nonzero(hit)[0]
            firsts.append(order[pos[o]])
            seconds.append(o)
            counts.append(counts[-1] + int(o.shape[0]))
        out_idx = None
        n_out = nnz
        ident = int(np.ravel_multi_index(tuple((k - 1) // 2 for k in kernel), kernel))
    else:
        cand = []
        for k in range(koff.shape[0]):
            t = idx[1:] + pd[:, None] - (koff[k] * dl)[:, None]
            q = t // st[:, None]
            bound = xp.asarray(list(out_shape))[:, None]
            ok = xp.all((t >= 0) & (t % st[:, None] == 0) & (q < bound), axis=0)
            i = xp.nonzero(ok)[0]
            cand.append((i, K.linear_index(xp.concatenate([idx[:1, i], q[:, i]]), out_full, xp)))
        allk = xp.concatenate([c[1] for c in cand]) if cand else xp.zeros(0, np.int64)
        uniq = xp.unique(allk)
        for i, ck in cand:
            firsts.append(i)
            seconds.append(xp.searchsorted(uniq, ck))
            counts.append(counts[-1] + int(i.shape[0]))
        out_idx = K.unravel(uniq, out_full, indices.dtype, xp)
        n_out = int(uniq.shape[0])
        ident = -1
    pin = xp.concatenate(firsts).astype(np.int64) if firsts else xp.zeros(0, np.int64)
    pout = xp.concatenate(seconds).astype(np.int64) if seconds else xp.zeros(0, np.int64)
    return Rulebook(np.asarray(counts, dtype=np.int64), pin, pout, ident, nnz, n_out, out_idx)


# ----------------------------------------------------------------------------------
# the key cache
#
# A ``key`` names the active set of one layer's input *within one forward pass*, as
# in Paddle (whose rulebooks travel with the tensors): every submanifold layer given
# the same key over that set reuses one rulebook, and the next batch (new index
# arrays) starts afresh instead of being handed a stale rulebook. The scope is a
# *lineage*: an input's index array, the arrays of the outputs derived from it
# (submanifold layers keep the input's array; regular convolutions and pooling add
# theirs), each registered while it is alive. Within a lineage a key names one
# active set; the same key on another set of the lineage (say after a strided
# convolution) is the mistake Paddle silently returns wrong values for, and here a
# ValueError.


class _Lineage:
    """The keyed rulebooks of one lineage: key -> (weakref to the index array it was
    made for, fingerprint of that set, {geometry: rulebook})."""

    __slots__ = ("keys", "__weakref__")

    def __init__(self):
        self.keys = {}


_lineage_of = {}   # id(index array) -> (weakref to it, its _Lineage)
_lock = threading.Lock()


def _forget(i, ref):
    with _lock:
        if _lineage_of.get(i, (None,))[0] is ref:
            del _lineage_of[i]


def _lineage(indices):
    """The lineage of ``indices`` (a new one for an array not seen yet)."""
    e = _lineage_of.get(id(indices))
    if e is not None and e[0]() is indices:
        return e[1]
    lin = _Lineage()
    _adopt(indices, lin)
    return lin


def _adopt(indices, lin):
    i = id(indices)
    ref = weakref.ref(indices, lambda r: _forget(i, r))
    _lineage_of[i] = (ref, lin)


def inherit(child, parent):
    """Register index array ``child`` (an output's sites) in ``parent``'s lineage."""
    if child is None or child is parent:
        return
    with _lock:
        _adopt(child, _lineage(parent))


def _fingerprint(indices, shape):
    host = indices.get() if hasattr(indices, "get") else indices
    digest = hash(np.ascontiguousarray(host).tobytes())
    return tuple(shape), indices.shape, indices.dtype.str, digest


def cached(key, indices, shape, geometry, make, op):
    """The rulebook of ``geometry`` for active set ``indices`` (sparse shape ``shape``)
    under ``key``; ``make()`` builds it. key None: no cache."""
    if key is None:
        return make()
    if not isinstance(key, str):
        raise TypeError(f"{op}: key must be a str or None, got {type(key).__name__}")
    with _lock:
        lin = _lineage(indices)
        entry = lin.keys.get(key)
        if entry is not None and entry[0]() is not indices:
            fp = _fingerprint(indices, shape)
            if fp != entry[1]:
                raise ValueError(
                    f"{op}: key {key!r} already names another active set in this forward "
                    f"pass (sites of shape {list(entry[1][0])}, {entry[1][1][1]} sites; now "
                    f"{list(shape)}, {indices.shape[1]} sites); give each active set its own "
                    "key (e.g. one per resolution level)")
            entry = (weakref.ref(indices), fp, entry[2])
            lin.keys[key] = entry
        if entry is not None and geometry in entry[2]:
            return entry[2][geometry]
    rb = make()
    with _lock:
        if entry is None:
            entry = (weakref.ref(indices), _fingerprint(indices, shape), {})
            lin.keys[key] = entry
        entry[2][geometry] = rb
    return rb


def keyed_rulebooks(indices):
    """``{key: {geometry: rulebook}}`` of the lineage of ``indices`` (for tests)."""
    e = _lineage_of.get(id(indices))
    if e is None or e[0]() is not indices:
        return {}
    return {k: v[2] for k, v in e[1].keys.items()}


# ----------------------------------------------------------------------------------
# the primitives

_blas = {}


def _gemm_capsule(dtype):
    if not _blas:
        from scipy.linalg import cython_blas  # noqa: PLC0415  (scipy loads on first use)

        _blas[np.dtype(np.float32)] = cython_blas.__pyx_capi__["sgemm"]
        _blas[np.dtype(np.float64)] = cython_blas.__pyx_capi__["dgemm"]
    return _blas[np.dtype(dtype)]


def _native(a, b, rb):
    """Whether the native kernels take values ``a``, ``b`` and rulebook ``rb``."""
    return (_HAS_NATIVE and type(a) is np.ndarray and type(b) is np.ndarray
            and type(rb.in_rows) is np.ndarray and a.dtype in _NATIVE_VALUES
            and a.dtype == b.dtype)


def _pairs(rb, transpose):
    return (rb.out_rows, rb.in_rows, rb.n_in) if transpose else (rb.in_rows, rb.out_rows, rb.n_out)


def _conv_fwd(x, w, rb, transpose):
    src, dst, n_dst = _pairs(rb, transpose)
    if _native(x, w, rb):
        return _C.sparse_conv_gemm(np.ascontiguousarray(x), np.ascontiguousarray(w), rb.offsets,
                                   src, dst, n_dst, rb.identity, bool(transpose),
                                   _gemm_capsule(x.dtype))
    xp = K.xp_of_array(x)
    out = xp.zeros((n_dst, w.shape[1] if transpose else w.shape[2]), dtype=x.dtype)
    off = rb.host_offsets
    for k in range(len(off) - 1):
        if off[k + 1] > off[k]:
            wk = w[k].T if transpose else w[k]
            # no destination repeats within an offset, so a plain indexed += is exact
            out[dst[off[k]:off[k + 1]]] += x[src[off[k]:off[k + 1]]] @ wk
    return out


def _wgrad_fwd(x, g, rb):
    if _native(x, g, rb):
        return _C.sparse_conv_wgrad(np.ascontiguousarray(x), np.ascontiguousarray(g), rb.offsets,
                                    rb.in_rows, rb.out_rows, rb.identity, _gemm_capsule(x.dtype))
    xp = K.xp_of_array(x)
    off = rb.host_offsets
    out = xp.zeros((len(off) - 1, x.shape[1], g.shape[1]), dtype=x.dtype)
    for k in range(len(off) - 1):
        a, b = off[k], off[k + 1]
        if b > a:
            out[k] = x[rb.in_rows[a:b]].T @ g[rb.out_rows[a:b]]
    return out


CONV = Primitive("sparse_conv", _conv_fwd)
WGRAD = Primitive("sparse_conv_wgrad", _wgrad_fwd)

defvjp(CONV,
       lambda g, ans, x, w, rb, transpose: apply(CONV, g, w, rb=rb, transpose=not transpose),
       lambda g, ans, x, w, rb, transpose: (apply(WGRAD, g, x, rb=rb) if transpose
                                            else apply(WGRAD, x, g, rb=rb)),
       save={0: (1,), 1: (0,)}, save_out=False)
defvjp(WGRAD,
       lambda h, ans, x, g, rb: apply(CONV, g, h, rb=rb, transpose=True),
       lambda h, ans, x, g, rb: apply(CONV, x, h, rb=rb, transpose=False),
       save={0: (1,), 1: (0,)}, save_out=False)


def conv(values, weight, rb):
    """Differentiable rulebook convolution of values [n_in, C] with weight [K, C, M]."""
    return apply(CONV, values, weight, rb=rb, transpose=False)
