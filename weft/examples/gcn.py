"""Train the two-layer GCN of Kipf & Welling (ICLR 2017) on a Planetoid citation graph.

    python -m weft.examples.gcn [--dataset cora|citeseer] [--seeds 10] [--epochs 200]
                                [--hidden 16] [--lr 0.01] [--weight-decay 5e-4]
                                [--dropout 0.5]

The setup of the paper: row-normalised sparse bag-of-words features, GCNConv (Glorot
weights) -> ReLU -> GCNConv, dropout on the input features and on the hidden layer,
Adam with L2 weight decay on the first layer only, at most ``--epochs`` epochs with
early stopping once the validation loss exceeds the mean of the previous 10 epochs'
(the rule of the original code), test accuracy of the last model. Each run ``i`` uses
``weft.seed(i)``; the script prints the mean and standard deviation of the test
accuracy over the runs, the time per epoch and the total time.

Dropout on the sparse input drops stored values only (a zero stays zero whether it is
dropped or not), so it is applied to ``x.values()`` and the CSR tensor is rebuilt with
the same pattern: the same distribution as dense dropout, at the cost of the nonzeros.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import weft
from weft.geometric.nn import GCNConv
from weft.nn import functional as F

from ._common import (Progress, nonnegative_float, positive_float, positive_int,
                      probability)

_EARLY_STOP_WINDOW = 10


def build_parser():
    p = argparse.ArgumentParser(prog="python -m weft.examples.gcn",
                                description=__doc__.splitlines()[0])
    p.add_argument("--dataset", choices=("cora", "citeseer"), default="cora",
                   help="Planetoid graph (default cora)")
    p.add_argument("--epochs", type=positive_int, default=200,
                   help="maximum epochs per run (default 200)")
    p.add_argument("--seeds", type=positive_int, default=10,
                   help="number of runs, with seeds 0..n-1 (default 10)")
    p.add_argument("--hidden", type=positive_int, default=16, help="hidden units (default 16)")
    p.add_argument("--lr", type=positive_float, default=0.01,
                   help="Adam learning rate (default 0.01)")
    p.add_argument("--weight-decay", type=nonnegative_float, default=5e-4,
                   help="L2 weight decay of the first layer (default 5e-4)")
    p.add_argument("--dropout", type=probability, default=0.5,
                   help="dropout probability in [0, 1) (default 0.5)")
    return p


# ---------------------------------------------------------------------------------
# data and model

def row_normalize(x):
    """The CSR tensor ``x`` with each row divided by its sum (empty rows stay zero).

    >>> import weft
    >>> from weft.examples.gcn import row_normalize
    >>> x = weft.sparse.sparse_csr_tensor([0, 2, 2], [0, 1], [1.0, 3.0], [2, 2])
    >>> row_normalize(x).to_dense().tolist()
    [[0.25, 0.75], [0.0, 0.0]]
    """
    crows = x.crows().numpy()
    cols = x.cols().numpy()
    vals = x.values().numpy().astype(np.float64)
    counts = np.diff(crows)
    rows = np.repeat(np.arange(len(counts)), counts)
    sums = np.bincount(rows, weights=vals, minlength=len(counts))
    inv = np.zeros_like(sums)
    inv[sums != 0] = 1.0 / sums[sums != 0]
    vals = (vals * np.repeat(inv, counts)).astype(np.float32)
    return weft.sparse.sparse_csr_tensor(crows, cols, vals, x.shape)


def sparse_dropout(x, p, training):
    """Dropout of the stored values of the CSR tensor ``x`` (see the module docstring)."""
    if not training or p == 0:
        return x
    v = F.dropout(x.values(), p, training=True)
    return weft.sparse.sparse_csr_tensor(x.crows(), x.cols(), v, x.shape)


class GCN(weft.nn.Layer):
    """GCNConv -> ReLU -> GCNConv with dropout before each convolution."""

    def __init__(self, in_features, hidden, classes, dropout):
        super().__init__()
        # cached: the normalised edge weights of the one training graph are reused
        self.conv1 = GCNConv(in_features, hidden, cached=True)
        self.conv2 = GCNConv(hidden, classes, cached=True)
        self.p = dropout

    def forward(self, x, edge_index):
        x = sparse_dropout(x, self.p, self.training)
        h = F.relu(self.conv1(x, edge_index))
        h = F.dropout(h, self.p, training=self.training)
        return self.conv2(h, edge_index)


# ---------------------------------------------------------------------------------
# training

def _accuracy(logits, y, index):
    pred = logits[index].argmax(axis=-1)
    return float((pred == y[index]).astype("float32").mean().item())


def run(data, x, seed, args):
    """Train one model from ``weft.seed(seed)``; returns (test accuracy, epochs run)."""
    weft.seed(seed)
    model = GCN(data.num_features, args.hidden, data.num_classes, args.dropout)
    decayed = [model.conv1.weight]
    rest = [q for q in model.parameters() if q is not model.conv1.weight]
    # Paddle's L2Decay(c) adds c * w to the gradient, the gradient of the paper's
    # c/2 * ||w||^2 term
    opt = weft.optimizer.Adam(learning_rate=args.lr, parameters=[
        {"params": decayed, "weight_decay": args.weight_decay},
        {"params": rest, "weight_decay": 0.0}])
    y, ei = data.y, data.edge_index
    tr, va, te = data.train_index, data.val_index, data.test_index
    bar = Progress(f"run {seed}", args.epochs)
    val_losses = []
    epoch = 0
    for epoch in range(1, args.epochs + 1):
        model.train()
        loss = F.cross_entropy(model(x, ei)[tr], y[tr])
        loss.backward()
        opt.step()
        opt.clear_grad()
        model.eval()
        with weft.no_grad():
            logits = model(x, ei)
            w = model.conv1.weight
            # the original code's validation cost includes the weight decay term
            val_loss = (F.cross_entropy(logits[va], y[va]).item()
                        + 0.5 * args.weight_decay * float((w * w).sum().item()))
            val_acc = _accuracy(logits, y, va)
        bar.update(epoch, f"train loss {loss.item():.4f}  val acc {100 * val_acc:.2f}%")
        val_losses.append(val_loss)
        if (epoch > _EARLY_STOP_WINDOW
                and val_loss > np.mean(val_losses[-_EARLY_STOP_WINDOW - 1:-1])):
            break
    model.eval()
    with weft.no_grad():
        test_acc = _accuracy(model(x, ei), y, te)
    bar.close(f"test acc {100 * test_acc:.2f}%")
    return test_acc, epoch


def main(argv=None):
    args = build_parser().parse_args(argv)
    t0 = time.perf_counter()
    data = weft.datasets.Planetoid(args.dataset)
    x = row_normalize(data.x)
    print(f"{args.dataset}: {data.num_nodes} nodes, {data.num_edges} edges, "
          f"{data.num_features} features, {data.num_classes} classes; "
          f"{args.seeds} run(s) of at most {args.epochs} epochs")
    accs, epochs = [], 0
    t_train = time.perf_counter()
    for seed in range(args.seeds):
        acc, n = run(data, x, seed, args)
        accs.append(acc)
        epochs += n
        print(f"run {seed}: {n} epochs, test accuracy {100 * acc:.2f}%")
    train_time = time.perf_counter() - t_train
    accs = 100 * np.asarray(accs)
    print(f"test accuracy: {accs.mean():.2f} ± {accs.std():.2f} % over {args.seeds} run(s)")
    print(f"time per epoch: {1e3 * train_time / epochs:.2f} ms ({epochs} epochs)")
    print(f"total time: {time.perf_counter() - t0:.2f} s")
    return float(accs.mean())


if __name__ == "__main__":
    main()
