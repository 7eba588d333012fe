"""Von Mises draws with implicit reparameterisation gradients in the concentration.

Draws use the rejection sampler of Best and Fisher (1979), vectorised: every round
redraws only the pending entries. The gradient of a draw ``θ`` (centred at 0, on
``[-π, π)``) in the concentration ``κ`` is ``dθ/dκ = -(∂F/∂κ)(θ; κ) / p(θ; κ)``
(Figurnov et al., 2018), with ``F`` the centred von Mises CDF:

* ``κ < 50``: the Fourier series ``F(θ) = (θ + π)/(2π) + (1/π) Σ_n ρ_n sin(nθ)/n``,
  ``ρ_n = I_n(κ)/I_0(κ)`` from the backward recurrence of the Bessel ratios; its
  κ-derivative is exact term by term, ``ρ_n' = (ρ_{n-1} + ρ_{n+1})/2 - ρ_1 ρ_n``
  (from ``I_n' = (I_{n-1} + I_{n+1})/2``).
* ``κ >= 50``: Hill's (1977) corrected normal approximation ``F ≈ Φ(ξ(z, κ))`` with
  ``z = sqrt(2/π) sin(θ/2) / i0e(κ)``, differentiated by the complex step
  ``∂ξ/∂κ = Im ξ(z + i h z', κ + i h) / h`` (no cancellation, exact to rounding).

Everything is float64 array code for numpy and CuPy.
"""
from __future__ import annotations

import math

import numpy as np

from ..autograd.engine import Primitive, apply, defvjp

# the switch of scipy's von Mises CDF too: below it the normal approximation's error
# (relative 1e-4 in the derivative at kappa = 11) is larger than the series'
_SERIES_MAX_KAPPA = 50.0
_N_TERMS = 110         # rho_n ~ exp(-n^2 / (2 kappa)) < 1e-26 beyond this for kappa < 50
_STEP = 1e-30          # complex step


def _xp_sp(a):
    from ..core.args import xp_of  # noqa: PLC0415
    from ..core.place import special_module  # noqa: PLC0415

    return xp_of(a), special_module(a)


def best_fisher(gen, kappa, xp, uniform):
    """Centred von Mises draws (float64, shape of ``kappa``) by rejection.

    ``uniform(n)`` returns ``n`` float64 uniforms on [0, 1) from ``gen``."""
    k = xp.asarray(kappa, dtype=np.float64).ravel()
    out = xp.empty(k.shape)
    tiny = k < 1e-8
    # tau - sqrt(2 tau) written without cancellation for small kappa:
    # rho = 2 kappa tau / ((s + 1)(tau + sqrt(2 tau))), s = sqrt(1 + 4 kappa^2)
    s = xp.sqrt(1.0 + 4.0 * k * k)
    tau = 1.0 + s
    rho = 2.0 * k * tau / ((s + 1.0) * (tau + xp.sqrt(2.0 * tau)))
    r = (1.0 + rho * rho) / (2.0 * xp.where(tiny, 1.0, rho))
    pending = xp.nonzero(~tiny)[0]
    n_tiny = int(tiny.sum())
    if n_tiny:
        out[tiny] = math.pi * (2.0 * uniform(n_tiny) - 1.0)
    while pending.size:
        n = pending.size
        u1, u2, u3 = uniform(n), uniform(n), uniform(n)
        kk, rr = k[pending], r[pending]
        z = xp.cos(math.pi * u1)
        f = (1.0 + rr * z) / (rr + z)
        c = kk * (rr - f)
        with np.errstate(divide="ignore", invalid="ignore"):
            ok = (c * (2.0 - c) - u2 > 0) | (xp.log(c / u2) + 1.0 - c >= 0)
        theta = xp.arccos(xp.clip(f, -1.0, 1.0))
        theta = xp.where(u3 < 0.5, -theta, theta)
        out[pending[ok]] = theta[ok]
        pending = pending[~ok]
    return out.reshape(xp.shape(kappa))


