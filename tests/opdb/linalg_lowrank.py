"""OpInfo entries for weft.linalg's ormqr, svd_lowrank, pca_lowrank and
fp8_fp8_half_gemm_fused (api-linalg.md #22, #23, #38, #39)."""
from __future__ import annotations

import numpy as np
from scipy.special import erf

import weft
from weft.core.dtype import bfloat16
from tests.opinfo import FLOAT_AND_COMPLEX, FLOATS, ErrorInput, OpInfo, SampleInput
from tests.opinfo import matrix_arg as _a

# ---------------------------------------------------------------------------------
# ormqr


def _full_q(x, tau):
    """H_1 ⋯ H_k (m × m) by the definition H_i = I − τ_i v_i v_iᴴ, a straightforward loop."""
    m, k = x.shape
    q = np.eye(m, dtype=np.result_type(x, np.float64))
    for i in range(k):
        v = np.zeros(m, q.dtype)
        v[i] = 1
        v[i + 1:] = x[i + 1:, i]
        q = q @ (np.eye(m) - tau[i] * np.outer(v, v.conj()))
    return q


def _ref_ormqr(x, tau, y, left=True, transpose=False):
    m, k = x.shape[-2:]
    xs, ts, ys = (a.reshape((-1,) + a.shape[-r:]) for a, r in ((x, 2), (tau, 1), (y, 2)))
    out = []
    for a, t, c in zip(xs, ts, ys):
        q = _full_q(a, t)
        size = c.shape[0] if left else c.shape[1]
        thin = size == ((m if transpose else k) if left else (k if transpose else m))
        if thin:
            q = q[:, :k]
        q = q.conj().T if transpose else q
        out.append(q @ c if left else c @ q)
    shape = x.shape[:-2] + (out[0].shape if out else y.shape[-2:])   # (empty: LAPACK shape)
    return np.array(out).reshape(shape).astype(x.dtype)


def _ormqr_samples(dtype, rng):
    x, tau = _a((5, 3), dtype, rng), _a((3,), dtype, rng)
    yield SampleInput(x, tau, _a((5, 2), dtype, rng), name="left, full Q (LAPACK shape)")
    yield SampleInput(x, tau, _a((3, 2), dtype, rng), name="left, thin Q (Paddle shape)")
    yield SampleInput(x, tau, _a((5, 2), dtype, rng), transpose=True,
                      name="left, Qᴴ, both readings fit: thin")
    yield SampleInput(x, tau, _a((2, 5), dtype, rng), left=False,
                      name="right, both readings fit: thin")
    yield SampleInput(x, tau, _a((2, 3), dtype, rng), left=False, transpose=True,
                      name="right, Qᴴ, thin")
    yield SampleInput(x, tau, _a((2, 5), dtype, rng), left=False, transpose=True,
                      name="right, Qᴴ, full")
    sq = _a((3, 3), dtype, rng)
    yield SampleInput(sq, _a((3,), dtype, rng), _a((3, 2), dtype, rng), transpose=True,
                      name="square")
    yield SampleInput(_a((2, 4, 2), dtype, rng), _a((2, 2), dtype, rng), _a((2, 4, 3), dtype, rng),
                      name="batch")
    yield SampleInput(_a((0, 4, 2), dtype, rng), _a((0, 2), dtype, rng), _a((0, 4, 3), dtype, rng),
                      name="empty batch")


def _ormqr_errors(rng):
    f = "float64"
    x, tau = _a((4, 2), f, rng), _a((2,), f, rng)
    yield ErrorInput(SampleInput(x, tau, _a((4, 2), "float32", rng)), AssertionError, "same dtype")
    yield ErrorInput(SampleInput(x, _a((1, 2), f, rng), _a((4, 2), f, rng)), AssertionError,
                     "one more dimension than tau")
    yield ErrorInput(SampleInput(x, _a((3,), f, rng), _a((4, 2), f, rng)), AssertionError,
                     r"x.shape\[-1\] must equal tau.shape\[-1\]")
    yield ErrorInput(SampleInput(_a((2, 4, 2), f, rng), _a((2, 2), f, rng), _a((3, 4, 2), f, rng)),
                     AssertionError, "equal batch dimensions")
    yield ErrorInput(SampleInput(x, tau, _a((3, 2), f, rng)), AssertionError,
                     "y must have 4 rows .* or 2 .* got shape")


