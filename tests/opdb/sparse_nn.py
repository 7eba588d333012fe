"""OpInfo entries for weft.sparse.nn.functional (api-sparse.md §4): the sparse
convolutions, max_pool3d, the activations, softmax and attention.

Convolution operands are channel-last hybrid COO tensors ([N, *spatial, C],
sparse_dim 1 + S) built by tests.opinfo.SparseArg: random sites, an empty input,
duplicates with unsorted entries, int32 indices. The references densify, run a plain
numpy convolution (one slice + einsum per kernel offset, tests/sparse/nn/_ref.py) and
describe the result's pattern: the input's sites for a submanifold convolution, every
site a window touches for a regular one, every window with an active input for pooling.
"""
import numpy as np

from tests.opdb.sparse import SPARSE, arg, full_mask, operands
from tests.opinfo import FLOATS, ErrorInput, OpInfo, SampleInput, SparseOut, make_arg
from tests.sparse.nn._ref import dense_conv
from weft.sparse.nn import functional as F

F32_TOL = dict(atol=1e-4, rtol=1e-4)


def _site_arg(spatial, c, dtype, rng, density=0.3, **kw):
    return arg((2, *spatial, c), dtype, rng, "coo", sparse_dim=1 + len(spatial), density=density,
               **kw)


def _conv_operands(S, dtype, rng, **kw):
    sp = (4, 3, 4)[:S] if S == 3 else (5, 4)
    yield "random sites", _site_arg(sp, 2, dtype, rng, **kw)
    yield "nnz=0", _site_arg(sp, 2, dtype, rng, density=0.0, **kw)
    yield "duplicates, unsorted", _site_arg(sp, 2, dtype, rng, duplicates=True, shuffle=True,
                                            **kw)
    yield "unsorted, int32", _site_arg(sp, 2, dtype, rng, shuffle=True, index_dtype="int32",
                                       **kw)


def _conv_samples(S, subm):
    def gen(dtype, rng, layout):
        for name, x in _conv_operands(S, dtype, rng):
            k = (3,) * S if subm else (2,) + (3,) * (S - 1)
            w = make_arg((*k, 2, 3), dtype, rng, -1, 1)
            b = make_arg((3,), dtype, rng, -1, 1)
            if subm:
                yield SampleInput(x, w, b, name=name)
                yield SampleInput(x, w, name=f"{name}, dilation 2, no bias", dilation=2)
            else:
                yield SampleInput(x, w, b, name=name, padding=1)
                yield SampleInput(x, w, name=f"{name}, stride 2", stride=2, padding=[1, 0] * S)
    return gen


def _pads(padding, S):
    if isinstance(padding, int):
        return [padding] * S, [padding] * S
    if len(padding) == 2 * S:
        return list(padding[0::2]), list(padding[1::2])
    return list(padding), list(padding)


