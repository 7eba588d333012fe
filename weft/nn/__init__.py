"""Neural-network building blocks (the minimal training stack of api-core.md)."""
from . import functional

__all__ = ["functional"]
