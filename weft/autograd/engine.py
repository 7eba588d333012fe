"""The reverse-mode engine: primitives, graph nodes, and the backward traversal.

An op is a :class:`Primitive`: a forward on backend arrays plus one vjp per
differentiable input, each written in weft ops. Calling a primitive through
:func:`apply` runs the forward and, when grad mode is on and an input requires
grad, records a :class:`Node` that holds the inputs, the non-tensor parameters
and whatever the vjps need. Backward walks the nodes in reverse topological
order; because vjps are weft ops, running them with grad mode on
(``create_graph=True``) records a graph of the backward pass itself, which is how
every order of derivative works.

Forward mode (:mod:`weft.autograd.forward`) reads the same primitives: a forward
rule registered with :func:`defjvp` (or :func:`deflinear` / :func:`defmultilinear`
for the many linear ops, :func:`defelementwise` for real elementwise ones) maps
input tangents to output tangents, and a primitive without one is differentiated
by a local double vjp of its own rules. ``apply`` hands recorded results to that
pass only while one is open (one global check).

The engine fixes up what each vjp returns: a gradient broadcast wider than its
input is summed back to the input's shape, a complex gradient of a real input
keeps its real part, and the dtype is cast to the input's. Rules therefore only
state the mathematics.
"""
from __future__ import annotations

import threading

import numpy as np

from ..core.args import xp_of
from ..core.tensor import Tensor
from . import registry as _registry
from .grad_mode import mode

_ndarray = np.ndarray

# forward mode (weft.autograd.forward): the number of passes open in any thread, and
# the function recorded results are handed to while one is; a plain global, so that
# apply pays one cheap check when none is open
_fwd_active = 0
_fwd_hook = None


class GraphFreedError(RuntimeError):
    """Raised when a backward pass reaches nodes whose saved tensors were released."""


class GaugeWarning(UserWarning):
    """A loss depends on the arbitrary phase (or sign) of eigen- or singular vectors, so
    its gradient is not well defined (api-linalg.md §2.2); the computed value is one
    representative."""


class Primitive:
    """A differentiable op: ``fwd(*arrays, **params)`` and one vjp per input.

    ``vjps[i](g, ans, *args, **params)`` returns the cotangent of input ``i``
    given the output cotangent ``g`` and the output ``ans`` (tuples of Tensors
    for multi-output ops), with ``args`` the op's inputs as Tensors (or the
    constants that were passed). ``None`` in ``vjps`` marks a non-differentiable
    input. ``save`` lists the indices of inputs whose *values* the vjps read (for
    the in-place check); ``save_out`` says whether they read ``ans``.

    ``jvp`` holds the forward rules (see :func:`defjvp`): a tuple with one rule per
    input, or one joint rule for all inputs; None: forward mode uses the vjps.
    """

    __slots__ = ("name", "fwd", "vjps", "save", "save_out", "n_out", "jvp", "view", "bvjps",
                 "family", "__weakref__")

    def __init__(self, name, fwd, n_out=1, view=False, *, family=False, register=True):
        self.name = name
        self.fwd = fwd
        self.vjps = ()
        self.save = None
        self.save_out = False
        self.n_out = n_out
        self.jvp = None
        # a view op's output may alias its first input: they share a version counter,
        # so an in-place write through either is seen by nodes that saved the other
        self.view = view
        # rules for a batch of cotangents (see defbatch); None: rows one by one
        self.bvjps = None
        # one primitive per arity under one name (concat, stack, einsum ...)
        self.family = family
        if register:  # weft's own primitives; not the per-call nodes of user PyLayers
            _registry.register(self, family)

    def __repr__(self):
        return f"<primitive {self.name}>"


def defvjp(prim, *vjps, save=None, save_out=None):
    """Register the vjp rules of ``prim`` (one per positional input).

    ``save``: the inputs the rules read, as a tuple of indices or a dict
    ``{rule index: indices it reads}`` (default: every rule reads every input);
    ``save_out``: whether the rules read the output (default True).
    """
    prim.vjps = tuple(vjps)
    if save is None:
        save = tuple(range(len(vjps)))
    prim.save = dict(save) if isinstance(save, dict) else tuple(save)
    prim.save_out = True if save_out is None else bool(save_out)
    return prim


