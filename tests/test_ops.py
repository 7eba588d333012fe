"""Generic tests over the op database (tests/opinfo.py): every entry is checked for
forward values against its reference, its Tensor method, first and second order
gradients, and its bad-input errors."""
from __future__ import annotations

import numpy as np
import pytest

import weft
from tests.opinfo import OP_DB, TOL, tensors_of

_SEED = 1234


def _rng(op, dtype):
    # a stable seed per (op, dtype): the same samples in every run and on every machine
    return np.random.default_rng([_SEED, sum(map(ord, op.name)), np.dtype(dtype).num])


def _cases(check, dtype_field="dtypes"):
    out = []
    for op in OP_DB:
        dts = op.dtypes if dtype_field == "dtypes" else \
            tuple(d for d in op.grad_dtypes if d in op.dtypes)
        for d in dts:
            marks = ()
            if check in op.skips:
                marks = (pytest.mark.skip(reason=op.skips[check]),)
            out.append(pytest.param(op, np.dtype(d), id=f"{op.name}-{np.dtype(d).name}",
                                    marks=marks))
    return out


def _call(op, sample, **override):
    x = tensors_of(sample.input)
    args = [tensors_of(a) for a in sample.args]
    return op.op(x, *args, **{**sample.kwargs, **override})


def _as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def _to_numpy(o):
    if isinstance(o, weft.Tensor):
        return o.numpy()
    return np.asarray(o)


def _tol(op, dtype):
    atol, rtol = TOL.get(np.dtype(dtype), (0, 0))
    return (op.atol if op.atol is not None else atol), (op.rtol if op.rtol is not None else rtol)


@pytest.mark.parametrize("op,dtype", _cases("forward"))
def test_forward_matches_reference(op, dtype):
    if op.ref is None:
        pytest.skip(f"{op.name} has no reference (checked by its own tests)")
    atol, rtol = _tol(op, dtype)
    for sample in op.sample_inputs(dtype, _rng(op, dtype)):
        got = _as_tuple(_call(op, sample))
        with np.errstate(all="ignore"):
            want = _as_tuple(op.ref(sample.input, *sample.args, **sample.ref_kwargs))
        assert len(got) == len(want), f"{sample}: {len(got)} outputs, reference has {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            g, w = _to_numpy(g), np.asarray(w)
            assert g.shape == w.shape, f"{sample} output {i}: shape {g.shape} != {w.shape}"
            if op.out_dtype is not None:
                assert g.dtype == op.out_dtype(dtype), f"{sample} output {i}: dtype {g.dtype}"
            elif op.check_dtype:
                assert g.dtype == w.dtype, f"{sample} output {i}: dtype {g.dtype} != {w.dtype}"
            if g.dtype == np.bool_ or w.dtype == np.bool_ or g.dtype.kind in "iu":
                np.testing.assert_array_equal(g, w, err_msg=f"{sample} output {i}")
            else:
                np.testing.assert_allclose(g, w, atol=atol, rtol=rtol, equal_nan=True,
                                           err_msg=f"{sample} output {i}")


@pytest.mark.parametrize("op,dtype", _cases("method"))
def test_method_matches_function(op, dtype):
    if op.method is None:
        pytest.skip(f"{op.name} is not a Tensor method in Paddle")
    for sample in op.sample_inputs(dtype, _rng(op, dtype)):
        x = tensors_of(sample.input)
        args = [tensors_of(a) for a in sample.args]
        got = _as_tuple(getattr(x, op.method)(*args, **sample.kwargs))
        want = _as_tuple(op.op(x, *args, **sample.kwargs))
        for g, w in zip(got, want):
            np.testing.assert_array_equal(_to_numpy(g), _to_numpy(w), err_msg=str(sample))
        break  # the method is the function: one sample proves the binding


def _differentiable_call(op, sample):
    """(func, leaves): func(*leaves) calls the op with the float arrays of the sample as
    leaves requiring grad (restricted to sample.grad_args when given)."""
    slots = [sample.input, *sample.args]
    leaves, where = [], []
    for i, a in enumerate(slots):
        if sample.grad_args is not None and i not in sample.grad_args:
            continue
        if isinstance(a, np.ndarray) and a.dtype.kind in "fc" and a.size:
            leaves.append(weft.to_tensor(a, stop_gradient=False))
            where.append((i, None))
        elif isinstance(a, (list, tuple)) and a and all(isinstance(e, np.ndarray) for e in a):
            for j, e in enumerate(a):
                if e.dtype.kind in "fc" and e.size:
                    leaves.append(weft.to_tensor(e, stop_gradient=False))
                    where.append((i, j))

    def func(*ts):
        call = [tensors_of(a) for a in slots]
        for i in {i for i, j in where if j is not None}:
            call[i] = list(call[i])  # a list of tensors that leaves are substituted into
        for t, (i, j) in zip(ts, where):
            if j is None:
                call[i] = t
            else:
                call[i][j] = t
        return op.op(call[0], *call[1:], **sample.kwargs)

    return func, leaves


