"""OpInfo entries for the shape families: weft/ops/shape.py, weft/ops/cast.py,
weft/ops/shape_extra.py and weft/ops/_shape_join.py."""
import numpy as np

import weft
from tests.opinfo import ALL, COMPLEX, ErrorInput, OpInfo, SampleInput, make_arg

F32 = "float32"
# data movement does not depend on the width within a kind: one dtype per kind, plus
# float32 (the default) and float64/complex128 (gradient-checked)
MOVE = tuple(np.dtype(d) for d in ("bool", "int64", "float32", "float64", "complex128"))


def _copy(x):
    # in-place ops need a non-leaf target: a differentiable copy of the sample leaf
    return weft.cast(x, x.dtype)


# ---------------------------------------------------------------------------------
# references

def _paddle_shape(shape, in_shape):
    return [in_shape[i] if s == 0 and i < len(in_shape) else s for i, s in enumerate(shape)]


def _ref_reshape(x, shape):
    return x.reshape(_paddle_shape(shape, x.shape))


def _ref_unsqueeze(x, axis):
    for a in (axis if isinstance(axis, (list, tuple)) else [axis]):
        x = np.expand_dims(x, a if a >= 0 else a + x.ndim + 1)
    return x


def _ref_squeeze(x, axis=None):
    if axis is None:
        return np.squeeze(x)
    axes = [a % max(x.ndim, 1) for a in (axis if isinstance(axis, (list, tuple)) else [axis])]
    return np.squeeze(x, tuple(a for a in axes if x.ndim and x.shape[a] == 1))


def _ref_flatten(x, start_axis=0, stop_axis=-1):
    if x.ndim == 0:
        return x.reshape(1)
    s, e = start_axis % x.ndim, stop_axis % x.ndim
    return x.reshape(x.shape[:s] + (int(np.prod(x.shape[s:e + 1])),) + x.shape[e + 1:])


def _ref_t(x):
    return x.T if x.ndim == 2 else x


def _ref_tile(x, repeat_times):
    return np.tile(x, repeat_times)


def _ref_repeat_interleave(x, repeats, axis=None):
    if axis is None:
        return np.repeat(x.reshape(-1), repeats)
    return np.repeat(x, repeats, axis=axis)


def _ref_split(x, num_or_sections, axis=0):
    if isinstance(num_or_sections, int):
        return np.split(x, num_or_sections, axis=axis)
    sizes = list(num_or_sections)
    if -1 in sizes:
        sizes[sizes.index(-1)] = x.shape[axis] - (sum(sizes) + 1)
    return np.split(x, np.cumsum(sizes)[:-1], axis=axis)


def _ref_unbind(x, axis=0, num=None):
    return [np.take(x, i, axis=axis) for i in range(x.shape[axis])]


def _ref_slice(x, axes, starts, ends):
    idx = [slice(None)] * x.ndim
    for a, s, e in zip(axes, starts, ends):
        idx[a] = slice(s, e)  # Python slicing clamps the same way for these samples
    return x[tuple(idx)]


def _ref_strided_slice(x, axes, starts, ends, strides):
    idx = [slice(None)] * x.ndim
    for a, s, e, st in zip(axes, starts, ends, strides):
        idx[a] = slice(s, None if (e == -1 and st < 0) else e, st)
    return x[tuple(idx)]


def _ref_crop(x, shape=None, offsets=None):
    shape = x.shape if shape is None else shape
    offsets = [0] * x.ndim if offsets is None else offsets
    return x[tuple(slice(o, x.shape[i] if s == -1 else o + s)
                   for i, (o, s) in enumerate(zip(offsets, shape)))]


def _ref_as_complex(x):
    return x[..., 0] + 1j * x[..., 1]


def _ref_as_real(x):
    return np.stack([x.real, x.imag], axis=-1)


# ---------------------------------------------------------------------------------
# samples

def _arg(shape, dtype, rng, **kw):
    # np.asarray: make_arg gives a numpy scalar, not an array, for shape ()
    return np.asarray(make_arg(shape, dtype, rng, **kw))


def _reshape_samples(dtype, rng):
    yield SampleInput(_arg((2, 3, 4), dtype, rng), [6, 4], name="merge")
    yield SampleInput(_arg((2, 3, 4), dtype, rng), [4, -1], name="-1")
    yield SampleInput(_arg((2, 3, 4), dtype, rng), [0, 12], name="0 copies")
    yield SampleInput(_arg((), dtype, rng), [1, 1], name="0-D")
    yield SampleInput(_arg((1,), dtype, rng), [], name="to 0-D")
    yield SampleInput(_arg((0, 3), dtype, rng), [3, -1], name="empty")
    yield SampleInput(_arg((2, 3), dtype, rng, noncontig=True), [3, 2], name="noncontig")