def defjvp(prim, *jvps, joint=None):
    """Register the forward-mode rules of ``prim`` (one per positional input).

    ``jvps[i](t, ans, *args, **params)`` returns the output tangent caused by the
    tangent ``t`` of input ``i`` (a tuple for a multi-output op, None for zero);
    the contributions of several inputs are summed. ``None`` in ``jvps``, or a rule
    returning ``NotImplemented`` (a case it does not cover): that input falls back to
    a double vjp of its reverse rule. Or ``joint(ts, ans, *args, **params)`` with
    ``ts`` the tangents of all inputs (None where an input has none), when the inputs
    share work (a solve's ``A⁻¹ (dB − dA X)``); it may return ``NotImplemented`` too.

    Rules are written in weft ops, like vjps, and state only the mathematics: the
    pass broadcasts a tangent to its output's shape and casts it to its dtype
    (the real part for a real output). For complex inputs a tangent is the
    real-linear differential: ``f'(z) t`` for a holomorphic ``f``.
    """
    if joint is not None:
        if jvps:
            raise TypeError(f"defjvp({prim.name}): pass per-input rules or joint=, not both")
        prim.jvp = joint
    else:
        prim.jvp = tuple(jvps)
    return prim


def _linear_positions(prim, inputs):
    if inputs:
        return tuple(inputs)
    return tuple(i for i, r in enumerate(prim.vjps) if r is not None)


def deflinear(prim, *inputs, zero=()):
    """Declare ``prim`` linear in the inputs ``inputs`` jointly (default: every input
    with a vjp), the other arguments held fixed: its forward rule is ``prim`` itself
    applied to the tangents, zeros standing in for inputs without one (reshape,
    transpose, concat, sum, take, cast ...). ``zero`` names parameters that add a
    constant to the output (a pad or fill value): they are 0 for the tangent. Call
    after :func:`defvjp`."""
    pos = _linear_positions(prim, inputs)

    def rule(ts, ans, *args, **params):
        new = list(args)
        for i, t in enumerate(ts):
            if t is not None and i not in pos:
                raise RuntimeError(f"{prim.name}: declared linear in inputs {list(pos)}, but "
                                   f"input {i} carries a tangent")
        for i in pos:
            t = ts[i]
            if t is None:
                a = args[i]
                t = Tensor._wrap(xp_of(a).zeros_like(a._data)) if isinstance(a, Tensor) \
                    else a * 0
            new[i] = t
        for k in zero:
            params[k] = 0
        return apply(prim, *new, **params)

    prim.jvp = rule
    return prim


def defmultilinear(prim, *inputs):
    """Declare ``prim`` linear in each of ``inputs`` separately (default: every input
    with a vjp): the tangent from input ``i`` is ``prim`` with ``t`` in place of input
    ``i`` (multiply, matmul, einsum). Call after :func:`defvjp`."""
    pos = _linear_positions(prim, inputs)

    def one(i):
        def rule(t, ans, *args, **params):
            new = list(args)
            new[i] = t
            return apply(prim, *new, **params)
        return rule

    n = max(pos) + 1 if pos else 0
    prim.jvp = tuple(one(i) if i in pos else None for i in range(n))
    return prim


def defelementwise(prim):
    """Declare ``prim`` elementwise and real: in each input its Jacobian is diagonal
    (after broadcasting) and its vjps multiply ``g`` by real derivatives, without
    summing ``g`` to the input's shape (``g * erf'(x)``). Such a Jacobian is its own
    transpose, so each vjp, given the tangent for ``g``, is the forward rule; complex
    arguments (where a vjp conjugates) take the double vjp. Call after :func:`defvjp`."""
    def one(rule):
        def jvp(t, ans, *args, **params):
            if t._data.dtype.kind == "c" or any(
                    isinstance(a, Tensor) and a._data.dtype.kind == "c" for a in args):
                return NotImplemented
            return rule(t, ans, *args, **params)
        return jvp

    prim.jvp = tuple(None if r is None else one(r) for r in prim.vjps)
    return prim


def defbatch(prim, *rules):
    """Declare how ``prim``'s vjps act on a batch of cotangents (call after defvjp).

    In a batched backward pass (:func:`run_backward` with ``batch=B``, used by
    Jacobians and Hessians) every cotangent carries a leading axis of size ``B``.
    ``rules[i]`` has the signature of ``vjps[i]`` but receives ``g`` of shape
    ``[B, *out_shape]`` and returns ``[B, *in_shape]`` (or a shape that broadcasts
    to it with the batch axis kept first: the engine sums the rest away). ``True``
    means the plain rule already works on such a ``g`` (elementwise rules, which
    only broadcast ``g`` against per-sample tensors); with no rules given, every
    rule is declared so. An input without a batch rule is handled one row at a time.
    """
    if not rules:
        rules = (True,) * len(prim.vjps)
    prim.bvjps = tuple(prim.vjps[i] if r is True else r for i, r in enumerate(rules))
    return prim


class Node:
    """One recorded op application."""

    # edges[i] is (producer node or None for a leaf, output index) of input i as it
    # was when the op ran, or None where no gradient flows; reading them from the
    # live tensors at backward time would follow later in-place rebindings
    __slots__ = ("prim", "inputs", "edges", "params", "outs", "out_meta", "versions",
                 "out_versions", "hooks", "retained", "packed", "__weakref__")

    def __repr__(self):
        return f"<Node {self.prim.name}>"


