"""The primitive registry: unique names, arity families, and weft.autograd.rules()."""
import importlib

import numpy as np
import pytest

import weft
from weft.autograd import engine, registry


def _fresh_name(stem):
    k = 0
    while f"{stem}_{k}" in {r.name for r in weft.autograd.rules()}:
        k += 1
    return f"{stem}_{k}"


@pytest.fixture
def scratch_names():
    names = []
    yield names
    for n in names:  # leave the registry as the rest of the suite expects it
        registry._PRIMITIVES.pop(n, None)
        registry._OWNERS.pop(n, None)


def test_a_second_primitive_with_a_registered_name_raises(scratch_names):
    name = _fresh_name("test_dup")
    scratch_names.append(name)
    engine.Primitive(name, np.negative)
    with pytest.raises(ValueError, match=f"'{name}' is already registered by {__name__}"):
        engine.Primitive(name, np.negative)


def test_weft_declares_no_name_twice():
    # importing every package that declares primitives must not raise, and each listed
    # name is one registry entry
    for mod in ("weft.nn.functional", "weft.geometric", "weft.sparse", "weft.ops"):
        importlib.import_module(mod)
    names = [r.name for r in weft.autograd.rules()]
    assert len(names) == len(set(names))


def test_families_share_a_name_but_not_with_plain_primitives(scratch_names):
    name = _fresh_name("test_family")
    scratch_names.append(name)
    a = engine.Primitive(name, np.add, family=True)
    engine.Primitive(name, np.add, family=True)  # another arity: allowed
    assert registry.get(name) is a
    with pytest.raises(ValueError, match="already registered"):
        engine.Primitive(name, np.add)


def test_run_time_primitives_of_user_code_are_not_registered():
    class Double(weft.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    before = len(weft.autograd.rules())
    x = weft.to_tensor([1.0, 2.0], stop_gradient=False)
    for _ in range(3):
        Double.apply(x).sum().backward()
    assert len(weft.autograd.rules()) == before
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 6.0])


def test_rules_report_what_each_primitive_has(scratch_names):
    name = _fresh_name("test_rules")
    scratch_names.append(name)
    p = engine.Primitive(name, np.negative)
    row = {r.name: r for r in weft.autograd.rules()}[name]
    assert (row.vjp, row.jvp, row.batched, row.family) == (False, False, False, False)
    assert row.module == __name__
    engine.defvjp(p, lambda g, ans, x: -g)
    engine.defbatch(p)
    row = {r.name: r for r in weft.autograd.rules()}[name]
    assert (row.vjp, row.batched) == (True, True)


def test_rules_of_known_ops():
    rows = {r.name: r for r in weft.autograd.rules()}
    assert rows["matmul"].vjp and rows["matmul"].batched
    assert rows["concat"].family and rows["einsum"].family
    assert not rows["equal"].vjp  # comparisons have no derivative
    assert rows["take"].module == "weft.ops.primitives"
    assert [r.name for r in weft.autograd.rules()] == sorted(rows)