@pytest.mark.parametrize("op,dtype", _cases("grad", "grad_dtypes"))
def test_gradcheck(op, dtype):
    if not op.supports_grad:
        pytest.skip(f"{op.name} is not differentiable")
    from weft.autograd import gradcheck

    checked = 0
    for sample in op.sample_inputs(dtype, _rng(op, dtype)):
        func, leaves = _differentiable_call(op, sample)
        if not leaves:
            continue  # empty or integer-only sample: nothing to differentiate
        assert gradcheck(func, leaves, **op.gradcheck_kwargs), str(sample)
        checked += 1
    assert checked, f"{op.name}: no sample had a differentiable input"


@pytest.mark.parametrize("op,dtype", _cases("gradgrad", "grad_dtypes"))
def test_gradgradcheck(op, dtype):
    if not (op.supports_grad and op.supports_gradgrad):
        pytest.skip(f"{op.name} has no second derivative to check")
    from weft.autograd import gradgradcheck

    for sample in op.sample_inputs(dtype, _rng(op, dtype)):
        func, leaves = _differentiable_call(op, sample)
        if not leaves:
            continue
        assert gradgradcheck(func, leaves, **op.gradcheck_kwargs), str(sample)


@pytest.mark.parametrize("op", [pytest.param(o, id=o.name) for o in OP_DB
                                if o.error_inputs is not None])
def test_error_inputs(op):
    for err in op.error_inputs(np.random.default_rng(0)):
        with pytest.raises(err.exc, match=err.match):
            _call(op, err.sample)


def _graded_samples(op, dtype):
    """``(sample, leaves, outputs)`` for each sample with differentiable inputs and at
    least one floating output that requires grad."""
    for sample in op.sample_inputs(dtype, _rng(op, dtype)):
        func, leaves = _differentiable_call(op, sample)
        if not leaves:
            continue
        outs = [o for o in _as_tuple(func(*leaves))
                if isinstance(o, weft.Tensor) and o.dtype.kind in "fc" and not o.stop_gradient]
        if outs:
            yield sample, leaves, outs


@pytest.mark.parametrize("op,dtype", _cases("grad_dtype", "grad_dtypes"))
def test_gradient_has_input_dtype_and_shape(op, dtype):
    if not op.supports_grad:
        pytest.skip(f"{op.name} is not differentiable")
    for sample, leaves, outs in _graded_samples(op, dtype):
        loss = sum((weft.real(o) if o.dtype.kind == "c" else o).sum() for o in outs)
        grads = weft.grad(loss, leaves, allow_unused=True)
        for leaf, g in zip(leaves, grads):
            if g is not None:
                assert g.shape == leaf.shape and g.dtype == leaf.dtype, str(sample)
        break


# ops that legitimately take sparse tensors (they convert or copy them)
_SPARSE_OK = {"to_tensor"}


@pytest.mark.parametrize("op", [pytest.param(o, id=o.name) for o in OP_DB
                                if o.name not in _SPARSE_OK])
def test_dense_op_rejects_sparse_input(op):
    # computing on a sparse tensor's stored values would silently give a wrong result
    for sample in op.sample_inputs(np.dtype("float64"), np.random.default_rng(0)):
        a = sample.input
        if isinstance(a, np.ndarray) and a.ndim == 2 and a.size and a.dtype.kind == "f":
            break
    else:
        pytest.skip(f"{op.name} has no 2-D float64 sample to make sparse")
    sp = weft.to_tensor(a).to_sparse_coo(2)
    with pytest.raises((NotImplementedError, TypeError, ValueError)):
        op.op(sp, *[tensors_of(x) for x in sample.args], **sample.kwargs)


@pytest.mark.parametrize("op,dtype", _cases("batched_vjp", "grad_dtypes"))
def test_batched_vjp_matches_single_passes(op, dtype):
    # jacobian/hessian run one backward pass with a leading batch axis of cotangents:
    # each op's batch rule (or the per-row fallback) must give, row for row, what a
    # pass with that single cotangent gives; create_graph exercises the rules recorded
    # for higher orders
    if not op.supports_grad:
        pytest.skip(f"{op.name} is not differentiable")
    from weft.autograd.engine import run_backward

    k = 3
    rng = np.random.default_rng(5)
    for sample, leaves, outs in _graded_samples(op, dtype):
        cots = []
        for o in outs:
            c = rng.standard_normal((k,) + tuple(o.shape))
            if o.dtype.kind == "c":
                c = c + 1j * rng.standard_normal(c.shape)
            cots.append(c.astype(o.dtype))
        for create_graph in (False, True):
            got = run_backward(outs, [weft.to_tensor(c) for c in cots], retain_graph=True,
                               create_graph=create_graph, inputs=leaves, allow_unused=True,
                               batch=k)
            assert got is not None, str(sample)
            for r in range(k):
                want = run_backward(outs, [weft.to_tensor(c[r]) for c in cots],
                                    retain_graph=True, create_graph=create_graph,
                                    inputs=leaves, allow_unused=True)
                for leaf, g, w in zip(leaves, got, want):
                    if w is None:
                        assert g is None, str(sample)
                        continue
                    assert g.shape == [k] + leaf.shape and g.dtype == leaf.dtype, str(sample)
                    np.testing.assert_allclose(g.numpy()[r], w.numpy(), rtol=1e-10, atol=1e-12,
                                               err_msg=f"{sample} row {r}")