def _broadcast_samples(dtype, rng):
    yield SampleInput(_arg((3, 1), dtype, rng), [2, 3, 4], name="broadcast")
    yield SampleInput(_arg((4,), dtype, rng), [3, -1], name="-1 keeps")
    yield SampleInput(_arg((), dtype, rng), [2, 2], name="0-D")
    yield SampleInput(_arg((1, 3), dtype, rng), [0, 3], name="empty")
    yield SampleInput(_arg((2, 3), dtype, rng), [2, 3], name="same")
    yield SampleInput(_arg((1, 3), dtype, rng, noncontig=True), [2, 3], name="noncontig")


def _ref_broadcast(x, shape):
    lead = len(shape) - x.ndim
    shape = [x.shape[i - lead] if s == -1 and i >= lead else s for i, s in enumerate(shape)]
    return np.broadcast_to(x, shape)


def _transpose_samples(dtype, rng):
    yield SampleInput(_arg((2, 3, 4), dtype, rng), [2, 0, 1], name="3-D")
    yield SampleInput(_arg((2, 3), dtype, rng), [-1, 0], name="negative")
    yield SampleInput(_arg((), dtype, rng), [], name="0-D")
    yield SampleInput(_arg((0, 3), dtype, rng), [1, 0], name="empty")
    yield SampleInput(_arg((2, 3), dtype, rng, noncontig=True), [1, 0], name="noncontig")


def _unsqueeze_samples(dtype, rng):
    yield SampleInput(_arg((2, 3), dtype, rng), 1, name="int")
    yield SampleInput(_arg((2, 3), dtype, rng), [0, -1], name="list")
    yield SampleInput(_arg((), dtype, rng), 0, name="0-D")
    yield SampleInput(_arg((0,), dtype, rng), 0, name="empty")
    yield SampleInput(_arg((2, 3), dtype, rng, noncontig=True), -1, name="noncontig")


def _squeeze_samples(dtype, rng):
    yield SampleInput(_arg((1, 3, 1), dtype, rng), name="all")
    yield SampleInput(_arg((1, 3, 1), dtype, rng), axis=-1, name="one axis")
    yield SampleInput(_arg((1, 3, 1), dtype, rng), axis=[0, 1], name="non-unit ignored")
    yield SampleInput(_arg((), dtype, rng), name="0-D")
    yield SampleInput(_arg((2, 1, 3), dtype, rng, noncontig=True), axis=1, name="noncontig")


def _squeeze_empty_samples(dtype, rng):
    yield from _squeeze_samples(dtype, rng)
    yield SampleInput(_arg((1, 0), dtype, rng), axis=0, name="empty")


def _cast_samples(dtype, rng):
    # float64/complex128 samples are gradient-checked: no lossy targets for them
    targets = {"bool": ["int32", "float32"], "int32": ["int64", "float64", "bool"],
               "int64": ["int32", "float32", "bool"],
               "float32": ["float64", "complex64", "int32", "float16"],
               "float64": ["float64", "complex128"],
               "complex64": ["complex128", "complex64"],
               "complex128": ["complex128"]}[np.dtype(dtype).name]
    for tgt in targets:
        yield SampleInput(_arg((2, 3), dtype, rng), tgt, name=f"to {tgt}")
    yield SampleInput(_arg((), dtype, rng), targets[0], name="0-D")
    yield SampleInput(_arg((0, 2), dtype, rng), targets[0], name="empty")
    yield SampleInput(_arg((2, 3), dtype, rng, noncontig=True), targets[0], name="noncontig")


def _flatten_samples(dtype, rng):
    yield SampleInput(_arg((2, 3, 4), dtype, rng), name="all")
    yield SampleInput(_arg((2, 3, 4), dtype, rng), start_axis=1, name="tail")
    yield SampleInput(_arg((2, 3, 4, 2), dtype, rng), start_axis=1, stop_axis=-2, name="middle")
    yield SampleInput(_arg((2, 3), dtype, rng), start_axis=1, stop_axis=1, name="one axis")
    yield SampleInput(_arg((), dtype, rng), name="0-D")
    yield SampleInput(_arg((2, 0, 3), dtype, rng), start_axis=1, name="empty")
    yield SampleInput(_arg((2, 3), dtype, rng, noncontig=True), name="noncontig")


