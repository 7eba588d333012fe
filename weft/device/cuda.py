"""CUDA device queries under Paddle's module path ``paddle.device.cuda`` (through CuPy).

>>> import weft
>>> n = weft.device.cuda.device_count()   # 0 without a usable GPU
>>> n >= 0
True
"""
from ..core import place as _place


def device_count():
    """The number of CUDA devices (0 when CuPy or a device is missing)."""
    return _place.device_count()


def _device_id(device, op):
    if device is None:
        cur = _place.current_place()
        return cur.device_id if cur.is_gpu else 0
    if isinstance(device, int) and not isinstance(device, bool):
        p = _place.CUDAPlace(device) if device >= 0 else None
    else:
        p = _place.parse_place(device, "device")
    if p is None or not p.is_gpu:
        raise ValueError(f"{op}: device must be a GPU place, 'gpu:N' or a device index >= 0, "
                         f"got {device!r}")
    return p.device_id


def _cupy(device, op):
    cp = _place.cupy_or_raise(f"weft.device.cuda.{op}")
    i = _device_id(device, op)
    n = cp.cuda.runtime.getDeviceCount()
    if i >= n:
        raise ValueError(f"{op}: gpu:{i} requested but only {n} device(s) exist")
    return cp, i


def synchronize(device=None):
    """Wait until the work queued on the GPU ``device`` (default: current) is done."""
    cp, i = _cupy(device, "synchronize")
    with cp.cuda.Device(i):
        cp.cuda.Device(i).synchronize()


def empty_cache():
    """Return the unused blocks of CuPy's memory pools to the driver (no-op without CuPy)."""
    cp = _place._import_cupy()
    if cp:
        cp.get_default_memory_pool().free_all_blocks()
        cp.get_default_pinned_memory_pool().free_all_blocks()


def get_device_name(device=None):
    """The name of the GPU ``device`` (default: current)."""
    cp, i = _cupy(device, "get_device_name")
    name = cp.cuda.runtime.getDeviceProperties(i)["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def get_device_capability(device=None):
    """``(major, minor)`` compute capability of the GPU ``device`` (default: current)."""
    cp, i = _cupy(device, "get_device_capability")
    props = cp.cuda.runtime.getDeviceProperties(i)
    return int(props["major"]), int(props["minor"])


def memory_allocated(device=None):
    """Bytes held by live arrays in CuPy's default memory pool (all devices)."""
    cp, _ = _cupy(device, "memory_allocated")
    return int(cp.get_default_memory_pool().used_bytes())


__all__ = ["device_count", "synchronize", "empty_cache", "get_device_name",
           "get_device_capability", "memory_allocated"]