def _series_dcdf(theta, kappa, xp):
    # Bessel ratios r_n = I_n / I_{n-1} by the backward recurrence r_n = 1/(2n/k + r_{n+1})
    ratios = [None] * (_N_TERMS + 2)
    r = xp.zeros_like(kappa)
    for n in range(_N_TERMS + 1, 0, -1):
        r = 1.0 / (2.0 * n / kappa + r)
        ratios[n] = r
    rho = [xp.ones_like(kappa)]
    for n in range(1, _N_TERMS + 2):
        rho.append(rho[-1] * ratios[n])
    total = xp.zeros_like(theta)
    # sin(n t) by the recurrence sin((n+1)t) = 2 cos t sin(nt) - sin((n-1)t)
    two_cos = 2.0 * xp.cos(theta)
    s_prev, s_n = xp.zeros_like(theta), xp.sin(theta)
    for n in range(1, _N_TERMS + 1):
        drho = 0.5 * (rho[n - 1] + rho[n + 1]) - rho[1] * rho[n]
        total = total + drho * s_n / n
        s_prev, s_n = s_n, two_cos * s_n - s_prev
    return total / math.pi


def _hill_xi(z, c):
    z2 = z * z
    return z - z * z2 / ((c - 2.0 * z2 - 16.0) / 3.0
                         - (z2 * z2 + 1.75 * z2 + 83.5) / (c - 56.0 - z2 + 3.0)) ** 2


def _normal_dcdf(theta, kappa, xp, sp):
    i0e, i1e = sp.i0e(kappa), sp.i1e(kappa)
    a = math.sqrt(2.0 / math.pi) / i0e
    # d/dk (1/i0e) = -(i1e - i0e)/i0e^2 (kappa > 0)
    da = -math.sqrt(2.0 / math.pi) * (i1e - i0e) / (i0e * i0e)
    s = xp.sin(0.5 * theta)
    z = a * s + 1j * (_STEP * da) * s
    c = 24.0 * kappa + 1j * (_STEP * 24.0)
    xi = _hill_xi(z, c)
    dxi = xi.imag / _STEP
    xr = xi.real
    return math.exp(-0.5 * math.log(2.0 * math.pi)) * xp.exp(-0.5 * xr * xr) * dxi


def cdf_dkappa(theta, kappa):
    """``∂F/∂κ`` of the centred von Mises CDF at ``theta`` (float64, broadcast)."""
    xp, sp = _xp_sp(theta)
    theta, kappa = xp.broadcast_arrays(xp.asarray(theta, dtype=np.float64),
                                       xp.asarray(kappa, dtype=np.float64))
    out = xp.zeros(theta.shape)
    small = kappa < _SERIES_MAX_KAPPA
    if bool(small.any()):
        out[small] = _series_dcdf(theta[small], kappa[small], xp)
    if bool((~small).any()):
        out[~small] = _normal_dcdf(theta[~small], kappa[~small], xp, sp)
    return out


def sample_grad(kappa, theta):
    """``dθ/dκ = -(∂F/∂κ)(θ) / p(θ)`` for centred draws ``theta`` (float64)."""
    xp, sp = _xp_sp(theta)
    k = xp.asarray(kappa, dtype=np.float64)
    t = xp.asarray(theta, dtype=np.float64)
    # p(theta) = exp(k (cos t - 1)) / (2 pi i0e(k))
    log_p = k * (xp.cos(t) - 1.0) - xp.log(2.0 * math.pi * sp.i0e(k))
    return -cdf_dkappa(t, k) * xp.exp(-log_p)


# forward: the draw made beforehand; the rule is the implicit gradient (its own
# derivative is not implemented: the gradient primitive has no rules)
_vm_grad = Primitive("von_mises_sample_grad",
                     lambda kappa, theta: sample_grad(kappa, theta).astype(theta.dtype))
_vm_sample = Primitive("von_mises_sample", lambda kappa, sample: sample)
defvjp(_vm_sample, lambda g, ans, kappa, sample: g * apply(_vm_grad, kappa, ans))


def von_mises_draw(concentration, shape, gen):
    """Centred von Mises draws of ``shape`` (``concentration``, a floating Tensor,
    broadcast to it), differentiable in the concentration by implicit
    reparameterisation. ``gen``: the backend generator of the tensor's place."""
    xp, _ = _xp_sp(concentration._data)
    k = xp.broadcast_to(concentration._data, shape)
    if isinstance(gen, np.random.Generator):
        def uniform(n):
            return gen.random(n)
    else:
        def uniform(n):
            return gen.random_sample(n, dtype=np.float64)
    theta = best_fisher(gen, k, xp, uniform).astype(concentration._data.dtype)
    return apply(_vm_sample, concentration, sample=theta)
