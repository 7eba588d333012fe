"""The entry points ``gradcheck`` and ``gradgradcheck``: options, the sparse
reduction, then the checks of :class:`.checker._Checker`."""
from __future__ import annotations

import numpy as np

from ...core.tensor import Tensor
from ..api import grad as _grad
from ..engine import support
from ..grad_mode import enable_grad, is_grad_enabled, no_grad
from .analytic import check_batched, _forward_jvp
from .checker import _Checker
from .common import like, zeros_of
from .complex import rand
from .options import diff_outputs, Options, split_inputs
from .report import GradcheckError
from .sparse import _sparse_reduce


def _prepare(func, inputs, opts, name):
    """Check ``func``, reduce sparse inputs to their values, and split the inputs into
    the sequence and the indices to check; None when a sparse check already failed
    and ``raise_exception`` is False."""
    if not callable(func):
        raise TypeError(f"{name}: func must be callable, got {type(func).__name__}")
    try:
        func, inputs = _sparse_reduce(func, inputs, opts.masked, name)
    except GradcheckError:
        if opts.raise_exception:
            raise
        return None
    seq, checked = split_inputs(inputs, name)
    return func, inputs, seq, checked


def _run(func, inputs, opts, name, in_label=None, out_label=None):
    prepared = _prepare(func, inputs, opts, name)
    if prepared is None:
        return False
    func, inputs, seq, checked = prepared
    try:
        ch = _Checker(func, seq, checked, opts, name, in_label, out_label)
        fwd = _forward_jvp(ch) if opts.check_forward_ad else None
        backward = opts.check_backward_ad
        if backward or fwd is not None:
            (ch.fast if opts.fast_mode else ch.slow)(backward, fwd)
        if backward and opts.check_undefined_grad:
            ch.check_undefined()
        if backward and opts.check_batched_grad:
            check_batched(ch)
    except GradcheckError:
        if opts.raise_exception:
            raise
        return False
    return True


