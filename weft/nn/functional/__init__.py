"""Functional forms of layers and losses."""
from ...ops.pad import pad

__all__ = ["pad"]
