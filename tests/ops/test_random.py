"""Random sampling: reproducibility under weft.seed, exact state save/restore,
statistical sanity with fixed seeds, dtypes and shapes, and argument errors."""
import pickle

import numpy as np
import pytest

import weft
from weft.core import random as wrandom

N = 100_000

SAMPLERS = {
    "rand": lambda: weft.rand([5]),
    "randn": lambda: weft.randn([5]),
    "standard_normal": lambda: weft.standard_normal([5], dtype="complex64"),
    "randint": lambda: weft.randint(0, 1000, [5]),
    "randint_like": lambda: weft.randint_like(weft.zeros([5]), 0, 1000),
    "randperm": lambda: weft.randperm(20),
    "uniform": lambda: weft.uniform([5]),
    "normal": lambda: weft.normal(0.0, 1.0, [5]),
    "normal_tensor": lambda: weft.normal(weft.zeros([5]), weft.ones([5])),
    "bernoulli": lambda: weft.bernoulli(weft.full([20], 0.5)),
    "poisson": lambda: weft.poisson(weft.full([5], 4.0)),
    "multinomial": lambda: weft.multinomial(weft.ones([2, 10]), 5),
    "multinomial_repl": lambda: weft.multinomial(weft.ones([10]), 5, replacement=True),
    "uniform_": lambda: weft.zeros([5]).uniform_(),
    "normal_": lambda: weft.zeros([5]).normal_(),
    "exponential_": lambda: weft.zeros([5]).exponential_(),
    "bernoulli_": lambda: weft.zeros([20]).bernoulli_(),
}


# -- reproducibility ----------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_same_seed_same_values_different_seed_different(name):
    f = SAMPLERS[name]
    weft.seed(123)
    a = f().numpy()
    weft.seed(123)
    b = f().numpy()
    weft.seed(124)
    c = f().numpy()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_consecutive_draws_differ():
    weft.seed(0)
    assert not np.array_equal(weft.rand([8]).numpy(), weft.rand([8]).numpy())


def test_state_round_trip_covers_every_sampler():
    weft.seed(5)
    weft.rand([3])
    state = weft.get_rng_state()
    assert isinstance(state, list) and len(state) == 1
    first = [f().numpy() for f in SAMPLERS.values()]
    weft.set_rng_state(state)
    again = [f().numpy() for f in SAMPLERS.values()]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    # a state pickles and still restores exactly
    weft.set_rng_state(pickle.loads(pickle.dumps(state)))
    np.testing.assert_array_equal(SAMPLERS["rand"]().numpy(), first[0])


def test_generator_object():
    g = weft.seed(99)
    assert g.initial_seed() == 99
    s = g.get_state()
    assert s.current_seed() == 99
    a = weft.randn([4]).numpy()
    g.set_state(s)
    np.testing.assert_array_equal(weft.randn([4]).numpy(), a)
    assert g.manual_seed(99) is g
    np.testing.assert_array_equal(weft.randn([4]).numpy(), a)
    new = g.seed()
    assert g.initial_seed() == new
    # negative seeds wrap to 64 bits, as a C uint64 cast does
    assert weft.seed(-1).initial_seed() == 2 ** 64 - 1


def test_hooks_for_other_modules():
    weft.seed(3)
    gen = wrandom.default_generator("cpu")
    assert isinstance(gen, np.random.Generator)
    s1 = wrandom.next_seed()
    assert isinstance(s1, int) and 0 <= s1 < 2 ** 63
    weft.seed(3)
    wrandom.default_generator("cpu")
    assert wrandom.next_seed() == s1
    assert wrandom.next_seed() != s1


def test_private_seed_of_uniform():
    weft.seed(1)
    a = weft.uniform([4], seed=7).numpy()
    after_private = weft.rand([3]).numpy()
    weft.seed(1)
    b = weft.uniform([4], seed=7).numpy()
    np.testing.assert_array_equal(a, b)
    # the private generator leaves the device stream where it was
    weft.seed(1)
    np.testing.assert_array_equal(weft.rand([3]).numpy(), after_private)
    x = weft.zeros([4]).uniform_(seed=7)
    y = weft.zeros([4]).uniform_(seed=7)
    np.testing.assert_array_equal(x.numpy(), y.numpy())