def _view_samples(dtype, rng):
    yield SampleInput(_arg((2, 3), dtype, rng), [3, 2], name="shape")
    yield SampleInput(_arg((2, 3), dtype, rng), [-1], name="-1")
    yield SampleInput(_arg((), dtype, rng), [1], name="0-D")


def _moveaxis_samples(dtype, rng):
    yield SampleInput(_arg((2, 3, 4), dtype, rng), 0, -1, name="int")
    yield SampleInput(_arg((2, 3, 4), dtype, rng), [0, 1], [2, 0], name="lists")
    yield SampleInput(_arg((), dtype, rng), [], [], name="0-D")
    yield SampleInput(_arg((0, 3), dtype, rng), 0, 1, name="empty")
    yield SampleInput(_arg((2, 3), dtype, rng, noncontig=True), 1, 0, name="noncontig")


def _swapaxes_samples(dtype, rng):
    yield SampleInput(_arg((2, 3, 4), dtype, rng), 0, 2, name="3-D")
    yield SampleInput(_arg((2, 3), dtype, rng), -1, -1, name="same axis")
    yield SampleInput(_arg((0, 3), dtype, rng), 0, 1, name="empty")
    yield SampleInput(_arg((2, 3), dtype, rng, noncontig=True), 1, 0, name="noncontig")


def _t_samples(dtype, rng):
    yield SampleInput(_arg((2, 3), dtype, rng), name="2-D")
    yield SampleInput(_arg((3,), dtype, rng), name="1-D")
    yield SampleInput(_arg((), dtype, rng), name="0-D")
    yield SampleInput(_arg((0, 3), dtype, rng), name="empty")
    yield SampleInput(_arg((2, 3), dtype, rng, noncontig=True), name="noncontig")


def _expand_as_samples(dtype, rng):
    yield SampleInput(_arg((3, 1), dtype, rng), _arg((2, 3, 4), dtype, rng), grad_args=(0,),
                      name="broadcast")
    yield SampleInput(_arg((), dtype, rng), _arg((2,), dtype, rng), grad_args=(0,), name="0-D")
    yield SampleInput(_arg((1,), dtype, rng), _arg((0,), dtype, rng), grad_args=(0,),
                      name="empty")


def _broadcast_tensors_samples(dtype, rng):
    yield SampleInput([_arg((3, 1), dtype, rng), _arg((4,), dtype, rng),
                       _arg((), dtype, rng)], name="three")
    yield SampleInput([_arg((2, 3), dtype, rng, noncontig=True)], name="one")
    yield SampleInput([_arg((0, 1), dtype, rng), _arg((3,), dtype, rng)], name="empty")


def _tile_samples(dtype, rng):
    yield SampleInput(_arg((2, 3), dtype, rng), [2, 1], name="same rank")
    yield SampleInput(_arg((2, 3), dtype, rng), [2, 1, 3], name="longer reps")
    yield SampleInput(_arg((2, 3), dtype, rng), [2], name="shorter reps")
    yield SampleInput(_arg((), dtype, rng), [3], name="0-D")
    yield SampleInput(_arg((2,), dtype, rng), [0], name="zero reps")
    yield SampleInput(_arg((0, 2), dtype, rng), [2, 2], name="empty")
    yield SampleInput(_arg((2, 3), dtype, rng, noncontig=True), (2, 2), name="noncontig")


def _repeat_samples(dtype, rng):
    yield SampleInput(_arg((2, 3), dtype, rng), 2, name="int flat")
    yield SampleInput(_arg((2, 3), dtype, rng), 2, axis=1, name="int axis")
    yield SampleInput(_arg((2, 3), dtype, rng), np.array([1, 0, 3]), axis=-1, name="tensor")
    yield SampleInput(_arg((3, 2), dtype, rng), np.array([2, 1, 2]), axis=0, name="tensor axis0")
    yield SampleInput(_arg((3, 2), dtype, rng), np.array([2]), axis=0, name="one count")
    yield SampleInput(_arg((), dtype, rng), 3, name="0-D")
    yield SampleInput(_arg((0, 2), dtype, rng), np.array([1, 2]), axis=1, name="empty")
    yield SampleInput(_arg((2, 3), dtype, rng, noncontig=True), np.array([0, 0, 2]), axis=1,
                      name="noncontig")


def _flip_samples(dtype, rng):
    yield SampleInput(_arg((2, 3), dtype, rng), 0, name="int")
    yield SampleInput(_arg((2, 3, 4), dtype, rng), [0, -1], name="list")
    yield SampleInput(_arg((), dtype, rng), [], name="0-D")
    yield SampleInput(_arg((0, 3), dtype, rng), 1, name="empty")
    yield SampleInput(_arg((2, 3), dtype, rng, noncontig=True), [1], name="noncontig")


