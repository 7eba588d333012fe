"""The backend registry: which library computes an *area* (``linalg``, ``fft``) on each
device kind, chosen at run time.

An area has several backends, each serving one device kind, ``"cpu"`` or ``"gpu"``:

===========  ==========================================  =========================
area         cpu                                         gpu
===========  ==========================================  =========================
``linalg``   ``lapack`` (scipy.linalg, default), ``mkl``  ``cusolver`` (CuPy)
``fft``      ``pocketfft`` (scipy.fft, default), ``mkl``  ``cufft`` (CuPy)
===========  ==========================================  =========================

The choice is made per device kind, so choosing a CPU backend never changes what a
GPU tensor uses:

- :func:`set_backend` makes a backend the process-wide choice for its device kind;
- ``with backend(area, name):`` overrides that choice in the current thread only,
  nests, and restores the previous choice on exit, exception or not;
- :func:`get_backend` names the active backend, :func:`resolve` returns it loaded.

Nothing optional is imported by ``import weft``. A backend is *probed* (does its
module exist? ``importlib.util.find_spec``, which does not import it) when it is
chosen, so a missing package is reported at once by ``set_backend`` or on entering
``backend()``, with the pip package to install; it is *loaded* (its ``load`` callable
run, the result cached) the first time :func:`resolve` hands it out.

What a loaded backend is: for ``fft``, the function table of ``weft.fft.backends``
(the same calls on every backend, plus ``name`` and ``lib``, the library module),
attached by ``weft.fft`` with :func:`set_loader` when it is imported; core never
imports the areas above it. Before that, and for ``linalg`` until its package defines
a table, a small ``types.SimpleNamespace`` holding the imported library modules
(``lib`` the main one, e.g. ``scipy.fft``; some add a second, e.g. ``lapack``).

Threads. A backend never changes another library's global thread settings: no loader
or function here calls ``mkl.set_num_threads``, ``cupy``'s or numpy's BLAS setters,
``os.environ`` thread variables, or anything of the kind, because the user's (or
another library's) setting would silently change under them. A backend that wants a
thread count passes it per call (scipy.fft's ``workers=``, mkl_fft's per-call
arguments) or limits a library for the duration of one call with
``threadpoolctl.threadpool_limits`` used as a context manager.

Registering (for weft's own packages, and plugins): :func:`register_backend`; see
``docs/architecture.md`` ("How to add a backend").

Example:
    >>> import weft
    >>> weft.get_backend("fft", "cpu")
    'pocketfft'
    >>> with weft.backend("linalg", "lapack"):
    ...     weft.get_backend("linalg", "cpu")
    'lapack'
"""
from __future__ import annotations

import importlib
import importlib.util
import threading
import types

from .place import Place, current_place, parse_place

__all__ = ["register_backend", "unregister_backend", "set_loader", "set_backend", "backend",
           "get_backend", "resolve", "backends", "is_available", "BackendInfo"]

KINDS = ("cpu", "gpu")


class BackendInfo:
    """What the registry knows about one backend (read-only; made by :func:`register_backend`)."""

    __slots__ = ("area", "name", "module", "package", "device", "load", "default", "extra")

    def __init__(self, area, name, module, package, device, load, default, extra):
        for slot, value in zip(self.__slots__, (area, name, module, package, device, load,
                                                default, extra)):
            object.__setattr__(self, slot, value)

    def __setattr__(self, name, value):
        raise AttributeError(f"BackendInfo is read-only (tried to set {name!r})")

    def install_hint(self):
        hint = f"pip install {self.package}"
        return hint + (f" (or weft[{self.extra}])" if self.extra else "")

    def __repr__(self):
        return (f"BackendInfo({self.area!r}, {self.name!r}, device={self.device!r}, "
                f"module={self.module!r}, package={self.package!r}, default={self.default})")


# area -> {name: BackendInfo}, in registration order
_areas: dict[str, dict[str, BackendInfo]] = {}
# (area, kind) -> name chosen by set_backend; absent: the registered default
_chosen: dict[tuple[str, str], str] = {}
# (area, name) -> loaded backend object
_loaded: dict[tuple[str, str], object] = {}
# registration and loading; an RLock because a loader may resolve another area
_lock = threading.RLock()
# .overrides: (area, kind) -> name, set by `with backend(...)` in this thread;
# .saved: the stack of (key, previous name) its open `with` blocks restore on exit
_local = threading.local()


def _text(value, fn, arg):
    if not isinstance(value, str) or not value:
        raise TypeError(f"{fn}: {arg} must be a non-empty str, got {value!r}")
    return value


