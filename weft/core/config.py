"""``weft.show_config``: what this weft was built with and what it computes with."""
from __future__ import annotations

import importlib
import platform

from .._version import __version__
from . import backend as _registry
from .place import _import_cupy

__all__ = ["show_config"]

# _OPENMP holds the date (yyyymm) of the specification the compiler implements
_OPENMP_VERSIONS = {199810: "1.0", 200203: "2.0", 200505: "2.5", 200805: "3.0",
                    201107: "3.1", 201307: "4.0", 201511: "4.5", 201811: "5.0",
                    202011: "5.1", 202111: "5.2", 202411: "6.0"}
_CXX_STANDARDS = {199711: "C++98", 201103: "C++11", 201402: "C++14", 201703: "C++17",
                  202002: "C++20", 202302: "C++23"}


def show_config(file=None):
    """Print weft's version, how its native kernels were built, the numeric libraries
    under it (numpy, scipy and their BLAS/LAPACK, CuPy and its devices) and, for each
    backend area, the backends registered (installed or not) and the active one per
    device kind. Prints to ``file`` (default ``sys.stdout``); returns None.

    Nothing is changed: thread counts are read, never set, and CuPy is imported only
    when it is installed (any CUDA error is reported, not raised). The loaded BLAS
    libraries and their thread counts are listed when ``threadpoolctl`` is installed;
    otherwise the BLAS/LAPACK numpy and scipy were built against.

    Example:
        >>> import io, weft
        >>> out = io.StringIO()
        >>> weft.show_config(file=out)
        >>> out.getvalue().splitlines()[0] == f"weft {weft.__version__}"
        True
    """
    lines = []
    add = lines.append
    add(f"weft {__version__}")
    _native(add)
    add(f"Python {platform.python_version()} ({platform.python_implementation()}), "
        f"{platform.system()} {platform.machine()}")
    import numpy
    import scipy
    import scipy.linalg  # noqa: F401 - loads scipy's BLAS, so that threadpoolctl lists it
    add(f"numpy {numpy.__version__}")
    add(f"scipy {scipy.__version__}")
    _blas(add, numpy, scipy)
    _cupy(add)
    _backends(add)
    print("\n".join(lines), file=file)


def _native(add):
    from .._native import extension as _C  # noqa: PLC0415  (loads with weft, not core)
    add("native build (weft._C):")
    info = _C.build_info() if hasattr(_C, "build_info") else None
    threads = _C.get_num_threads()
    if info is None:   # an extension built before build_info existed
        add(f"  OpenMP:       {'yes' if _C.has_openmp() else 'no'}")
        add(f"  threads:      {threads} (weft.get_num_threads())")
        return
    version = info["compiler_version"]
    add(f"  compiler:     {info['compiler']}" + (f" {version}" if version else ""))
    std = info["cplusplus"]
    add(f"  C++ standard: {_CXX_STANDARDS.get(std, 'unknown')} (__cplusplus {std})")
    omp = info["openmp"]
    if omp is not None:   # an extension built on OpenMP (before weft's own pool)
        add(f"  OpenMP:       yes, {_OPENMP_VERSIONS.get(omp, 'unknown version')} (_OPENMP {omp})")
    elif info.get("thread_pool"):
        add(f"  OpenMP:       no, kernels run on {info['thread_pool']}'s own thread pool")
    else:
        add("  OpenMP:       no, kernels run serially")
    clones = info["simd_clones"]
    if clones:
        if info["cpu_avx2"] is None:
            taken = ""
        else:
            taken = f" (this CPU runs the {'avx2' if info['cpu_avx2'] else 'default'} one)"
        add(f"  SIMD clones:  {', '.join(clones)}{taken}")
    else:
        add("  SIMD clones:  none (one baseline build of each kernel)")
    add(f"  threads:      {threads} (weft.get_num_threads())")


def _blas(add, numpy, scipy):
    try:
        import threadpoolctl
    except ImportError:
        threadpoolctl = None
    if threadpoolctl is not None:
        try:
            libs = threadpoolctl.threadpool_info()
        except Exception as e:   # a library it cannot introspect
            add(f"BLAS/LAPACK: threadpoolctl failed ({type(e).__name__}: {e})")
            libs = None
        if libs is not None:
            add(f"loaded thread pools (threadpoolctl {threadpoolctl.__version__}):")
            for lib in libs:
                what = " ".join(str(lib[k]) for k in ("internal_api", "version") if lib.get(k))
                layer = lib.get("threading_layer")
                if layer and layer != "unknown":
                    what += f" ({layer})"
                add(f"  {lib.get('user_api', '?'):7} {what}, {lib.get('num_threads')} threads, "
                    f"{lib.get('filepath', '')}")
            if not libs:
                add("  none")
            return
    add("BLAS/LAPACK, as built (install threadpoolctl to list the loaded libraries "
        "and their threads):")
    for name, module in (("numpy", numpy), ("scipy", scipy)):
        try:
            deps = module.show_config(mode="dicts")["Build Dependencies"]
            parts = [" ".join([kind] + [str(deps[kind][f]) for f in ("name", "version")
                                        if deps[kind].get(f)])
                     for kind in ("blas", "lapack") if kind in deps]
            add(f"  {name}: {', '.join(parts) or 'not reported'}")
        except Exception as e:   # older releases print instead of returning a dict
            add(f"  {name}: not reported ({type(e).__name__}: {e})")


def _cupy(add):
    if not _registry._probe("cupy"):
        add("CuPy: not installed")
        return
    cp = _import_cupy()
    if not cp:
        try:
            importlib.import_module("cupy")
            why = "unknown error"
        except Exception as e:
            why = f"{type(e).__name__}: {e}"
        add(f"CuPy: installed but fails to import ({why})")
        return
    add(f"CuPy {cp.__version__}")
    try:
        rt = cp.cuda.runtime
        v = rt.runtimeGetVersion()
        add(f"  CUDA runtime {v // 1000}.{v % 1000 // 10}")
        n = rt.getDeviceCount()
        for i in range(n):
            props = rt.getDeviceProperties(i)
            name = props["name"]
            name = name.decode() if isinstance(name, bytes) else name
            add(f"  gpu:{i} {name}, {props['totalGlobalMem'] / 2**30:.1f} GiB")
        if n == 0:
            add("  no CUDA device")
    except Exception as e:   # no driver, or a runtime that does not match it
        add(f"  CUDA unavailable ({type(e).__name__}: {e})")


def _backends(add):
    add("backends (* active in this thread; set with weft.set_backend or weft.backend):")
    for area in _registry.backends():
        infos = _registry.backends(area)
        for j, kind in enumerate(k for k in _registry.KINDS if any(b.device == k for b in infos)):
            active = _registry.get_backend(area, kind)
            parts = []
            for b in infos:
                if b.device != kind:
                    continue
                mark = "*" if b.name == active else ""
                missing = "" if _registry._probe(b.module) else \
                    f" [not installed: {b.install_hint()}]"
                parts.append(f"{b.name}{mark}{missing}")
            add(f"  {area if j == 0 else '':8}{kind}: {', '.join(parts)}")
