"""Shape ops: views (reshape, transpose, squeeze, broadcasting), joining and splitting, and
rearranging (tile, repeat, flip, roll)."""
from . import views, join, rearrange
from .views import *  # noqa: F401,F403
from .join import *  # noqa: F401,F403
from .rearrange import *  # noqa: F401,F403

__all__ = [*views.__all__, *join.__all__, *rearrange.__all__]
__tensor_methods__ = {**views.__tensor_methods__, **join.__tensor_methods__, **rearrange.__tensor_methods__}
