"""DLPack interchange (``paddle.utils.dlpack``)."""
from ..core.dlpack import from_dlpack, to_dlpack

__all__ = ["from_dlpack", "to_dlpack"]