# The differentiable ops autograd itself needs (the engine to fix up gradients, the
# functional APIs and gradcheck to reshape and join rows); set by weft.ops when it
# loads, since ops sit above autograd and autograd never imports them.
class _Support:
    sum_to_shape = None   # (Tensor, shape list) -> Tensor
    real = None           # Tensor -> Tensor
    cast = None           # (Tensor, dtype) -> Tensor
    zeros = None          # (shape, dtype, like Tensor) -> Tensor
    ones_like = None      # Tensor -> Tensor
    reshape = None        # (Tensor, shape list) -> Tensor, shape exact (x itself if equal)
    stack = None          # (list of Tensors, axis=0) -> Tensor stacked on a new axis
    # weft.reshape itself: Paddle's -1/0 rules, always a new node, sparse rejected
    reshape_op = None     # (Tensor, shape list) -> Tensor
    concat = None         # (list of Tensors, axis=0) -> Tensor joined on an existing axis
    transpose = None      # (Tensor, perm list) -> Tensor
    broadcast_to = None   # (Tensor, shape list) -> Tensor (forward mode's tangents)


support = _Support()


def _differentiable(t):
    return t._data.dtype.kind in "fc"


def _apply_py(prim, *args, **params):
    """Run ``prim`` on ``args`` (Tensors or constants) and record it if needed.

    The definition of ``apply``; ``weft._C.autograd_apply`` does the same natively for
    one-output primitives when no forward-mode pass or saved-tensor hooks are open
    (and calls this for everything else). ``WEFT_PYTHON_APPLY=1`` keeps this one."""
    record = False
    datas = []
    for a in args:
        if isinstance(a, Tensor):
            datas.append(a._data)
            if not a.stop_gradient:
                record = True
        else:
            datas.append(a)
    out = prim.fwd(*datas, **params)
    record = record and mode.enabled
    if prim.n_out == 1:
        if type(out) is not _ndarray and not hasattr(out, "__cuda_array_interface__"):
            out = np.asarray(out)
        t = Tensor._wrap(out)
        if prim.view:
            t._version = args[0]._version
        if record and out.dtype.kind in "fc":
            t.stop_gradient = False
            node = t._node = _record(prim, args, params, (out,))
            if prim.save_out:
                # the rules read the output: an in-place write to it must be caught too
                node.out_versions = ((0, t._version, t._version[0]),)
            if _fwd_active:
                _fwd_hook(prim, args, params, t)
        return t
    outs = tuple(o if type(o) is _ndarray or hasattr(o, "__cuda_array_interface__")
                 else np.asarray(o) for o in out)
    res = tuple(Tensor._wrap(o) for o in outs)
    if record:
        node = _record(prim, args, params, outs)
        for i, t in enumerate(res):
            if t._data.dtype.kind in "fc":
                t.stop_gradient = False
                t._node = node
                t._oidx = i
        if prim.save_out:
            node.out_versions = tuple((i, t._version, t._version[0]) for i, t in enumerate(res))
        if _fwd_active:
            _fwd_hook(prim, args, params, res)
    return res


def _record(prim, args, params, outs):
    node = Node()
    node.prim = prim
    node.inputs = args
    edges = []
    for a in args:
        if isinstance(a, Tensor) and not a.stop_gradient and a._data.dtype.kind in "fc":
            edges.append((a._node, a._oidx))
        else:
            edges.append(None)
    node.edges = edges
    node.params = params
    node.outs = outs if prim.save_out else None
    node.out_meta = tuple((o.shape, o.dtype) for o in outs) if prim.n_out > 1 else None
    save = prim.save
    if type(save) is dict:
        # only the values read by rules of inputs that will receive a gradient
        read = set()
        for i, e in enumerate(edges):
            if e is not None:
                read.update(save.get(i, ()))
        save = sorted(read)
    if save:
        vs = []
        for i in save:
            a = args[i]
            if isinstance(a, Tensor):
                vs.append((i, a._version, a._version[0]))
        node.versions = vs
    else:
        node.versions = ()
    node.out_versions = ()
    node.hooks = None
    node.retained = None
    node.packed = None
    if _hook_contexts and saved_hooks.top is not None:
        _pack(node, prim, args)
    return node


# ----------------------------------------------------------------------------------
# saved_tensors_hooks: what a node saves goes through the innermost (pack, unpack) pair


class _SavedHooks(threading.local):
    top = None   # (pack_hook, unpack_hook) of the innermost active context, or None


saved_hooks = _SavedHooks()
# contexts open in any thread: a plain global, so ops pay one cheap check when none is
_hook_contexts = 0


