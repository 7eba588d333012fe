"""Regressions from issue 16 (Paddle's own tests and a malformed-input probe)."""
import numpy as np
import pytest

import weft
import weft.geometric as G


def _leaf(values):
    return weft.to_tensor(np.asarray(values, dtype=np.float64), stop_gradient=False)


# -- item 15: an output saved for backward is version-checked like a saved input ----------

@pytest.mark.parametrize("op", [weft.exp, weft.tanh, weft.nn.functional.sigmoid])
def test_inplace_change_of_saved_output_raises(op):
    x = _leaf([0.5, 1.0])
    y = op(x)
    z = y * 2
    y.multiply_(weft.to_tensor([2.0, 2.0], dtype="float64"))
    with pytest.raises(RuntimeError, match=r"output 0 of .* modified by an inplace"):
        z.sum().backward()


def test_inplace_change_of_saved_send_u_recv_max_output_raises():
    x = _leaf([[1.0], [2.0], [3.0]])
    y = G.send_u_recv(x, weft.to_tensor([0, 1, 2]), weft.to_tensor([1, 1, 0]), reduce_op="max")
    z = y * 1
    y.add_(weft.ones_like(y))
    with pytest.raises(RuntimeError, match="modified by an inplace"):
        z.sum().backward()


def test_saved_output_untouched_still_differentiates():
    x = _leaf([0.5, 1.0])
    y = weft.exp(x)
    (y * 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp([0.5, 1.0]))


# -- item 16: numpy() of a tensor that requires grad is a read-only view ------------------

def test_numpy_of_tensor_requiring_grad_is_read_only():
    x = _leaf([1.0, 2.0])
    y = x * 3
    for t in (x, y):
        a = t.numpy()
        assert not a.flags.writeable
        with pytest.raises(ValueError):
            a[0] = 5.0
        with pytest.raises(ValueError):
            np.asarray(t)[0] = 5.0
    # zero-copy stays: the view sees later (legitimate) in-place updates
    a = y.numpy()
    y.add_(weft.ones_like(y))
    assert a[0] == 4.0
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])


def test_numpy_of_constant_and_detached_is_writable_view():
    c = weft.to_tensor([1.0, 2.0])
    c.numpy()[0] = 7.0
    assert c.tolist() == [7.0, 2.0]
    x = _leaf([1.0, 2.0])
    x.detach().numpy()[1] = 9.0
    assert x.tolist() == [1.0, 9.0]
    assert np.array(x).flags.writeable   # np.array copies


# -- item 10: batched CSR transpose sends its gradient to a leaf input --------------------

@pytest.mark.parametrize("perm", [[0, 2, 1], [1, 0, 2], [2, 1, 0], [1, 2, 0]])
def test_batched_csr_transpose_gradient_reaches_leaf(perm):
    rng = np.random.default_rng(0)
    d = rng.standard_normal((2, 3, 4)) * (rng.random((2, 3, 4)) < 0.5)
    d[:, 0, 0] = 1.0  # every batch stores something
    x = weft.to_tensor(d).to_sparse_csr()
    x.stop_gradient = False
    y = weft.sparse.transpose(x, perm)
    w = rng.standard_normal(d.transpose(perm).shape)
    (y.to_dense() * weft.to_tensor(w)).sum().backward()
    assert x.grad is not None
    np.testing.assert_allclose(x.grad.to_dense().numpy(),
                               w.transpose(np.argsort(perm)) * (d != 0))
    assert weft.autograd.gradcheck(lambda v: weft.sparse.transpose(v, perm).to_dense(), [x])


def test_csr_reshape_to_3d_gradient_reaches_leaf():
    d = np.zeros((4, 6))
    d[0, 1], d[2, 5], d[3, 0] = 1.0, 2.0, 3.0
    x = weft.to_tensor(d).to_sparse_csr()
    x.stop_gradient = False
    y = weft.sparse.reshape(x, [2, 2, 6])
    (y.to_dense() * 2).sum().backward()
    assert x.grad is not None
    np.testing.assert_allclose(x.grad.to_dense().numpy(), 2.0 * (d != 0))


