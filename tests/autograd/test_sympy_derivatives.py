"""Exact first and second derivatives from sympy against weft.grad, weft.autograd.jacobian
and weft.autograd.hessian (and the incubate Jacobian/Hessian) at seeded random points."""
import functools

import numpy as np
import pytest

import weft
from weft.autograd.functional import hessian, jacobian
from weft.incubate import autograd as ia

sp = pytest.importorskip("sympy")

X, Y, Z = sp.symbols("x y z")
SYMS = (X, Y, Z)

# (id, sympy expression, the same expression in weft ops on scalars x, y, z, weft
# functions it needs). Points lie in x, y in [0.5, 1.5], z in [-1, 1], where every
# expression is smooth.
EXPRESSIONS = [
    ("poly", X ** 3 * Y - 2 * X * Y ** 2 + Z ** 4 + 1,
     lambda x, y, z: x ** 3 * y - 2 * x * y ** 2 + z ** 4 + 1, ()),
    ("exp_sin", sp.exp(X * Y) * sp.sin(Z),
     lambda x, y, z: weft.exp(x * y) * weft.sin(z), ()),
    ("log_cos", sp.log(1 + X ** 2 + Y ** 2) * sp.cos(Z),
     lambda x, y, z: weft.log(1 + x ** 2 + y ** 2) * weft.cos(z), ()),
    ("tanh", sp.tanh(X - Y * Z), lambda x, y, z: weft.tanh(x - y * z), ()),
    ("sqrt_ratio", sp.sqrt(X ** 2 + Y ** 2 + 1) / (1 + Z ** 2),
     lambda x, y, z: weft.sqrt(x ** 2 + y ** 2 + 1) / (1 + z ** 2), ()),
    ("pow", X ** Y * Z, lambda x, y, z: x ** y * z, ()),
    ("trig", sp.sin(X) ** 2 * sp.cos(Y * Z), lambda x, y, z: weft.sin(x) ** 2 * weft.cos(y * z),
     ()),
    ("atan", sp.atan(X * Y) + sp.log(X) * sp.exp(-Z ** 2),
     lambda x, y, z: weft.atan(x * y) + weft.log(x) * weft.exp(-z ** 2), ("atan",)),
    ("sigmoid", 1 / (1 + sp.exp(-X * Y * Z)), lambda x, y, z: 1 / (1 + weft.exp(-x * y * z)),
     ()),
    ("erf", sp.erf(X * Y) + Z * sp.erf(Z),
     lambda x, y, z: weft.erf(x * y) + z * weft.erf(z), ("erf",)),
    ("lgamma", sp.loggamma(X + 2) * Y + sp.loggamma(Y * Z + 3),
     lambda x, y, z: weft.lgamma(x + 2) * y + weft.lgamma(y * z + 3), ("lgamma",)),
    ("digamma", sp.polygamma(0, X + 1.5) * Z ** 2 + Y,
     lambda x, y, z: weft.digamma(x + 1.5) * z ** 2 + y, ("digamma",)),
]


def _missing(needs):
    return [n for n in needs if not hasattr(weft, n)]


def _cases():
    for name, expr, fn, needs in EXPRESSIONS:
        miss = _missing(needs)
        marks = [pytest.mark.skip(reason=f"weft.{', weft.'.join(miss)} not available")] \
            if miss else []
        yield pytest.param(expr, fn, id=name, marks=marks)


@functools.lru_cache(maxsize=None)
def _derivatives(expr):
    grad = [sp.diff(expr, s) for s in SYMS]
    hess = [[sp.diff(g, s) for s in SYMS] for g in grad]
    return sp.lambdify(SYMS, [expr, grad, hess], modules=["scipy", "numpy"])


def _exact(expr, point):
    """Value, gradient [3] and Hessian [3, 3] of ``expr`` at ``point`` (sympy, then scipy)."""
    v, g, h = _derivatives(expr)(*point)
    return float(v), np.array(g, dtype=float), np.array(h, dtype=float)


def _points(n=2):
    rng = np.random.default_rng(20240607)
    lo, hi = np.array([0.5, 0.5, -1.0]), np.array([1.5, 1.5, 1.0])
    return [lo + (hi - lo) * rng.random(3) for _ in range(n)]


def _apply(fn, v):
    return fn(v[0], v[1], v[2])


RTOL, ATOL = 1e-10, 1e-12


@pytest.mark.parametrize("expr,fn", list(_cases()))
def test_first_and_second_derivatives(expr, fn):
    for p in _points():
        val, g_ex, h_ex = _exact(expr, p)
        v = weft.to_tensor(p, dtype="float64", stop_gradient=False)
        out = _apply(fn, v)
        np.testing.assert_allclose(out.numpy(), val, rtol=RTOL)

        (g,) = weft.grad(out, v, create_graph=True)
        np.testing.assert_allclose(g.numpy(), g_ex, rtol=RTOL, atol=ATOL)
        # second derivatives row by row through create_graph
        rows = [weft.grad(g[i], v, retain_graph=True)[0].numpy() for i in range(3)]
        np.testing.assert_allclose(rows, h_ex, rtol=1e-9, atol=1e-11)

        np.testing.assert_allclose(jacobian(out, v)[:].numpy(), g_ex, rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(jacobian(g, v)[:].numpy(), h_ex, rtol=1e-9, atol=1e-11)
        H = hessian(out, v)
        np.testing.assert_allclose(H[:].numpy(), h_ex, rtol=1e-9, atol=1e-11)
        np.testing.assert_allclose(H[1, 2].numpy(), h_ex[1, 2], rtol=1e-9, atol=1e-11)

        c = weft.to_tensor(p, dtype="float64")
        Hi = ia.Hessian(lambda w: _apply(fn, w), c)
        np.testing.assert_allclose(Hi[:].numpy(), h_ex, rtol=1e-9, atol=1e-11)
        _, t = ia.jvp(lambda w: _apply(fn, w), c, weft.to_tensor([1.0, -2.0, 0.5]))
        np.testing.assert_allclose(t.numpy(), g_ex @ [1.0, -2.0, 0.5], rtol=1e-9, atol=1e-11)


def test_jacobian_of_all_expressions_as_one_map():
    usable = [(e, f) for _, e, f, needs in EXPRESSIONS if not _missing(needs)]
    p = _points(1)[0]
    J_ex = np.stack([_exact(e, p)[1] for e, _ in usable])
    v = weft.to_tensor(p, dtype="float64", stop_gradient=False)
    y = weft.stack([_apply(f, v) for _, f in usable])
    J = jacobian(y, v)
    assert J.shape == [len(usable), 3]
    np.testing.assert_allclose(J[:].numpy(), J_ex, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(J[3].numpy(), J_ex[3], rtol=RTOL, atol=ATOL)
    # batched: the same map at two points, batch first
    pts = np.stack(_points(2))
    vb = weft.to_tensor(pts, dtype="float64", stop_gradient=False)
    yb = weft.stack([_apply(f, [vb[:, 0], vb[:, 1], vb[:, 2]]) for _, f in usable], axis=1)
    Jb = jacobian(yb, vb, batch_axis=0)
    assert Jb.shape == [2, len(usable), 3]
    for k in range(2):
        want = np.stack([_exact(e, pts[k])[1] for e, _ in usable])
        np.testing.assert_allclose(Jb[k].numpy(), want, rtol=RTOL, atol=ATOL)
