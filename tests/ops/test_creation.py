"""Creation ops beyond the op database: Paddle-specific rules, in-place variants,
aliasing, gradients through in-place writes, and a few algebraic properties."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import weft


def _leaf(a, dtype="float64"):
    return weft.to_tensor(np.asarray(a, dtype=dtype), stop_gradient=False)


# -- ranges and eye -----------------------------------------------------------------

def test_linspace_paddle_rules():
    # integer dtypes truncate toward zero (a C cast), not floor as numpy 2 does
    assert weft.linspace(-10, 0, 4, dtype="int32").tolist() == [-10, -6, -3, 0]
    assert weft.linspace(0, 10, 4, dtype="int64").dtype == weft.int64
    x = weft.linspace(0.1, 0.7, 7)
    assert x.dtype == weft.float32
    # both ends are exact: the second half is computed down from stop
    assert x.numpy()[-1] == np.float32(0.7) and x.numpy()[0] == np.float32(0.1)
    t = weft.linspace(weft.to_tensor(1.0), weft.to_tensor(2.0), weft.to_tensor(3))
    assert t.tolist() == [1.0, 1.5, 2.0]
    assert weft.linspace(0, 1, 0).shape == [0]


def test_logspace_and_eye():
    np.testing.assert_allclose(weft.logspace(1, 3, 3, base=weft.to_tensor(2.0)).numpy(),
                               [2.0, 4.0, 8.0])
    assert weft.logspace(0, 2, 3, dtype="int32").tolist() == [1, 10, 100]
    e = weft.eye(weft.to_tensor(2), 3, dtype="int32")
    assert e.dtype == weft.int32 and e.tolist() == [[1, 0, 0], [0, 1, 0]]
    assert weft.eye(3).dtype == weft.float32 and weft.eye(3).stop_gradient


def test_default_dtype_follows_setting():
    weft.set_default_dtype("float64")
    assert weft.linspace(0, 1, 3).dtype == weft.float64
    assert weft.eye(2).dtype == weft.float64


# -- diagonals -----------------------------------------------------------------------

def test_diag_padding_only_for_vectors():
    v = weft.to_tensor([1, 2])
    assert weft.diag(v, padding_value=7).tolist() == [[1, 7], [7, 2]]
    assert weft.diag(v, offset=-1).tolist() == [[0, 0, 0], [1, 0, 0], [0, 2, 0]]
    m = weft.to_tensor([[1, 2, 3], [4, 5, 6]])
    assert weft.diag(m, padding_value=7).tolist() == [1, 5]
    assert weft.diag(m, offset=5).shape == [0]
    assert weft.diag(weft.to_tensor(4.0)).tolist() == [[4.0]]
    assert v.diag().tolist() == [[1, 0], [0, 2]]


def test_diag_gradients():
    v = _leaf([1.0, 2.0, 3.0])
    (weft.diag(v, 1, padding_value=5.0) ** 2).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), [2.0, 4.0, 6.0])
    m = _leaf(np.arange(6.0).reshape(2, 3))
    (weft.diag(m, 1) ** 2).sum().backward()
    np.testing.assert_allclose(m.grad.numpy(), [[0, 2, 0], [0, 0, 10]])
    # second order through the place/extract pair
    x = _leaf([1.0, 2.0])
    (g,) = weft.grad((weft.diag_embed(x) ** 3).sum(), x, create_graph=True)
    (h,) = weft.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), 6 * x.numpy())


def test_diag_embed_layout():
    x = np.arange(6.0).reshape(2, 3)
    out = weft.diag_embed(weft.to_tensor(x), offset=-1, dim1=2, dim2=0).numpy()
    assert out.shape == (4, 2, 4)
    for b in range(2):
        # out[j, b, i] holds matrix entry (i, j): rows run along dim1 = 2
        np.testing.assert_array_equal(out[:, b, :].T, np.diag(x[b], -1))
    assert weft.to_tensor(x).diag_embed().shape == [2, 3, 3]


def test_diagflat():
    x = weft.to_tensor([[1, 2], [3, 4]])
    assert weft.diagflat(x, -1).tolist() == np.diagflat([1, 2, 3, 4], -1).tolist()


# -- triangles ------------------------------------------------------------------------

def test_tril_triu_batched_and_dtypes():
    x = np.arange(18).reshape(2, 3, 3)
    np.testing.assert_array_equal(weft.tril(weft.to_tensor(x), -1).numpy(), np.tril(x, -1))
    np.testing.assert_array_equal(weft.triu(weft.to_tensor(x > 4), 1).numpy(), np.triu(x > 4, 1))
    c = weft.to_tensor(np.ones((2, 2)) * (1 + 2j))
    assert weft.triu(c).numpy()[1, 0] == 0 and weft.triu(c).dtype == weft.complex128


def test_tril_inplace():
    x = weft.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    v = x._version[0]
    r = x.tril_()
    assert r is x and x.tolist() == [[1.0, 0.0], [3.0, 4.0]] and x._version[0] == v + 1
    assert weft.triu_(x, 1).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    with pytest.raises(ValueError, match="2 dimensions"):
        weft.tril_(weft.to_tensor([1.0]))
    with pytest.raises(TypeError, match="Tensor"):
        weft.tril_(np.ones((2, 2)))


def test_tril_inplace_gradient_and_leaf_rule():
    a = _leaf(np.ones((2, 2)))
    with pytest.raises(ValueError, match="Leaf"):
        a.tril_()
    y = a * 3
    y.triu_()
    y.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [[3, 3], [0, 3]])


# -- meshgrid -----------------------------------------------------------------------

def test_meshgrid_forms_and_copies():
    x, y = weft.to_tensor([1.0, 2.0]), weft.to_tensor([3.0, 4.0, 5.0])
    a, b = weft.meshgrid([x, y])
    assert a.shape == [2, 3] and b.shape == [2, 3]
    ax, bx = weft.meshgrid(x, y, indexing="xy")
    assert ax.shape == [3, 2] and ax.numpy()[0].tolist() == [1.0, 2.0]
    # the grids own their memory: changing an input afterwards leaves them alone
    x._data[0] = 9.0
    assert a.numpy()[0].tolist() == [1.0, 1.0, 1.0]
    assert weft.meshgrid() == []


def test_meshgrid_gradient():
    x, y = _leaf([1.0, 2.0]), _leaf([3.0, 4.0, 5.0])
    a, b = weft.meshgrid(x, y)
    (a * b).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [12.0, 12.0])
    np.testing.assert_allclose(y.grad.numpy(), [3.0, 3.0, 3.0])


# -- assign / clone -----------------------------------------------------------------

def test_assign_conversions():
    assert weft.assign([1.0, 2.0]).dtype == weft.float32
    assert weft.assign(np.array([1.0])).dtype == weft.float64
    assert weft.assign(3).dtype == weft.int64
    out = weft.zeros([2], dtype="int32")
    assert weft.assign(np.array([1.7, 2.2]), out) is out
    assert out.tolist() == [1, 2]
    with pytest.raises(TypeError, match="dtype"):
        weft.assign(weft.to_tensor([1.0, 2.0], dtype="float64"), weft.zeros([2]))


def test_assign_output_gradients():
    x = _leaf([1.0, 2.0])
    out = weft.zeros([2], dtype="float64")
    weft.assign(x * 2, out)
    assert not out.stop_gradient
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])
    # the value overwritten in a non-leaf output gets a zero gradient
    w = _leaf([5.0, 6.0])
    y = w * 1.0
    weft.assign(np.array([0.0, 0.0]), y)
    (gw,) = weft.grad((y * 0 + y).sum(), w, allow_unused=True)
    assert gw is None or np.all(gw.numpy() == 0)


def test_clone_is_a_differentiable_copy():
    x = _leaf([1.0, 2.0])
    c = x.clone()
    assert c is not x and not c.stop_gradient and not c.is_leaf
    (c * c).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])
    d = weft.clone(weft.to_tensor([1, 2]))
    d._data[0] = 5
    assert d.stop_gradient and d.tolist() == [5, 2]


# -- properties -----------------------------------------------------------------------

@settings(derandomize=True, max_examples=25, deadline=None)
@given(m=st.integers(0, 4), n=st.integers(0, 4), k=st.integers(-5, 5))
def test_tril_plus_strict_triu_is_identity(m, n, k):
    x = weft.to_tensor(np.arange(m * n, dtype=np.float64).reshape(m, n) + 1)
    np.testing.assert_array_equal((weft.tril(x, k) + weft.triu(x, k + 1)).numpy(), x.numpy())


@settings(derandomize=True, max_examples=25, deadline=None)
@given(n=st.integers(0, 5), k=st.integers(-3, 3))
def test_diag_round_trip(n, k):
    v = weft.to_tensor(np.arange(n, dtype=np.float64) + 1)
    np.testing.assert_array_equal(weft.diag(weft.diag(v, k), k).numpy(), v.numpy())
    np.testing.assert_array_equal(weft.diagflat(v, k).numpy(), weft.diag(v, k).numpy())
