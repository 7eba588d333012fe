"""Sparse attention against a dense numpy reference over the allowed positions."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import weft
from weft.sparse.nn import functional as F


def _problem(seed, b=2, h=2, L=5, d=3, density=0.5):
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((b, h, L, d)) for _ in range(3))
    pat = rng.random((b * h, L, L)) < density
    return rng, q, k, v, pat


def _csr(pat):
    bh, L, _ = pat.shape
    crows = np.concatenate([np.concatenate([[0], np.cumsum(p.sum(1))]) for p in pat])
    cols = np.concatenate([np.nonzero(p)[1] for p in pat]) if pat.any() else np.zeros(0, np.int64)
    return weft.sparse.sparse_csr_tensor(crows, cols, np.ones(len(cols)), [bh, L, L])


def _ref(q, k, v, allowed):
    b, h, L, d = q.shape
    s = np.einsum("bhid,bhjd->bhij", q, k) / np.sqrt(d)
    s = np.where(allowed, s, -np.inf)
    m = np.max(np.where(allowed, s, -np.inf), -1, keepdims=True)
    e = np.where(allowed, np.exp(s - np.where(np.isfinite(m), m, 0)), 0)
    den = e.sum(-1, keepdims=True)
    p = e / np.where(den == 0, 1, den)  # a row with nothing allowed gives zeros
    return p @ v


@settings(max_examples=20)
@given(st.integers(0, 2 ** 16), st.booleans(), st.booleans(), st.sampled_from([0.0, 0.3, 1.0]))
def test_attention_matches_dense(seed, use_kp, use_attn, density):
    rng, q, k, v, pat = _problem(seed, density=density)
    b, h, L, _ = q.shape
    kp = (rng.random((b, L)) < 0.7).astype(np.float64) if use_kp else None
    am = (rng.random((L, L)) < 0.7).astype(np.float64) if use_attn else None
    allowed = pat.reshape(b, h, L, L).copy()
    if kp is not None:
        allowed &= kp[:, None, None, :] != 0
    if am is not None:
        allowed &= am[None, None] != 0
    out = F.attention(*(weft.to_tensor(a) for a in (q, k, v)), _csr(pat),
                      None if kp is None else weft.to_tensor(kp),
                      None if am is None else weft.to_tensor(am))
    np.testing.assert_allclose(out.numpy(), _ref(q, k, v, allowed), rtol=1e-10, atol=1e-12)


def test_attention_gradients():
    rng, q, k, v, pat = _problem(1, b=1, h=2, L=4, d=2, density=0.6)
    mask = _csr(pat)
    ts = [weft.to_tensor(a, stop_gradient=False) for a in (q, k, v)]
    f = lambda q, k, v: F.attention(q, k, v, mask)  # noqa: E731
    assert weft.autograd.gradcheck(f, ts) and weft.autograd.gradgradcheck(f, ts)


def test_attention_errors():
    rng, q, k, v, pat = _problem(2)
    q, k, v = (weft.to_tensor(a) for a in (q, k, v))
    m = _csr(pat)
    with pytest.raises(TypeError, match="sparse_mask must be a SparseCsrTensor"):
        F.attention(q, k, v, weft.ones([4, 5, 5]))
    with pytest.raises(ValueError, match=r"sparse_mask must have shape \[4, 5, 5\]"):
        F.attention(q, k, v, _csr(pat[:2]))
    with pytest.raises(ValueError, match="query must be 4-D"):
        F.attention(q[0], k, v, m)
    with pytest.raises(ValueError, match=r"key_padding_mask must have shape \[2, 5\]"):
        F.attention(q, k, v, m, key_padding_mask=weft.ones([5]))
    with pytest.raises(ValueError, match="one shape"):
        F.attention(q, k[:, :1], v, m)
