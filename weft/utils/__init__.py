"""Utilities following ``paddle.utils``."""
from . import dlpack

__all__ = ["dlpack"]
