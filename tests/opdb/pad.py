"""OpInfo entries for weft.nn.functional.pad (weft/ops/pad.py)."""
import numpy as np

import weft
from tests.opinfo import FLOAT_AND_COMPLEX, ErrorInput, OpInfo, SampleInput, make_arg

_NP_MODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
            "circular": "wrap"}


def _ref(x, pad, mode="constant", value=0.0, data_format="NCHW"):
    widths = [(0, 0)] * x.ndim
    if len(pad) == 2 * x.ndim and mode == "constant":
        widths = [(pad[2 * i], pad[2 * i + 1]) for i in range(x.ndim)]
    else:
        axes = list(range(1, x.ndim - 1)) if data_format.endswith("C") else \
            list(range(2, x.ndim))
        for k in range(len(pad) // 2):
            widths[axes[-1 - k]] = (pad[2 * k], pad[2 * k + 1])
    kw = {"constant_values": value} if mode == "constant" else {}
    return np.pad(x, widths, mode=_NP_MODE[mode], **kw)


def _samples(dtype, rng):
    yield SampleInput(make_arg((2, 3), dtype, rng), [1, 0, 2, 1], name="all axes")
    yield SampleInput(make_arg((1, 2, 5), dtype, rng), [2, 1], mode="reflect", name="reflect 1d")
    yield SampleInput(make_arg((1, 2, 3, 4), dtype, rng), [1, 2, 2, 0], mode="replicate",
                      name="replicate 2d")
    yield SampleInput(make_arg((1, 1, 3, 4), dtype, rng), [3, 1, 1, 2], mode="circular",
                      name="circular 2d")
    yield SampleInput(make_arg((1, 4, 3, 2), dtype, rng), [1, 1, 2, 0], mode="reflect",
                      data_format="NHWC", name="NHWC")
    yield SampleInput(make_arg((1, 2, 3), dtype, rng), [1, 1], value=2.5, name="value")
    yield SampleInput(make_arg((1, 2, 3), dtype, rng, noncontig=True), [4, 4], mode="circular",
                      name="circular wraps twice")


def _errors(rng):
    x = make_arg((1, 2, 3), "float32", rng)
    yield ErrorInput(SampleInput(x, [1, 2, 3]), ValueError, "even number")
    yield ErrorInput(SampleInput(x, [3, 0], mode="reflect"), ValueError, "smaller than")
    yield ErrorInput(SampleInput(x, [1, 1], mode="wrap"), ValueError, "mode must be")
    yield ErrorInput(SampleInput(x, [-1, 1]), ValueError, "negative")
    yield ErrorInput(SampleInput(x, [1.5, 1]), TypeError, "list of ints")


OPS = [OpInfo("nn.functional.pad", weft.nn.functional.pad, _ref, _samples,
              dtypes=FLOAT_AND_COMPLEX, error_inputs=_errors)]
