"""Sparse convolutions (api-sparse.md §4) against a dense numpy convolution read at
the output's active sites: submanifold = the input's sites, regular = every site a
kernel window touches. Hypothesis over patterns (empty, one voxel, boundary voxels,
random sets), strides, paddings, dilations, channels and both index dtypes; gradients
by gradcheck/gradgradcheck in float64; rulebook cache and thread-count independence."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import weft
from weft.sparse.nn import functional as F
from weft.sparse.nn import _rulebook as RB

from ._ref import coo, dense_conv, dense_of, random_sites


@st.composite
def problems(draw, subm):
    S = draw(st.sampled_from([2, 3]))
    batch = draw(st.integers(1, 2))
    spatial = [draw(st.integers(1, 5)) for _ in range(S)]
    kernel = [draw(st.sampled_from([1, 3] if subm else [1, 2, 3])) for _ in range(S)]
    dil = [draw(st.integers(1, 2)) for _ in range(S)]
    stride = [draw(st.integers(1, 3)) for _ in range(S)]
    pad = [draw(st.integers(0, 2)) for _ in range(S)]
    if not subm:  # the window must fit the padded input
        for s in range(S):
            while spatial[s] + 2 * pad[s] < dil[s] * (kernel[s] - 1) + 1:
                pad[s] += 1
    total = batch * int(np.prod(spatial))
    kind = draw(st.sampled_from(["empty", "one", "boundary", "random"]))
    seed = draw(st.integers(0, 2 ** 16))
    rng = np.random.default_rng(seed)
    if kind == "empty":
        idx = np.zeros((S + 1, 0), dtype=np.int64)
    elif kind == "one":
        idx = random_sites(rng, batch, spatial, 1)
    elif kind == "boundary":  # the corner sites of the grid
        corners = {(b, *[c[s] * (spatial[s] - 1) for s in range(S)])
                   for b in range(batch) for c in np.ndindex(*(2,) * S)}
        idx = np.array(sorted(corners), dtype=np.int64).T.reshape(S + 1, -1)
    else:
        idx = random_sites(rng, batch, spatial, draw(st.integers(1, total)))
    c, m = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    vals = rng.standard_normal((idx.shape[1], c))
    w = rng.standard_normal((*kernel, c, m))
    bias = rng.standard_normal(m) if draw(st.booleans()) else None
    itype = draw(st.sampled_from(["int64", "int32"]))
    return S, batch, spatial, idx, vals, w, bias, stride, pad, dil, itype


def _tensor(a):
    return None if a is None else weft.to_tensor(a)


@settings(max_examples=40)
@given(problems(subm=True))
def test_subm_matches_dense(p):
    S, batch, spatial, idx, vals, w, bias, stride, pad, dil, itype = p
    x = coo(idx, vals, batch, spatial, index_dtype=itype)
    f = F.subm_conv3d if S == 3 else F.subm_conv2d
    y = f(x, weft.to_tensor(w), _tensor(bias), dilation=dil, padding=pad)
    k = w.shape[:S]
    half = [d * (kk - 1) // 2 for d, kk in zip(dil, k)]
    ref, _ = dense_conv(dense_of(idx, vals, batch, spatial), w, [1] * S, half, half, dil)
    if bias is not None:
        ref = ref + bias
    assert y.shape == [batch, *spatial, w.shape[-1]]
    assert y.indices().numpy().dtype == np.dtype(itype)
    np.testing.assert_array_equal(y.indices().numpy(), idx)
    np.testing.assert_allclose(y.values().numpy(), ref[tuple(idx)].reshape(-1, w.shape[-1]),
                               rtol=1e-10, atol=1e-10)


@settings(max_examples=40)
@given(problems(subm=False))
def test_regular_matches_dense(p):
    S, batch, spatial, idx, vals, w, bias, stride, pad, dil, itype = p
    x = coo(idx, vals, batch, spatial, index_dtype=itype)
    f = F.conv3d if S == 3 else F.conv2d
    y = f(x, weft.to_tensor(w), _tensor(bias), stride=stride, padding=pad, dilation=dil)
    ref, count = dense_conv(dense_of(idx, vals, batch, spatial), w, stride, pad, pad, dil)
    # active output sites: every site whose window holds an active input
    want = np.array(np.nonzero(count > 0), dtype=np.int64).reshape(S + 1, -1)
    if bias is not None:
        ref = ref + bias
    assert y.shape == [batch, *ref.shape[1:]]
    assert y.is_coalesced() and y.indices().numpy().dtype == np.dtype(itype)
    np.testing.assert_array_equal(y.indices().numpy(), want)
    np.testing.assert_allclose(y.values().numpy(), ref[tuple(want)].reshape(-1, w.shape[-1]),
                               rtol=1e-10, atol=1e-10)


def _pattern(seed=0, batch=2, spatial=(4, 3, 5), n=14, c=2):
    rng = np.random.default_rng(seed)
    idx = random_sites(rng, batch, list(spatial), n)
    return rng, idx, rng.standard_normal((idx.shape[1], c))


@pytest.mark.parametrize("subm", [True, False])
def test_gradients_float64(subm):
    rng, idx, vals = _pattern()
    w = weft.to_tensor(rng.standard_normal((3, 3, 3, 2, 3)), stop_gradient=False)
    b = weft.to_tensor(rng.standard_normal(3), stop_gradient=False)
    v = weft.to_tensor(vals, stop_gradient=False)

    def f(v, w, b):
        x = weft.sparse.sparse_coo_tensor(idx, v, [2, 4, 3, 5, 2])
        if subm:
            return F.subm_conv3d(x, w, b, dilation=[1, 2, 1]).values()
        return F.conv3d(x, w, b, stride=[2, 1, 2], padding=1).values()

    assert weft.autograd.gradcheck(f, [v, w, b])
    assert weft.autograd.gradgradcheck(f, [v, w, b])


def test_gradient_is_masked_sparse():
    rng, idx, vals = _pattern(1)
    x = weft.sparse.sparse_coo_tensor(idx, vals, [2, 4, 3, 5, 2], stop_gradient=False)
    w = weft.to_tensor(rng.standard_normal((3, 3, 3, 2, 1)))
    F.conv3d(x, w, padding=1).values().sum().backward()
    assert x.grad.is_sparse_coo()
    np.testing.assert_array_equal(x.grad.indices().numpy(), idx)
    # d(sum of outputs)/dx[i, c] = sum over offsets that reach an output of w[k, c]
    ref = np.zeros_like(vals)
    out_sp = (4, 3, 5)
    for i in range(idx.shape[1]):
        for kk in np.ndindex(3, 3, 3):
            o = idx[1:, i] + 1 - np.array(kk)
            if np.all((o >= 0) & (o < out_sp)):
                ref[i] += w.numpy()[kk][:, 0]
    np.testing.assert_allclose(x.grad.values().numpy(), ref, rtol=1e-12)


def test_duplicates_are_summed():
    rng, idx, vals = _pattern(2)
    dup = np.concatenate([idx, idx[:, :3]], axis=1)
    dvals = np.concatenate([vals, vals[:3]])
    w = weft.to_tensor(rng.standard_normal((3, 3, 3, 2, 2)))
    x = weft.sparse.sparse_coo_tensor(dup, dvals, [2, 4, 3, 5, 2])
    for f in (F.subm_conv3d, F.conv3d):
        got = f(x, w).to_dense().numpy()
        want = f(weft.sparse.coalesce(x), w).to_dense().numpy()
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_subm_keeps_unsorted_input_order():
    rng, idx, vals = _pattern(3)
    perm = rng.permutation(idx.shape[1])
    w = weft.to_tensor(rng.standard_normal((3, 3, 3, 2, 4)))
    y = F.subm_conv3d(weft.sparse.sparse_coo_tensor(idx[:, perm], vals[perm], [2, 4, 3, 5, 2]), w)
    ref = F.subm_conv3d(weft.sparse.sparse_coo_tensor(idx, vals, [2, 4, 3, 5, 2]), w)
    np.testing.assert_array_equal(y.indices().numpy(), idx[:, perm])
    np.testing.assert_allclose(y.values().numpy(), ref.values().numpy()[perm], rtol=1e-12)


def test_float32_and_thread_count_independence():
    rng = np.random.default_rng(4)
    idx = random_sites(rng, 1, [24, 24, 24], 3000)
    vals = rng.standard_normal((idx.shape[1], 8)).astype(np.float32)
    w = weft.to_tensor(rng.standard_normal((3, 3, 3, 8, 8)).astype(np.float32))
    x = weft.sparse.sparse_coo_tensor(idx, vals, [1, 24, 24, 24, 8])
    old = weft.get_num_threads()
    outs = []
    try:
        for n in (1, 2, 3):
            weft.set_num_threads(n)
            got = []
            for f, kw in ((F.subm_conv3d, {}), (F.conv3d, {"stride": 2})):
                xg = weft.sparse.sparse_coo_tensor(idx, vals, [1, 24, 24, 24, 8],
                                                   stop_gradient=False)
                wg = weft.to_tensor(w.numpy(), stop_gradient=False)
                y = f(xg, wg, **kw)
                (y.values() * y.values()).sum().backward()
                got += [y.values().numpy(), xg.grad.values().numpy(), wg.grad.numpy()]
            outs.append(got)
    finally:
        weft.set_num_threads(old)
    for o in outs[1:]:
        for a, b in zip(outs[0], o):
            np.testing.assert_array_equal(a, b)
    ref, _ = dense_conv(dense_of(idx, vals.astype(np.float64), 1, [24] * 3),
                        w.numpy().astype(np.float64), [1] * 3, [1] * 3, [1] * 3, [1] * 3)
    np.testing.assert_allclose(outs[0][0], ref[tuple(idx)], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("subm", [True, False])
def test_array_module_rulebook_matches_native(subm):
    rng = np.random.default_rng(5)
    idx = random_sites(rng, 2, [6, 5, 7], 60)
    args = ([6, 5, 7], [3, 3, 3], [1, 1, 1] if subm else [2, 1, 2], [1, 1, 1], [1, 1, 1],
            [6, 5, 7] if subm else [3, 5, 4], subm)
    a = RB.build(idx, 2, *args)
    b = RB._build_xp(idx, 2, *args)
    assert a.identity == b.identity and a.n_out == b.n_out
    for f in ("offsets", "in_rows", "out_rows"):
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
    if not subm:
        np.testing.assert_array_equal(a.out_indices, b.out_indices)
    # the array-module convolution (GPU path) agrees with the native one
    x = rng.standard_normal((60, 3))
    w = rng.standard_normal((27, 3, 2))
    saved = RB._HAS_NATIVE
    try:
        RB._HAS_NATIVE = False
        slow = RB._conv_fwd(x, w, b, False), RB._wgrad_fwd(x, rng.standard_normal((b.n_out, 2)), b)
    finally:
        RB._HAS_NATIVE = saved
    np.testing.assert_allclose(RB._conv_fwd(x, w, a, False), slow[0], rtol=1e-12)


def test_key_caches_and_rejects_another_active_set():
    rng, idx, vals = _pattern(6)
    w = weft.to_tensor(rng.standard_normal((3, 3, 3, 2, 2)))
    x = weft.sparse.sparse_coo_tensor(idx, vals, [2, 4, 3, 5, 2])
    y1 = F.subm_conv3d(x, w, key="net.block1")
    book = RB.keyed_rulebooks(x._indices)["net.block1"]
    y2 = F.subm_conv3d(y1, w, key="net.block1")  # same sites: the cached rulebook
    assert RB.keyed_rulebooks(y1._indices)["net.block1"] is book and len(book) == 1
    ref = F.subm_conv3d(F.subm_conv3d(x, w), w)
    np.testing.assert_allclose(y2.values().numpy(), ref.values().numpy(), rtol=1e-12)
    # the same sites in another array (e.g. a copy) are the same active set
    same = weft.sparse.sparse_coo_tensor(idx.copy(), vals, [2, 4, 3, 5, 2])
    F.subm_conv3d(same, w, key="net.block1")
    # after a strided convolution the sites differ: that key is taken in this pass
    down = F.conv3d(y2, w, stride=2, padding=1)
    with pytest.raises(ValueError, match="key 'net.block1' already names another active set"):
        F.subm_conv3d(down, w, key="net.block1")
    F.subm_conv3d(down, w, key="net.block2")
    # a new input (the next batch) starts a new pass: the key is free again
    other = weft.sparse.sparse_coo_tensor(idx[:, :-1], vals[:-1], [2, 4, 3, 5, 2])
    z = F.subm_conv3d(other, w, key="net.block1")
    np.testing.assert_allclose(z.values().numpy(), F.subm_conv3d(other, w).values().numpy(),
                               rtol=1e-12)
    with pytest.raises(TypeError, match="key must be a str"):
        F.subm_conv3d(x, w, key=3)


def test_keyed_rulebooks_are_released_with_their_arrays():
    import gc

    rng, idx, vals = _pattern(11)
    w = weft.to_tensor(rng.standard_normal((3, 3, 3, 2, 2)))
    n0 = len(RB._lineage_of)
    x = weft.sparse.sparse_coo_tensor(idx.copy(), vals, [2, 4, 3, 5, 2])  # x owns its sites
    y = F.conv3d(F.subm_conv3d(x, w, key="a"), w, stride=2)
    assert len(RB._lineage_of) == n0 + 2  # x's sites and y's, one lineage
    del x, y
    gc.collect()
    assert len(RB._lineage_of) == n0


def test_igemm_twins_and_stride_warning():
    rng, idx, vals = _pattern(7)
    x = weft.sparse.sparse_coo_tensor(idx, vals, [2, 4, 3, 5, 2])
    w = weft.to_tensor(rng.standard_normal((3, 3, 3, 2, 2)))
    a = F.subm_conv3d(x, w).values().numpy()
    np.testing.assert_array_equal(F.subm_conv3d_igemm(x, w).values().numpy(), a)
    with pytest.warns(UserWarning, match="stride"):
        b = F.subm_conv3d(x, w, stride=2, padding=0).values().numpy()
    np.testing.assert_array_equal(a, b)
    x2 = weft.sparse.sparse_coo_tensor(idx[[0, 1, 2]], vals, [2, 4, 3, 2])
    w2 = weft.to_tensor(rng.standard_normal((3, 3, 2, 2)))
    np.testing.assert_array_equal(F.subm_conv2d_igemm(x2, w2).values().numpy(),
                                  F.subm_conv2d(x2, w2).values().numpy())


@pytest.mark.parametrize("padding,front,back", [
    ("valid", [0] * 3, [0] * 3), ([1, 0, 2], [1, 0, 2], [1, 0, 2]),
    ([1, 2, 0, 1, 2, 0], [1, 0, 2], [2, 1, 0]),
    ([[0, 0], [1, 2], [0, 1], [2, 0], [0, 0]], [1, 0, 2], [2, 1, 0])])
def test_padding_forms(padding, front, back):
    rng, idx, vals = _pattern(8)
    w = rng.standard_normal((2, 3, 3, 2, 2))
    y = F.conv3d(weft.sparse.sparse_coo_tensor(idx, vals, [2, 4, 3, 5, 2]), weft.to_tensor(w),
                 padding=padding)
    ref, count = dense_conv(dense_of(idx, vals, 2, [4, 3, 5]), w, [1] * 3, front, back, [1] * 3)
    want = np.array(np.nonzero(count > 0))
    np.testing.assert_array_equal(y.indices().numpy(), want)
    np.testing.assert_allclose(y.values().numpy(), ref[tuple(want)], rtol=1e-12)


def test_same_padding_keeps_size():
    rng, idx, vals = _pattern(9)
    y = F.conv3d(weft.sparse.sparse_coo_tensor(idx, vals, [2, 4, 3, 5, 2]),
                 weft.to_tensor(rng.standard_normal((3, 2, 3, 2, 1))), padding="same")
    assert y.shape == [2, 4, 3, 5, 1]


def _bad_cases():
    rng, idx, vals = _pattern(10)
    x = weft.sparse.sparse_coo_tensor(idx, vals, [2, 4, 3, 5, 2])
    w = weft.to_tensor(rng.standard_normal((3, 3, 3, 2, 2)))
    return x, w


@pytest.mark.parametrize("call,exc,match", [
    (lambda x, w: F.conv3d(x.to_dense(), w), TypeError, "x must be a SparseCooTensor"),
    (lambda x, w: F.subm_conv3d(x.to_dense().to_sparse_coo(5), w), ValueError, "sparse_dim 4"),
    (lambda x, w: F.conv3d(x.to_dense().to_sparse_coo(3), w), ValueError, "sparse_dim 4"),
    (lambda x, w: F.conv2d(x, w), ValueError, "4-D"),
    (lambda x, w: F.conv3d(x, w[:, :, :, :1]), ValueError, "x has 2 channels but weight expects 1"),
    (lambda x, w: F.conv3d(x, w[0]), ValueError, "weight must be 5-D"),
    (lambda x, w: F.conv3d(x, w, stride=[1, 1]), ValueError, "stride must be an int or a list of 3"),
    (lambda x, w: F.conv3d(x, w, stride=0), ValueError, "stride must be >= 1"),
    (lambda x, w: F.conv3d(x, w, dilation=[1, 0, 1]), ValueError, "dilation must be >= 1"),
    (lambda x, w: F.conv3d(x, w, padding=-1), ValueError, "padding must be >= 0"),
    (lambda x, w: F.conv3d(x, w, padding=[1, 1]), ValueError, "padding must be an int or a list"),
    (lambda x, w: F.conv3d(x, w, padding="full"), ValueError, "padding must be 'same'"),
    (lambda x, w: F.conv3d(x, w, dilation=4), ValueError, "does not fit spatial axis"),
    (lambda x, w: F.subm_conv3d(x, w[:2]), ValueError, "odd kernel sizes"),
    (lambda x, w: F.conv3d(x, w, groups=2), AssertionError, "groups=1"),
    (lambda x, w: F.conv3d(x, w, data_format="NCDHW"), ValueError, "data_format"),
    (lambda x, w: F.conv3d(x, w, bias=weft.ones([3], dtype="float64")), ValueError, r"bias must have shape \[2\]"),
    (lambda x, w: F.conv3d(x, w.astype("float32")), TypeError, "weight has dtype float32"),
    (lambda x, w: F.conv3d(weft.sparse.cast(x, value_dtype="int64"), w), TypeError, "float"),
])
def test_bad_input(call, exc, match):
    x, w = _bad_cases()
    with pytest.raises(exc, match=match):
        call(x, w)


def test_native_rulebook_checks_coordinates():
    from weft._native import extension as C

    idx = np.array([[0, 0], [1, 5], [0, 0], [0, 0]], dtype=np.int64)  # 5 is outside [0, 4)
    with pytest.raises(IndexError, match=r"indices\[1\]\[1\] = 5 is out of range \[0, 4\)"):
        C.sparse_conv_rulebook(idx, 1, [4, 4, 4], [3] * 3, [1] * 3, [1] * 3, [1] * 3, [4] * 3, True)
    with pytest.raises(ValueError, match="kernel_size must have 3 entries"):
        C.sparse_conv_rulebook(idx[:, :1].copy(), 1, [4, 4, 4], [3] * 2, [1] * 3, [1] * 3, [1] * 3,
                               [4] * 3, True)
    with pytest.raises(ValueError, match="number of input sites"):
        C.sparse_conv_rulebook(idx[:, :1].copy(), 2 ** 40, [2 ** 20] * 3, [3] * 3, [1] * 3, [1] * 3,
                               [1] * 3, [2 ** 20] * 3, True)
