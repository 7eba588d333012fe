"""The one door to Dask: ``dask.distributed`` is imported here, on first use, so
that weft (and the partitioning functions) never need it."""
from __future__ import annotations

EXTRA_HINT = ("weft.geometric.distributed needs Dask's distributed scheduler: install the "
              "extra with  pip install 'weft[distributed]'  (dask[distributed] >= 2024.1)")


def distributed():
    """The ``dask.distributed`` module, or ``ImportError`` naming the extra."""
    try:
        import dask.distributed as dd
    except ImportError as err:
        raise ImportError(f"{EXTRA_HINT}; importing it failed with: {err}") from err
    return dd