def _ref_flip(x, axis):
    return np.flip(x, axis) if x.ndim else x


def _rot90_samples(dtype, rng):
    yield SampleInput(_arg((2, 3), dtype, rng), name="default")
    yield SampleInput(_arg((2, 3, 4), dtype, rng), 2, [1, 2], name="k=2")
    yield SampleInput(_arg((2, 3, 4), dtype, rng), -1, [2, 0], name="k=-1")
    yield SampleInput(_arg((2, 3), dtype, rng), 7, [-1, 0], name="k=7")
    yield SampleInput(_arg((0, 3), dtype, rng), 1, name="empty")
    yield SampleInput(_arg((2, 3), dtype, rng, noncontig=True), 3, name="noncontig")


def _ref_rot90(x, k=1, axes=(0, 1)):
    return np.rot90(x, k, axes)


def _roll_samples(dtype, rng):
    yield SampleInput(_arg((2, 3), dtype, rng), 2, name="flat")
    yield SampleInput(_arg((2, 3), dtype, rng), [1, -1], axis=[0, 1], name="two axes")
    yield SampleInput(_arg((2, 3), dtype, rng), 4, axis=-1, name="past the size")
    yield SampleInput(_arg((), dtype, rng), 1, name="0-D")
    yield SampleInput(_arg((0, 3), dtype, rng), 1, axis=1, name="empty")
    yield SampleInput(_arg((2, 3), dtype, rng, noncontig=True), -1, axis=0, name="noncontig")


def _ref_roll(x, shifts, axis=None):
    return np.roll(x, shifts, axis)


def _concat_samples(dtype, rng):
    yield SampleInput([_arg((2, 3), dtype, rng), _arg((1, 3), dtype, rng),
                       _arg((3, 3), dtype, rng)], name="axis 0")
    yield SampleInput([_arg((2, 1), dtype, rng), _arg((2, 3), dtype, rng)], axis=-1,
                      name="axis -1")
    yield SampleInput([_arg((2, 3), dtype, rng)], axis=1, name="one")
    yield SampleInput([_arg((0, 3), dtype, rng), _arg((2, 3), dtype, rng)], name="empty")
    yield SampleInput([_arg((2, 3), dtype, rng, noncontig=True), _arg((2, 2), dtype, rng)],
                      axis=1, name="noncontig")


def _stack_samples(dtype, rng):
    yield SampleInput([_arg((2, 3), dtype, rng), _arg((2, 3), dtype, rng)], name="axis 0")
    yield SampleInput([_arg((2, 3), dtype, rng) for _ in range(3)], axis=-1, name="axis -1")
    yield SampleInput([_arg((), dtype, rng), _arg((), dtype, rng)], name="0-D")
    yield SampleInput([_arg((0, 3), dtype, rng), _arg((0, 3), dtype, rng)], axis=1,
                      name="empty")
    yield SampleInput([_arg((2, 3), dtype, rng, noncontig=True)], axis=2, name="noncontig")


def _hv_samples(dtype, rng):
    yield SampleInput([_arg((3,), dtype, rng), _arg((2,), dtype, rng)], name="1-D")
    yield SampleInput([_arg((2, 3), dtype, rng), _arg((2, 3), dtype, rng)], name="2-D")
    yield SampleInput([_arg((), dtype, rng), _arg((), dtype, rng)], name="0-D")
    yield SampleInput([_arg((2, 2, 1), dtype, rng, noncontig=True),
                       _arg((2, 2, 1), dtype, rng)], name="3-D noncontig")


def _vstack_samples(dtype, rng):
    yield SampleInput([_arg((3,), dtype, rng), _arg((3,), dtype, rng)], name="1-D")
    yield SampleInput([_arg((2, 3), dtype, rng), _arg((1, 3), dtype, rng)], name="2-D")
    yield SampleInput([_arg((), dtype, rng), _arg((1, 1), dtype, rng)], name="0-D")
    yield SampleInput([_arg((0, 2), dtype, rng), _arg((2,), dtype, rng, noncontig=True)],
                      name="empty noncontig")