# ---------------------------------------------------------------------------------
# svd_lowrank / pca_lowrank: through outputs independent of the vectors' phases


def _lowrank_out(u, s, v):
    """S, the reconstruction U diag(S) Vᴴ and the projector U Uᴴ; the generator is reset
    on every call, so finite differences see one smooth function."""
    vh = weft.linalg.matrix_transpose(v).conj()
    uh = weft.linalg.matrix_transpose(u).conj()
    return s, (u * s.unsqueeze(-2).astype(u.dtype)) @ vh, u @ uh


def _svd_lowrank(x, **kw):
    weft.seed(5)
    return _lowrank_out(*weft.linalg.svd_lowrank(x, **kw))


def _pca_lowrank(x, **kw):
    weft.seed(5)
    return _lowrank_out(*weft.linalg.pca_lowrank(x, **kw))


def _ref_truncated(d, q):
    u, s, vh = np.linalg.svd(d, full_matrices=False)
    u, s, vh = u[..., :q], s[..., :q], vh[..., :q, :]
    return s, (u * s[..., None, :]) @ vh, u @ u.conj().swapaxes(-1, -2)


def _ref_svd_lowrank(x, q=None, niter=2, M=None):
    d = x - M if M is not None else x
    q = min(6, *x.shape[-2:]) if q is None else q
    real = np.finfo(x.dtype).dtype
    s, r, p = _ref_truncated(d.astype(np.complex128 if x.dtype.kind == "c" else np.float64), q)
    return s.astype(real), r.astype(x.dtype), p.astype(x.dtype)


def _ref_pca_lowrank(x, q=None, center=True, niter=2):
    d = x - x.mean(axis=-2, keepdims=True) if center else x
    return _ref_svd_lowrank(d, q=q, niter=niter)


def _low(shape, rank, dtype, rng):
    """A matrix of exactly ``rank``: the range finder is exact at q = rank."""
    m, n = shape[-2:]
    return (_a(shape[:-1] + (rank,), dtype, rng) @ _a(shape[:-2] + (rank, n), dtype, rng)).astype(dtype)


def _svd_lowrank_samples(dtype, rng):
    yield SampleInput(_a((5, 3), dtype, rng), q=3, niter=1, name="tall, q = n")
    yield SampleInput(_a((3, 6), dtype, rng), niter=0, name="wide, default q")
    yield SampleInput(_low((2, 6, 5), 2, dtype, rng), q=2, niter=1, name="batch, rank 2")
    yield SampleInput(_a((4, 3), dtype, rng), q=3, M=_a((3,), dtype, rng), name="M broadcast")


def _pca_lowrank_samples(dtype, rng):
    yield SampleInput(_a((4, 3), dtype, rng), q=3, niter=1, name="centred, q = n")
    yield SampleInput(_a((2, 3), dtype, rng), center=False, niter=1, name="default q")
    c = _low((2, 5, 3), 2, dtype, rng)
    yield SampleInput(c - c.mean(axis=-2, keepdims=True), q=2, name="batch, rank 2")


def _lowrank_errors(op):
    def gen(rng):
        x = _a((6, 4), "float64", rng)
        yield ErrorInput(SampleInput(x, q=5), ValueError,
                         r"q\(=5\) must be non-negative integer and not greater than min\(m, n\)=4")
        yield ErrorInput(SampleInput(x, q=-1), ValueError, r"q\(=-1\) must be non-negative")
        yield ErrorInput(SampleInput(x, niter=-1), ValueError, "niter must be a non-negative integer")
        yield ErrorInput(SampleInput(_a((4,), "float64", rng)), ValueError, "at least 2-D")
        yield ErrorInput(SampleInput(np.ones((3, 3), np.int64)), weft.UnsupportedDtypeError,
                         "has dtype int64")
    return gen


