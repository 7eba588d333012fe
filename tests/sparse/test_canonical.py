"""The canonical-CSR check (columns strictly increasing inside each row) that lets
coalesce, the nonlinear unary ops and CSR -> COO skip sorting."""
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import weft
from weft import sparse as S
from weft.sparse.convert import csr_is_canonical


def _loop_canonical(crows, cols):
    for b in range(len(crows) - 1):
        row = cols[crows[b]:crows[b + 1]]
        if any(row[i] >= row[i + 1] for i in range(len(row) - 1)):
            return False
    return True


@st.composite
def _csr_parts(draw):
    m = draw(st.integers(1, 6))
    n = draw(st.integers(1, 6))
    counts = draw(st.lists(st.integers(0, 4), min_size=m, max_size=m))
    crows = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    cols = np.array(draw(st.lists(st.integers(0, n - 1), min_size=int(crows[-1]),
                                  max_size=int(crows[-1]))), dtype=np.int64)
    if draw(st.booleans()):  # mostly canonical inputs: sort and drop duplicates per row
        keep = []
        for r in range(m):
            keep.append(np.unique(cols[crows[r]:crows[r + 1]]))
        cols = np.concatenate(keep + [np.zeros(0, np.int64)]).astype(np.int64)
        crows = np.concatenate([[0], np.cumsum([len(k) for k in keep])]).astype(np.int64)
    return crows, cols, m, n


@given(_csr_parts(), st.sampled_from([np.int32, np.int64]))
def test_canonical_check_matches_a_loop(parts, index_dtype):
    crows, cols, m, n = parts
    x = S.sparse_csr_tensor(crows.astype(index_dtype), cols.astype(index_dtype),
                            np.arange(1.0, len(cols) + 1), [m, n])
    want = _loop_canonical(crows, cols)
    assert csr_is_canonical(x) is want
    coo = x.to_sparse_coo(2)
    assert coo.is_coalesced() is want
    np.testing.assert_array_equal(coo.to_dense().numpy(), x.to_dense().numpy())
    c = S.coalesce(x)
    assert csr_is_canonical(c)
    assert (c is x) is want
    np.testing.assert_array_equal(c.to_dense().numpy(), x.to_dense().numpy())


def test_batched_rows_are_checked_per_batch():
    # the last row of batch 0 ends at column 2 and batch 1 starts at column 0: canonical
    x = S.sparse_csr_tensor([0, 1, 2, 0, 2, 2], [1, 2, 0, 1, ], [1.0, 2.0, 3.0, 4.0], [2, 2, 3])
    assert csr_is_canonical(x)
    y = S.sparse_csr_tensor([0, 1, 2, 0, 2, 2], [1, 2, 1, 1], [1.0, 2.0, 3.0, 4.0], [2, 2, 3])
    assert not csr_is_canonical(y)  # a duplicate inside the first row of batch 1
    np.testing.assert_array_equal(S.sin(y).to_dense().numpy(), np.sin(y.to_dense().numpy()))


def test_the_answer_is_shared_by_tensors_of_the_same_pattern():
    x = weft.to_tensor([[0.0, 1.0], [2.0, 3.0]]).to_sparse_csr()
    assert csr_is_canonical(x)
    assert S.sin(x)._canonical is True and (x * 2.0)._canonical is True


def _truly_canonical(x):
    shape = x.shape
    crows = x.crows().numpy().astype(np.int64)
    if len(shape) == 3:
        b, m = shape[:2]
        per = crows.reshape(b, m + 1)
        crows = np.concatenate([[0], (per[:, 1:] + np.cumsum(
            np.concatenate([[0], per[:-1, -1]]))[:, None]).reshape(-1)])
    return _loop_canonical(crows, x.cols().numpy())


@given(st.integers(0, 2 ** 16), st.booleans(), st.booleans())
def test_outputs_marked_canonical_are_canonical(seed, batched, native):
    """Ops that record canonical=True on their output must be right about it."""
    import weft.sparse._kernels as K

    rng = np.random.default_rng(seed)
    shape = [2, 4, 5] if batched else [4, 5]
    nnz = int(rng.integers(0, 12))
    idx = np.stack([rng.integers(0, s, nnz) for s in shape])  # duplicates, unsorted
    coo = S.sparse_coo_tensor(idx, rng.standard_normal(nnz), shape)
    old = K._HAS_NATIVE
    K._HAS_NATIVE = native and old
    try:
        x = coo.to_sparse_csr()
        outs = [x, S.coalesce(x), x + x, S.cast(x, "int32"), x.clone(), S.sin(x),
                S.transpose(x, [0, 2, 1] if batched else [1, 0]),
                weft.to_tensor(coo.to_dense().numpy()).to_sparse_csr(),
                S.slice(x, [len(shape) - 2, len(shape) - 1], [1, 1], [3, 4]), S.sum(x, axis=-1)]
        if not batched:
            outs.append(S.matmul(x, S.transpose(x, [1, 0])))
    finally:
        K._HAS_NATIVE = old
    for out in outs:
        if out._canonical:
            assert _truly_canonical(out)
        np.testing.assert_allclose(S.coalesce(out).to_dense().numpy(), out.to_dense().numpy())
