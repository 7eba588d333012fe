"""Sparse inputs and outputs: masked checks (api-sparse.md §6).

A check with sparse tensors is reduced to one on their stored values: each
differentiable sparse input becomes a dense leaf of its values, and each sparse
output is replaced by its values with the pattern pinned.
"""
from __future__ import annotations

from ...core.tensor import Tensor
from ..api import grad as _grad
from ..grad_mode import enable_grad
from .common import is_float, is_sparse
from .report import GradcheckError


def _sparse_reduce(func, inputs, masked, name):
    """Reduce a check with sparse inputs/outputs to one on their stored values.

    Each differentiable sparse input becomes a dense leaf holding a copy of its
    values; ``func`` receives a sparse tensor of the input's pattern built around
    them (differentiably), and each sparse output is replaced by its values. The
    gradient w.r.t. the values is exactly the masked gradient. Before that, one
    backward through ``func`` on the sparse inputs themselves checks that every
    analytic gradient is sparse with its input's layout and pattern.
    """
    if not callable(func):
        return func, inputs
    seq = (inputs,) if isinstance(inputs, Tensor) else inputs
    if not isinstance(seq, (list, tuple)):
        return func, inputs
    sparse_in = [i for i, a in enumerate(seq) if isinstance(a, Tensor) and is_sparse(a)]
    if not sparse_in:
        return _sparse_outputs(func, name), inputs
    if masked is False:
        raise NotImplementedError(f"{name}: masked=False (perturbing the implicit zeros of "
                                  "sparse inputs) is not supported; use masked=True")
    checked = [i for i in sparse_in if is_float(seq[i]._data.dtype) and not seq[i].stop_gradient]
    _check_sparse_grad_patterns(func, seq, checked, name)
    templates = {i: seq[i] for i in checked}
    new_inputs = list(seq)
    for i in checked:
        v = Tensor._wrap(seq[i]._data.copy())
        v.stop_gradient = False
        new_inputs[i] = v

    def on_values(*args):
        args = list(args)
        for i, t in templates.items():
            args[i] = t._with_values(args[i])
        return func(*args)
    reduced = _sparse_outputs(on_values, name)
    return reduced, (new_inputs if isinstance(inputs, (list, tuple)) else new_inputs[0])


def _sparse_outputs(func, name):
    """``func`` with each sparse output replaced by its values, its pattern pinned."""
    patterns = {}

    def wrapped(*args):
        res = func(*args)
        single = isinstance(res, Tensor)
        items = [res] if single else res
        if not isinstance(items, (list, tuple)) or not any(is_sparse(o) for o in items):
            return res
        out = []
        for j, o in enumerate(items):
            if is_sparse(o):
                p = patterns.get(j)
                if p is None:
                    patterns[j] = o.detach()
                elif not p._same_pattern_as(o):
                    raise GradcheckError(f"{name}: output {j}: output sparsity pattern changed "
                                         "under perturbation")
                o = o.values()
            out.append(o)
        return out[0] if single else type(res)(out) if isinstance(res, tuple) else out
    return wrapped


def _check_sparse_grad_patterns(func, seq, checked, name):
    leaves = list(seq)
    for i in checked:
        c = seq[i].detach()._same_pattern(seq[i]._data.copy())
        c.stop_gradient = False
        leaves[i] = c
    with enable_grad():
        res = func(*leaves)
    outs = [res] if isinstance(res, Tensor) else [o for o in res if isinstance(o, Tensor)]
    outs = [o for o in outs if is_float(o._data.dtype) and not o.stop_gradient]
    if not outs or not checked:
        return
    try:
        gs = _grad(outs, [leaves[i] for i in checked], allow_unused=True)
    except Exception as e:
        raise GradcheckError(f"{name}: the backward pass raised {type(e).__name__}: {e}") from e
    for i, g in zip(checked, gs):
        if g is not None and not leaves[i]._same_pattern_as(g):
            raise GradcheckError(f"{name}: input {i}: gradient pattern differs from input "
                                 f"(got {type(g).__name__} of shape {g.shape}"
                                 f"{'' if not is_sparse(g) else f' with {g.nnz()} entries'}"
                                 f" for a {type(seq[i]).__name__} with {seq[i].nnz()} entries)")
