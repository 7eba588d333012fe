"""OpInfo entries for weft.linalg.lstsq (weft/linalg/_lstsq.py) against
numpy.linalg.lstsq per matrix, with Paddle's per-driver return structure."""
import numpy as np

import weft
from tests.opinfo import FLOAT_AND_COMPLEX, ErrorInput, OpInfo, SampleInput
from tests.opinfo import matrix_arg as _a


def _ref_lstsq(a, b, rcond=None, driver=None):
    driver = driver or "gelsy"
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    m, n, k = a.shape[-2], a.shape[-1], b.shape[-1]
    nb = int(np.prod(shape))
    fa = np.broadcast_to(a, shape + (m, n)).reshape(nb, m, n)
    fb = np.broadcast_to(b, shape + (m, k)).reshape(nb, m, k)
    real = np.finfo(a.dtype).dtype
    if rcond is None:
        rcond = np.finfo(a.dtype).eps * max(m, n)
    sols, ranks, svs = [], [], []
    for x, y in zip(fa, fb):
        if m == 0 or n == 0:
            sols.append(np.zeros((n, k), a.dtype))
            ranks.append(0)
            svs.append(np.zeros((0,), real))
            continue
        sol, _, r, s = np.linalg.lstsq(x, y, rcond=rcond)
        sols.append(sol)
        ranks.append(r)
        svs.append(s)
    sol = np.array(sols, a.dtype).reshape(shape + (n, k))
    rank = np.array(ranks, np.int32).reshape(shape)
    sv = np.array(svs, real).reshape(shape + (min(m, n),))
    if m > n and (rank == n).all():
        res = (np.abs(np.broadcast_to(b, shape + (m, k)) - a @ sol) ** 2).sum(-2).astype(real)
    else:
        res = np.zeros((0,), real)
    if driver == "gels":
        rank = np.zeros((0,), np.int64)
    if driver in ("gels", "gelsy"):
        sv = np.zeros((0,), real)
    return sol, res, rank, sv


def _lstsq_samples(dtype, rng):
    for driver in (None, "gels", "gelsy", "gelsd", "gelss"):
        yield SampleInput(_a((5, 3), dtype, rng), _a((5, 2), dtype, rng), driver=driver,
                          name=f"tall, driver={driver}")
        yield SampleInput(_a((2, 5), dtype, rng), _a((2, 3), dtype, rng), driver=driver,
                          name=f"wide (minimum norm), driver={driver}")
    yield SampleInput(_a((2, 4, 3), dtype, rng), _a((4, 1), dtype, rng), driver="gelsd",
                      name="batch, broadcast y")
    yield SampleInput(_a((4, 3), dtype, rng), _a((2, 1, 4, 2), dtype, rng),
                      name="broadcast x")
    yield SampleInput(_a((0, 4, 3), dtype, rng), _a((4, 2), dtype, rng), driver="gelss",
                      name="empty batch")
    yield SampleInput(_a((0, 3), dtype, rng), _a((0, 2), dtype, rng), name="no rows")


def _gels_samples(dtype, rng):
    """The GPU's one driver (and its default there): every shape case of
    ``_lstsq_samples`` with ``driver='gels'``."""
    seen = set()
    for sample in _lstsq_samples(dtype, rng):
        name = sample.name.split(", driver")[0]
        if name not in seen:
            seen.add(name)
            yield SampleInput(sample.input, *sample.args, **{**sample.kwargs, "driver": "gels"},
                              name=f"{name}, gels")


def _rank_deficient_samples(dtype, rng):
    """Rank 2 of 3 (gelsy/gelsd/gelss find the rank; no residuals): forward only."""
    a = (_a((5, 2), dtype, rng) @ _a((2, 3), dtype, rng)).astype(dtype)
    for driver in ("gelsy", "gelsd", "gelss"):
        yield SampleInput(a, _a((5, 2), dtype, rng), driver=driver, name=f"driver={driver}")
    a = np.diag(np.array([1.0, 1e-3, 1e-9], dtype))
    yield SampleInput(a, _a((3, 1), dtype, rng), rcond=1e-6, driver="gelsd", name="rcond")
    # LAPACK gels returns early for a zero matrix: the minimum-norm solution 0, no residuals
    yield SampleInput(np.zeros((3, 2), dtype), _a((3, 1), dtype, rng), driver="gels",
                      name="zero matrix, gels")


def _solution(x, y, **kw):
    return weft.linalg.lstsq(x, y, **kw)[0]


def _ref_solution(x, y, **kw):
    return _ref_lstsq(x, y, **kw)[0]


def _lstsq_errors(rng):
    d = "float64"
    yield ErrorInput(SampleInput(_a((3, 2), d, rng), _a((3,), d, rng)), ValueError,
                     "lstsq: y must be a batch of matrices")
    yield ErrorInput(SampleInput(_a((3, 2), d, rng), _a((4, 1), d, rng)), ValueError,
                     "lstsq: y must have 3 rows")
    yield ErrorInput(SampleInput(_a((3, 2), d, rng), _a((3, 1), d, rng), driver="gelsx"),
                     ValueError, "lstsq: driver must be None, 'gels', 'gelsy', 'gelsd' or "
                     "'gelss', got 'gelsx'")
    yield ErrorInput(SampleInput(_a((3, 2), d, rng), _a((3, 1), "float32", rng)), TypeError,
                     "lstsq: x and y must have the same dtype")
    yield ErrorInput(SampleInput(np.ones((3, 2), np.int64), np.ones((3, 1), np.int64)),
                     weft.UnsupportedDtypeError, "lstsq: x has dtype int64")
    zero_column = np.array([[1.0, 0.0], [2.0, 0.0], [3.0, 0.0]])
    yield ErrorInput(SampleInput(zero_column, _a((3, 1), d, rng), driver="gels"),
                     ValueError, "lstsq: driver 'gels' needs a full-rank x")


OPS = [
    # every driver: CPU only, since the GPU accepts only 'gels' (api-linalg.md #37) and
    # defaults to it, so driver=None means another driver there
    OpInfo("linalg.lstsq", weft.linalg.lstsq, _ref_lstsq, _lstsq_samples,
           dtypes=FLOAT_AND_COMPLEX, supports_grad=False, device=("cpu",)),
    # the solution alone: the differentiable output (weft+, full-rank x)
    OpInfo("linalg.lstsq_solution", _solution, _ref_solution, _lstsq_samples,
           dtypes=FLOAT_AND_COMPLEX, device=("cpu",)),
    OpInfo("linalg.lstsq_rank_deficient", weft.linalg.lstsq, _ref_lstsq,
           _rank_deficient_samples, dtypes=FLOAT_AND_COMPLEX, supports_grad=False,
           device=("cpu",)),
    OpInfo("linalg.lstsq_gels", weft.linalg.lstsq, _ref_lstsq, _gels_samples,
           dtypes=FLOAT_AND_COMPLEX, supports_grad=False, error_inputs=_lstsq_errors),
    OpInfo("linalg.lstsq_gels_solution", _solution, _ref_solution, _gels_samples,
           dtypes=FLOAT_AND_COMPLEX),
]