def _pack(node, prim, args):
    pair = saved_hooks.top
    pack = pair[0]
    # a pack hook that itself runs ops must not pack recursively
    saved_hooks.top = None
    try:
        # exactly the inputs whose versions are tracked: the ones the rules will read
        ins = [(i, pack(args[i])) for i, _, _ in node.versions]
        outs = None
        if node.outs is not None:
            # packed forms, each with the shape and dtype unpack_hook must give back
            outs = tuple((pack(Tensor._wrap(o)), o.shape, o.dtype) for o in node.outs)
            node.outs = None   # only the packed form is kept
    finally:
        saved_hooks.top = pair
    node.packed = (pair[1], ins, outs)


def unpack_saved(unpack, obj, original, what):
    """``unpack(obj)`` checked against ``original`` and standing in for it in the graph.

    Under ``create_graph`` the result is tied to ``original`` by an identity node, so
    a rule that reads it still differentiates back to ``original``'s history.
    """
    top = saved_hooks.top
    saved_hooks.top = None
    try:
        u = unpack(obj)
    finally:
        saved_hooks.top = top
    if not isinstance(u, Tensor):
        raise TypeError(f"saved_tensors_hooks: unpack_hook must return a Tensor for {what}, "
                        f"got {type(u).__name__}")
    if u._data.shape != original._data.shape:
        raise ValueError(f"saved_tensors_hooks: unpack_hook returned shape {u.shape} for {what}, "
                         f"which was saved with shape {original.shape}")
    if u._data.dtype != original._data.dtype:
        raise ValueError(f"saved_tensors_hooks: unpack_hook returned dtype {u.dtype.name} for "
                         f"{what}, which was saved with dtype {original.dtype.name}")
    if mode.enabled and not original.stop_gradient and _differentiable(original):
        return apply(_UNPACKED, original, Tensor._wrap(u._data))
    return Tensor._wrap(u._data)


def _unpack_args(node, packed, args):
    unpack, ins, _ = packed
    if not ins:
        return args
    args = list(args)
    for i, obj in ins:
        args[i] = unpack_saved(unpack, obj, args[i], f"input {i} of {node.prim.name}")
    return args


def _unpack_outs(node, packed):
    unpack, _, outs_p = packed
    top = saved_hooks.top
    saved_hooks.top = None
    try:
        us = [unpack(o) for o, _, _ in outs_p]
    finally:
        saved_hooks.top = top
    for u, (_, shape, dtype) in zip(us, outs_p):
        what = f"the output of {node.prim.name}"
        if not isinstance(u, Tensor):
            raise TypeError(f"saved_tensors_hooks: unpack_hook must return a Tensor for {what}, "
                            f"got {type(u).__name__}")
        if u._data.shape != shape or u._data.dtype != dtype:
            raise ValueError(f"saved_tensors_hooks: unpack_hook returned shape {u.shape} and "
                             f"dtype {u.dtype.name} for {what}, which was saved with shape "
                             f"{list(shape)} and dtype {dtype.name}")
    return tuple(u._data for u in us)


_UNPACKED = Primitive("unpacked_saved_tensor", lambda orig, data: data)
defvjp(_UNPACKED, lambda g, ans, orig, data: g, None, save=(), save_out=False)
defbatch(_UNPACKED)
defjvp(_UNPACKED, lambda t, ans, orig, data: t)


# ----------------------------------------------------------------------------------
# backward traversal


def _topo(root_nodes, blocked):
    """Nodes reachable from ``root_nodes``, consumers before producers."""
    order = []
    seen = set()
    for root in root_nodes:
        if id(root) in seen:
            continue
        seen.add(id(root))
        stack = [(root, iter(root.edges if root.inputs is not None else ()))]
        while stack:
            node, it = stack[-1]
            for e in it:
                if e is not None:
                    n = e[0]
                    if n is not None and id(n) not in seen and (id(n), e[1]) not in blocked:
                        seen.add(id(n))
                        stack.append((n, iter(n.edges if n.inputs is not None else ())))
                        break
            else:
                stack.pop()
                order.append(node)
    order.reverse()
    return order


def _check_versions(node):
    for i, counter, v in node.versions:
        if counter[0] != v:
            _version_error(node, "input", i, counter[0], v)
    for i, counter, v in node.out_versions:
        if counter[0] != v:
            _version_error(node, "output", i, counter[0], v)


def _version_error(node, what, i, now, v):
    raise RuntimeError(
        f"one of the tensors needed for gradient computation ({what} {i} of "
        f"{node.prim.name}) has been modified by an inplace operation. Its version is {now} "
        f"but the expected version is {v}.")


def _to_dtype(g, dtype):
    """A gradient in its input's dtype: the real part for a real input (the complex
    convention), then a cast."""
    if g._data.dtype != dtype:
        if g._data.dtype.kind == "c" and dtype.kind != "c":
            g = support.real(g)
        if g._data.dtype != dtype:
            g = support.cast(g, dtype)
    return g


