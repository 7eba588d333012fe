"""Failures: :class:`GradcheckError`, and the messages that locate a mismatch (which
input and output, which entry, analytic against numerical, and the tolerance that
was exceeded)."""
from __future__ import annotations

import numpy as np


class GradcheckError(RuntimeError):
    """A gradient check failed; the message names the check, the input and output
    indices, the analytic and numerical values and the tolerances."""


def _unravel(p, shape):
    return [int(k) for k in np.unravel_index(p, shape)] if shape else []


def tol_text(checker, i, n):
    """The tolerance a numerical value ``n`` of input ``i`` was held to, spelled out."""
    atol, rtol = checker.tol[i]
    return (f"atol {atol:g} + rtol {rtol:g} * |numerical| = {atol + rtol * abs(n):.3g} "
            f"(eps {checker.eps:g})")


def fast_failure(ch, i, ci, k, part, vs, dfs, delta, a, n, kind):
    """Fail a fast-mode comparison of checker ``ch``, naming the output whose
    contribution disagrees most."""
    # localise: which output's contribution disagrees (extra VJPs only on failure)
    two = 2 * ch.eps
    out_txt = "all outputs"
    if kind == "backward" and len(ch.outs) > 1:
        worst, worst_ex = None, -np.inf
        for m in range(len(ch.outs)):
            vm = [v if mm == m else np.zeros_like(v) for mm, v in enumerate(vs)]
            gm = ch.an.vjp(vm)[ci]
            am = 0.0 if gm is None else float(np.vdot(gm, delta).real) / two
            nm = float(np.vdot(vs[m], dfs[m]).real) / two
            atol, rtol = ch.tol[i]
            ex = abs(am - nm) - (atol + rtol * abs(nm))
            if not ex <= worst_ex:
                worst, worst_ex = m, ex
        out_txt = ch.out_label(ch.outs[worst][0])
    elif len(ch.outs) == 1:
        out_txt = ch.out_label(ch.outs[0][0])
    lhs = "<vjp(v), u>" if kind == "backward" else "<v, jvp(u)>"
    where = f", {part}" if part else ""
    ch.fail(f"{'Jacobian' if kind == 'backward' else 'forward-mode Jacobian'} mismatch "
            f"for {ch.in_label(i)} and {out_txt} (fast mode, direction {k}{where}): "
            f"analytic {lhs} = {a:.6g} but numerical <v, J u> = {n:.6g}; |difference| "
            f"{abs(a - n):.3g} exceeds {tol_text(ch, i, n)}. Rerun with "
            "fast_mode=False to see the worst Jacobian entry.")


def worst_entry(ch, analytic, numerical, rows, sizes, cplx_in, what):
    """Fail at the worst entry of full Jacobians ``analytic`` vs ``numerical`` (per
    input, rows laid out by ``rows``) when any exceeds the tolerance."""
    for i in ch.checked:
        A, N = analytic[i], numerical[i]
        if A.size == 0:
            continue
        atol, rtol = ch.tol[i]
        excess = np.abs(A - N) - (atol + rtol * np.abs(N))
        excess = np.where(np.isnan(excess), np.inf, excess)
        r, c = np.unravel_index(int(np.argmax(excess)), excess.shape)
        if excess[r, c] <= 0:
            continue
        # map the worst entry back to (output, position, part) and (input position, part)
        rr = int(r)
        for m, j, factor, n in rows:
            if rr < n:
                break
            rr -= n
        o = ch.outs[m][1]
        opart = "" if o._data.dtype.kind != "c" else (" (real part)" if factor == 1.0
                                                       else " (imaginary part)")
        n_i = sizes[i]
        ipart = "" if not cplx_in[i] else (" (real part)" if c < n_i else
                                           " (imaginary part)")
        a_v, n_v = float(A[r, c]), float(N[r, c])
        in_pos = _unravel(int(c) % max(n_i, 1), ch.seq[i].shape)
        ch.fail(f"{what} mismatch for {ch.in_label(i)} and {ch.out_label(j)} (slow "
                f"mode): worst entry at input position {in_pos}{ipart}, output position "
                f"{_unravel(rr, o.shape)}{opart}: analytic "
                f"{a_v:.6g} but numerical {n_v:.6g}; |difference| {abs(a_v - n_v):.3g} "
                f"exceeds {tol_text(ch, i, n_v)}")
