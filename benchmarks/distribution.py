"""weft.distribution benchmarks (issue 14): weft against torch.distributions,
scipy.stats, Paddle (when installed) and the raw numpy / scipy.special expression of
the same quantity (``raw``, the floor for array-at-a-time code), timed in turn in one
run on the CPU.

Rows:
(a) ``Normal.sample([10^7])``, float32;
(b) ``Normal.log_prob`` on 10^7 float32 values, forward + backward to loc and scale;
(c) ``Gamma(α).rsample([10^6])`` with the backward to α (float32; the raw floor draws
    with numpy and takes the implicit gradient −∂F/∂α / f from a central difference
    of ``scipy.special.gammainc``; scipy.stats has no gradient: sampling only);
(d) ``Dirichlet`` (64 categories) ``.sample([10^5])``, float32;
(e) ``MultivariateNormal`` (d = 64, batch 10^4: loc ``[10^4, 64]``, one shared
    ``scale_tril``) ``log_prob`` of ``[10^4, 64]`` values, float32;
(f) ``Categorical(logits [10^4, 1000]).sample()`` (raw floor: inverse cdf on the
    row-wise cumulative softmax);
(g) ``Beta.log_prob`` on 10^6 float32 values (forward).

Goals (issue 14): weft at least as fast as torch.distributions, and within 1.3x of
``raw``. Peers compute in their own precision (scipy.stats in float64). Paddle is
imported before weft (its import order matters on some builds).

Threads: every row runs weft and torch on one thread (``WEFT_BENCH_THREADS`` sets
another count), and the row whose weft path has a parallel native kernel (Gamma's
gradient) runs again on weft's default count (the ``OMP_NUM_THREADS`` the process
started with, else the CPU count), labelled with it. One thread is the main table
because on a small shared machine a second thread measures contention: torch's and
MKL's OpenMP pools keep their threads busy-waiting after each call, which slowed the
rows timed next by up to 3x in runs on a 2-core machine. (Importing Paddle sets
``OMP_NUM_THREADS=1`` in the environment, which weft would otherwise read as its
default; the note line says when that happened.)
"""
from __future__ import annotations

import os

import numpy as np

from ._harness import Report, optional_import, timeit_round

GOAL_TORCH, GOAL_RAW = 1.0, 1.3


def _peers_import():
    env = os.environ.get("OMP_NUM_THREADS")
    paddle = optional_import("paddle")     # first, before weft
    changed = os.environ.get("OMP_NUM_THREADS") != env
    torch = optional_import("torch")
    import weft
    return weft, torch, paddle, (env, changed)


def _threads(env):
    """(count of the main table, weft's default count without Paddle's change)."""
    default = max(1, int(env.split(",")[0])) if env else (os.cpu_count() or 1)
    return int(os.environ.get("WEFT_BENCH_THREADS") or 1), default


def _set_threads(weft, torch, n):
    weft.set_num_threads(n)
    if torch is not None:
        torch.set_num_threads(n)


def _time(rep, case, fns, repeat):
    fns = [(k, f) for k, f in fns if f is not None]
    for (impl, _), sec in zip(fns, timeit_round([f for _, f in fns], repeat)):
        rep.add(case, impl, sec)


def _close(got, want, rtol, what):
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64),
                               np.asarray(want, dtype=np.float64), rtol=rtol, atol=rtol,
                               err_msg=what)


def _normal_sample(rep, weft, torch, paddle, n, repeat):
    import scipy.stats
    D = weft.distribution
    d = D.Normal(weft.to_tensor(0.5, dtype="float32"), weft.to_tensor(2.0, dtype="float32"))
    rng = np.random.default_rng(0)
    fns = [("weft", lambda: d.sample([n])),
           ("raw", lambda: rng.standard_normal(n, dtype=np.float32) * np.float32(2.0)
            + np.float32(0.5)),
           ("scipy", lambda: scipy.stats.norm.rvs(0.5, 2.0, size=n, random_state=rng))]
    if torch is not None:
        td = torch.distributions.Normal(torch.tensor(0.5), torch.tensor(2.0))
        fns.append(("torch", lambda: td.sample((n,))))
    if paddle is not None:
        pd = paddle.distribution.Normal(paddle.to_tensor(0.5), paddle.to_tensor(2.0))
        fns.append(("paddle", lambda: pd.sample([n])))
    s = d.sample([n]).numpy()
    assert s.dtype == np.float32 and s.shape == (n,)
    _close([s.mean(), s.std()], [0.5, 2.0], 1e-2, "Normal.sample moments")
    _time(rep, f"Normal.sample [{n:.0e}] f32", fns, repeat)