def _fix_grad(g, t):
    """Bring a vjp result to the shape and dtype of input ``t``."""
    if not isinstance(g, Tensor):
        raise TypeError(f"vjp returned {type(g).__name__}, expected a Tensor")
    if g.is_sparse() or t.is_sparse():
        # sparse tensors' cotangents travel as their values (masked gradients): a
        # sparse g must have t's pattern and is never summed to a shape
        g = _sparse_cotangent(g, t)
    d = t._data
    if g._data.shape != d.shape:
        g = support.sum_to_shape(g, list(d.shape))
    return _to_dtype(g, d.dtype)


def _add(a, b):
    return b if a is None else a + b


def _sparse_cotangent(g, t):
    """Cotangent ``g`` of tensor ``t`` as the engine carries it (values-shaped for sparse t)."""
    if t.is_sparse():
        return t._values_cotangent(g)
    raise ValueError(f"a sparse gradient (shape {g.shape}) was given for a dense tensor of "
                     f"shape {t.shape}; call to_dense() on it first")


def _visible_grad(g, t):
    """The gradient of ``t`` as users see it: sparse tensors get a sparse, same-pattern one."""
    if g is not None and t.is_sparse() and not g.is_sparse():
        return t._grad_from_values(g)
    return g


def _accumulate(t, old, g):
    if old is None:
        return g
    if t.is_sparse():
        return t._add_grad(old, g)
    return old + g


class _Pass:
    """What the stages of one backward traversal share."""

    __slots__ = ("inputs", "create_graph", "retain_graph", "accumulate", "batch", "blocked",
                 "blocked_leaves", "leaf_targets", "node_targets", "captured", "needed",
                 "buffers", "leaf_acc", "outer_mode")

    def __init__(self, inputs, no_grad_vars, retain_graph, create_graph, accumulate, batch):
        self.inputs = inputs
        self.retain_graph = retain_graph
        self.create_graph = create_graph
        self.accumulate = accumulate
        self.batch = batch
        self.outer_mode = mode.enabled   # the grad mode hooks run under
        # no_grad_vars stop the flow: non-leaves by (node, output), leaves by identity
        blocked = set()
        blocked_leaves = set()
        for t in no_grad_vars or ():
            if t._node is not None:
                blocked.add((id(t._node), t._oidx))
            else:
                blocked_leaves.add(id(t))
        self.blocked = blocked
        self.blocked_leaves = blocked_leaves
        # targets of weft.grad: leaves by identity, non-leaves by (node, output), each
        # mapped to its positions in ``inputs``
        leaf_targets = {}
        node_targets = {}
        if inputs is not None:
            for k, t in enumerate(inputs):
                if t._node is None:
                    leaf_targets.setdefault(id(t), []).append(k)
                else:
                    node_targets.setdefault((id(t._node), t._oidx), []).append(k)
        self.leaf_targets = leaf_targets
        self.node_targets = node_targets
        self.captured = [None] * (len(inputs) if inputs is not None else 0)
        self.needed = None   # ids of the nodes whose vjps must run; None: all
        self.buffers = {}    # id(node) -> list of cotangents per output
        self.leaf_acc = {}   # id(leaf) -> [leaf, grad]


def run_backward(roots, root_grads, *, retain_graph=False, create_graph=False,
                 inputs=None, allow_unused=False, no_grad_vars=None, accumulate=True,
                 batch=0):
    """Propagate ``root_grads`` from ``roots``.

    With ``inputs=None`` gradients accumulate into leaf ``.grad`` (``backward``);
    otherwise the gradients of ``inputs`` are returned and nothing is stored
    (``weft.grad``).

    ``batch=B`` (with ``inputs``): each root gradient has a leading axis of ``B``
    independent cotangents and so has each returned gradient; one pass computes
    ``B`` vector-Jacobian products (rows of a Jacobian). Returns None, having run
    nothing, when the graph has what a batch cannot go through (hooks, sparse
    tensors); the caller then goes row by row.

    The stages: :func:`_seed` places the root cotangents, :func:`_topo` orders the
    reachable nodes and :func:`_prune` keeps those that lead to ``inputs``,
    :func:`_propagate` runs each node's vjps into its producers' buffers, and
    :func:`_finish_leaves` hands the leaves their totals.
    """
    p = _Pass(inputs, no_grad_vars, retain_graph, create_graph, accumulate, batch)
    root_nodes = _seed(p, roots, root_grads)
    order = _native_topo(root_nodes) if _native_topo is not None and not p.blocked else \
        _topo(root_nodes, p.blocked)
    if inputs is not None:
        p.needed = _prune(order, p.leaf_targets, p.node_targets)
    if batch and not _batchable(roots, order, inputs):
        return None
    prev_mode = mode.enabled
    mode.enabled = create_graph
    try:
        _propagate(p, order)
        _finish_leaves(p)
    finally:
        mode.enabled = prev_mode
    return p.captured