def _dstack_samples(dtype, rng):
    yield SampleInput([_arg((3,), dtype, rng), _arg((3,), dtype, rng)], name="1-D")
    yield SampleInput([_arg((2, 3), dtype, rng), _arg((2, 3), dtype, rng)], name="2-D")
    yield SampleInput([_arg((), dtype, rng), _arg((1, 1, 2), dtype, rng)], name="0-D")
    yield SampleInput([_arg((2, 2, 1), dtype, rng, noncontig=True),
                       _arg((2, 2, 3), dtype, rng)], name="3-D noncontig")


def _column_stack_samples(dtype, rng):
    yield SampleInput([_arg((3,), dtype, rng), _arg((3, 2), dtype, rng)], name="1-D + 2-D")
    yield SampleInput([_arg((), dtype, rng), _arg((), dtype, rng)], name="0-D")
    yield SampleInput([_arg((0,), dtype, rng), _arg((0,), dtype, rng, noncontig=True)],
                      name="empty")


def _split_samples(dtype, rng):
    yield SampleInput(_arg((6, 2), dtype, rng), 3, name="int")
    yield SampleInput(_arg((2, 5), dtype, rng), [2, -1, 1], axis=1, name="sections -1")
    yield SampleInput(_arg((2, 5), dtype, rng), [0, 5], axis=-1, name="empty section")
    yield SampleInput(_arg((4,), dtype, rng), 1, name="one")
    yield SampleInput(_arg((0, 4), dtype, rng), 2, axis=1, name="empty")
    yield SampleInput(_arg((2, 4), dtype, rng, noncontig=True), [1, 3], axis=1,
                      name="noncontig")


def _chunk_samples(dtype, rng):
    yield SampleInput(_arg((6, 2), dtype, rng), 3, name="axis 0")
    yield SampleInput(_arg((2, 4), dtype, rng, noncontig=True), 2, axis=-1, name="noncontig")


def _tensor_split_samples(dtype, rng):
    yield SampleInput(_arg((5, 2), dtype, rng), 3, name="uneven")
    yield SampleInput(_arg((2, 6), dtype, rng), [1, 4], axis=1, name="indices")
    yield SampleInput(_arg((7,), dtype, rng), [-2, 9], name="negative and past end")
    yield SampleInput(_arg((6,), dtype, rng), [4, 2], name="decreasing")
    yield SampleInput(_arg((2, 4), dtype, rng, noncontig=True), 2, axis=-1, name="noncontig")


def _hsplit_samples(dtype, rng):
    yield SampleInput(_arg((2, 4), dtype, rng), 2, name="2-D")
    yield SampleInput(_arg((5,), dtype, rng), [2], name="1-D")


def _vsplit_samples(dtype, rng):
    yield SampleInput(_arg((4, 2), dtype, rng), 2, name="2-D")
    yield SampleInput(_arg((3, 2, 2), dtype, rng), [1], name="3-D")


def _dsplit_samples(dtype, rng):
    yield SampleInput(_arg((1, 2, 4), dtype, rng), 2, name="3-D")
    yield SampleInput(_arg((2, 1, 3), dtype, rng), [1, 2], name="indices")


def _unbind_samples(dtype, rng):
    yield SampleInput(_arg((3, 2), dtype, rng), name="axis 0")
    yield SampleInput(_arg((2, 3, 2), dtype, rng), axis=-2, name="axis -2")
    yield SampleInput(_arg((1, 3), dtype, rng), name="one")
    yield SampleInput(_arg((2, 0), dtype, rng), axis=1, name="empty axis")
    yield SampleInput(_arg((2, 3), dtype, rng, noncontig=True), axis=1, name="noncontig")


def _unstack_samples(dtype, rng):
    yield SampleInput(_arg((3, 2), dtype, rng), name="default")
    yield SampleInput(_arg((2, 3), dtype, rng, noncontig=True), axis=1, num=3, name="num")


def _slice_samples(dtype, rng):
    yield SampleInput(_arg((4, 5, 6), dtype, rng), [0, 1, 2], [-3, 0, 2], [3, 2, 4],
                      name="basic")
    yield SampleInput(_arg((2, 4), dtype, rng), [0, 1], [0, 1], [-1, 1000], name="clamped")
    yield SampleInput(_arg((3, 4), dtype, rng), [-1], [-100], [2], name="negative clamp")
    yield SampleInput(_arg((3, 4), dtype, rng), [1], [2], [2], name="empty result")
    yield SampleInput(_arg((0, 4), dtype, rng), [0], [1], [3], name="empty")
    yield SampleInput(_arg((3, 4), dtype, rng, noncontig=True), [1], [1], [-1], name="noncontig")


