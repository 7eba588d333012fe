"""Dense references for the sparse nn tests: densify, run a plain numpy convolution
(one slice + einsum per kernel offset), read the result at the output's sites."""
import itertools

import numpy as np

import weft


def random_sites(rng, batch, spatial, n):
    """A duplicate-free random set of ``n`` (at most) sites, [1 + S, nnz], row-major sorted."""
    total = batch * int(np.prod(spatial))
    lin = np.sort(rng.choice(total, size=min(n, total), replace=False))
    return np.array(np.unravel_index(lin, (batch, *spatial)), dtype=np.int64).reshape(
        1 + len(spatial), -1)


def coo(idx, vals, batch, spatial, stop_gradient=True, index_dtype="int64"):
    c = vals.shape[1]
    return weft.sparse.sparse_coo_tensor(idx.astype(index_dtype), vals, [batch, *spatial, c],
                                         stop_gradient=stop_gradient)


def dense_of(idx, vals, batch, spatial):
    out = np.zeros((batch, *spatial, vals.shape[1]), dtype=vals.dtype)
    np.add.at(out, tuple(idx), vals)
    return out


def dense_conv(xd, w, stride, front, back, dilation):
    """Channel-last dense convolution: xd [N, *sp, C], w [*k, C, M] -> [N, *out, M]
    and the per-output-site count of active inputs (from xd's nonzero rows)."""
    S = xd.ndim - 2
    kernel = w.shape[:S]
    pad = [(0, 0)] + [(front[s], back[s]) for s in range(S)] + [(0, 0)]
    xp = np.pad(xd, pad)
    occ = np.pad(np.any(xd != 0, axis=-1).astype(np.int64), pad[:-1])
    out_sp = [(xd.shape[1 + s] + front[s] + back[s] - dilation[s] * (kernel[s] - 1) - 1)
              // stride[s] + 1 for s in range(S)]
    out = np.zeros((xd.shape[0], *out_sp, w.shape[-1]), dtype=np.result_type(xd, w))
    count = np.zeros((xd.shape[0], *out_sp), dtype=np.int64)
    for kk in itertools.product(*(range(k) for k in kernel)):
        sl = tuple(slice(kk[s] * dilation[s], kk[s] * dilation[s] + (out_sp[s] - 1) * stride[s] + 1,
                         stride[s]) for s in range(S))
        out += np.einsum("...c,cm->...m", xp[(slice(None),) + sl], w[kk])
        count += occ[(slice(None),) + sl]
    return out, count