def _seed(p, roots, root_grads):
    """Place each root's cotangent: a leaf root straight into its total, a non-leaf one
    into its node's buffer. Returns the root nodes, in order."""
    buffers = p.buffers
    leaf_acc = p.leaf_acc
    root_nodes = []
    for t, g in zip(roots, root_grads):
        if t.stop_gradient:
            continue
        if g.is_sparse() or t.is_sparse():
            g = _sparse_cotangent(g, t)
        if t._node is None:
            if id(t) in p.blocked_leaves:
                continue
            e = leaf_acc.get(id(t))
            if e is None:
                leaf_acc[id(t)] = [t, g]
            else:
                e[1] = e[1] + g
            continue
        if (id(t._node), t._oidx) in p.blocked:
            continue
        buf = buffers.get(id(t._node))
        if buf is None:
            buf = buffers[id(t._node)] = [None] * t._node.prim.n_out
            root_nodes.append(t._node)
        buf[t._oidx] = _add(buf[t._oidx], g)
    return root_nodes


def _prune(order, leaf_targets, node_targets):
    """The ids of the nodes in ``order`` from which some target is reachable: only their
    vjps need to run."""
    needed = set()
    for node in reversed(order):
        if node.inputs is None:
            needed.add(id(node))  # freed: reaching it must raise GraphFreedError
            continue
        for a, e in zip(node.inputs, node.edges):
            if e is not None:
                if e[0] is None:
                    if id(a) in leaf_targets:
                        needed.add(id(node))
                        break
                elif id(e[0]) in needed or (id(e[0]), e[1]) in node_targets:
                    needed.add(id(node))
                    break
    return needed


def _propagate(p, order):
    if _native_propagate is not None and p.inputs is None and not (
            p.create_graph or p.batch or p.needed is not None or p.blocked or
            p.blocked_leaves or p.node_targets) and \
            _native_propagate(p.buffers, p.leaf_acc, order, p.retain_graph):
        return   # a plain backward() pass, run natively (csrc/core/engine.cpp)
    _propagate_py(p, order)


def _propagate_py(p, order):
    """The per-node step, for each node of ``order`` (consumers first) that received a
    cotangent: hooks, retained gradients and captured targets see the node's output
    cotangents first; then each input that leads somewhere gets its vjp, fixed up to
    the input's shape and dtype and added to its producer's buffer (or to the leaf's
    total). Without retain_graph the node is freed afterwards.

    The step is the body of this loop rather than a function of its own: a call per
    node measured about 0.15 us (some 5% of a backward pass through cheap ops), and
    the pass's state is read into locals once.
    """
    inputs = p.inputs
    create_graph = p.create_graph
    retain_graph = p.retain_graph
    accumulate = p.accumulate
    batch = p.batch
    needed = p.needed
    blocked = p.blocked
    blocked_leaves = p.blocked_leaves
    leaf_targets = p.leaf_targets
    node_targets = p.node_targets
    buffers = p.buffers
    leaf_acc = p.leaf_acc
    outer_mode = p.outer_mode
    for node in order:
        gs = buffers.pop(id(node), None)
        if gs is None:
            continue
        if node.inputs is None:
            raise GraphFreedError(
                f"trying to run backward through {node.prim.name} a second time, but its "
                "saved tensors were already freed; pass retain_graph=True to the first "
                "backward (or weft.grad) to keep the graph")
        if node.retained is not None and inputs is None:  # weft.grad stores nothing
            # the gradient as it arrived, before this tensor's hooks (Paddle)
            _store_retained(node, gs, create_graph, accumulate)
        if node.hooks is not None:
            _node_hooks(node, gs, outer_mode)
        if node_targets:
            _capture(p, node, gs)
        if needed is not None and id(node) not in needed:
            continue
        if node.versions or node.out_versions:
            _check_versions(node)
        prim = node.prim
        outs = node.outs
        packed = node.packed
        if packed is not None and packed[2] is not None:
            outs = _unpack_outs(node, packed)
        if prim.n_out == 1:
            g = gs[0]
            ans = None if outs is None else Tensor._wrap(outs[0])
            if create_graph and ans is not None:
                # the saved output as a tensor on the graph, so rules using it differentiate
                ans.stop_gradient = False
                ans._node = node
        else:
            g = tuple(_materialise(gi, meta, node, batch)
                      for gi, meta in zip(gs, node.out_meta))
            ans = None if outs is None else tuple(Tensor._wrap(o) for o in outs)
            if create_graph and ans is not None:
                for i, a in enumerate(ans):
                    if a._data.dtype.kind in "fc":
                        a.stop_gradient = False
                        a._node = node
                        a._oidx = i
        args = node.inputs
        edges = node.edges
        if create_graph:
            args = _graph_args(args, edges)
        rargs = args if packed is None else _unpack_args(node, packed, args)
        vjps = prim.vjps
        params = node.params
        i = -1
        for a in args:
            i += 1
            e = edges[i]
            if e is None:
                continue
            an, ao = e
            if an is None:
                if blocked_leaves and id(a) in blocked_leaves:
                    continue
                if needed is not None and id(a) not in leaf_targets:
                    continue
            elif blocked and (id(an), ao) in blocked:
                continue
            elif needed is not None and id(an) not in needed and \
                    (id(an), ao) not in node_targets:
                continue
            rule = vjps[i] if i < len(vjps) else None
            if rule is None:
                raise RuntimeError(f"{prim.name} is not differentiable with respect to "
                                   f"input {i}")
            if batch:
                gi = _batched_rule(node, i, g, ans, rargs, a, batch)
                if gi is None:
                    continue
                if type(gi) is not Tensor or gi._data.shape != (batch,) + a._data.shape \
                        or gi._data.dtype != a._data.dtype:
                    gi = _fix_batched(gi, a, batch)
            else:
                gi = rule(g, ans, *rargs, **params)
                if gi is None:
                    continue
                if type(gi) is not Tensor or gi._data.shape != a._data.shape or \
                        gi._data.dtype != a._data.dtype:
                    gi = _fix_grad(gi, a)
            if an is None:
                e = leaf_acc.get(id(a))
                if e is None:
                    leaf_acc[id(a)] = [a, gi]
                else:
                    e[1] = e[1] + gi
            else:
                buf = buffers.get(id(an))
                if buf is None:
                    buf = buffers[id(an)] = [None] * an.prim.n_out
                buf[ao] = gi if buf[ao] is None else buf[ao] + gi
        if not retain_graph:
            node.inputs = None
            node.edges = None
            node.outs = None
            node.params = None
            node.packed = None