def test_set_rng_state_errors():
    with pytest.raises(ValueError, match="state"):
        weft.set_rng_state([])
    with pytest.raises(TypeError, match="GeneratorState"):
        weft.set_rng_state([{"not": "a state"}])
    with pytest.raises(TypeError, match="list"):
        weft.set_rng_state(5)
    with pytest.raises(TypeError, match="int"):
        weft.seed(1.5)
    with pytest.raises(ValueError, match="64 bits"):
        weft.seed(2 ** 64)
    if not weft.is_compiled_with_cuda():
        with pytest.raises(RuntimeError, match="CuPy|CUDA"):
            weft.get_rng_state("gpu")


# -- statistics (fixed seeds, loose tolerances: about 5 standard errors) ------------

def test_uniform_family_moments():
    weft.seed(2024)
    x = weft.rand([N]).numpy()
    assert x.min() >= 0 and x.max() < 1
    assert abs(x.mean() - 0.5) < 0.005 and abs(x.std() - 12 ** -0.5) < 0.005
    u = weft.uniform([N], min=-2.0, max=4.0, dtype="float64").numpy()
    assert u.min() >= -2 and u.max() < 4 and abs(u.mean() - 1.0) < 0.03
    v = weft.zeros([N]).uniform_(1.0, 3.0).numpy()
    assert v.min() >= 1 and v.max() < 3 and abs(v.mean() - 2.0) < 0.01


def test_normal_family_moments():
    weft.seed(2025)
    z = weft.randn([N]).numpy()
    assert abs(z.mean()) < 0.02 and abs(z.std() - 1) < 0.02
    y = weft.normal(3.0, 2.0, [N]).numpy()
    assert abs(y.mean() - 3) < 0.04 and abs(y.std() - 2) < 0.04
    m = weft.to_tensor(np.array([[-5.0], [5.0]]))
    s = weft.to_tensor(np.array([0.5, 1.0, 2.0]))
    t = weft.normal(m, s)
    assert t.shape == [2, 3] and t.dtype == weft.float64
    big = weft.normal(weft.full([N], 1.0), 0.5).numpy()
    assert abs(big.mean() - 1) < 0.01 and abs(big.std() - 0.5) < 0.01
    c = weft.randn([N], dtype="complex128").numpy()
    assert abs(np.mean(np.abs(c) ** 2) - 1) < 0.03 and abs(c.real.var() - 0.5) < 0.02
    w = weft.zeros([N], dtype="float64").normal_(mean=-1.0, std=3.0).numpy()
    assert abs(w.mean() + 1) < 0.05 and abs(w.std() - 3) < 0.05


def test_discrete_moments():
    weft.seed(7)
    e = weft.exponential_(weft.zeros([N]), lam=4.0).numpy()
    assert e.min() >= 0 and abs(e.mean() - 0.25) < 0.005
    p = weft.poisson(weft.full([N], 3.5)).numpy()
    assert abs(p.mean() - 3.5) < 0.03 and abs(p.var() - 3.5) < 0.1
    assert np.all(p == np.round(p))
    b = weft.bernoulli(weft.full([N], 0.3)).numpy()
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.3) < 0.01
    assert abs(weft.zeros([N]).bernoulli_(0.8).numpy().mean() - 0.8) < 0.01
    r = weft.randint(-3, 7, [N]).numpy()
    assert r.min() == -3 and r.max() == 6
    counts = np.bincount(r + 3, minlength=10)
    assert np.all(np.abs(counts - N / 10) < 5 * np.sqrt(N / 10))


def test_multinomial_with_replacement_frequencies():
    weft.seed(11)
    probs = np.array([0.1, 0.0, 0.6, 0.3])
    draws = weft.multinomial(weft.to_tensor(probs * 5), N, replacement=True).numpy()
    assert draws.dtype == np.int64 and draws.shape == (N,)
    freq = np.bincount(draws, minlength=4) / N
    assert freq[1] == 0
    np.testing.assert_allclose(freq, probs, atol=0.01)
    rows = weft.multinomial(weft.to_tensor([[1.0, 0.0], [0.0, 1.0]]), 50, True).numpy()
    assert np.all(rows[0] == 0) and np.all(rows[1] == 1)


