"""Runnable example programs: ``python -m weft.examples.<name>``."""