def _node_hooks(node, gs, outer_mode):
    """Hooks registered on the node's outputs, in order; a returned tensor replaces the
    cotangent passed on."""
    for oi, hooks in node.hooks.items():
        if gs[oi] is not None:
            for h in list(hooks.values()):
                r = _run_hook(h, gs[oi], outer_mode, f"output {oi} of {node.prim.name}")
                if r is not None:
                    gs[oi] = r


def _run_hook(hook, g, outer_mode, what):
    """``hook(g)`` under the grad mode of the code that started the backward pass, so a
    hook may build graphs and run a nested backward (spec: reentrancy); its result
    must be None or a Tensor like ``g``."""
    inner = mode.enabled
    mode.enabled = inner or outer_mode   # create_graph keeps recording on
    try:
        r = hook(g)
    finally:
        mode.enabled = inner
    if r is None:
        return None
    if not isinstance(r, Tensor):
        raise TypeError(f"a hook registered on {what} returned {type(r).__name__}; a hook must "
                        "return a Tensor or None")
    if list(r.shape) != list(g.shape) or r.dtype != g.dtype:
        raise ValueError(f"a hook registered on {what} returned a tensor of shape {list(r.shape)} "
                         f"and dtype {r.dtype.name}, but the gradient it replaces has shape "
                         f"{list(g.shape)} and dtype {g.dtype.name}")
    return r


def _store_retained(node, gs, create_graph, accumulate):
    """``.grad`` of the outputs that called retain_grads() (backward only)."""
    for oi, ref in node.retained.items():
        tt = ref()
        if tt is not None and gs[oi] is not None:
            g = gs[oi] if create_graph else gs[oi].detach()
            g = _visible_grad(g, tt)
            tt._grad = g if tt._grad is None or not accumulate else \
                _accumulate(tt, tt._grad, g)


def _capture(p, node, gs):
    """Total cotangents of the node's outputs that are weft.grad targets."""
    inputs = p.inputs
    captured = p.captured
    node_targets = p.node_targets
    for oi in range(len(gs)):
        ks = node_targets.get((id(node), oi))
        if ks:
            for k in ks:
                captured[k] = _accumulate(inputs[k], captured[k],
                                          _visible_grad(gs[oi], inputs[k]))


def _finish_leaves(p):
    """Each leaf's total: its hooks see it, then it is captured (weft.grad) or added to
    ``.grad`` (backward)."""
    inputs = p.inputs
    leaf_targets = p.leaf_targets
    captured = p.captured
    for lid, (leaf, g) in p.leaf_acc.items():
        g = _visible_grad(g, leaf)
        if leaf._hooks:
            for h in list(leaf._hooks.values()):
                r = _run_hook(h, g, p.outer_mode, _describe_leaf(leaf))
                if r is not None:
                    g = r
        if inputs is not None:
            for k in leaf_targets.get(lid, ()):
                captured[k] = _accumulate(leaf, captured[k], g)
        elif p.accumulate:
            if not p.create_graph:
                g = g.detach()
            leaf._grad = _accumulate(leaf, leaf._grad, g)