def register_backend(area, name, *, module, package, device, load, default=False, extra=None):
    """Add backend ``name`` to ``area`` (the area is created by its first backend).

    For weft's own packages and for plugins; users choose among registered backends
    with :func:`set_backend` and :func:`backend`.

    Args:
        area: the area's name, e.g. ``"fft"``.
        name: the backend's name, unique within the area, e.g. ``"mkl"``.
        module: the module whose presence means the backend can load, probed with
            ``importlib.util.find_spec`` without importing it (a dotted name imports
            its parent packages, so name the top-level package of an optional
            library).
        package: the pip package that provides ``module``, named in the error when
            it is missing.
        device: ``"cpu"`` or ``"gpu"``, the device kind the backend serves.
        load: a callable of no arguments that imports the library and returns the
            backend object; run once, on first use, and cached. It must not change
            any global thread setting (see the module docstring).
        default: whether this is the area's default for its device kind. Without
            one, the first backend registered for a kind is its default.
        extra: the weft extra that installs ``package`` (``pip install weft[extra]``),
            if any, for the error message.

    Raises:
        ValueError: ``name`` is already registered in ``area``, ``device`` is not a
            device kind, or ``default`` is given twice for one area and device kind.

    Example:
        >>> from weft.core.backend import register_backend, resolve, unregister_backend
        >>> import types
        >>> register_backend("demo", "stdlib", module="json", package="json", device="cpu",
        ...                  load=lambda: types.SimpleNamespace(lib=__import__("json")))
        >>> resolve("demo", "cpu").lib.dumps([1])
        '[1]'
        >>> unregister_backend("demo", "stdlib")
    """
    fn = "register_backend"
    _text(area, fn, "area")
    _text(name, fn, "name")
    _text(module, fn, "module")
    _text(package, fn, "package")
    if device not in KINDS:
        raise ValueError(f"{fn}: device must be 'cpu' or 'gpu', got {device!r}")
    if not callable(load):
        raise TypeError(f"{fn}: load must be a callable of no arguments, got {type(load).__name__}")
    if extra is not None:
        _text(extra, fn, "extra")
    with _lock:
        entries = _areas.get(area, {})
        if name in entries:
            raise ValueError(f"{fn}: area {area!r} already has a backend named {name!r} "
                             f"({entries[name]!r})")
        if default:
            for other in entries.values():
                if other.device == device and other.default:
                    raise ValueError(f"{fn}: area {area!r} already has a default {device} "
                                     f"backend, {other.name!r}; cannot make {name!r} one too")
        entries[name] = BackendInfo(area, name, module, package, device, load, bool(default),
                                    extra)
        _areas[area] = entries


def unregister_backend(area, name):
    """Remove a backend registered with :func:`register_backend` (and its area when it
    was the last). A process-wide choice of it falls back to the default; a thread's
    ``with backend(...)`` block still naming it fails on its next :func:`resolve`."""
    with _lock:
        _info("unregister_backend", area, name)
        del _areas[area][name]
        _loaded.pop((area, name), None)
        for key in [k for k, v in _chosen.items() if k[0] == area and v == name]:
            del _chosen[key]
        if not _areas[area]:
            del _areas[area]


def set_loader(area, name, load):
    """Give registered backend ``name`` of ``area`` a new loader (and forget what the
    old one loaded), keeping its registration and any choice of it.

    For the area's own package: the registry is filled at ``import weft`` with loaders
    that return the library modules only, and the package (``weft.fft``), which sits
    above core and owns the function tables, attaches its table loaders when it is
    imported, so that core never imports it.

    Example:
        >>> from weft.core.backend import (register_backend, resolve, set_loader,
        ...                                unregister_backend)
        >>> register_backend("demo2", "one", module="json", package="json", device="cpu",
        ...                  load=lambda: "old")
        >>> set_loader("demo2", "one", lambda: "new")
        >>> resolve("demo2", "cpu")
        'new'
        >>> unregister_backend("demo2", "one")
    """
    if not callable(load):
        raise TypeError(f"set_loader: load must be a callable of no arguments, got "
                        f"{type(load).__name__}")
    with _lock:
        old = _info("set_loader", area, name)
        _areas[area][name] = BackendInfo(old.area, old.name, old.module, old.package,
                                         old.device, load, old.default, old.extra)
        _loaded.pop((area, name), None)


def attach_tables(area, names, load):
    """``set_loader(area, name, lambda: load(name))`` for every ``name`` still
    registered: what an area's package (``weft.fft``, ``weft.linalg``) runs when it is
    imported to hand the registry its function tables. A backend the user unregistered
    before that import is skipped, not an error."""
    for name in names:
        with _lock:
            known = name in _areas.get(area, {})
        if known:
            set_loader(area, name, lambda name=name: load(name))


