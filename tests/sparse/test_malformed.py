"""Malformed sparse input (issue 16, items 14 and 21): wrapped batch row pointers are
rejected before any kernel reads them, and kernel errors on tensors whose caller-owned
arrays changed after construction name the public function and argument."""
import numpy as np
import pytest

import weft
from weft import sparse as S
from weft._native import extension as _C

BIG = 2 ** 62


def _wrapping_crows():
    # four batches each ending at 2**62: the ends sum to 2**64, i.e. 0 in int64
    return np.array([0, BIG] * 4, dtype=np.int64)


def test_constructor_rejects_batch_ends_that_wrap_to_nnz():
    with pytest.raises(ValueError, match=r"sparse_csr_tensor: crows\[1\] = 4611686018427387904 .*"
                                         r"larger than the number of non-zero \(0\)"):
        S.sparse_csr_tensor(_wrapping_crows(), np.zeros(0, np.int64), np.zeros(0), [4, 1, 3])


def test_constructor_rejects_batch_ends_whose_sum_exceeds_nnz():
    # every end <= nnz, but their running sum passes it
    cr = np.array([0, 2, 0, 2, 0, 2], dtype=np.int64)
    with pytest.raises(ValueError, match="batches 0..1 already describe more"):
        S.sparse_csr_tensor(cr, np.zeros(3, np.int64), np.ones(3), [3, 1, 3])


def test_slice_kernel_rejects_wrapping_batch_ends():
    with pytest.raises(ValueError, match=r"sparse_csr_slice: crows\[1\] = 4611686018427387904: the row pointers describe "
                                          r"4611686018427387904 stored entries but cols has 0"):
        _C.sparse_csr_slice(_wrapping_crows(), np.zeros(0, np.int64), [4, 1, 3], [0, 0, 0], [4, 1, 3])


@pytest.mark.parametrize("shape", [[BIG, 3, 3], [1, 2 ** 63 - 1, 3], [3, BIG, 1]])
def test_slice_kernel_size_products_do_not_wrap(shape):
    # B*(M+1) once wrapped to match an empty crows array and the kernel read past it
    with pytest.raises(ValueError, match=r"sparse_csr_slice: .* does not fit in int64"):
        _C.sparse_csr_slice(np.zeros(0, np.int64), np.zeros(0, np.int64), shape, [0, 0, 0], shape)


def test_slice_of_a_valid_batched_tensor_still_works():
    x = S.sparse_csr_tensor([0, 1, 2, 0, 0, 1], [2, 0, 1], [1.0, 2.0, 3.0], [2, 2, 3])
    y = S.slice(x, [0, 1], [1, 0], [2, 2])
    np.testing.assert_array_equal(y.to_dense().numpy(), x.to_dense().numpy()[1:2, 0:2])


# -- item 21: caller-owned arrays changed after construction -----------------------

def _coo():
    ind = np.array([[0, 1, 1], [2, 0, 0]])
    return ind, S.sparse_coo_tensor(ind, np.array([1.0, 2.0, 3.0]), [2, 3])


def _csr():
    cr, cl = np.array([0, 2, 3]), np.array([0, 2, 1])
    return cr, cl, S.sparse_csr_tensor(cr, cl, np.array([1.0, 2.0, 3.0]), [2, 3])


@pytest.mark.parametrize("call, op", [
    (lambda x: x.to_sparse_csr(), "to_sparse_csr"),
    (lambda x: S.coalesce(x), "coalesce"),
    (lambda x: x.to_dense(), "to_dense"),
    (lambda x: S.matmul(x, weft.ones([3, 2], dtype="float64")), "matmul"),
])
def test_changed_coo_indices_name_the_public_function(call, op):
    ind, x = _coo()
    ind[0, 1] = 7
    with pytest.raises(ValueError, match=rf"^{op}: the sparse tensor x is malformed: "
                                         r"indices\[0\]\[1\] = 7 is out of range \[0, 2\).*"
                                         "changed after construction"):
        call(x)


@pytest.mark.parametrize("call, op", [
    (lambda x: x.to_sparse_coo(), "to_sparse_coo"),
    (lambda x: x.to_dense(), "to_dense"),
    (lambda x: S.matmul(x, weft.ones([3, 2], dtype="float64")), "matmul"),
    (lambda x: S.slice(x, [0], [0], [1]), "slice"),
])
def test_changed_csr_arrays_name_the_public_function(call, op):
    cr, cl, x = _csr()
    cr[1] = 5
    with pytest.raises(ValueError, match=rf"^{op}: the sparse tensor x is malformed: crows must be "
                                         "non-decreasing"):
        call(x)


def test_changed_second_argument_is_the_one_named():
    _, _, x = _csr()
    cr, cl, y = _csr()
    cl[0] = 9
    with pytest.raises(ValueError, match=r"^add: the sparse tensor y is malformed: cols\[0\] = 9"):
        S.add(x, y)


def test_valid_arguments_keep_the_original_error():
    # the guard re-validates only to name a culprit; a plain bad argument is unchanged
    _, _, x = _csr()
    with pytest.raises(ValueError) as e:
        S.slice(x, [5], [0], [1])
    assert "malformed" not in str(e.value)


@pytest.mark.parametrize("bad", [2 ** 63 - 1, -2, 3])
def test_pick_add_slots_at_the_int64_limit(bad):
    # found by the fuzz test under UBSan: the range check computed slot + 1 in int64,
    # which overflows for slot = 2**63 - 1 (undefined behaviour, caught only by luck)
    v = np.ones((3, 1))
    good = np.array([0, 1], np.int64)
    with pytest.raises(IndexError, match="slot_y"):
        _C.sparse_pick_add(v, good, v, np.array([0, bad], np.int64))
    with pytest.raises(IndexError, match="slot"):
        _C.sparse_pick(v, np.array([bad, 0], np.int64))
