"""Random number generators: one per device, reproducible under ``weft.seed(n)``.

Every sampler in weft (the tensor random functions, dropout, distributions,
neighbour sampling) draws from the generator of the device it produces data on,
so ``weft.seed(n)`` fixes all of them at once, on the CPU and on each GPU
separately.

* CPU: one ``numpy.random.Generator`` over ``PCG64``. Its state is the bit
  generator's state, so :meth:`Generator.get_state` / :meth:`Generator.set_state`
  restore the stream exactly.
* GPU: cuRAND keeps its position inside the host generator, where CuPy cannot
  read it back, so a GPU stream is *counter based* instead, in the manner of the
  (seed, offset) Philox state of Paddle and PyTorch: each request for a backend
  generator advances an offset and gets a fresh ``cupy.random.RandomState``
  (Philox4x32-10, whose setup is cheap) seeded from ``hash(seed, offset)``.
  The state is just ``(seed, offset)``, which makes save/restore exact.

Modules that sample ask :func:`default_generator` for the backend generator of a
place (call it once per op: on the GPU each call hands out a new stream), or
:func:`next_seed` for a 63-bit integer seed when a native kernel derives its own
per-thread streams from one seed.
"""
from __future__ import annotations

import contextlib
import copy

import numpy as np

from . import place as _place

_MASK64 = (1 << 64) - 1


def _splitmix64(z):
    """One SplitMix64 output: a bijective 64-bit hash with good avalanche."""
    z = (z + 0x9E3779B97F4A7C15) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def _stream_seed(seed, offset):
    # Seeds for consecutive offsets must look unrelated (cuRAND Philox streams with
    # nearby seeds are fine, but hashing also guards the custom CuPy kernels that
    # seed from the same integer); 63 bits so that int64 parameters accept it.
    return _splitmix64(seed ^ _splitmix64(offset)) >> 1


def _entropy_seed():
    """A non-deterministic 64-bit seed, used until ``weft.seed`` is called."""
    return int(np.random.SeedSequence().entropy) & _MASK64


def check_seed(seed, op="seed", arg="seed"):
    """A seed as a non-negative Python int below 2**64 (negative ints wrap, as in C)."""
    from .args import int_arg  # noqa: PLC0415

    seed = int_arg(seed, op, arg)
    if not -(1 << 63) <= seed < (1 << 64):
        raise ValueError(f"{op}: {arg} must fit in 64 bits, got {seed}")
    return seed & _MASK64


class GeneratorState:
    """A saved generator position, as returned by ``get_rng_state``.

    Opaque apart from :meth:`current_seed`; pass it back to ``set_rng_state`` or
    :meth:`Generator.set_state`. It pickles, and restoring it reproduces the
    stream exactly.
    """

    __slots__ = ("kind", "seed", "data")

    def __init__(self, kind, seed, data):
        self.kind = kind      # "cpu" or "gpu"
        self.seed = seed      # the seed the stream started from
        self.data = data      # cpu: the PCG64 state dict; gpu: the offset

    def current_seed(self):
        return self.seed

    def __eq__(self, other):
        return isinstance(other, GeneratorState) and (self.kind, self.seed, self.data) == \
            (other.kind, other.seed, other.data)

    def __reduce__(self):
        return (GeneratorState, (self.kind, self.seed, self.data))

    def __repr__(self):
        return f"GeneratorState(kind={self.kind!r}, seed={self.seed})"


class Generator:
    """The random stream of one device (Paddle's ``paddle.framework.Generator``).

    ``weft.seed(n)`` returns the CPU one. Methods: :meth:`manual_seed`,
    :meth:`seed`, :meth:`initial_seed`, :meth:`get_state`, :meth:`set_state`,
    :meth:`random`.

    >>> import weft
    >>> g = weft.seed(7)
    >>> g.initial_seed()
    7
    >>> s = g.get_state(); a = weft.rand([3]); g.set_state(s)
    >>> bool((weft.rand([3]) == a).all())
    True
    """

    def __init__(self, place=None, seed=None):
        self.place = _place.CPU if place is None else _place.parse_place(place)
        self._np = None
        self._offset = 0
        self.manual_seed(_entropy_seed() if seed is None else seed)

    # -- seeding ---------------------------------------------------------------------
    def manual_seed(self, seed):
        """Restart the stream from ``seed``; returns the generator itself."""
        self._seed = check_seed(seed, "manual_seed")
        if self.place.is_gpu:
            self._offset = 0
        else:
            self._np = np.random.Generator(np.random.PCG64(self._seed))
        return self

    def seed(self):
        """Restart from a non-deterministic seed and return that seed."""
        s = _entropy_seed()
        self.manual_seed(s)
        return s

    def initial_seed(self):
        """The seed the current stream started from."""
        return self._seed

    # -- state -----------------------------------------------------------------------
    def get_state(self):
        if self.place.is_gpu:
            return GeneratorState("gpu", self._seed, self._offset)
        return GeneratorState("cpu", self._seed, copy.deepcopy(self._np.bit_generator.state))

    def set_state(self, state):
        kind = "gpu" if self.place.is_gpu else "cpu"
        if not isinstance(state, GeneratorState):
            raise TypeError(f"set_state: expected a GeneratorState (from get_rng_state), got "
                            f"{type(state).__name__}")
        if state.kind != kind:
            raise ValueError(f"set_state: the state was saved from a {state.kind} generator "
                             f"but this generator is on {self.place}")
        self._seed = state.seed
        if kind == "gpu":
            self._offset = int(state.data)
        else:
            bg = np.random.PCG64()
            bg.state = copy.deepcopy(state.data)
            self._np = np.random.Generator(bg)

    # -- drawing ---------------------------------------------------------------------
    def random(self):
        """A fresh seed from this stream: a Python int in ``[0, 2**63)``."""
        if self.place.is_gpu:
            self._offset += 1
            return _stream_seed(self._seed, self._offset)
        return int(self._np.bit_generator.random_raw()) >> 1

    def backend(self):
        """The backend generator to draw from now.

        CPU: the persistent ``numpy.random.Generator``. GPU: a new
        ``cupy.random.RandomState`` for the next stream position, bound to this
        device (create arrays inside :func:`device_guard`).
        """
        if not self.place.is_gpu:
            return self._np
        return _cupy_state(self.place, self.random())

    def __repr__(self):
        return f"Generator(place={self.place}, initial_seed={self._seed})"