def _conv_ref(subm):
    def ref(x, w, bias=None, stride=1, padding=0, dilation=1):
        S = x.sparse_dim - 1
        dil = [dilation] * S if isinstance(dilation, int) else list(dilation)
        dense = np.where(full_mask(x), x.dense, 0)
        if subm:
            half = [d * (k - 1) // 2 for d, k in zip(dil, w.shape[:S])]
            out, _ = dense_conv(dense, w, [1] * S, half, half, dil)
            pattern = x.pattern
        else:
            front, back = _pads(padding, S)
            st = [stride] * S if isinstance(stride, int) else list(stride)
            # the active outputs: windows holding a stored site (explicit zeros count)
            occ = x.pattern[..., None].astype(w.dtype)
            out, _ = dense_conv(dense, w, st, front, back, dil)
            _, count = dense_conv(occ, np.ones(w.shape[:S] + (1, 1), w.dtype), st, front, back,
                                  dil)
            pattern = count > 0
        if bias is not None:
            out = out + bias
        out = np.where(pattern[..., None], out, 0).astype(w.dtype)
        # subm keeps the input's entries (order and coalesced flag) unless duplicates
        # are summed first; a regular convolution's output is sorted
        canonical = True if not subm or x.duplicates else x.plain
        return SparseOut("coo", out, pattern, sparse_dim=S + 1, index_dtype=x.index_dtype,
                         canonical=canonical, nnz=int(pattern.sum()))
    return ref


def _conv_errors(S):
    def gen(rng, layout):
        sp = (4,) * S
        x = _site_arg(sp, 2, "float64", rng)
        w = make_arg((3,) * S + (2, 3), "float64", rng)
        yield ErrorInput(SampleInput(make_arg((2, *sp, 2), "float64", rng), w), TypeError,
                         "x must be a SparseCooTensor")
        yield ErrorInput(SampleInput(x, make_arg((3,) * S + (4, 3), "float64", rng)), ValueError,
                         "x has 2 channels but weight expects 4")
        yield ErrorInput(SampleInput(x, w, stride=[1] * (S + 1)), ValueError,
                         f"stride must be an int or a list of {S} ints")
        yield ErrorInput(SampleInput(x, w, dilation=0), ValueError, "dilation must be >= 1")
        yield ErrorInput(SampleInput(x, w, groups=3), AssertionError, "only support groups=1")
        yield ErrorInput(SampleInput(arg((2, *sp, 2), "float64", rng, "coo", sparse_dim=S), w),
                         ValueError, f"sparse_dim {S + 1}")
    return gen


OPS = [
    OpInfo(f"sparse.nn.functional.{name}", fn, _conv_ref(subm), _conv_samples(S, subm),
           dtypes=FLOATS, layout=("coo",), ref_sparse="arg", error_inputs=_conv_errors(S),
           **F32_TOL)
    for name, fn, S, subm in (("subm_conv3d", F.subm_conv3d, 3, True),
                              ("subm_conv2d", F.subm_conv2d, 2, True),
                              ("conv3d", F.conv3d, 3, False), ("conv2d", F.conv2d, 2, False))
]


# ---------------------------------------------------------------------------------
# max_pool3d


def _pool_samples(dtype, rng, layout):
    # negative values (an implicit zero must not win a window), drawn away from the
    # substitute make_arg puts in for values near 0, so that no two tie
    for name, x in _conv_operands(3, dtype, rng, low=-3.0, high=-0.6):
        yield SampleInput(x, 2, name=name)
        yield SampleInput(x, [2, 3, 2], 1, 1, name=f"{name}, stride 1, padding 1")


def _pool_ref(x, kernel_size, stride=None, padding=0):
    k = [kernel_size] * 3 if isinstance(kernel_size, int) else list(kernel_size)
    st = k if stride is None else [stride] * 3 if isinstance(stride, int) else list(stride)
    pd = [padding] * 3 if isinstance(padding, int) else list(padding)
    n, sp, c = x.shape[0], x.shape[1:4], x.shape[4]
    vals = np.where(full_mask(x), x.dense, -np.inf)
    padded = np.pad(vals, [(0, 0)] + [(p, p) for p in pd] + [(0, 0)], constant_values=-np.inf)
    out_sp = [(sp[s] + 2 * pd[s] - k[s]) // st[s] + 1 for s in range(3)]
    out = np.full((n, *out_sp, c), -np.inf)
    for o in np.ndindex(*out_sp):
        win = padded[:, o[0] * st[0]:o[0] * st[0] + k[0], o[1] * st[1]:o[1] * st[1] + k[1],
                     o[2] * st[2]:o[2] * st[2] + k[2]]
        out[:, o[0], o[1], o[2]] = win.max(axis=(1, 2, 3))
    pattern = np.isfinite(out).all(-1)
    return SparseOut("coo", np.where(pattern[..., None], out, 0).astype(x.dtype), pattern,
                     sparse_dim=4, index_dtype=x.index_dtype, canonical=True,
                     nnz=int(pattern.sum()))


def _pool_errors(rng, layout):
    x = _site_arg((4, 4, 4), 2, "float64", rng)
    yield ErrorInput(SampleInput(x, 2, data_format="NCDHW"), AssertionError, "NDHWC")
    yield ErrorInput(SampleInput(x, [2, 2]), ValueError, "kernel_size must be an int or a list")
    yield ErrorInput(SampleInput(x, 0), ValueError, "kernel_size must be >= 1")


OPS.append(OpInfo("sparse.nn.functional.max_pool3d", F.max_pool3d, _pool_ref, _pool_samples,
                  dtypes=FLOATS, layout=("coo",), ref_sparse="arg", error_inputs=_pool_errors))


# ---------------------------------------------------------------------------------
# activations and softmax


_ACTS = (("relu", lambda v: np.maximum(v, 0), {}),
         ("relu6", lambda v: np.clip(v, 0, 6), {}),
         ("leaky_relu", lambda v: np.where(v > 0, v, 0.2 * v), {"negative_slope": 0.2}))


def _act_samples(kw):
    def gen(dtype, rng, layout):
        # values away from the kinks at 0 and 6, where the derivative jumps
        for name, x in operands(dtype, rng, layout, low=0.2, high=8.0):
            # a stored 0 sits on the kink: its forward is checked, not its derivative
            yield SampleInput(x, name=name, grad_args=() if "zeros" in name else None, **kw)
        neg = arg((4, 5), dtype, rng, layout, low=-3.0, high=-0.2)
        yield SampleInput(neg, name="negative values stay stored", **kw)
    return gen


def _act_ref(f):
    def ref(x, **kw):
        # nonlinear: duplicates are summed first, so the result is coalesced/canonical
        return SparseOut(x.layout, np.where(full_mask(x), f(x.dense), 0).astype(x.dtype),
                         x.pattern, sparse_dim=x.sparse_dim, index_dtype=x.index_dtype,
                         nnz=int(x.pattern.sum()))
    return ref


def _act_errors(name):
    def gen(rng, layout):
        yield ErrorInput(SampleInput(make_arg((3, 3), "float32", rng)), NotImplementedError,
                         f"{name}: x must be a sparse tensor")
    return gen


OPS += [OpInfo(f"sparse.nn.functional.{name}", getattr(F, name), _act_ref(f), _act_samples(kw),
               layout=SPARSE, ref_sparse="arg", error_inputs=_act_errors(name))
        for name, f, kw in _ACTS]


def _softmax_samples(dtype, rng, layout):
    for name, x in operands(dtype, rng, layout, low=-2.0, high=2.0):
        if 0 in x.shape:
            continue
        yield SampleInput(x, name=name)
        yield SampleInput(x, axis=0, name=f"{name}, axis 0")


def _softmax_ref(x, axis=-1):
    axis = axis % len(x.shape)
    present = full_mask(x)
    d = np.where(present, x.dense, -np.inf)
    m = d.max(axis, keepdims=True)
    e = np.where(present, np.exp(d - np.where(np.isfinite(m), m, 0)), 0)
    s = e.sum(axis, keepdims=True)
    out = np.where(present, e / np.where(s == 0, 1, s), 0).astype(x.dtype)
    return SparseOut(x.layout, out, x.pattern, sparse_dim=x.sparse_dim,
                     index_dtype=x.index_dtype)


def _softmax_errors(rng, layout):
    yield ErrorInput(SampleInput(make_arg((3, 3), "float32", rng)), TypeError,
                     "softmax: x must be a SparseCooTensor or SparseCsrTensor")
    yield ErrorInput(SampleInput(arg((3, 3), "float32", rng, layout), axis=2), ValueError,
                     "axis 2 is out of range")


OPS.append(OpInfo("sparse.nn.functional.softmax", F.softmax, _softmax_ref, _softmax_samples,
                  layout=SPARSE, ref_sparse="arg", error_inputs=_softmax_errors))


# ---------------------------------------------------------------------------------
# attention


def _attention_samples(dtype, rng, layout):
    for b, h, L, d, density in ((1, 2, 4, 3, 0.5), (2, 1, 3, 2, 1.0), (1, 1, 3, 2, 0.0)):
        q, k, v = (make_arg((b, h, L, d), dtype, rng, -1, 1) for _ in range(3))
        mask = arg((b * h, L, L), dtype, rng, "csr", density=density)
        yield SampleInput(q, k, v, mask, grad_args=(0, 1, 2), name=f"density {density}")
    q, k, v = (make_arg((2, 1, 4, 2), dtype, rng, -1, 1) for _ in range(3))
    mask = arg((2, 4, 4), dtype, rng, "csr", density=0.8)
    kp = np.array([[1, 1, 0, 1], [0, 1, 1, 1]], dtype=dtype)
    am = (rng.random((4, 4)) < 0.8).astype(dtype)
    yield SampleInput(q, k, v, mask, kp, am, grad_args=(0, 1, 2), name="both masks")


def _attention_ref(q, k, v, mask, key_padding_mask=None, attn_mask=None):
    b, h, L, d = q.shape
    allowed = mask.pattern.reshape(b, h, L, L).copy()
    if key_padding_mask is not None:
        allowed &= key_padding_mask[:, None, None, :] != 0
    if attn_mask is not None:
        allowed &= attn_mask[None, None] != 0
    s = np.where(allowed, np.einsum("bhid,bhjd->bhij", q, k) / np.sqrt(d), -np.inf)
    m = s.max(-1, keepdims=True)
    e = np.where(allowed, np.exp(s - np.where(np.isfinite(m), m, 0)), 0)
    den = e.sum(-1, keepdims=True)
    return ((e / np.where(den == 0, 1, den)) @ v).astype(q.dtype)


def _attention_errors(rng, layout):
    q = make_arg((1, 2, 3, 2), "float64", rng)
    mask = arg((2, 3, 3), "float64", rng, "csr")
    yield ErrorInput(SampleInput(q, q, q, make_arg((2, 3, 3), "float64", rng)), TypeError,
                     "sparse_mask must be a SparseCsrTensor")
    yield ErrorInput(SampleInput(q, q, q, arg((1, 3, 3), "float64", rng, "csr")), ValueError,
                     r"sparse_mask must have shape \[2, 3, 3\]")
    yield ErrorInput(SampleInput(q[0], q, q, mask), ValueError, "query must be 4-D")


OPS.append(OpInfo("sparse.nn.functional.attention", F.attention, _attention_ref,
                  _attention_samples, layout=("csr",), ref_sparse="arg",
                  error_inputs=_attention_errors, **F32_TOL))