# -- item 3: backward() on a tensor that requires no grad does nothing --------------------

def test_backward_on_stop_gradient_tensor_is_a_no_op():
    c = weft.to_tensor([1.0, 2.0])
    assert c.backward() is None
    assert c.grad is None
    x = _leaf([1.0])
    weft.autograd.backward([c * 2, x * 3])
    assert x.grad.tolist() == [3.0]


# -- item 4: retained .grad is the gradient before hooks; remove() says whether it did ----

def test_retained_grad_is_taken_before_hooks_and_remove_returns_bool():
    x = _leaf([1.0, 2.0])
    y = x * 2
    y.retain_grads()
    h = y.register_hook(lambda g: g * 10)
    y.sum().backward()
    assert y.grad.tolist() == [1.0, 1.0]
    assert x.grad.tolist() == [20.0, 20.0]
    assert h.remove() is True
    assert h.remove() is False
    hl = x.register_hook(lambda g: None)
    assert hl.remove() is True and hl.remove() is False


# -- item 5: backward inside a hook (reentrancy) ------------------------------------------

def test_backward_inside_a_hook_records_and_runs():
    x = _leaf([1.0, 2.0])
    w = _leaf([3.0, 4.0])
    seen = []

    def hook(g):
        z = (w * w).sum()
        seen.append(z.stop_gradient)
        z.backward()
        return g

    y = x * 2
    y.register_hook(hook)
    y.sum().backward()
    assert seen == [False]
    assert w.grad.tolist() == [6.0, 8.0]
    assert x.grad.tolist() == [2.0, 2.0]
    # a leaf's hook too, and nothing records inside a hook under no_grad
    x.register_hook(hook)
    (x * 1).sum().backward()
    assert seen == [False, False] and w.grad.tolist() == [12.0, 16.0]


def test_hooks_keep_create_graph_recording():
    x = _leaf([1.0, 2.0])
    y = x ** 2
    y.register_hook(lambda g: g * 3)
    (g,) = weft.grad(y.sum(), x, create_graph=True)
    assert not g.stop_gradient
    (gg,) = weft.grad(g.sum(), x)
    assert gg.tolist() == [6.0, 6.0]


# -- item 6: what a hook returns is checked ------------------------------------------------

@pytest.mark.parametrize("ret, exc, match", [
    (lambda g: g.sum(), ValueError, r"output 0 of .*shape \[\]"),
    (lambda g: g.astype("float32"), ValueError, "dtype float32"),
    (lambda g: g.numpy(), TypeError, "returned ndarray"),
    (lambda g: 3.0, TypeError, "returned float"),
])
def test_hook_return_is_checked(ret, exc, match):
    x = _leaf([1.0, 2.0])
    y = x * 2
    y.register_hook(ret)
    with pytest.raises(exc, match=match):
        y.sum().backward()
    z = _leaf([1.0, 2.0])
    z.name = "zz"
    z.register_hook(ret)
    with pytest.raises(exc, match="leaf tensor 'zz'" if exc is ValueError else match):
        (z * 2).sum().backward()


# -- item 8: grad_outputs of another float dtype is cast ----------------------------------

def test_grad_outputs_float_dtype_is_cast():
    x = _leaf([1.0, 2.0])
    y = x * 3
    (g,) = weft.grad(y, x, grad_outputs=weft.to_tensor([1.0, 2.0], dtype="float32"))
    assert g.dtype == weft.float64 and g.tolist() == [3.0, 6.0]
    with pytest.raises(TypeError, match="dtype int64"):
        weft.grad(y, x, grad_outputs=weft.to_tensor([1, 2]))


# -- item 12: a sparse grad_tensor with another pattern says so ---------------------------

