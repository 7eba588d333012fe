"""Paddle's ``incubate`` namespace: experimental and legacy APIs (``incubate.autograd``)."""
from . import autograd

__all__ = ["autograd"]