def _strided_slice_samples(dtype, rng):
    yield SampleInput(_arg((6, 4), dtype, rng), [0, 1], [1, 0], [6, 4], [2, 3], name="steps")
    yield SampleInput(_arg((6,), dtype, rng), [0], [5], [-1], [-2], name="negative to 0")
    yield SampleInput(_arg((6,), dtype, rng), [0], [-1], [1], [-1], name="negative")
    yield SampleInput(_arg((3, 6), dtype, rng), [1], [10], [2], [-3], name="start past end")
    yield SampleInput(_arg((3, 6), dtype, rng), [-1], [-100], [100], [4], name="clamped")
    yield SampleInput(_arg((0, 3), dtype, rng), [1], [0], [3], [2], name="empty")
    yield SampleInput(_arg((3, 4), dtype, rng, noncontig=True), [0, 1], [2, 3], [-1, -1],
                      [-1, -2], name="noncontig")


def _crop_samples(dtype, rng):
    yield SampleInput(_arg((3, 4), dtype, rng), shape=[2, 2], offsets=[1, 1], name="box")
    yield SampleInput(_arg((3, 4), dtype, rng), shape=[-1, 2], offsets=[1, 2], name="-1")
    yield SampleInput(_arg((3, 4), dtype, rng), name="defaults")
    yield SampleInput(_arg((2, 3, 4), dtype, rng), shape=[1, 3, 0], name="zero size")
    yield SampleInput(_arg((), dtype, rng), shape=[], name="0-D")
    yield SampleInput(_arg((3, 4), dtype, rng, noncontig=True), shape=[2, 3], offsets=[0, 1],
                      name="noncontig")


def _as_complex_samples(dtype, rng):
    yield SampleInput(_arg((3, 2), dtype, rng), name="1-D result")
    yield SampleInput(_arg((2, 3, 2), dtype, rng), name="2-D result")
    yield SampleInput(_arg((2,), dtype, rng), name="0-D result")
    yield SampleInput(_arg((0, 2), dtype, rng), name="empty")
    yield SampleInput(_arg((3, 2), dtype, rng, noncontig=True), name="noncontig")


def _as_real_samples(dtype, rng):
    yield SampleInput(_arg((3,), dtype, rng), name="1-D")
    yield SampleInput(_arg((2, 3), dtype, rng), name="2-D")
    yield SampleInput(_arg((), dtype, rng), name="0-D")
    yield SampleInput(_arg((0,), dtype, rng), name="empty")
    yield SampleInput(_arg((2, 3), dtype, rng, noncontig=True), name="noncontig")


# ---------------------------------------------------------------------------------
# bad inputs

def _errors(*cases):
    """cases: (input, args, kwargs, exc, regex); input arrays are float32."""
    def gen(rng):
        for inp, args, kwargs, exc, match in cases:
            yield ErrorInput(SampleInput(inp, *args, **kwargs), exc, match)
    return gen


def _z(*shape):
    return np.zeros(shape, F32)