def test_sparse_grad_tensor_with_other_pattern_is_named():
    d = np.zeros((3, 4))
    d[0, 1], d[2, 3] = 1.0, 2.0
    x = weft.to_tensor(d).to_sparse_coo(2)
    x.stop_gradient = False
    y = x * 2
    e = np.zeros((3, 4))
    e[1, 1] = 1.0
    with pytest.raises(ValueError, match="sparsity pattern"):
        y.backward(weft.to_tensor(e).to_sparse_coo(2))
    with pytest.raises(ValueError, match=r"shape \[2, 2\]"):
        y.backward(weft.to_tensor(np.ones((2, 2))).to_sparse_coo(2))


# -- item 20: checks of user input survive python -O --------------------------------------

def test_argument_checks_are_not_asserts():
    import ast
    import pathlib
    root = pathlib.Path(weft.__file__).parent
    found = [f"{p.relative_to(root)}:{n.lineno}" for p in root.rglob("*.py")
             for n in ast.walk(ast.parse(p.read_text())) if isinstance(n, ast.Assert)]
    assert found == []
    x = _leaf([1.0])
    with pytest.raises(AssertionError, match="length of grad_tensors"):
        weft.autograd.backward([x * 2], [None, None])
    with pytest.raises(ValueError, match="length of grad_tensors"):
        weft.autograd.backward([x * 2], [None, None])
    with pytest.raises(AssertionError, match="only_inputs"):
        weft.grad(x * 2, x, only_inputs=False)


# -- item 7: the function's argument is differentiated separately from a closure ----------

def test_vjp_argument_is_separate_from_closure():
    from weft.incubate.autograd import Jacobian, vjp
    x = _leaf([1.0, 2.0])
    _, g = vjp(lambda y: x * y, x)
    assert g.tolist() == [1.0, 2.0]
    assert Jacobian(lambda y: x * y, x)[:].tolist() == [[1.0, 0.0], [0.0, 2.0]]
    _, g = weft.autograd.vjp(lambda y: (y ** 3).sum(), x)   # still nests
    assert weft.grad(g.sum(), x)[0].tolist() == [6.0, 12.0]
    assert x.grad is None


# -- items 1, 2: PyLayer with Tensors in list/tuple arguments, and its error cases ---------

def test_pylayer_tensors_inside_list_and_tuple_arguments():
    from weft.autograd import PyLayer

    class Mix(PyLayer):
        @staticmethod
        def forward(ctx, a, pair, scale, extra):
            ctx.save_for_backward(a, *pair)
            return a * pair[0] + pair[1] * scale + extra[1]

        @staticmethod
        def backward(ctx, d):
            a, p0, p1 = ctx.saved_tensor()
            return d * p0, [d * a, d * 3.0], (None, d)

    a, p0, p1, e = _leaf([1.0, 2.0]), _leaf([3.0, 4.0]), _leaf([5.0, 6.0]), _leaf([0.0, 0.0])
    Mix.apply(a, [p0, p1], 3.0, ("tag", e)).sum().backward()
    assert a.grad.tolist() == [3.0, 4.0]
    assert p0.grad.tolist() == [1.0, 2.0]
    assert p1.grad.tolist() == [3.0, 3.0]
    assert e.grad.tolist() == [1.0, 1.0]

    class Flat(PyLayer):   # one gradient per Tensor, flat, is accepted too
        @staticmethod
        def forward(ctx, xs):
            return xs[0] + xs[1]

        @staticmethod
        def backward(ctx, d):
            return d, d * 2

    x0, x1 = _leaf([1.0]), _leaf([1.0])
    Flat.apply((x0, x1)).backward()
    assert x0.grad.tolist() == [1.0] and x1.grad.tolist() == [2.0]

    class Wrong(PyLayer):
        @staticmethod
        def forward(ctx, xs):
            return xs[0] + xs[1]

        @staticmethod
        def backward(ctx, d):
            return ([d],)

    with pytest.raises(ValueError, match="1 gradients but the list/tuple argument holds 2"):
        Wrong.apply([_leaf([1.0]), _leaf([1.0])]).backward()


