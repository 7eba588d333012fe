"""Smoke and argument tests of ``python -m weft.examples.gcn``."""
import re

import numpy as np
import pytest

import weft
from weft.examples import gcn


def test_gcn_smoke_output(capsys):
    acc = gcn.main(["--epochs", "3", "--seeds", "1"])
    out, err = capsys.readouterr()
    assert 0.0 <= acc <= 100.0
    assert out.startswith("cora: 2708 nodes")
    assert re.search(r"^run 0: 3 epochs, test accuracy \d+\.\d\d%$", out, re.M)
    assert re.search(r"^test accuracy: \d+\.\d\d ± \d+\.\d\d % over 1 run\(s\)$", out, re.M)
    assert re.search(r"^time per epoch: \d+\.\d\d ms \(3 epochs\)$", out, re.M)
    assert re.search(r"^total time: \d+\.\d\d s$", out, re.M)
    # stderr is not a terminal here: one summary line per run, no redraws
    assert "\r" not in err
    assert re.fullmatch(r"run 0 \[.*\] epoch 3/3  train loss \d+\.\d{4}  val acc "
                        r"\d+\.\d\d%  test acc \d+\.\d\d%\n", err)


@pytest.mark.parametrize("argv, flag, msg", [
    (["--epochs", "0"], "--epochs", "positive integer"),
    (["--seeds", "-2"], "--seeds", "positive integer"),
    (["--hidden", "abc"], "--hidden", "positive integer"),
    (["--lr", "0"], "--lr", "> 0"),
    (["--lr", "nan"], "--lr", "finite"),
    (["--weight-decay=-1e-4"], "--weight-decay", ">= 0"),
    (["--dropout", "1"], "--dropout", r"\[0, 1\)"),
    (["--dropout", "-0.1"], "--dropout", r"\[0, 1\)"),
    (["--dataset", "pubmed"], "--dataset", "invalid choice"),
])
def test_gcn_flag_validation(capsys, argv, flag, msg):
    with pytest.raises(SystemExit) as e:
        gcn.main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {flag}" in err
    assert re.search(msg, err)


def test_row_normalize_and_sparse_dropout():
    x = weft.sparse.sparse_csr_tensor([0, 2, 2, 3], [0, 2, 1], [1.0, 3.0, 2.0], [3, 3])
    n = gcn.row_normalize(x)
    np.testing.assert_allclose(n.to_dense().numpy(),
                               [[0.25, 0, 0.75], [0, 0, 0], [0, 1, 0]], rtol=1e-6)
    weft.seed(0)
    d = gcn.sparse_dropout(n, 0.5, training=True)
    assert d.is_sparse_csr() and d.nnz() == n.nnz()
    kept = d.values().numpy() != 0
    np.testing.assert_allclose(d.values().numpy()[kept], 2 * n.values().numpy()[kept])
    assert gcn.sparse_dropout(n, 0.5, training=False) is n
