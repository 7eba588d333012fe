"""Tensor hooks and ``retain_grads``: registration only; the backward pass runs them
(``engine._node_hooks``, ``engine._store_retained``, ``engine._finish_leaves``).

A leaf keeps its hooks on the tensor (``t._hooks``); a non-leaf's hooks and retained
gradients live on the node that produced it, keyed by output index, so that they
follow the graph rather than the Python object.
"""
from __future__ import annotations

import weakref

from ..core.tensor import Tensor


class RemovableHandle:
    """Handle returned by ``register_hook``; ``remove()`` unregisters the hook."""

    _next = [0]

    def __init__(self, registry):
        self._registry = weakref.ref(registry) if registry is not None else None
        RemovableHandle._next[0] += 1
        self.id = RemovableHandle._next[0]

    def remove(self):
        """Unregister the hook: True if it was registered, False if already removed."""
        reg = self._registry() if self._registry is not None else None
        if reg is None:
            return False
        return reg.pop(self.id, None) is not None


def register_hook(t, hook):
    if t.stop_gradient:
        raise RuntimeError("Cannot register hook on a tensor that stop gradient.")
    if not callable(hook):
        raise TypeError(f"register_hook: hook must be callable, got {type(hook).__name__}")
    if t._node is None:
        if t._hooks is None:
            t._hooks = _HookDict()
        reg = t._hooks
    else:
        node = t._node
        if node.hooks is None:
            node.hooks = {}
        reg = node.hooks.setdefault(t._oidx, _HookDict())
        if type(t) is not Tensor and t.is_sparse():
            hook = _sparse_hook(t, hook)
    h = RemovableHandle(reg)
    reg[h.id] = hook
    return h


def _sparse_hook(t, hook):
    """``hook`` as the node sees it: inside the engine a sparse tensor's gradient is
    its values, so the hook gets it re-dressed with ``t``'s pattern and may return
    a sparse gradient of that pattern (or a values-shaped one). The pattern is held
    by a detached twin, which shares ``t``'s arrays but not its graph."""
    twin = t.detach()

    def run(g):
        r = hook(twin._grad_from_values(g))
        return None if r is None else twin._values_cotangent(r, "register_hook")
    return run


class _HookDict(dict):
    """A dict that can be weakly referenced by hook handles."""

    __slots__ = ("__weakref__",)


def retain_grads(t):
    if t._node is None or t.stop_gradient:
        return
    node = t._node
    if node.retained is None:
        node.retained = {}
    node.retained[t._oidx] = weakref.ref(t)