def _normal_logprob(rep, weft, torch, paddle, n, repeat):
    import scipy.stats
    rng = np.random.default_rng(1)
    x = rng.standard_normal(n).astype(np.float32)
    mu, sig = np.float32(0.3), np.float32(1.7)
    D = weft.distribution
    xw = weft.to_tensor(x)

    def w():
        loc = weft.to_tensor(mu, stop_gradient=False)
        scale = weft.to_tensor(sig, stop_gradient=False)
        lp = D.Normal(loc, scale).log_prob(xw)
        return weft.grad(lp.sum(), [loc, scale])

    c = np.float32(0.5 * np.log(2 * np.pi))

    def raw():
        z = (x - mu) / sig
        lp = -0.5 * z * z - np.log(sig) - c
        s = lp.sum()
        return s, (z / sig).sum(), ((z * z - 1) / sig).sum()

    fns = [("weft", w), ("raw", raw),
           ("scipy fwd", lambda: scipy.stats.norm.logpdf(x, mu, sig).sum())]
    if torch is not None:
        xt = torch.from_numpy(x)

        def t():
            loc = torch.tensor(mu, requires_grad=True)
            scale = torch.tensor(sig, requires_grad=True)
            lp = torch.distributions.Normal(loc, scale).log_prob(xt)
            return torch.autograd.grad(lp.sum(), [loc, scale])
        fns.append(("torch", t))
        _close([float(g) for g in w()], [float(g) for g in t()], 1e-3, "Normal grads")
    if paddle is not None:
        xp = paddle.to_tensor(x)

        def pp():
            loc = paddle.to_tensor(mu, stop_gradient=False)
            scale = paddle.to_tensor(sig, stop_gradient=False)
            lp = paddle.distribution.Normal(loc, scale).log_prob(xp)
            return paddle.grad(lp.sum(), [loc, scale])
        fns.append(("paddle", pp))
    _close([float(g) for g in w()], raw()[1:], 1e-3, "Normal grads vs raw")
    _time(rep, f"Normal.log_prob [{n:.0e}] f32 fwd+bwd", fns, repeat)


def _gamma_rsample(rep, weft, torch, paddle, n, repeat, tag=""):
    import scipy.special
    import scipy.stats
    alpha = np.float32(2.5)
    D = weft.distribution
    rng = np.random.default_rng(2)

    def w():
        a = weft.to_tensor(alpha, stop_gradient=False)
        x = D.Gamma(a, weft.to_tensor(np.float32(1.0))).rsample([n])
        return weft.grad(x.sum(), a)

    def raw():
        x = rng.standard_gamma(alpha, n).astype(np.float32)
        xd = x.astype(np.float64)
        h = 1e-4
        dfda = (scipy.special.gammainc(alpha + h, xd) - scipy.special.gammainc(alpha - h, xd)) \
            / (2 * h)
        pdf = np.exp((alpha - 1) * np.log(xd) - xd - scipy.special.gammaln(alpha))
        return x, (-dfda / pdf).astype(np.float32).sum()

    fns = [("weft", w), ("raw", raw),
           ("scipy rvs", lambda: scipy.stats.gamma.rvs(alpha, size=n, random_state=rng))]
    if torch is not None:
        def t():
            a = torch.tensor(alpha, requires_grad=True)
            x = torch.distributions.Gamma(a, torch.tensor(1.0)).rsample((n,))
            return torch.autograd.grad(x.sum(), a)
        fns.append(("torch", t))
    if paddle is not None:
        pd = paddle.distribution.Gamma(paddle.to_tensor(alpha), paddle.to_tensor(np.float32(1)))
        fns.append(("paddle rs", lambda: pd.rsample([n])))
    # E[dx/dα] = d E[x]/dα = 1 (rate 1): the gradient sum is ≈ n
    _close(float(w()[0]) / n, 1.0, 2e-2, "Gamma rsample gradient")
    _time(rep, f"Gamma.rsample [{n:.0e}] f32 +bwd α{tag}", fns, repeat)