_ERR = {
    "reshape": _errors((_z(2, 3), ([4, 2],), {}, ValueError, "reshape"),
                       (_z(2, 3), ([-1, -1],), {}, ValueError, "-1")),
    "broadcast_to": _errors((_z(2, 3), ([4, 3],), {}, ValueError, "broadcast")),
    "transpose": _errors((_z(2, 3), ([0, 0],), {}, ValueError, "perm")),
    "unsqueeze": _errors((_z(2, 3), (4,), {}, ValueError, "out of range")),
    "squeeze": _errors((_z(2, 3), (), {"axis": 5}, ValueError, "out of range")),
    "cast": _errors((_z(2), ("float128x",), {}, TypeError, "expected one of")),
    "flatten": _errors((_z(2, 3, 4), (), {"start_axis": 2, "stop_axis": 1}, ValueError,
                        "start_axis"),
                       (_z(2, 3), (), {"start_axis": 3}, ValueError, "out of range")),
    "moveaxis": _errors((_z(2, 3), ([0, 1], [1]), {}, ValueError, "destination"),
                        (_z(2, 3), ([0, 0], [0, 1]), {}, ValueError, "repeated")),
    "swapaxes": _errors((_z(2, 3), (0, 2), {}, ValueError, "axis1 2 is out of range")),
    "t": _errors((_z(2, 3, 4), (), {}, ValueError, "at most 2")),
    "expand_as": _errors((_z(2, 3), (_z(4, 3),), {}, ValueError, "broadcast")),
    "broadcast_tensors": _errors(([_z(2, 3), _z(4)], (), {}, ValueError,
                                  r"input\[1\] of shape \[4\]"),
                                 ([], (), {}, ValueError, "empty")),
    "tile": _errors((_z(2), ([-1],), {}, ValueError, "negative"),
                    (_z(2), ("ab",), {}, TypeError, "repeat_times")),
    "repeat_interleave": _errors(
        (_z(2, 3), (np.array([1, 2]),), {"axis": 1}, ValueError, "3"),
        (_z(3), (np.array([1.0, 2.0, 1.0]),), {}, TypeError, "integer"),
        (_z(3), (-1,), {}, ValueError, "non-negative")),
    "flip": _errors((_z(2, 3), (2,), {}, ValueError, "out of range"),
                    (_z(2, 3), ([0, 0],), {}, ValueError, "repeated")),
    "rot90": _errors((_z(3), (), {}, ValueError, "at least 2"),
                     (_z(2, 3), (1, [0, 0]), {}, ValueError, "different"),
                     (_z(2, 3), (1, [0, 1, 2]), {}, ValueError, "exactly 2"),
                     (_z(2, 3), (1.5,), {}, TypeError, "k must be an int")),
    "roll": _errors((_z(2, 3), ([1, 2],), {"axis": [0]}, ValueError, "shifts"),
                    (_z(2, 3), ([1, 2],), {}, ValueError, "axis=None")),
    "concat": _errors(([_z(2, 3), _z(2, 4)], (), {}, ValueError,
                       r"x\[1\] has shape \[2, 4\] but x\[0\] has shape \[2, 3\]"),
                      ([_z(2, 3), _z(3)], (), {}, ValueError, r"x\[1\] has 1 dimension"),
                      ([], (), {}, ValueError, "empty"),
                      ([_z(), _z()], (), {}, ValueError, "0-D"),
                      ([_z(2)], (), {"axis": 1}, ValueError, "out of range"),
                      (_z(2), (), {}, TypeError, "list")),
    "stack": _errors(([_z(2, 3), _z(3, 2)], (), {}, ValueError, r"x\[1\] has shape \[3, 2\]"),
                     ([], (), {}, ValueError, "empty"),
                     ([_z(2)], (), {"axis": 2}, ValueError, "out of range")),
    "split": _errors((_z(5), (2,), {}, ValueError, "equal"),
                     (_z(5), ([2, 2],), {}, ValueError, "sum to 4"),
                     (_z(5), ([-1, -1],), {}, ValueError, "at most one"),
                     (_z(5), ([4, -1, 3],), {}, ValueError, "at least 7"),
                     (_z(5), (0,), {}, ValueError, "positive"),
                     (_z(5), (1,), {"axis": 1}, ValueError, "out of range")),
    "chunk": _errors((_z(5), (2,), {}, ValueError, "equal")),
    "tensor_split": _errors((_z(5), (0,), {}, ValueError, "positive"),
                            (_z(), (1,), {}, ValueError, "0-D")),
    "unbind": _errors((_z(), (), {}, ValueError, "0-D"),
                      (_z(2), (), {"axis": 1}, ValueError, "out of range")),
    "unstack": _errors((_z(2, 3), (), {"num": 3}, ValueError, "num")),
    "slice": _errors((_z(3, 4), ([0], [2], [1]), {}, ValueError, "before the start"),
                     (_z(3, 4), ([0, 1], [0], [1]), {}, ValueError, "starts has 1"),
                     (_z(3, 4), ([2], [0], [1]), {}, ValueError, "out of range"),
                     (_z(3, 4), (0, [0], [1]), {}, TypeError, "axes")),
    "strided_slice": _errors((_z(5), ([0], [0], [3], [0]), {}, ValueError, "0"),
                             (_z(5), ([0], [3], [1], [1]), {}, ValueError, "after the end"),
                             (_z(5), ([0], [1], [3], [-1]), {}, ValueError, "before the end")),
    "crop": _errors((_z(3, 4), (), {"shape": [2, 2], "offsets": [2, 0]}, ValueError, "exceeds"),
                    (_z(3, 4), (), {"shape": [2]}, ValueError, "shape has 1"),
                    (_z(3, 4), (), {"offsets": [-1, 0]}, ValueError, "negative")),
    "as_complex": _errors((_z(3, 3), (), {}, ValueError, "size 2"),
                          (np.zeros((3, 2), np.int32), (), {}, TypeError, "float32")),
    "as_real": _errors((_z(3), (), {}, TypeError, "complex")),
    "view": _errors((_z(2, 3), ([4, 2],), {}, ValueError, "reshape"),
                    (_z(3), ("float64",), {}, ValueError, "view")),
}