def test_multinomial_without_replacement():
    weft.seed(12)
    w = weft.to_tensor(np.array([[1.0, 2.0, 0.0, 3.0, 4.0]] * 2000))
    d = weft.multinomial(w, 4).numpy()
    assert d.shape == (2000, 4)
    assert all(len(set(row)) == 4 for row in d)
    assert not np.any(d == 2)  # zero weight never drawn
    # the first draw follows the normalised weights
    freq = np.bincount(d[:, 0], minlength=5) / 2000
    np.testing.assert_allclose(freq, [0.1, 0.2, 0.0, 0.3, 0.4], atol=0.04)
    full = weft.multinomial(weft.ones([6]), 6).numpy()
    assert sorted(full.tolist()) == list(range(6))


def test_randperm_is_a_permutation():
    weft.seed(4)
    for n in (0, 1, 17, 1000):
        p = weft.randperm(n).numpy()
        assert p.dtype == np.int64 and sorted(p.tolist()) == list(range(n))
    assert weft.randperm(5, dtype="float32").dtype == weft.float32


# -- dtypes, shapes, flags ------------------------------------------------------------

def test_dtypes_and_shapes():
    assert weft.rand([2, 3]).dtype == weft.float32
    assert weft.rand((2,), dtype="float64").dtype == weft.float64
    assert weft.randn([3], dtype="float16").dtype == weft.float16
    assert weft.rand([]).shape == [] and weft.randn([0, 2]).shape == [0, 2]
    assert weft.rand(weft.to_tensor([2, 2])).shape == [2, 2]
    assert weft.randint(5).shape == [1] and weft.randint(5).dtype == weft.int64
    assert weft.randint(0, 5, [2], dtype="int32").dtype == weft.int32
    assert weft.uniform([2], dtype="float64").dtype == weft.float64
    assert weft.normal(1 + 1j, 1.0, [2]).dtype == weft.complex64
    x = weft.zeros([2, 3], dtype="float64")
    rl = weft.randint_like(x, 0, 3)
    assert rl.dtype == weft.float64 and rl.shape == [2, 3]
    assert weft.randint_like(x, 2, dtype="bool").dtype == weft.bool
    assert weft.bernoulli(x).dtype == weft.float64
    assert weft.multinomial(weft.ones([3, 4]), 2).shape == [3, 2]
    weft.set_default_dtype("float64")
    assert weft.rand([1]).dtype == weft.float64 and weft.normal(0.0, 1.0, [1]).dtype == \
        weft.float64


def test_results_are_leaves_that_stop_gradient():
    for f in SAMPLERS.values():
        t = f()
        assert t.stop_gradient and t.is_leaf


def test_inplace_fill_rules():
    p = weft.to_tensor([1.0, 2.0], stop_gradient=False)
    with pytest.raises(ValueError, match="Leaf"):
        p.uniform_()
    with weft.no_grad():
        p.normal_()
    y = p * 2
    v = y._version[0]
    assert y.exponential_() is y and y._version[0] == v + 1
    (g,) = weft.grad(y.sum(), p)
    np.testing.assert_array_equal(g.numpy(), [0.0, 0.0])
    with pytest.raises(TypeError, match="floating"):
        weft.zeros([2], dtype="int64").uniform_()
    assert weft.zeros([3], dtype="int32").bernoulli_(1.0).tolist() == [1, 1, 1]
    with pytest.raises(TypeError, match="Tensor"):
        weft.exponential_(np.zeros(3))


# -- errors ---------------------------------------------------------------------------

