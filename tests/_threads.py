"""Thread-count independence, the property every native kernel of weft promises."""
import numpy as np

import weft


def outputs_on_1_and_2_threads(outputs):
    """``(outputs() on weft's pool at 1 thread, outputs() at 2)``, the user's thread
    count restored afterwards."""
    before = weft.get_num_threads()
    try:
        weft.set_num_threads(1)
        one = outputs()
        weft.set_num_threads(2)
        two = outputs()
    finally:
        weft.set_num_threads(before)
    return one, two


def assert_same_on_1_and_2_threads(outputs):
    """``outputs()`` (a sequence of arrays) bit-identical on 1 and 2 threads."""
    one, two = outputs_on_1_and_2_threads(outputs)
    assert len(one) == len(two)
    for x, y in zip(one, two):
        np.testing.assert_array_equal(x, y)