def _dirichlet_sample(rep, weft, torch, paddle, n, k, repeat):
    import scipy.stats
    rng = np.random.default_rng(3)
    conc = rng.uniform(0.5, 3.0, k).astype(np.float32)
    D = weft.distribution
    d = D.Dirichlet(weft.to_tensor(conc))
    fns = [("weft", lambda: d.sample([n])),
           ("raw", lambda: rng.dirichlet(conc, n)),
           ("scipy", lambda: scipy.stats.dirichlet.rvs(conc, size=n, random_state=rng))]
    if torch is not None:
        td = torch.distributions.Dirichlet(torch.from_numpy(conc))
        fns.append(("torch", lambda: td.sample((n,))))
    if paddle is not None:
        pd = paddle.distribution.Dirichlet(paddle.to_tensor(conc))
        fns.append(("paddle", lambda: pd.sample([n])))
    s = d.sample([n]).numpy()
    assert s.shape == (n, k)
    _close(s.mean(0), conc / conc.sum(), 5e-3, "Dirichlet mean")
    _time(rep, f"Dirichlet({k}).sample [{n:.0e}] f32", fns, repeat)


def _mvn_logprob(rep, weft, torch, paddle, b, k, repeat):
    import scipy.linalg
    import scipy.stats
    rng = np.random.default_rng(4)
    a = rng.standard_normal((k, k))
    cov = (a @ a.T / k + np.eye(k)).astype(np.float32)
    lt = np.linalg.cholesky(cov.astype(np.float64)).astype(np.float32)
    loc = rng.standard_normal((b, k)).astype(np.float32)
    x = rng.standard_normal((b, k)).astype(np.float32)
    D = weft.distribution
    d = D.MultivariateNormal(weft.to_tensor(loc), scale_tril=weft.to_tensor(lt))
    xw = weft.to_tensor(x)
    half_logdet = np.log(np.diag(lt)).sum()
    c = np.float32(0.5 * k * np.log(2 * np.pi) + half_logdet)

    def raw():
        z = scipy.linalg.solve_triangular(lt, (x - loc).T, lower=True, check_finite=False)
        return -0.5 * np.einsum("ij,ij->j", z, z) - c

    sp = scipy.stats.multivariate_normal(np.zeros(k), cov.astype(np.float64))
    fns = [("weft", lambda: d.log_prob(xw)), ("raw", raw),
           ("scipy", lambda: sp.logpdf(x - loc))]
    if torch is not None:
        td = torch.distributions.MultivariateNormal(torch.from_numpy(loc),
                                                    scale_tril=torch.from_numpy(lt))
        xt = torch.from_numpy(x)
        fns.append(("torch", lambda: td.log_prob(xt)))
    if paddle is not None:
        pd = paddle.distribution.MultivariateNormal(paddle.to_tensor(loc),
                                                    scale_tril=paddle.to_tensor(lt))
        xp = paddle.to_tensor(x)
        fns.append(("paddle", lambda: pd.log_prob(xp)))
    _close(d.log_prob(xw).numpy(), raw(), 1e-4 * k, "MVN log_prob")
    _time(rep, f"MVN(d={k}, batch {b:.0e}).log_prob f32", fns, repeat)


def _categorical_sample(rep, weft, torch, paddle, b, k, repeat):
    rng = np.random.default_rng(5)
    logits = rng.standard_normal((b, k)).astype(np.float32)
    D = weft.distribution
    d = D.Categorical(weft.to_tensor(logits))

    def raw():
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        c = np.cumsum(e, axis=1)
        u = rng.random((b, 1), dtype=np.float32) * c[:, -1:]
        return (c <= u).sum(axis=1)

    fns = [("weft", lambda: d.sample()), ("raw", raw)]
    if torch is not None:
        td = torch.distributions.Categorical(logits=torch.from_numpy(logits))
        fns.append(("torch", lambda: td.sample()))
    if paddle is not None:
        pd = paddle.distribution.Categorical(paddle.to_tensor(logits))
        fns.append(("paddle", lambda: pd.sample([1])))
    s = d.sample().numpy()
    assert s.shape == (b,) and s.dtype == np.int64 and 0 <= s.min() and s.max() < k
    rep.note("Categorical: scipy.stats has no batched categorical sampler (no scipy row)")
    _time(rep, f"Categorical(logits [{b:.0e},{k}]).sample", fns, repeat)


