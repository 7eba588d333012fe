"""User entry points of reverse mode: ``weft.grad``, ``autograd.backward``, and the
autograd members of Tensor (backward, hooks, retain_grads, detach, clear_grad)."""
from __future__ import annotations

import numpy as np

from ..core.args import xp_of
from ..core.tensor import Tensor, add_methods
from . import engine, hooks


def _as_list(v, arg, op=None, allow_none=False):
    """``(list of Tensors, was_sequence)`` from a Tensor or a list/tuple of Tensors, or
    ``(None, False)`` from None when ``allow_none``; errors start with ``op:`` if given."""
    if v is None and allow_none:
        return None, False
    if isinstance(v, Tensor):
        return [v], False
    name = arg if op is None else f"{op}: {arg}"
    if isinstance(v, (list, tuple)):
        for i, t in enumerate(v):
            if not isinstance(t, Tensor):
                raise TypeError(f"{name}[{i}] must be a Tensor, got {type(t).__name__}")
        return list(v), True
    raise TypeError(f"{name} must be a Tensor or a sequence of Tensors"
                    f"{' or None' if allow_none else ''}, got {type(v).__name__}")


class ArgumentAssertionError(ValueError, AssertionError):
    """A check Paddle makes with ``assert`` (so Paddle code catches ``AssertionError``);
    weft raises it explicitly, so it also holds under ``python -O``."""


def _seed(t, g, arg, cast=False):
    """The initial cotangent of root ``t``: ones, or ``g`` checked against t.

    ``cast``: a floating ``g`` of another floating dtype is cast to t's (weft.grad,
    as Paddle does); otherwise a dtype mismatch is an error."""
    if g is None:
        xp = np if type(t._data) is np.ndarray else _xp(t)
        return Tensor._wrap(xp.ones(t._data.shape, dtype=t._data.dtype))
    if not isinstance(g, Tensor):
        raise TypeError(f"{arg} must be a Tensor or None, got {type(g).__name__}")
    if list(g.shape) != list(t.shape):
        raise ValueError(f"{arg} has shape {list(g.shape)} but the tensor it seeds has shape "
                         f"{list(t.shape)}")
    if g.is_sparse() and t.is_sparse() and (g.is_sparse_csr() != t.is_sparse_csr()
                                            or g._data.shape != t._data.shape):
        layout = "CSR" if g.is_sparse_csr() else "COO"
        raise ValueError(f"{arg} is a sparse {layout} tensor with {g._data.shape[0]} stored "
                         f"entries, but the sparse tensor it seeds stores {t._data.shape[0]} in "
                         f"its own layout: a sparse {arg} must have the tensor's sparsity "
                         "pattern (or pass a dense one)")
    if g._data.dtype != t._data.dtype:
        if cast and g._data.dtype.kind == "f" and t._data.dtype.kind == "f":
            return engine.support.cast(g, t._data.dtype)
        raise TypeError(f"{arg} has dtype {g.dtype.name} but the tensor it seeds has dtype "
                        f"{t.dtype.name}")
    return g


_xp = xp_of  # the array module of a tensor (shared by the autograd modules)


def _dump(path, roots):
    if path is not None:
        from .graphviz import write_dot  # noqa: PLC0415

        write_dot(path, roots)


