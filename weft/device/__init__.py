"""Device selection under Paddle's module path ``paddle.device``.

weft runs on the CPU (numpy) and on NVIDIA GPUs through CuPy; the default place of
new tensors is chosen with :func:`set_device`. ``is_compiled_with_cuda`` is True
when CuPy is importable and sees a device (weft has no separate CUDA build).
Backends weft does not have (ROCm, XPU, IPU, CINN, custom devices) report False.

>>> import weft
>>> weft.device.get_device()
'cpu'
>>> weft.device.set_device("cpu")
Place(cpu)
>>> weft.device.is_compiled_with_rocm()
False
"""
from ..core.place import device_count, get_device, is_compiled_with_cuda, set_device
from . import cuda


def get_all_device_type():
    """The device types available: ``['cpu']``, plus ``'gpu'`` when CUDA is usable."""
    return ["cpu", "gpu"] if is_compiled_with_cuda() else ["cpu"]


def get_available_device():
    """Every device that ``set_device`` accepts: ``'cpu'`` and ``'gpu:N'`` for each GPU."""
    return ["cpu"] + [f"gpu:{i}" for i in range(device_count())]


def get_all_custom_device_type():
    """Custom (plug-in) device types: weft has none."""
    return []


def get_available_custom_device():
    """Custom (plug-in) devices: weft has none."""
    return []


def is_compiled_with_rocm():
    return False


def is_compiled_with_xpu():
    return False


def is_compiled_with_ipu():
    return False


def is_compiled_with_cinn():
    return False


def is_compiled_with_custom_device(device_type):
    if not isinstance(device_type, str):
        raise TypeError(f"is_compiled_with_custom_device: device_type must be a str, got "
                        f"{type(device_type).__name__}")
    return False


def synchronize(device=None):
    """Wait for the work queued on ``device`` (default: the current device); a no-op
    for the CPU, where weft's work is synchronous."""
    from ..core.place import parse_place  # noqa: PLC0415

    place = parse_place(device, "device")
    if place.is_gpu:
        cuda.synchronize(place)


__all__ = ["set_device", "get_device", "device_count", "get_all_device_type",
           "get_available_device", "get_all_custom_device_type", "get_available_custom_device",
           "is_compiled_with_cuda", "is_compiled_with_rocm", "is_compiled_with_xpu",
           "is_compiled_with_ipu", "is_compiled_with_cinn", "is_compiled_with_custom_device",
           "synchronize", "cuda"]