def _beta_logprob(rep, weft, torch, paddle, n, repeat):
    import scipy.special
    import scipy.stats
    rng = np.random.default_rng(6)
    a, bb = np.float32(2.5), np.float32(0.7)
    x = rng.uniform(0.01, 0.99, n).astype(np.float32)
    D = weft.distribution
    d = D.Beta(weft.to_tensor(a), weft.to_tensor(bb))
    xw = weft.to_tensor(x)
    lb = np.float32(scipy.special.betaln(a, bb))

    def raw():
        return (a - 1) * np.log(x) + (bb - 1) * np.log1p(-x) - lb

    fns = [("weft", lambda: d.log_prob(xw)), ("raw", raw),
           ("scipy", lambda: scipy.stats.beta.logpdf(x, a, bb))]
    if torch is not None:
        td = torch.distributions.Beta(torch.tensor(a), torch.tensor(bb))
        xt = torch.from_numpy(x)
        fns.append(("torch", lambda: td.log_prob(xt)))
    if paddle is not None:
        pd = paddle.distribution.Beta(paddle.to_tensor(a), paddle.to_tensor(bb))
        xp = paddle.to_tensor(x)
        fns.append(("paddle", lambda: pd.log_prob(xp)))
    _close(d.log_prob(xw).numpy(), raw(), 1e-4, "Beta log_prob")
    _time(rep, f"Beta.log_prob [{n:.0e}] f32", fns, repeat)


def run(report=None, quick=False):
    weft, torch, paddle, (env, changed) = _peers_import()
    rep = report or Report("distribution")
    repeat = 3 if quick else 7
    big = 10 ** 6 if quick else 10 ** 7
    # torch on weft's count too (see the module docstring)
    threads, default = _threads(env)
    _set_threads(weft, torch, threads)
    by_paddle = f"; importing paddle set OMP_NUM_THREADS={os.environ['OMP_NUM_THREADS']}" \
        if changed else ""
    rep.note(f"weft and torch threads: {threads}; weft's default without Paddle: {default}"
             f"{by_paddle}; paddle: {'yes' if paddle is not None else 'not installed'}")
    weft.seed(0)
    if torch is not None:
        torch.manual_seed(0)
    _normal_sample(rep, weft, torch, paddle, big, repeat)
    _normal_logprob(rep, weft, torch, paddle, big, repeat)
    _gamma_rsample(rep, weft, torch, paddle, big // 10, repeat)
    _dirichlet_sample(rep, weft, torch, paddle, big // 100, 64, repeat)
    _mvn_logprob(rep, weft, torch, paddle, big // 1000, 64, repeat)
    _categorical_sample(rep, weft, torch, paddle, big // 1000, 1000, repeat)
    _beta_logprob(rep, weft, torch, paddle, big // 10, repeat)
    if default != threads:   # last: a wider pool's busy-waiting would slow the rows after it
        _set_threads(weft, torch, default)
        _gamma_rsample(rep, weft, torch, paddle, big // 10, repeat, f" [{default} threads]")
        _set_threads(weft, torch, threads)
    return rep


def summary(rep):
    lines = []
    cases = []
    for r in rep.rows:
        if r["case"] not in cases:
            cases.append(r["case"])
    for case in cases:
        parts = []
        for peer, goal in (("torch", GOAL_TORCH), ("raw", GOAL_RAW)):
            r = rep.ratio(case, "weft", peer)
            if r is not None:
                parts.append(f"weft/{peer} = {r:.2f} (goal <= {goal}"
                             f"{', MISSED' if r > goal else ''})")
        lines.append(f"{case}: " + "; ".join(parts))
    return lines
