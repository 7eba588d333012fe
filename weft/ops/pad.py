"""Padding (``weft.nn.functional.pad``), differentiable in every mode.

Non-constant modes are separable: along each padded axis the output gathers input
positions through an index map (reflect, replicate or wrap around). Padding is
therefore a chain of ``take`` along axes, whose adjoint is a scatter-add along the
same axes; both directions are primitives, so derivatives of any order work.
"""
from __future__ import annotations

import numpy as np

from ..autograd.engine import Primitive, apply, deflinear, defvjp
from .primitives import take
from ..core.args import tensor_arg, xp_of

_MODES = ("constant", "reflect", "replicate", "circular")


_const_pad = Primitive("pad_constant", lambda x, widths, value:
                       np.pad(x, widths, mode="constant", constant_values=value))
defvjp(_const_pad, lambda g, ans, x, widths, value:
       g[tuple(slice(b, b + n) for (b, _), n in zip(widths, x.shape))],
       save=(), save_out=False)
deflinear(_const_pad, zero=("value",))   # forward mode: the pad value is a constant


def _index_map(n, before, after, mode):
    """Input position of each output position along one axis of size n."""
    pos = np.arange(-before, n + after)
    if mode == "replicate":
        return np.clip(pos, 0, n - 1)
    if mode == "circular":
        return pos % n
    # reflect without repeating the edge: period 2(n-1)
    period = 2 * (n - 1)
    if period == 0:
        return np.zeros_like(pos)
    p = pos % period
    return np.where(p < n, p, period - p)


def _widths(pad, ndim, data_format, pad_from_left_axis, mode):
    """Per-axis (before, after) pairs from Paddle's flat ``pad`` list."""
    if len(pad) % 2:
        raise ValueError(f"pad: pad must have an even number of entries, got {len(pad)}")
    widths = [(0, 0)] * ndim
    if len(pad) == 2 * ndim and mode == "constant":
        # the whole tensor: pairs go from the first axis (or the last, if asked)
        pairs = [(pad[2 * i], pad[2 * i + 1]) for i in range(ndim)]
        return pairs if pad_from_left_axis else pairs[::-1]
    spatial = ndim - 2
    if spatial < 1 or len(pad) > 2 * spatial:
        raise ValueError(f"pad: a {ndim}-D input takes {2 * ndim} pad entries (all axes"
                         f"{', constant mode' if mode != 'constant' else ''}) or at most "
                         f"{2 * max(spatial, 0)} (spatial axes), got {len(pad)}")
    last_channel = data_format.upper().endswith("C")
    axes = list(range(1, ndim - 1)) if last_channel else list(range(2, ndim))
    # like torch: pad[0:2] pads the last spatial axis, pad[2:4] the one before, ...
    for k in range(len(pad) // 2):
        widths[axes[-1 - k]] = (pad[2 * k], pad[2 * k + 1])
    return widths


def pad(x, pad, mode="constant", value=0.0, data_format="NCHW", pad_from_left_axis=True,
        name=None):
    """Pad ``x`` following ``paddle.nn.functional.pad``.

    ``pad``: a list of ints (or a 1-D Tensor). With ``2 * x.ndim`` entries and
    ``mode='constant'`` every axis is padded, pairs ``[before, after]`` from the first
    axis. Otherwise the pairs pad the spatial axes from the last one backwards
    (``[left, right, top, bottom, front, back]`` for NCDHW). ``mode``: 'constant'
    (fill with ``value``), 'reflect' (mirror without the edge), 'replicate' (repeat the
    edge) or 'circular' (wrap around).

    >>> import weft
    >>> x = weft.to_tensor([[[1.0, 2.0, 3.0]]])
    >>> weft.nn.functional.pad(x, [1, 2], mode='reflect').tolist()
    [[[2.0, 1.0, 2.0, 3.0, 2.0, 1.0]]]
    """
    x = tensor_arg(x, "x", "pad")
    if mode not in _MODES:
        raise ValueError(f"pad: mode must be one of {_MODES}, got {mode!r}")
    if hasattr(pad, "tolist"):
        pad = pad.tolist()
    if not isinstance(pad, (list, tuple)) or not all(
            isinstance(p, (int, np.integer)) and not isinstance(p, bool) for p in pad):
        raise TypeError(f"pad: pad must be a list of ints, got {pad!r}")
    if any(p < 0 for p in pad):
        raise ValueError(f"pad: negative padding is not supported, got {list(pad)}")
    widths = _widths([int(p) for p in pad], x.ndim, data_format, pad_from_left_axis, mode)
    if mode == "constant":
        return apply(_const_pad, x, widths=tuple(widths), value=value)
    out = x
    for axis, (before, after) in enumerate(widths):
        if before == 0 and after == 0:
            continue
        n = x.shape[axis]
        if n == 0:
            raise ValueError(f"pad: mode {mode!r} cannot pad axis {axis} of size 0")
        if mode == "reflect" and (before >= n or after >= n):
            raise ValueError(f"pad: reflect padding ({before}, {after}) must be smaller than "
                             f"the size {n} of axis {axis}")
        idx = _index_map(n, before, after, mode)
        if not isinstance(x._data, np.ndarray):
            idx = xp_of(x).asarray(idx)
        out = take(out, idx, axis)
    return out


__all__ = []  # public as weft.nn.functional.pad
__tensor_methods__ = {}