def _cupy_state(place, seed):
    cp = _place.cupy_or_raise(f"random numbers on {place}")
    with cp.cuda.Device(place.device_id):
        # a numpy uint64: CuPy casts the seed to uint64 with casting='safe', which
        # numpy 2 refuses for a Python int (an int64 array)
        return cp.random.RandomState(np.uint64(seed),
                                     method=cp.cuda.curand.CURAND_RNG_PSEUDO_PHILOX4_32_10)


# ----------------------------------------------------------------------------------
# the per-device registry

_generators = {}          # place -> Generator, GPU ones created on first use
_global_seed = [None]     # the last weft.seed(n); None until then


def generator(place=None):
    """The :class:`Generator` of ``place`` (default: the current device)."""
    p = _place.parse_place(place)
    g = _generators.get(p)
    if g is None:
        if p.is_gpu:
            _place.cupy_or_raise(f"a random generator on {p}")
        g = _generators[p] = Generator(p, _global_seed[0])
    return g


def default_generator(place=None):
    """The backend generator for ``place``: numpy ``Generator`` (CPU) or a CuPy
    ``RandomState`` (GPU, a new stream per call). Call once per op."""
    return generator(place).backend()


def next_seed(place=None):
    """A fresh integer seed in ``[0, 2**63)`` drawn from the stream of ``place``."""
    return generator(place).random()


def private_generator(place, seed):
    """A backend generator seeded with ``seed`` only, outside the device stream
    (Paddle's ``seed=`` argument of ``uniform``: the same seed gives the same draw)."""
    p = _place.parse_place(place)
    seed = check_seed(seed)
    if p.is_gpu:
        return _cupy_state(p, seed >> 1)
    return np.random.Generator(np.random.PCG64(seed))


def device_guard(place):
    """A context in which CuPy allocates on ``place`` (a no-op on the CPU)."""
    p = _place.parse_place(place)
    if not p.is_gpu:
        return contextlib.nullcontext()
    return _place.cupy_or_raise(repr(p)).cuda.Device(p.device_id)


def seed(s):
    """Reseed every device's generator with ``s``; returns the CPU :class:`Generator`."""
    s = check_seed(s)
    _global_seed[0] = s
    generator(_place.CPU).manual_seed(s)
    for p, g in _generators.items():
        if p.is_gpu:
            g.manual_seed(s)
    return _generators[_place.CPU]


def _gpu_places(op):
    if not _place.is_compiled_with_cuda():
        raise RuntimeError(f"{op}: a GPU state was asked for, but CuPy or a CUDA device is "
                           "missing")
    return [_place.CUDAPlace(i) for i in range(_place.cp_device_count())]


def _places_for(device, op):
    p = _place.parse_place(device, "device")
    return _gpu_places(op) if p.is_gpu else [_place.CPU]


def get_rng_state(device=None):
    """The generator states of ``device`` as a list: ``[cpu_state]`` for the CPU, one
    state per GPU for a GPU device (Paddle's convention)."""
    return [generator(p).get_state() for p in _places_for(device, "get_rng_state")]


def set_rng_state(state_list, device=None):
    """Restore states saved by :func:`get_rng_state` for the same kind of device."""
    places = _places_for(device, "set_rng_state")
    if isinstance(state_list, GeneratorState):
        state_list = [state_list]
    if not isinstance(state_list, (list, tuple)):
        raise TypeError(f"set_rng_state: state_list must be a list of states, got "
                        f"{type(state_list).__name__}")
    if len(state_list) != len(places):
        raise ValueError(f"set_rng_state: state_list has {len(state_list)} state(s) but "
                         f"{len(places)} generator(s) are to be restored")
    for p, s in zip(places, state_list):
        generator(p).set_state(s)


__all__ = ["Generator", "GeneratorState", "generator", "default_generator", "next_seed",
           "private_generator", "device_guard", "seed", "get_rng_state", "set_rng_state",
           "check_seed"]
