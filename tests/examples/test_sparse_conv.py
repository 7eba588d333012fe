"""Smoke, learning and argument tests of ``python -m weft.examples.sparse_conv``
(``--quick``: a few seconds; the default run takes about a minute)."""
import re

import numpy as np
import pytest

from weft.examples import sparse_conv


def test_quick_run_output_and_learning(capsys):
    out = sparse_conv.main(["--quick"])
    text, err = capsys.readouterr()
    assert re.match(r"voxel shapes: 128 fresh train samples per epoch / 64 test samples of "
                    r"sphere, cube, cylinder, torus in a 16\^3 grid; \d+ active voxels per sample "
                    r"on average \(\d+\.\d % occupancy\)", text)
    epochs = re.findall(r"^epoch (\d): train loss (\d+\.\d{4}), test accuracy (\d+\.\d\d)%$",
                        text, re.M)
    assert [e[0] for e in epochs] == ["1", "2", "3", "4"]
    assert re.search(r"^test accuracy: \d+\.\d\d% \(64 test samples; chance 25\.0%\)$", text, re.M)
    hist = out["history"]
    # four epochs of 4 batches: the loss falls well below its start (the test accuracy
    # needs the batch-norm statistics of the longer default run)
    assert hist[-1]["loss"] < 0.6 * hist[0]["loss"]
    assert 0.0 <= out["test_acc"] <= 1.0
    assert "\r" not in err and re.search(r"^train \[#+\] epoch 4/4", err, re.M)


def test_shapes_are_balanced_surfaces_inside_the_grid():
    rng = np.random.default_rng(0)
    sites, labels = sparse_conv.make_shapes(40, 16, rng)
    assert np.bincount(labels).tolist() == [10, 10, 10, 10]
    for s in sites:
        assert s.shape[0] == 3 and s.min() >= 0 and s.max() < 16
        assert len({tuple(c) for c in s.T}) == s.shape[1]        # duplicate-free
        assert 0.01 < s.shape[1] / 16 ** 3 < 0.2                   # a surface, not a solid
    x, y = sparse_conv.batch(sites[:3], labels[:3], 16)
    assert x.shape == [3, 16, 16, 16, 1] and x.nnz() == sum(s.shape[1] for s in sites[:3])
    assert y.tolist() == labels[:3].tolist()


@pytest.mark.parametrize("argv, flag, msg", [
    (["--grid", "8"], "--grid", "at least 12"),
    (["--epochs", "0"], "--epochs", "positive integer"),
    (["--lr", "-1"], "--lr", "number > 0"),
    (["--seed", "x"], "--seed", "integer >= 0"),
])
def test_flag_validation(capsys, argv, flag, msg):
    with pytest.raises(SystemExit) as e:
        sparse_conv.main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {flag}" in err and re.search(msg, err)