def gradcheck(func, inputs, *, eps=None, atol=None, rtol=None, raise_exception=True,
              fast_mode=True, num_directions=2, nondet_tol=0.0, masked=None,
              check_undefined_grad=True, check_grad_dtypes=False, check_forward_ad=False,
              check_backward_ad=True, check_batched_grad=False, seed=0):
    """Check the engine's gradients of ``func`` against float64 central differences.

    ``inputs`` is a Tensor or a sequence; the floating/complex Tensors among them
    with ``stop_gradient=False`` are checked, everything else is passed to ``func``
    unchanged (the inputs themselves are never modified). ``func`` returns a Tensor
    or a sequence; its non-floating outputs are ignored.

    Fast mode (default) compares ``<vjp(v), u>`` with ``<v, J u>`` for
    ``num_directions`` random unit directions ``u`` per input and random cotangents
    ``v`` (drawn from ``seed``, independent of ``weft.seed``); ``fast_mode=False``
    compares full Jacobians and reports the worst entry. A check passes when
    ``|analytic - numerical| <= atol + rtol * |numerical|``. Defaults depend on the
    input dtype (float64/complex128: eps 1e-6, atol 1e-5, rtol 1e-3; float32:
    atol 1e-3, rtol 1e-2; float16: atol 1e-2, rtol 5e-2; bfloat16: atol 5e-2,
    rtol 1e-1), or on the output dtype when it is less precise. Complex inputs are
    perturbed along their real and imaginary parts; complex outputs are checked
    through ``Re <v, f>`` with complex ``v``.

    Also checked: ``nondet_tol`` (two VJPs with the same cotangent must agree
    within it), ``check_undefined_grad`` (zero cotangents give zero or None
    gradients), ``check_grad_dtypes`` (gradients have their input's dtype and
    shape), ``check_forward_ad`` (JVPs through :func:`weft.autograd.jvp` against the
    same numerical derivative) and ``check_batched_grad`` (Jacobians through
    :func:`weft.autograd.jacobian` against per-cotangent VJPs). Sparse inputs
    (``masked=None``/``True``): only the stored values are perturbed and each
    analytic gradient must be sparse with its input's pattern;
    sparse outputs are compared on their values, with the pattern fixed.

    Returns True; on failure raises :class:`GradcheckError` (or returns False when
    ``raise_exception=False``).

    >>> import weft
    >>> from weft.autograd import gradcheck
    >>> x = weft.to_tensor([0.5, -1.0, 2.0], dtype='float64', stop_gradient=False)
    >>> gradcheck(lambda t: (t * t).exp(), x)
    True
    """
    opts = Options("gradcheck", eps, atol, rtol, raise_exception, fast_mode, num_directions,
                    nondet_tol, masked, check_undefined_grad, check_grad_dtypes,
                    check_forward_ad, check_backward_ad, check_batched_grad, seed)
    return _run(func, inputs, opts, "gradcheck")


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=None, atol=None, rtol=None,
                  raise_exception=True, fast_mode=True, num_directions=2, nondet_tol=0.0,
                  masked=None, check_undefined_grad=True, check_grad_dtypes=False,
                  check_forward_ad=False, check_backward_ad=True, check_batched_grad=False,
                  seed=0, check_rev_over_rev=True, check_fwd_over_rev=False):
    """Check second derivatives: :func:`gradcheck` of ``(inputs, v) -> vjp(func, inputs, v)``.

    The VJP map is built with ``weft.grad(..., create_graph=True, allow_unused=True)``
    (an unused input gets zeros), so a backward that is not itself differentiable
    fails, naming the op. ``grad_outputs``: one cotangent per floating output of
    ``func`` (those with ``stop_gradient=False`` are checked too); ``None`` draws
    seeded random float64/complex128 cotangents that are checked as well.
    ``check_rev_over_rev`` checks the map with VJPs; ``check_fwd_over_rev`` with
    JVPs (:func:`weft.autograd.jvp`). Other keywords as in gradcheck.

    >>> import weft
    >>> from weft.autograd import gradgradcheck
    >>> x = weft.to_tensor([0.3, -0.7], dtype='float64', stop_gradient=False)
    >>> gradgradcheck(lambda t: t.tanh() * t, x)
    True
    """
    name = "gradgradcheck"
    for k, v in (("check_rev_over_rev", check_rev_over_rev),
                 ("check_fwd_over_rev", check_fwd_over_rev)):
        if not isinstance(v, (bool, np.bool_)):
            raise TypeError(f"{name}: {k} must be a bool, got {type(v).__name__}")
    opts = Options(name, eps, atol, rtol, raise_exception, fast_mode, num_directions,
                    nondet_tol, masked, check_undefined_grad, check_grad_dtypes,
                    check_forward_ad or check_fwd_over_rev,
                    check_backward_ad and check_rev_over_rev, check_batched_grad, seed)
    prepared = _prepare(func, inputs, opts, name)
    if prepared is None:
        return False
    func, inputs, seq, checked = prepared
    with no_grad():
        copies = [Tensor._wrap(a._data.copy()) if k in checked else a for k, a in enumerate(seq)]
        outs = diff_outputs(func(*copies), name)
    if grad_outputs is None:
        rng = np.random.default_rng([opts.seed, 1])
        gos = []
        for _, o in outs:
            g = Tensor._wrap(like(rand(o._data.shape, o._data.dtype.kind == "c", rng), o))
            g.stop_gradient = False
            gos.append(g)
    else:
        gos = [grad_outputs] if isinstance(grad_outputs, Tensor) else grad_outputs
        if not isinstance(gos, (list, tuple)):
            raise TypeError(f"{name}: grad_outputs must be None, a Tensor or a sequence of "
                            f"Tensors, got {type(grad_outputs).__name__}")
        gos = list(gos)
        if len(gos) != len(outs):
            raise ValueError(f"{name}: grad_outputs has {len(gos)} entries but func has "
                             f"{len(outs)} floating-point outputs")
        for k, (g, (_, o)) in enumerate(zip(gos, outs)):
            if not isinstance(g, Tensor):
                raise TypeError(f"{name}: grad_outputs[{k}] must be a Tensor, got "
                                f"{type(g).__name__}")
            if g.shape != o.shape:
                raise ValueError(f"{name}: grad_outputs[{k}] has shape {g.shape} but the "
                                 f"output it seeds has shape {o.shape}")
    n = len(seq)

    def vjp_map(*args):
        xs = list(args[:n])
        vs = args[n:]

        # called under no_grad only for numerical differences: values suffice, no graph
        create = is_grad_enabled()
        with enable_grad():
            for i in checked:
                if xs[i].stop_gradient:  # numerical evaluation: constants become leaves
                    a = Tensor._wrap(xs[i]._data)
                    a.stop_gradient = False
                    xs[i] = a
            o2 = diff_outputs(func(*xs), name)
            if len(o2) != len(vs):
                raise ValueError(f"{name}: func returned {len(o2)} floating-point outputs, "
                                 f"expected {len(vs)}")
            vs = [v if v._data.dtype == o._data.dtype else support.cast(v, o._data.dtype)
                  for v, (_, o) in zip(vs, o2)]
            gs = _grad([o for _, o in o2], [xs[i] for i in checked], grad_outputs=vs,
                       create_graph=create, allow_unused=True)
            return tuple(zeros_of(xs[i]) if g is None else g for i, g in zip(checked, gs))

    def in_label(i):
        return f"input {i}" if i < n else f"grad_outputs[{i - n}]"

    def out_label(j):
        return f"the gradient of input {checked[j]}"

    return _run(vjp_map, list(seq) + gos, opts, name, in_label, out_label)


__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]
