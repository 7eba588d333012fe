"""The registry of primitives: every :class:`~weft.autograd.engine.Primitive` that weft
declares has a unique name, and :func:`rules` lists what each one can do.

A name is registered once, when its module loads; a second primitive with the same name
raises there, so two rules can never compete for one op. Ops whose number of inputs
varies (concat, stack, einsum, ...) build one primitive per arity: they are declared
as a *family* and share the name. Primitives made at run time for user code (each
PyLayer application) are not registered.
"""
from __future__ import annotations

import sys
from typing import NamedTuple

_PRIMITIVES = {}   # name -> the primitive (a family's first member)
_OWNERS = {}       # name -> the module that declared it


class PrimitiveRules(NamedTuple):
    """What the engine knows about one primitive.

    ``vjp``: every input that can take a gradient has a reverse-mode rule (False for a
    primitive with no rule at all, such as a comparison); ``jvp``: a forward-mode rule
    is registered (``engine.defjvp``, ``deflinear``, ``defmultilinear``; otherwise
    forward mode takes a double vjp of the primitive's own rules); ``batched``: its
    rules take a batch of cotangents at once (Jacobians and Hessians in one pass);
    ``family``: one primitive per number of inputs; ``module``: where it is declared.
    """

    name: str
    vjp: bool
    jvp: bool
    batched: bool
    family: bool
    module: str


def register(prim, family, depth=2):
    """Add ``prim`` to the registry (called by ``Primitive.__init__``)."""
    name = prim.name
    prev = _PRIMITIVES.get(name)
    if prev is None:
        _PRIMITIVES[name] = prim
        _OWNERS[name] = sys._getframe(depth).f_globals.get("__name__", "?")
        return
    if family and prev.family:
        return
    where = sys._getframe(depth).f_globals.get("__name__", "?")
    raise ValueError(f"Primitive: the name {name!r} is already registered by {_OWNERS[name]} "
                     f"(declared again in {where}); primitive names must be unique, or "
                     "declare one primitive per arity with family=True")


def differentiable(prim):
    """True when the primitive has a reverse-mode rule for at least one input."""
    return any(r is not None for r in prim.vjps)


def rules():
    """Every registered primitive and the rules it has, sorted by name.

    >>> import weft
    >>> r = {p.name: p for p in weft.autograd.rules()}
    >>> r["matmul"].vjp, r["matmul"].batched
    (True, True)
    """
    out = []
    for name in sorted(_PRIMITIVES):
        p = _PRIMITIVES[name]
        out.append(PrimitiveRules(name, differentiable(p), p.jvp is not None,
                                  p.bvjps is not None, p.family, _OWNERS[name]))
    return out


def get(name):
    """The registered primitive called ``name`` (``KeyError`` if there is none)."""
    return _PRIMITIVES[name]


__all__ = ["rules", "PrimitiveRules", "register", "get", "differentiable"]