def test_pylayer_error_cases():
    from weft.autograd import PyLayer

    class NoTensor(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return 3.0

        @staticmethod
        def backward(ctx, d):
            return d

    with pytest.raises(ValueError, match="NoTensor.forward must return a Tensor"):
        NoTensor.apply(_leaf([1.0]))

    class BadGrad(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, d):
            return "grad"

    with pytest.raises(ValueError, match="must be a Tensor or None"):
        BadGrad.apply(_leaf([1.0])).backward()

    class NoBackward(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    y = NoBackward.apply(_leaf([1.0]))     # fine until backward runs
    with pytest.raises(NotImplementedError, match="NoBackward defines no backward"):
        y.backward()


def test_pylayer_returning_its_input_is_in_place():
    from weft.autograd import PyLayer

    class Ident(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, d):
            return d * 10

    with pytest.raises(ValueError, match="leaf Tensor that doesn't stop gradient"):
        Ident.apply(_leaf([1.0]))
    x = _leaf([1.0, 2.0])
    h = x * 2
    y = Ident.apply(h)
    assert y is h                          # h itself now is the op's output
    y.sum().backward()
    assert x.grad.tolist() == [20.0, 20.0]
    # a node that saved h's old values sees the in-place change
    x = _leaf([1.0, 2.0])
    h = x * 2
    z = h * h
    Ident.apply(h)
    with pytest.raises(RuntimeError, match="modified by an inplace"):
        z.sum().backward()

    class Marked(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_not_inplace(x)
            return x

        @staticmethod
        def backward(ctx, d):
            return d * 10

    x = _leaf([1.0, 2.0])
    y = Marked.apply(x)
    assert y is not x
    y.sum().backward()
    assert x.grad.tolist() == [10.0, 10.0]


# -- item 9: linear with zero-size operands -----------------------------------------------

@pytest.mark.parametrize("xs, ws", [((3, 2), (2, 0)), ((2,), (2, 0)), ((3, 0), (0, 4)),
                                    ((0, 2), (2, 3)), ((2, 0, 2), (2, 0)), ((0,), (0, 2))])
def test_linear_zero_size_forward_and_backward(xs, ws):
    rng = np.random.default_rng(0)
    xd, wd = rng.standard_normal(xs), rng.standard_normal(ws)
    bd = rng.standard_normal(ws[1:])
    x, w, b = _leaf(xd), _leaf(wd), _leaf(bd)
    y = weft.nn.functional.linear(x, w, b)
    np.testing.assert_allclose(y.numpy(), xd @ wd + bd)
    y.sum().backward()
    g = np.ones(y.shape)
    np.testing.assert_allclose(x.grad.numpy(), g @ wd.T)
    rows = int(np.prod(xs[:-1]))
    np.testing.assert_allclose(w.grad.numpy(),
                               xd.reshape(rows, ws[0]).T @ g.reshape(rows, ws[1]))
    np.testing.assert_allclose(b.grad.numpy(), g.reshape(rows, ws[1]).sum(0))


# -- item 13: colptr[-1] must be the number of edges, for every sampler -------------------

def test_samplers_check_colptr_last_entry():
    row = weft.to_tensor([1, 2, 0, 2, 0])
    bad = weft.to_tensor([0, 2, 4, 6])     # node 2 (not sampled) claims a 6th edge
    nodes = weft.to_tensor([0])
    w = weft.to_tensor(np.ones(5, np.float32))
    for call in (lambda: G.sample_neighbors(row, bad, nodes, 1),
                 lambda: G.weighted_sample_neighbors(row, bad, w, nodes, 1),
                 lambda: G.khop_sampler(row, bad, nodes, [1])):
        with pytest.raises(ValueError, match=r"colptr\[-1\] must equal .* = 5, got 6"):
            call()
    good = weft.to_tensor([0, 2, 4, 5])
    assert G.sample_neighbors(row, good, nodes, -1)[0].tolist() == [1, 2]


def test_3d_csr_without_shape_says_shape_is_needed():
    crows, cols, vals = [0, 1, 2, 0, 1, 2], [0, 1, 1, 0], [1.0, 2.0, 3.0, 4.0]
    with pytest.raises(ValueError, match=r"crows\[3\].*3-D CSR tensor needs shape"):
        weft.sparse.sparse_csr_tensor(crows, cols, vals)
    x = weft.sparse.sparse_csr_tensor(crows, cols, vals, shape=[2, 2, 2])
    assert x.to_dense().numpy().tolist() == [[[1, 0], [0, 2]], [[0, 3], [4, 0]]]
    with pytest.raises(ValueError, match="non-decreasing"):   # a plain 2-D decrease
        weft.sparse.sparse_csr_tensor([0, 2, 1, 3], [0, 1, 1], [1.0, 2.0, 3.0])


# -- item 11: names Paddle code uses -------------------------------------------------------

def test_paddle_names_exist_and_work():
    x = _leaf([[1.0, 2.0], [3.0, 4.0]])
    m = weft.to_tensor([[0.0, 1.0], [1.0, 0.0]]).to_sparse_coo(2)
    s = x.sparse_mask(m)
    assert s.is_sparse_coo() and s.values().tolist() == [2.0, 3.0]
    s.values().sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0], [1.0, 0.0]]
    assert x.__div__(2).tolist() == [[0.5, 1.0], [1.5, 2.0]]
    assert x.__rdiv__(2).tolist() == (2 / x).tolist()
    d = weft.nn.functional.diag_embed(weft.to_tensor([[1.0, 2.0]]), offset=1)
    np.testing.assert_array_equal(d.numpy(), [[[0, 1, 0], [0, 0, 2], [0, 0, 0]]])
    assert weft.nn.loss.CrossEntropyLoss is weft.nn.CrossEntropyLoss
    assert weft.nn.loss.MSELoss()(weft.ones([2]), weft.zeros([2])).item() == 1.0


def test_device_module():
    dev = weft.device
    assert dev.get_device() == "cpu"
    assert dev.set_device("cpu") == weft.CPUPlace()
    n = dev.cuda.device_count()
    assert n == dev.device_count() and n >= 0
    assert dev.is_compiled_with_cuda() == (n > 0)
    assert dev.get_available_device() == ["cpu"] + [f"gpu:{i}" for i in range(n)]
    assert dev.get_all_device_type() == (["cpu", "gpu"] if n else ["cpu"])
    assert not dev.is_compiled_with_rocm() and not dev.is_compiled_with_xpu()
    assert dev.get_all_custom_device_type() == []
    dev.synchronize()            # the CPU: nothing to wait for
    dev.cuda.empty_cache()
    if n == 0:
        with pytest.raises(RuntimeError, match="CuPy|CUDA device"):
            dev.cuda.synchronize()
        with pytest.raises(RuntimeError, match="CuPy|CUDA device"):
            dev.cuda.get_device_name(0)
    else:
        assert isinstance(dev.cuda.get_device_name(0), str)
        assert len(dev.cuda.get_device_capability(0)) == 2
    with pytest.raises(ValueError, match="device"):
        dev.set_device("tpu")


def test_unpack_hook_result_is_checked_like_a_hook_result():
    x = _leaf([0.5, 1.0])
    with weft.autograd.saved_tensors_hooks(lambda t: t, lambda t: t.astype("float32")):
        y = weft.exp(x)       # saves its output
        z = x * x             # saves its inputs
    with pytest.raises(ValueError, match="dtype float32 for the output of exp"):
        y.sum().backward()
    with pytest.raises(ValueError, match="dtype float32 for input"):
        z.sum().backward()
    with weft.autograd.saved_tensors_hooks(lambda t: t, lambda t: t[:1]):
        y = weft.exp(x)
    with pytest.raises(ValueError, match=r"shape \[1\]"):
        y.sum().backward()