def _svd_lowrank_errors(rng):
    yield from _lowrank_errors("svd_lowrank")(rng)
    yield ErrorInput(SampleInput(_a((3, 2), "float64", rng), M=_a((2, 3, 2), "float64", rng)),
                     ValueError, "M of shape .* must broadcast to x's shape")


# ---------------------------------------------------------------------------------
# fp8_fp8_half_gemm_fused


def _ref_gemm(x, y, transpose_x=False, transpose_y=False, bias=None, scale=1.0,
              output_dtype="float16", act="identity"):
    a = x.astype(np.float32)
    b = y.astype(np.float32)
    a = np.swapaxes(a, -1, -2) if transpose_x else a
    b = np.swapaxes(b, -1, -2) if transpose_y else b
    z = (a @ b) * np.float32(scale)
    if bias is not None:
        z = z + bias.astype(np.float32)
    if act == "relu":
        z = np.maximum(z, 0)
    elif act == "gelu":
        z = 0.5 * z * (1 + erf(z / np.sqrt(2)))
    return z.astype(np.float16)


def _gemm_samples(dtype, rng):
    yield SampleInput(_a((3, 4), dtype, rng), _a((4, 2), dtype, rng), name="plain")
    yield SampleInput(_a((4, 3), dtype, rng), _a((2, 4), dtype, rng), transpose_x=True,
                      transpose_y=True, scale=0.5, act="relu", name="transposed, relu")
    yield SampleInput(_a((2, 3, 4), dtype, rng), _a((4, 5), dtype, rng), bias=_a((5,), dtype, rng),
                      act="gelu", name="batch, bias, gelu")


def _gemm_errors(rng):
    x, y = _a((2, 3), "float32", rng), _a((3, 2), "float32", rng)
    f = "fp8_fp8_half_gemm_fused: "
    yield ErrorInput(SampleInput(x, y, act="tanh"), ValueError, f + "act must be")
    yield ErrorInput(SampleInput(x, y, output_dtype="float32"), ValueError, f + "output_dtype must")
    yield ErrorInput(SampleInput(x, _a((2, 2), "float32", rng)), ValueError, "inner dimensions")
    yield ErrorInput(SampleInput(np.ones((2, 3), np.int32), y), weft.UnsupportedDtypeError,
                     "x has dtype int32")
    yield ErrorInput(SampleInput(x, y, bias=_a((3,), "float32", rng)), ValueError,
                     "bias of shape")
    if bfloat16 is None:
        yield ErrorInput(SampleInput(x, y, output_dtype="bfloat16"), NotImplementedError,
                         "needs the ml_dtypes package")


OPS = [
    OpInfo("linalg.ormqr", weft.linalg.ormqr, _ref_ormqr, _ormqr_samples,
           dtypes=FLOAT_AND_COMPLEX, error_inputs=_ormqr_errors),
    OpInfo("linalg.svd_lowrank", _svd_lowrank, _ref_svd_lowrank, _svd_lowrank_samples,
           dtypes=FLOAT_AND_COMPLEX, error_inputs=_svd_lowrank_errors,
           skips={"gradgrad": "second derivatives through the randomized QR/SVD chain are "
                  "covered by pca_lowrank's entry on the same algorithm (kept small)"}),
    OpInfo("linalg.pca_lowrank", _pca_lowrank, _ref_pca_lowrank, _pca_lowrank_samples,
           dtypes=FLOAT_AND_COMPLEX, error_inputs=_lowrank_errors("pca_lowrank")),
    OpInfo("linalg.fp8_fp8_half_gemm_fused", weft.linalg.fp8_fp8_half_gemm_fused, _ref_gemm,
           _gemm_samples, dtypes=FLOATS, supports_grad=False, error_inputs=_gemm_errors,
           rtol=1e-3, atol=1e-3),
]