def _op(name, op, ref, samples, dtypes=MOVE, method=None, **kw):
    return OpInfo(name, op, ref, samples, dtypes=dtypes, method=method,
                  error_inputs=_ERR.get(name), **kw)


def _m(name, ref, samples, **kw):
    """An op that is also a Tensor method of the same name."""
    return _op(name, getattr(weft, name), ref, samples, method=name, **kw)


def _inplace(name, ref, samples, **kw):
    fn = getattr(weft, name)
    return _op(name, lambda x, *a, **k: fn(_copy(x), *a, **k), ref, samples, **kw)


OPS = [
    # weft/ops/shape.py and weft/ops/cast.py
    _m("reshape", _ref_reshape, _reshape_samples),
    _m("broadcast_to", _ref_broadcast, _broadcast_samples),
    _m("expand", _ref_broadcast, _broadcast_samples),
    _m("transpose", np.transpose, _transpose_samples),
    _m("unsqueeze", _ref_unsqueeze, _unsqueeze_samples),
    _m("squeeze", _ref_squeeze, _squeeze_empty_samples),
    _m("cast", lambda x, d: x.astype(d), _cast_samples, dtypes=ALL),
    # weft/ops/shape_extra.py
    _inplace("reshape_", _ref_reshape, _reshape_samples),
    _inplace("squeeze_", _ref_squeeze, _squeeze_empty_samples),
    _inplace("unsqueeze_", _ref_unsqueeze, _unsqueeze_samples),
    _inplace("flatten_", _ref_flatten, _flatten_samples),
    _m("view", lambda x, s: x.reshape(s), _view_samples),
    _m("view_as", lambda x, o: x.reshape(o.shape),
       lambda dtype, rng: [SampleInput(_arg((2, 3), dtype, rng), _arg((3, 2), dtype, rng),
                                       grad_args=(0,))]),
    _m("flatten", _ref_flatten, _flatten_samples),
    _m("moveaxis", np.moveaxis, _moveaxis_samples),
    _m("swapaxes", np.swapaxes, _swapaxes_samples),
    _m("t", _ref_t, _t_samples),
    _m("expand_as", lambda x, y: np.broadcast_to(x, y.shape), _expand_as_samples),
    _op("broadcast_tensors", weft.broadcast_tensors, lambda xs: list(np.broadcast_arrays(*xs)),
        _broadcast_tensors_samples),
    _m("tile", _ref_tile, _tile_samples),
    _m("repeat_interleave", _ref_repeat_interleave, _repeat_samples),
    _m("flip", _ref_flip, _flip_samples),
    _m("rot90", _ref_rot90, _rot90_samples),
    _m("roll", _ref_roll, _roll_samples),
    _op("as_complex", weft.as_complex, _ref_as_complex, _as_complex_samples,
        dtypes=(np.dtype("float32"), np.dtype("float64")), method="as_complex"),
    _op("as_real", weft.as_real, _ref_as_real, _as_real_samples, dtypes=COMPLEX,
        method="as_real"),
    # weft/ops/_shape_join.py
    _op("concat", weft.concat, lambda xs, axis=0: np.concatenate(xs, axis), _concat_samples),
    _op("stack", weft.stack, lambda xs, axis=0: np.stack(xs, axis), _stack_samples),
    _op("hstack", weft.hstack, np.hstack, _hv_samples),
    _op("vstack", weft.vstack, np.vstack, _vstack_samples),
    _op("row_stack", weft.row_stack, np.vstack, _vstack_samples),
    _op("dstack", weft.dstack, np.dstack, _dstack_samples),
    _op("column_stack", weft.column_stack, np.column_stack, _column_stack_samples),
    _m("split", _ref_split, _split_samples),
    _m("chunk", lambda x, n, axis=0: np.split(x, n, axis), _chunk_samples),
    _m("tensor_split", lambda x, n, axis=0: np.array_split(x, n, axis), _tensor_split_samples),
    _m("hsplit", lambda x, n: np.array_split(x, n, 1 if x.ndim > 1 else 0), _hsplit_samples),
    _m("vsplit", lambda x, n: np.array_split(x, n, 0), _vsplit_samples),
    _m("dsplit", lambda x, n: np.array_split(x, n, 2), _dsplit_samples),
    _m("unbind", _ref_unbind, _unbind_samples),
    _m("unstack", _ref_unbind, _unstack_samples),
    _m("slice", _ref_slice, _slice_samples),
    _m("strided_slice", _ref_strided_slice, _strided_slice_samples),
    _m("crop", _ref_crop, _crop_samples),
]
