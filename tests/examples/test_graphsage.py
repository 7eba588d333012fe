"""Smoke, learning and argument tests of ``python -m weft.examples.graphsage`` on a
tiny graph (the defaults take minutes)."""
import re

import numpy as np
import pytest

import weft
from weft.examples import graphsage

TINY = ["--dataset", "synthetic", "--nodes", "2000", "--edges", "20000", "--features", "4",
        "--classes", "4", "--batch-size", "64", "--epochs", "2", "--steps-per-epoch", "6",
        "--eval-nodes", "256", "--hidden", "16"]


def test_minibatch_output_and_learning(capsys):
    out = graphsage.main(TINY)
    text, err = capsys.readouterr()
    assert text.startswith("synthetic: 2000 nodes, 20000 edges, 4 features, 4 classes")
    assert re.search(r"^mini-batch GraphSAGE: fanout 25,10, batch 64, hidden 16, .*6 of 16 "
                     r"batches per epoch \(bounded by --steps-per-epoch", text, re.M)
    epochs = re.findall(r"^epoch (\d): train loss (\d+\.\d{4}), held-out acc (\d+\.\d\d)%, "
                        r"[\d,]+ seeds/s; mean sampled sizes hop 1: [\d,]+ nodes / [\d,]+ "
                        r"edges, hop 2: [\d,]+ nodes / [\d,]+ edges$", text, re.M)
    assert [e[0] for e in epochs] == ["1", "2"]
    assert re.search(r"^synthetic test accuracy: \d+\.\d\d% \(256 test nodes; chance 25\.0%\)$",
                     text, re.M)
    assert "cora" not in text and re.search(r"^total time: \d+\.\d\d s$", text, re.M)
    # four classes: chance is 25 %; features and neighbours both carry the label
    hist = out["synthetic"]["history"]
    assert hist[-1]["acc"] > 0.6 and out["synthetic"]["test_acc"] > 0.6
    assert hist[-1]["loss"] < hist[0]["loss"]
    for h in hist:
        (n1, e1), (n2, e2) = h["sizes"]
        # hop 1 holds the 64 seeds and at most 25 neighbours each, hop 2 grows from it
        assert 64 <= n1 <= 64 * 26 and e1 <= 64 * 25 and n1 <= n2 <= 2000 and e2 <= n1 * 10
    assert "\r" not in err and len(re.findall(r"^epoch \d \[#+\] step 6/6", err, re.M)) == 2


def test_cora_full_batch(capsys):
    acc = graphsage.main(["--dataset", "cora", "--cora-epochs", "15"])["cora_test_acc"]
    text = capsys.readouterr().out
    assert re.search(r"^cora: full-batch GraphSAGE \(mean\), hidden 16, dropout 0\.5, 15 "
                     r"epochs", text, re.M)
    assert re.search(r"^cora test accuracy: \d+\.\d\d% \(epoch \d+, val acc \d+\.\d\d%\); "
                     r"\d+\.\d\d ms per epoch$", text, re.M)
    assert acc > 1 / 7 + 0.1     # 7 classes; 15 epochs already learn something


def test_sample_blocks_structure():
    g = weft.datasets.synthetic_graph(300, 3000, 4, 3, seed=2)
    seeds = weft.to_tensor(np.array([5, 17, 42, 99]))
    nodes, blocks, sizes = graphsage.sample_blocks(g.row, g.colptr, seeds, [5, 3])
    row, colptr = g.row.numpy(), g.colptr.numpy()
    ids = nodes.numpy()
    np.testing.assert_array_equal(ids[:4], seeds.numpy())
    assert len(np.unique(ids)) == len(ids) == sizes[-1][0]
    # every sampled edge (local ids) is a graph edge src -> dst, and each destination
    # gets min(fanout, in-degree) of them
    for (ei, n_dst), k in zip(blocks, [3, 5]):
        src, dst = ei.numpy()
        assert dst.max() < n_dst and src.max() < len(ids)
        for s, d in zip(ids[src], ids[dst]):
            assert s in row[colptr[d]:colptr[d + 1]]
        deg = np.diff(colptr)[ids[:n_dst]]
        np.testing.assert_array_equal(np.bincount(dst, minlength=n_dst), np.minimum(deg, k))


@pytest.mark.parametrize("argv, flag, msg", [
    (["--fanout", "25,x"], "--fanout", "comma-separated positive integers"),
    (["--fanout", "25,0"], "--fanout", "comma-separated positive integers"),
    (["--batch-size", "0"], "--batch-size", "positive integer"),
    (["--steps-per-epoch", "-1"], "--steps-per-epoch", "integer >= 0"),
    (["--seed", "x"], "--seed", "integer >= 0"),
    (["--nodes", "3", "--edges", "7"], "--edges", r"at most nodes \* \(nodes - 1\) = 6"),
    (["--nodes", "3", "--edges", "2", "--classes", "4"], "--classes", "at most --nodes = 3"),
    (["--lr", "inf"], "--lr", "finite"),
    (["--dropout", "1.5"], "--dropout", r"\[0, 1\)"),
    (["--dataset", "pubmed"], "--dataset", "invalid choice"),
])
def test_flag_validation(capsys, argv, flag, msg):
    with pytest.raises(SystemExit) as e:
        graphsage.main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {flag}" in err and re.search(msg, err)
