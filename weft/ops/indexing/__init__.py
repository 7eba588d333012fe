"""Indexing: ``Tensor.__getitem__``/``__setitem__``, reading by index (gathering), writing by
index (scattering), and the gather/scatter primitives the rest of weft shares."""
from . import gathering, getitem, scattering
from .getitem import *  # noqa: F401,F403
from .gathering import *  # noqa: F401,F403
from .scattering import *  # noqa: F401,F403

__all__ = [*getitem.__all__, *gathering.__all__, *scattering.__all__]
__tensor_methods__ = {**getitem.__tensor_methods__, **gathering.__tensor_methods__, **scattering.__tensor_methods__}