def backward(tensors, grad_tensors=None, retain_graph=False, *, dump_backward_graph_path=None):
    """One backward pass from ``tensors`` into the ``.grad`` of the leaves they depend on.

    Tensors with ``stop_gradient=True`` among ``tensors`` contribute nothing (as in
    Paddle; if none requires grad, nothing happens).

    >>> import weft
    >>> a = weft.to_tensor([1.0], stop_gradient=False)
    >>> weft.autograd.backward([a * 2, a * 3])
    >>> a.grad.tolist()
    [5.0]
    """
    roots, _ = _as_list(tensors, "tensors")
    if grad_tensors is None:
        grad_tensors = [None] * len(roots)
    elif isinstance(grad_tensors, Tensor):
        grad_tensors = [grad_tensors]
    if not isinstance(grad_tensors, (list, tuple)):
        raise TypeError(f"backward: grad_tensors must be a Tensor, a list of Tensors/None or "
                        f"None, got {type(grad_tensors).__name__}")
    if len(grad_tensors) != len(roots):
        raise ArgumentAssertionError(
            f"The length of grad_tensors must be equal to tensors (backward: {len(roots)} "
            f"tensors, {len(grad_tensors)} grad_tensors)")
    seeds = [_seed(t, g, f"grad_tensors[{i}]") for i, (t, g) in
             enumerate(zip(roots, grad_tensors))]
    _dump(dump_backward_graph_path, roots)
    engine.run_backward(roots, seeds, retain_graph=retain_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None, *,
         dump_backward_graph_path=None):
    """Gradients of ``outputs`` with respect to ``inputs``, as a list (one per input).

    ``grad_outputs`` seeds each output (None means ones); ``create_graph=True`` makes
    the results differentiable, for higher derivatives. ``.grad`` is not touched.

    >>> import weft
    >>> x = weft.to_tensor([1.0, 2.0], stop_gradient=False)
    >>> (g,) = weft.grad((x ** 3).sum(), x, create_graph=True)
    >>> weft.grad(g.sum(), x)[0].tolist()
    [6.0, 12.0]
    """
    outs, _ = _as_list(outputs, "outputs")
    ins, _ = _as_list(inputs, "inputs")
    if not only_inputs:
        raise ArgumentAssertionError("only_inputs=False is not supported yet")
    if grad_outputs is None:
        grad_outputs = [None] * len(outs)
    elif isinstance(grad_outputs, Tensor):
        grad_outputs = [grad_outputs]
    if len(grad_outputs) != len(outs):
        raise ValueError(f"grad: grad_outputs has {len(grad_outputs)} entries but outputs has "
                         f"{len(outs)}")
    if retain_graph is None:
        retain_graph = create_graph
    ngv = None
    if no_grad_vars is not None:
        ngv, _ = _as_list(no_grad_vars, "no_grad_vars")
    seeds = [_seed(t, g, f"grad_outputs[{i}]", cast=True) for i, (t, g) in
             enumerate(zip(outs, grad_outputs))]
    _dump(dump_backward_graph_path, outs)
    res = engine.run_backward(outs, seeds, retain_graph=retain_graph, create_graph=create_graph,
                              inputs=ins, allow_unused=allow_unused, no_grad_vars=ngv)
    for i, (r, t) in enumerate(zip(res, ins)):
        if r is None:
            if not allow_unused:
                raise ValueError(f"The {i}-th input does not appear in the backward graph. "
                                 "Please check the input tensor or set allow_unused=True to "
                                 "get None result.")
            continue
        if r._data.shape != t._data.shape:
            r = engine.support.sum_to_shape(r, t.shape)
        if not create_graph:
            r = r.detach()
        res[i] = r
    return res


# ----------------------------------------------------------------------------------
# Tensor members

def _tensor_backward(self, grad_tensor=None, retain_graph=False, *,
                     dump_backward_graph_path=None):
    """Accumulate d(self)/d(leaf) into each leaf's ``.grad`` (seeded with ones by default).

    On a tensor with ``stop_gradient=True`` (nothing it depends on requires grad) it
    does nothing, as in Paddle.
    """
    seed = _seed(self, grad_tensor, "grad_tensor")
    if self.stop_gradient:
        return
    _dump(dump_backward_graph_path, [self])
    engine.run_backward([self], [seed], retain_graph=retain_graph)


def _detach(self):
    """A new tensor sharing this one's storage, with no history and stop_gradient=True."""
    t = Tensor._wrap(self._data)
    t._version = self._version
    return t


def _detach_(self):
    self._node = None
    self._oidx = 0
    self.stop_gradient = True
    return self


def _clear_grad(self, set_to_zero=True):
    if self._grad is None:
        return
    if set_to_zero:
        self._grad = Tensor._wrap(self._grad._data * 0)
    else:
        self._grad = None


def _clear_gradient(self, set_to_zero=True):
    _clear_grad(self, set_to_zero)


add_methods(Tensor, {"backward": _tensor_backward, "register_hook": hooks.register_hook,
                     "retain_grads": hooks.retain_grads, "detach": _detach, "detach_": _detach_,
                     "clear_grad": _clear_grad, "clear_gradient": _clear_gradient})
