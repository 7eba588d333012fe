"""Elementwise math: the numpy ufuncs, each a primitive with its rule in one table
(``ufuncs``), and the elementwise functions beyond them (``functions``)."""
from . import ufuncs, functions
from .ufuncs import *  # noqa: F401,F403
from .functions import *  # noqa: F401,F403

__all__ = [*ufuncs.__all__, *functions.__all__]
__tensor_methods__ = {**ufuncs.__tensor_methods__, **functions.__tensor_methods__}