def _describe_leaf(t):
    name = f" {t.name!r}" if getattr(t, "name", None) else ""
    return f"the leaf tensor{name} of shape {list(t.shape)}"


def _graph_args(args, edges):
    """Inputs for rules run with create_graph: a tensor whose history an in-place op
    has moved since the op ran is replaced by a view with the recorded history."""
    out = None
    for i, (a, e) in enumerate(zip(args, edges)):
        if e is not None and e[0] is not None and (a._node is not e[0] or a._oidx != e[1]):
            if out is None:
                out = list(args)
            s = Tensor._wrap(a._data)
            s._version = a._version
            s.stop_gradient = False
            s._node, s._oidx = e
            out[i] = s
    return args if out is None else tuple(out)


def _materialise(g, meta, node, batch=0):
    if g is not None:
        return g
    shape, dtype = meta
    if dtype.kind not in "fc":
        return None
    return support.zeros(([batch] if batch else []) + list(shape), dtype, node)


# ----------------------------------------------------------------------------------
# batched passes: cotangents with a leading batch axis


def _batchable(roots, order, inputs):
    """Whether a batched pass can run: hooks would see batched gradients and sparse
    cotangents are values-shaped, so either sends the caller row by row."""
    if inputs is None:
        return False
    for t in roots:
        if t.is_sparse():
            return False
    for t in inputs:
        if t.is_sparse() or (t._node is None and t._hooks):
            return False
    for node in order:
        if node.hooks or node.inputs is None:
            # a freed node must raise GraphFreedError, which the row path does
            return False
        for a in node.inputs:
            if isinstance(a, Tensor) and type(a) is not Tensor and a.is_sparse():
                return False
    return True


def _batched_rule(node, i, g, ans, rargs, a, batch):
    """The cotangent ``[batch, *a.shape]`` of input ``i``: the primitive's batch rule,
    or its plain rule applied to each row and stacked."""
    prim = node.prim
    params = node.params
    brules = prim.bvjps
    if brules is not None and i < len(brules) and brules[i] is not None:
        return brules[i](g, ans, *rargs, **params)
    rule = prim.vjps[i]
    multi = type(g) is tuple
    rows = []
    for k in range(batch):
        gk = tuple(None if t is None else t[k] for t in g) if multi else g[k]
        r = rule(gk, ans, *rargs, **params)
        if r is None:
            r = support.zeros(list(a._data.shape), a._data.dtype, node)
        elif type(r) is not Tensor or r._data.shape != a._data.shape or \
                r._data.dtype != a._data.dtype:
            r = _fix_grad(r, a)
        rows.append(r)
    return support.stack(rows)


def _fix_batched(g, t, batch):
    """``_fix_grad`` for a batch: sum ``g`` to ``[batch, *t.shape]``, keeping axis 0."""
    if not isinstance(g, Tensor):
        raise TypeError(f"vjp returned {type(g).__name__}, expected a Tensor")
    d = t._data
    target = [batch] + list(d.shape)
    gs = g._data.shape
    if list(gs) != target:
        pad = len(gs) - 1 - d.ndim
        if pad < 0 or gs[0] != batch:
            raise RuntimeError(f"a batch rule returned shape {list(gs)} for an input of shape "
                               f"{list(d.shape)} with a batch of {batch}")
        # broadcast axes of the sample (after the batch axis) are summed, axis 0 kept
        g = support.sum_to_shape(g, [batch] + [1] * pad + list(d.shape))
        if pad:
            g = support.reshape(g, target)
    return _to_dtype(g, d.dtype)


# ----------------------------------------------------------------------------------
# the native fast paths (csrc/core/engine.cpp): apply, and the backward stages below

def _native_apply():
    import os  # noqa: PLC0415

    from .._native import extension as ext  # noqa: PLC0415

    if os.environ.get("WEFT_PYTHON_APPLY") == "1":
        return _apply_py
    init = getattr(ext, "autograd_apply_init", None)
    if init is None or not init(Tensor, Node, Primitive, np.ndarray, globals(), mode, _apply_py,
                                np.asarray):
        return _apply_py
    return ext.autograd_apply


apply = _native_apply()
# the backward stages' native versions, enabled with apply (None: the Python ones)
_native_topo = _native_propagate = None
if apply is not _apply_py:
    from .._native import extension as _ext  # noqa: E402

    _native_topo = _ext.autograd_topo
    _native_propagate = _ext.autograd_propagate
    del _ext
