"""Thread-local grad mode: ``no_grad``, ``enable_grad``, ``set_grad_enabled``."""
from __future__ import annotations

import functools
import threading


def _is_generator_function(func):
    # what inspect.isgeneratorfunction checks, without importing inspect at start-up
    code = getattr(func, "__code__", None)
    return code is not None and bool(code.co_flags & 0x20)  # CO_GENERATOR


class _Mode(threading.local):
    enabled = True


mode = _Mode()


def is_grad_enabled():
    """Whether ops record the backward graph in the current thread."""
    return mode.enabled


def _call_in_mode(func, target):
    """``func`` wrapped to run with grad mode ``target``, restoring the caller's mode."""
    @functools.wraps(func)
    def inner(*args, **kwargs):
        prev = mode.enabled
        mode.enabled = target
        try:
            return func(*args, **kwargs)
        finally:
            mode.enabled = prev
    return inner


class _GradModeContext:
    """Context manager that is also a decorator (with or without parentheses)."""

    _target = True

    def __init__(self, func=None):
        self._prev = []
        if func is not None and callable(func):
            # bare ``@weft.no_grad``: behave as the decorated function itself
            self._wrapped = self._wrap(func)
            functools.update_wrapper(self, func)
        else:
            self._wrapped = None

    def __enter__(self):
        self._prev.append(mode.enabled)
        mode.enabled = self._target
        return self

    def __exit__(self, *exc):
        mode.enabled = self._prev.pop()
        return False

    def _wrap(self, func):
        target = self._target
        if _is_generator_function(func):
            @functools.wraps(func)
            def gen(*args, **kwargs):
                g = func(*args, **kwargs)
                while True:
                    prev = mode.enabled
                    mode.enabled = target
                    try:
                        x = next(g)
                    except StopIteration as e:
                        return e.value
                    finally:
                        mode.enabled = prev
                    yield x
            return gen
        return _call_in_mode(func, target)

    def __call__(self, *args, **kwargs):
        if self._wrapped is not None:
            return self._wrapped(*args, **kwargs)
        if len(args) == 1 and not kwargs and callable(args[0]):
            return self._wrap(args[0])
        raise TypeError(f"{type(self).__name__}() used as a decorator takes one function")


class no_grad(_GradModeContext):
    """Disable graph recording: ``with weft.no_grad():``, ``@weft.no_grad()`` or ``@weft.no_grad``.

    >>> import weft
    >>> x = weft.ones([2], stop_gradient=False)
    >>> with weft.no_grad():
    ...     y = x * 2
    >>> y.stop_gradient
    True
    """

    _target = False


class enable_grad(_GradModeContext):
    """Re-enable graph recording inside ``no_grad``."""

    _target = True


class set_grad_enabled:
    """Set grad mode now; as a context manager, restore the previous mode on exit."""

    def __init__(self, mode_):
        if not isinstance(mode_, bool):
            raise TypeError(f"set_grad_enabled: mode must be a bool, got {type(mode_).__name__}")
        self._prev = mode.enabled
        mode.enabled = mode_

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        mode.enabled = self._prev
        return False

    def __call__(self, func):
        target = mode.enabled
        mode.enabled = self._prev  # decorator use: do not change the mode at definition time
        return _call_in_mode(func, target)
