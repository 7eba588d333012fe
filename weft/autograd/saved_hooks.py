"""``saved_tensors_hooks``: intercept the tensors that backward keeps alive.

The engine passes every tensor an op saves for backward (and every tensor given
to ``PyLayerContext.save_for_backward``) through the innermost active
``pack_hook`` at save time and stores only what it returns; ``unpack_hook``
turns that back into a tensor when backward needs it. Typical uses are
offloading saved activations to host memory or compressing them.
"""
from __future__ import annotations

from . import engine as _engine
from .engine import saved_hooks as _state


class saved_tensors_hooks:
    """Context manager installing ``pack_hook(tensor) -> obj`` and ``unpack_hook(obj) -> tensor``.

    ``unpack_hook`` must return a tensor with the original contents (same shape);
    the innermost of nested contexts applies, and the pair in force when a tensor
    was saved is the one that unpacks it, even if backward runs after the context
    exited. Hooks are per thread. Inside a hook no further packing happens.

    >>> import weft
    >>> log = []
    >>> def pack(t):
    ...     log.append("pack")
    ...     return t.numpy().copy()
    >>> def unpack(a):
    ...     log.append("unpack")
    ...     return weft.to_tensor(a)
    >>> x = weft.to_tensor([1.0, 2.0], stop_gradient=False)
    >>> with weft.autograd.saved_tensors_hooks(pack, unpack):
    ...     y = (x * x).sum()
    >>> y.backward()
    >>> x.grad.tolist(), log
    ([2.0, 4.0], ['pack', 'pack', 'unpack', 'unpack'])
    """

    def __init__(self, pack_hook, unpack_hook):
        if not callable(pack_hook):
            raise TypeError(f"saved_tensors_hooks: pack_hook must be callable, got "
                            f"{type(pack_hook).__name__}")
        if not callable(unpack_hook):
            raise TypeError(f"saved_tensors_hooks: unpack_hook must be callable, got "
                            f"{type(unpack_hook).__name__}")
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook
        self._prev = []

    def __enter__(self):
        self._prev.append(_state.top)
        _state.top = (self.pack_hook, self.unpack_hook)
        _engine._hook_contexts += 1
        return self

    def __exit__(self, *exc):
        _state.top = self._prev.pop()
        _engine._hook_contexts -= 1
        return False


__all__ = ["saved_tensors_hooks"]