def _entries(fn, area):
    entries = _areas.get(area) if isinstance(area, str) else None
    if entries is None:
        known = ", ".join(repr(a) for a in _areas)
        raise ValueError(f"{fn}: unknown area {area!r}; the known areas are {known}")
    return entries


def _describe(entries):
    return ", ".join(f"{b.name!r} ({b.device})" for b in entries.values())


def _info(fn, area, name):
    entries = _entries(fn, area)
    info = entries.get(name) if isinstance(name, str) else None
    if info is None:
        raise ValueError(f"{fn}: area {area!r} has no backend {name!r}; its backends are "
                         f"{_describe(entries)}")
    return info


def is_available(area, name):
    """Whether the module backend ``name`` of ``area`` needs can be found (nothing is
    imported, except the parent packages of a dotted module name).

    Example:
        >>> is_available("fft", "pocketfft")
        True
    """
    info = _info("is_available", area, name)
    return _probe(info.module)


def _probe(module):
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a missing parent package; a module without __spec__
        return False


def _check_installed(fn, info):
    if not _probe(info.module):
        raise RuntimeError(f"{fn}: the {info.name} backend needs the {info.package} package; "
                           f"install it with {info.install_hint()}")


def _kind(device, fn="get_backend"):
    if device in KINDS:
        return device
    if device is None:
        return "gpu" if current_place().is_gpu else "cpu"
    if isinstance(device, Place):
        return "gpu" if device.is_gpu else "cpu"
    try:
        place = parse_place(device, "device")
    except ValueError:
        raise ValueError(f"{fn}: device must be 'cpu', 'gpu', 'gpu:N', a Place or None, "
                         f"got {device!r}") from None
    return "gpu" if place.is_gpu else "cpu"


def _default(area, entries, kind):
    first = None
    for info in entries.values():
        if info.device == kind:
            if info.default:
                return info.name
            first = first or info.name
    return first


def set_backend(area, name):
    """Make backend ``name`` the process-wide choice of ``area`` for the device kind it
    serves (the other kind keeps its choice). Threads inside a ``with backend(...)``
    block keep their override until it ends.

    Raises ``ValueError`` for an unknown area or backend and ``RuntimeError`` naming the
    pip package when the backend's library is not installed.

    Example:
        >>> import weft
        >>> weft.set_backend("fft", "pocketfft")
        >>> weft.get_backend("fft", "cpu")
        'pocketfft'
    """
    fn = f"weft.set_backend({area!r}, {name!r})"
    info = _info(fn, area, name)
    _check_installed(fn, info)
    _chosen[(area, info.device)] = name


class backend:
    """``with weft.backend(area, name):`` uses backend ``name`` for ``area`` on its device
    kind in the current thread only, until the block ends.

    Blocks nest; leaving one, by exception too, restores the choice that was active
    before it. Other threads are not affected. An unknown area or backend raises
    ``ValueError`` and a backend whose library is not installed raises
    ``RuntimeError`` naming the pip package, both when ``backend(...)`` is called.

    Example:
        >>> import weft
        >>> with weft.backend("fft", "pocketfft"):
        ...     weft.get_backend("fft", "cpu")
        'pocketfft'
    """

    def __init__(self, area, name):
        fn = f"weft.backend({area!r}, {name!r})"
        info = _info(fn, area, name)
        _check_installed(fn, info)
        self._key = (area, info.device)
        self._name = name

    # What an exit restores lives on the thread's own stack, not on the object, so
    # one object may be entered again while active, or from several threads.
    def __enter__(self):
        overrides = _overrides()
        _local.saved.append((self._key, overrides.get(self._key)))
        overrides[self._key] = self._name
        return self

    def __exit__(self, *exc):
        key, previous = _local.saved.pop()   # `with` blocks of one thread exit in LIFO order
        overrides = _overrides()
        if previous is None:
            overrides.pop(key, None)
        else:
            overrides[key] = previous
        return False

    def __repr__(self):
        return f"weft.backend({self._key[0]!r}, {self._name!r})"


def _overrides():
    try:
        return _local.overrides
    except AttributeError:
        _local.overrides = {}
        _local.saved = []
        return _local.overrides


def _active(fn, area, kind):
    entries = _entries(fn, area)
    overrides = getattr(_local, "overrides", None)
    name = overrides.get((area, kind)) if overrides else None
    if name is None:
        name = _chosen.get((area, kind)) or _default(area, entries, kind)
    if name is None:
        raise ValueError(f"{fn}: area {area!r} has no {kind} backend; its backends are "
                         f"{_describe(entries)}")
    return name


