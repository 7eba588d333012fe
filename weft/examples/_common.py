"""Pieces shared by the example scripts: argparse value types and a progress line.

The argument types raise ``argparse.ArgumentTypeError``, which argparse reports as
``argument --x: <message>`` with exit status 2.

>>> from weft.examples._common import positive_int
>>> positive_int("3")
3
"""
from __future__ import annotations

import argparse
import sys

import numpy as np


def _int_at_least(text, low, what):
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if v < low:
        raise argparse.ArgumentTypeError(f"expected {what}, got {v}")
    return v


def positive_int(text):
    return _int_at_least(text, 1, "a positive integer")


def nonnegative_int(text):
    return _int_at_least(text, 0, "an integer >= 0")


def finite_float(text):
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not np.isfinite(v):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return v


def positive_float(text):
    v = finite_float(text)
    if v <= 0:
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {v:g}")
    return v


def nonnegative_float(text):
    v = finite_float(text)
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {v:g}")
    return v


def probability(text):
    v = finite_float(text)
    if not 0 <= v < 1:
        raise argparse.ArgumentTypeError(f"expected a probability in [0, 1), got {v:g}")
    return v


class Progress:
    """A one-line text bar on stderr, redrawn only on a terminal; elsewhere a single
    summary line per bar (no escape codes in logs).

    ``update(i, status)`` shows step ``i`` of ``total`` (counted in ``unit``s) and a
    free-form status text; ``close(note)`` ends the line.
    """

    def __init__(self, title, total, unit="epoch", stream=None):
        self.title, self.total, self.unit = title, total, unit
        self.stream = sys.stderr if stream is None else stream
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.text = ""

    def update(self, i, status):
        width = 20
        filled = width * i // self.total
        self.text = (f"{self.title} [{'#' * filled}{'.' * (width - filled)}] "
                     f"{self.unit} {i}/{self.total}  {status}")
        if self.tty:
            self.stream.write("\r" + self.text + "\033[K")
            self.stream.flush()

    def close(self, note=""):
        line = self.text + (f"  {note}" if note else "")
        self.stream.write(("\r" + line + "\033[K\n") if self.tty else line + "\n")
        self.stream.flush()