@pytest.mark.parametrize("call,exc,match", [
    (lambda: weft.rand([2, -1]), ValueError, "non-negative"),
    (lambda: weft.randn("3"), TypeError, "shape"),
    (lambda: weft.rand([2], dtype="int32"), TypeError, "floating"),
    (lambda: weft.uniform([2], dtype="complex64"), TypeError, "floating"),
    (lambda: weft.randint(5, 5), ValueError, "greater than low"),
    (lambda: weft.randint(0), ValueError, "positive"),
    (lambda: weft.randint(0, 5, dtype="float32"), TypeError, "int32 or int64"),
    (lambda: weft.randint(0, 2 ** 40, dtype="int32"), ValueError, "does not fit"),
    (lambda: weft.randint(0.5, 3), TypeError, "low"),
    (lambda: weft.randint_like(weft.zeros([2]), 3, 1), ValueError, "greater than low"),
    (lambda: weft.randint_like(weft.zeros([2]), 0, 3, dtype="complex64"), TypeError, "dtype"),
    (lambda: weft.randperm(-1), ValueError, "non-negative"),
    (lambda: weft.randperm(3, dtype="bool"), TypeError, "dtype"),
    (lambda: weft.uniform([2], min=1.0, max=0.0), ValueError, "min"),
    (lambda: weft.uniform([2], min=float("nan")), ValueError, "NaN"),
    (lambda: weft.uniform([2], seed=1.5), TypeError, "seed"),
    (lambda: weft.normal(0.0, -1.0, [2]), ValueError, "std"),
    (lambda: weft.normal(0.0, 1.0), TypeError, "shape"),
    (lambda: weft.normal(weft.zeros([2]), weft.to_tensor([1.0, -1.0])), ValueError, "std"),
    (lambda: weft.normal(weft.zeros([2]), weft.ones([3])), ValueError, "broadcast"),
    (lambda: weft.normal("a", 1.0, [2]), TypeError, "mean"),
    (lambda: weft.bernoulli(weft.to_tensor([0.5, 1.5])), ValueError, r"\[0, 1\]"),
    (lambda: weft.bernoulli(weft.to_tensor([float("nan")])), ValueError, "NaN"),
    (lambda: weft.bernoulli(weft.to_tensor([1, 0])), TypeError, "floating"),
    (lambda: weft.bernoulli(weft.zeros([2]), p=2.0), ValueError, "p"),
    (lambda: weft.poisson(weft.to_tensor([-1.0])), ValueError, "non-negative"),
    (lambda: weft.multinomial(weft.to_tensor([1.0, -1.0])), ValueError, "non-negative"),
    (lambda: weft.multinomial(weft.to_tensor([1.0, float("nan")])), ValueError, "NaN"),
    (lambda: weft.multinomial(weft.to_tensor([1.0, 0.0, 2.0]), 3), ValueError,
     "without replacement"),
    (lambda: weft.multinomial(weft.to_tensor([[1.0, 1.0], [0.0, 0.0]])), ValueError,
     "sums to 0"),
    (lambda: weft.multinomial(weft.ones([2, 2, 2])), ValueError, "1-D or 2-D"),
    (lambda: weft.multinomial(weft.ones([3]), 0), ValueError, "positive"),
    (lambda: weft.multinomial(weft.ones([0])), ValueError, "no categories"),
    (lambda: weft.exponential_(weft.zeros([2]), lam=0.0), ValueError, "lam"),
    (lambda: weft.zeros([2]).normal_(std=-2.0), ValueError, "std"),
    (lambda: weft.zeros([2]).bernoulli_(1.5), ValueError, "p"),
])
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


# -- GPU ----------------------------------------------------------------------------

@pytest.mark.skipif(not weft.is_compiled_with_cuda(), reason="needs CuPy and a CUDA device")
def test_gpu_stream_reproducible_and_restorable():
    weft.set_device("gpu")
    weft.seed(10)
    a = weft.rand([1000]).numpy()
    weft.seed(10)
    state = weft.get_rng_state()
    b = weft.rand([1000]).numpy()
    c = weft.randn([7]).numpy()
    np.testing.assert_array_equal(a, b)
    weft.set_rng_state(state)
    np.testing.assert_array_equal(weft.rand([1000]).numpy(), b)
    np.testing.assert_array_equal(weft.randn([7]).numpy(), c)
    assert weft.rand([4]).place.is_gpu
    assert 0.45 < float(weft.rand([N]).numpy().mean()) < 0.55
    m = weft.multinomial(weft.to_tensor([[1.0, 2.0, 3.0]] * 10), 3).numpy()
    assert all(sorted(r) == [0, 1, 2] for r in m)
    assert sorted(weft.randperm(50).numpy().tolist()) == list(range(50))
    x = weft.zeros([100]).exponential_()
    assert x.place.is_gpu and float(x.numpy().min()) >= 0