def get_backend(area, device=None):
    """The name of the backend ``area`` uses on ``device``.

    Args:
        area: ``"linalg"``, ``"fft"``, or another registered area.
        device: ``"cpu"``, ``"gpu"``, ``"gpu:N"``, a Place, or None for the current
            device (:func:`weft.get_device`).

    Example:
        >>> import weft
        >>> weft.get_backend("linalg", "cpu"), weft.get_backend("linalg", "gpu")
        ('lapack', 'cusolver')
    """
    fn = f"weft.get_backend({area!r})"
    return _active(fn, area, _kind(device, fn))


def resolve(area, device=None, *, caller=None):
    """The loaded object of the backend ``area`` uses on ``device`` (as in
    :func:`get_backend`), loading it on first use.

    ``caller`` names the function asking, for the error messages (default:
    ``weft.<area>``). Raises ``RuntimeError`` when the backend's package is missing or
    its loader fails; a failed load is not cached, so installing the package and
    calling again works.

    Example:
        >>> resolve("fft", "cpu").lib.__name__
        'scipy.fft'
    """
    fn = caller or f"weft.{area}"
    name = _active(fn, area, _kind(device, fn))
    obj = _loaded.get((area, name))
    if obj is not None:
        return obj
    with _lock:
        obj = _loaded.get((area, name))
        if obj is None:
            info = _areas.get(area, {}).get(name)
            if info is None:   # unregistered while a `with backend(...)` block named it
                _info(fn, area, name)
            _check_installed(fn, info)
            try:
                obj = info.load()
            except Exception as e:
                raise RuntimeError(f"{fn}: the {name} backend of {area} failed to load "
                                   f"({type(e).__name__}: {e})") from e
            if obj is None:
                raise RuntimeError(f"{fn}: the loader of the {name} backend of {area} "
                                   "returned None; it must return the backend object")
            _loaded[(area, name)] = obj
    return obj


def backends(area=None):
    """The registered backends of ``area`` (a list of :class:`BackendInfo`, in
    registration order), or the names of all areas when ``area`` is None.

    Example:
        >>> [b.name for b in backends("fft")]
        ['pocketfft', 'mkl', 'cufft']
    """
    if area is None:
        return list(_areas)
    return list(_entries("backends", area).values())


# ---------------------------------------------------------------------------------
# The built-in areas. The loaders import on first use only; what they return is
# described in the module docstring.

def _namespace(name, **modules):
    def load():
        return types.SimpleNamespace(
            name=name, **{k: importlib.import_module(m) for k, m in modules.items()})
    return load


def mkl_runtime():
    """Path of MKL's runtime library (libmkl_rt) from the ``mkl`` package, or None:
    the library the ``mkl`` backends of linalg (LAPACK) and fft (DFTI) load."""
    import importlib.metadata as md  # noqa: PLC0415
    try:
        files = md.files("mkl") or []
    except md.PackageNotFoundError:
        return None
    for f in files:
        if f.name.startswith(("libmkl_rt.so", "mkl_rt")) and not f.name.endswith(".lib"):
            return str(f.locate())
    return None


_BUILTIN = [
    # area, name, module, package, device, default, extra, {attribute: module to import}
    ("linalg", "lapack", "scipy.linalg", "scipy", "cpu", True, None,
     {"lib": "scipy.linalg", "lapack": "scipy.linalg.lapack"}),
    # The importable `mkl` module comes from mkl-service; the `mkl` wheel holds only
    # the shared libraries.
    ("linalg", "mkl", "mkl", "mkl-service", "cpu", False, "mkl", {"lib": "mkl"}),
    ("linalg", "cusolver", "cupy", "cupy-cuda12x", "gpu", True, "gpu",
     {"lib": "cupy.linalg", "xp": "cupy"}),
    ("fft", "pocketfft", "scipy.fft", "scipy", "cpu", True, None, {"lib": "scipy.fft"}),
    ("fft", "mkl", "mkl_fft", "mkl_fft", "cpu", False, "mkl", {"lib": "mkl_fft"}),
    ("fft", "cufft", "cupy", "cupy-cuda12x", "gpu", True, "gpu",
     {"lib": "cupy.fft", "xp": "cupy"}),
]

for _area, _name, _module, _package, _device, _default_, _extra, _mods in _BUILTIN:
    register_backend(_area, _name, module=_module, package=_package, device=_device,
                     load=_namespace(_name, **_mods), default=_default_, extra=_extra)
del _area, _name, _module, _package, _device, _default_, _extra, _mods
