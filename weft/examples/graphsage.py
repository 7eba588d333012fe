"""Train GraphSAGE (Hamilton et al., 2017) with neighbour sampling on a large random
graph, and full-batch on Cora.

    python -m weft.examples.graphsage [--dataset both|synthetic|cora]
        [--nodes 200000] [--edges 4000000] [--features 8] [--classes 8]
        [--batch-size 1024] [--fanout 25,10] [--epochs 5] [--steps-per-epoch 20]
        [--eval-nodes 4096] [--hidden 64] [--lr 0.01] [--seed 0]
        [--cora-epochs 200] [--dropout 0.5]

Mini-batch run (``synthetic``): a :func:`weft.datasets.synthetic_graph` (power-law
degrees, 80 % of edges inside a class, features = class centroid + noise) in CSC form.
Each step takes ``--batch-size`` training nodes (the seeds), samples up to 25 of
their in-neighbours with :func:`weft.geometric.sample_neighbors`, numbers the nodes
of the block with :func:`weft.geometric.reindex_graph`, and repeats from the block's
nodes with 10 neighbours; two SAGEConv layers (mean aggregation) then run from the
outer block inward (each layer maps a block's nodes to the nodes one hop closer to
the seeds), and cross-entropy on the seeds is minimised with Adam. An epoch is
bounded to ``--steps-per-epoch`` batches, so the default run takes a few minutes on
two cores; ``--steps-per-epoch 0`` sweeps all training nodes. Each epoch prints the
train loss, the accuracy on a fixed set of held-out (validation) nodes, evaluated
with the same sampling, the seeds per second (sampling included) and the mean sizes
of the sampled blocks.

Full-batch run (``cora``): a two-layer GraphSAGE (mean, 16 hidden units unless
``--hidden`` is given, dropout, weight decay 5e-4) on the whole Cora graph with the
standard split; prints the test accuracy of the epoch with the best validation
accuracy.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import weft
from weft.geometric import reindex_graph, sample_neighbors
from weft.geometric.nn import SAGEConv
from weft.nn import functional as F

from ._common import (Progress, nonnegative_float, nonnegative_int, positive_float,
                      positive_int, probability)
from .gcn import row_normalize, sparse_dropout


def _fanout(text):
    parts = text.split(",")
    try:
        sizes = [int(s) for s in parts]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated positive integers such as 25,10, got {text!r}")
    return sizes


def build_parser():
    p = argparse.ArgumentParser(prog="python -m weft.examples.graphsage",
                                description=__doc__.splitlines()[0])
    a = p.add_argument
    a("--dataset", choices=("both", "synthetic", "cora"), default="both",
      help="mini-batch run on the synthetic graph, full-batch run on Cora, or both "
           "(default)")
    a("--nodes", type=positive_int, default=200_000, help="synthetic nodes (default 200000)")
    a("--edges", type=nonnegative_int, default=4_000_000,
      help="synthetic edges (default 4000000)")
    a("--features", type=positive_int, default=8, help="synthetic features (default 8)")
    a("--classes", type=positive_int, default=8, help="synthetic classes (default 8)")
    a("--batch-size", type=positive_int, default=1024, help="seeds per batch (default 1024)")
    a("--fanout", type=_fanout, default=[25, 10],
      help="neighbours sampled per hop, seeds outward (default 25,10)")
    a("--epochs", type=positive_int, default=5, help="mini-batch epochs (default 5)")
    a("--steps-per-epoch", type=nonnegative_int, default=20,
      help="batches per epoch, 0 = all training nodes (default 20)")
    a("--eval-nodes", type=positive_int, default=4096,
      help="held-out nodes scored after each epoch (default 4096)")
    a("--hidden", type=positive_int, default=None,
      help="hidden units (default 64 mini-batch, 16 on Cora)")
    a("--lr", type=positive_float, default=0.01, help="Adam learning rate (default 0.01)")
    a("--seed", type=nonnegative_int, default=0, help="random seed (default 0)")
    a("--cora-epochs", type=positive_int, default=200, help="Cora epochs (default 200)")
    a("--dropout", type=probability, default=0.5,
      help="dropout on Cora, in [0, 1) (default 0.5)")
    a("--weight-decay", type=nonnegative_float, default=5e-4,
      help="L2 weight decay on Cora (default 5e-4)")
    return p


def parse_args(argv=None):
    p = build_parser()
    args = p.parse_args(argv)
    n = args.nodes
    if args.dataset != "cora" and args.edges > n * (n - 1):
        p.error(f"argument --edges: at most nodes * (nodes - 1) = {n * (n - 1)} distinct "
                f"edges fit in {n} nodes, got {args.edges}")
    if args.dataset != "cora" and args.classes > n:
        p.error(f"argument --classes: expected at most --nodes = {n}, got {args.classes}")
    return args


# ---------------------------------------------------------------------------------
# model

class GraphSAGE(weft.nn.Layer):
    """SAGEConv (mean) layers with ReLU (and dropout) between them.

    ``forward(x, edge_index)`` runs full-batch; ``forward_blocks(x, blocks)`` runs
    on sampled blocks from :func:`sample_blocks` (``x``: features of the outermost
    block's nodes)."""

    def __init__(self, sizes, dropout=0.0):
        super().__init__()
        self.convs = weft.nn.LayerList(
            [SAGEConv(a, b, aggr="mean") for a, b in zip(sizes[:-1], sizes[1:])])
        self.p = dropout

    def _between(self, h):
        h = F.relu(h)
        return F.dropout(h, self.p, training=self.training) if self.p else h

    def forward(self, x, edge_index):
        for i, conv in enumerate(self.convs):
            x = conv(x, edge_index)
            if i + 1 < len(self.convs):
                x = self._between(x)
        return x

    def forward_blocks(self, x, blocks):
        for i, (conv, (edge_index, n_dst)) in enumerate(zip(self.convs, blocks)):
            # the block's first n_dst nodes are the next block's nodes (reindex_graph
            # lists its input nodes first), so their features are a prefix of x
            x = conv((x, x[:n_dst]), edge_index)
            if i + 1 < len(self.convs):
                x = self._between(x)
        return x


def sample_blocks(row, colptr, seeds, fanout, sampler=None):
    """Multi-hop neighbour sampling from ``seeds``.

    ``sampler(nodes, k)``, when given, replaces
    ``sample_neighbors(row, colptr, nodes, sample_size=k)`` (for instance a
    :class:`weft.geometric.distributed.DistGraph`'s ``sample_neighbors``).

    Returns ``(nodes, blocks, sizes)``: ``nodes`` the global ids of every sampled node
    (seeds first), ``blocks`` a list of ``(edge_index, n_dst)`` ordered from the
    outermost hop inward (edge ids local to the block, destinations among its first
    ``n_dst`` nodes), ``sizes`` the ``(nodes, edges)`` count of each hop, seeds
    outward.

    >>> import weft
    >>> from weft.examples.graphsage import sample_blocks
    >>> g = weft.datasets.synthetic_graph(50, 300, 4, 2, seed=0)
    >>> nodes, blocks, sizes = sample_blocks(g.row, g.colptr, weft.to_tensor([0, 1]), [3, 2])
    >>> len(blocks), blocks[-1][1], blocks[0][1] == sizes[0][0], nodes.shape[0] == sizes[1][0]
    (2, 2, True, True)
    """
    nodes = seeds
    blocks, sizes = [], []
    if sampler is None:
        def sampler(nodes, k):
            return sample_neighbors(row, colptr, nodes, sample_size=k)
    for k in fanout:
        nbrs, count = sampler(nodes, k)
        src, dst, out = reindex_graph(nodes, nbrs, count)
        blocks.append((weft.stack([src, dst]), int(nodes.shape[0])))
        sizes.append((int(out.shape[0]), int(src.shape[0])))
        nodes = out
    return nodes, blocks[::-1], sizes


def _accuracy(logits, y):
    return float((logits.argmax(axis=-1) == y).astype("float32").mean().item())


# ---------------------------------------------------------------------------------
# mini-batch training on the synthetic graph

def _evaluate(model, g, nodes, args):
    """Accuracy on ``nodes`` (numpy ids), predicted batch by batch with sampling."""
    model.eval()
    hits = 0
    with weft.no_grad():
        for i in range(0, len(nodes), args.batch_size):
            seeds = weft.to_tensor(nodes[i:i + args.batch_size])
            sampled, blocks, _ = sample_blocks(g.row, g.colptr, seeds, args.fanout)
            logits = model.forward_blocks(g.x[sampled], blocks)
            hits += int((logits.argmax(axis=-1) == g.y[seeds]).astype("int64").sum().item())
    return hits / len(nodes)


def run_minibatch(args):
    """The sampled mini-batch run; returns a dict of per-epoch results."""
    t0 = time.perf_counter()
    g = weft.datasets.synthetic_graph(args.nodes, args.edges, args.features, args.classes,
                                      seed=args.seed)
    print(f"synthetic: {g.num_nodes} nodes, {g.num_edges} edges, {g.num_features} "
          f"features, {g.num_classes} classes (generated in {time.perf_counter() - t0:.1f} s)")
    weft.seed(args.seed)
    rng = np.random.default_rng(args.seed)
    hidden = args.hidden or 64
    model = GraphSAGE([g.num_features] + [hidden] * (len(args.fanout) - 1) + [g.num_classes])
    opt = weft.optimizer.Adam(learning_rate=args.lr, parameters=model.parameters())
    train = g.train_index.numpy()
    held_out = rng.permutation(g.val_index.numpy())[:args.eval_nodes]
    full = -(-len(train) // args.batch_size)
    steps = full if args.steps_per_epoch == 0 else min(args.steps_per_epoch, full)
    fan = ",".join(map(str, args.fanout))
    print(f"mini-batch GraphSAGE: fanout {fan}, batch {args.batch_size}, hidden {hidden}, "
          f"Adam lr {args.lr:g}; {steps} of {full} batches per epoch"
          + ("" if steps == full else " (bounded by --steps-per-epoch; 0 = all)")
          + f"; accuracy on {len(held_out)} held-out nodes")
    history = []
    for epoch in range(1, args.epochs + 1):
        model.train()
        perm = rng.permutation(train)
        bar = Progress(f"epoch {epoch}", steps, unit="step")
        losses, seen = [], 0
        sizes = np.zeros((len(args.fanout), 2))
        t_epoch = time.perf_counter()
        for step in range(steps):
            seeds = weft.to_tensor(perm[step * args.batch_size:(step + 1) * args.batch_size])
            sampled, blocks, hop = sample_blocks(g.row, g.colptr, seeds, args.fanout)
            loss = F.cross_entropy(model.forward_blocks(g.x[sampled], blocks), g.y[seeds])
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(loss.item())
            sizes += hop
            seen += int(seeds.shape[0])
            bar.update(step + 1, f"train loss {losses[-1]:.4f}")
        rate = seen / (time.perf_counter() - t_epoch)
        acc = _evaluate(model, g, held_out, args)
        bar.close(f"held-out acc {100 * acc:.2f}%")
        sizes /= steps
        hops = ", ".join(f"hop {h + 1}: {n:,.0f} nodes / {e:,.0f} edges"
                         for h, (n, e) in enumerate(sizes))
        print(f"epoch {epoch}: train loss {np.mean(losses):.4f}, held-out acc "
              f"{100 * acc:.2f}%, {rate:,.0f} seeds/s; mean sampled sizes {hops}")
        history.append(dict(loss=float(np.mean(losses)), acc=acc, seeds_per_s=rate,
                            sizes=sizes.tolist()))
    test = rng.permutation(g.test_index.numpy())[:args.eval_nodes]
    test_acc = _evaluate(model, g, test, args)
    print(f"synthetic test accuracy: {100 * test_acc:.2f}% ({len(test)} test nodes; "
          f"chance {100 / g.num_classes:.1f}%)")
    return dict(history=history, test_acc=test_acc)


# ---------------------------------------------------------------------------------
# full-batch training on Cora

def run_cora(args):
    """Full-batch GraphSAGE on Cora; returns the test accuracy at the best epoch."""
    data = weft.datasets.Planetoid("cora")
    x = row_normalize(data.x)
    weft.seed(args.seed)
    hidden = args.hidden or 16
    model = GraphSAGE([data.num_features, hidden, data.num_classes], dropout=args.dropout)
    first = list(model.convs[0].parameters())
    rest = [q for q in model.parameters() if all(q is not f for f in first)]
    opt = weft.optimizer.Adam(learning_rate=args.lr, parameters=[
        {"params": first, "weight_decay": args.weight_decay},
        {"params": rest, "weight_decay": 0.0}])
    y, ei = data.y, data.edge_index
    tr, va, te = data.train_index, data.val_index, data.test_index
    print(f"cora: full-batch GraphSAGE (mean), hidden {hidden}, dropout {args.dropout:g}, "
          f"{args.cora_epochs} epochs; test accuracy at the best validation accuracy")
    bar = Progress("cora", args.cora_epochs)
    best = (-1.0, 0, 0.0)    # (val acc, epoch, test acc)
    t0 = time.perf_counter()
    for epoch in range(1, args.cora_epochs + 1):
        model.train()
        loss = F.cross_entropy(model(sparse_dropout(x, args.dropout, True), ei)[tr], y[tr])
        loss.backward()
        opt.step()
        opt.clear_grad()
        model.eval()
        with weft.no_grad():
            logits = model(x, ei)
            val_acc = _accuracy(logits[va], y[va])
            if val_acc > best[0]:
                best = (val_acc, epoch, _accuracy(logits[te], y[te]))
        bar.update(epoch, f"train loss {loss.item():.4f}  val acc {100 * val_acc:.2f}%")
    per_epoch = (time.perf_counter() - t0) / args.cora_epochs
    bar.close()
    print(f"cora test accuracy: {100 * best[2]:.2f}% (epoch {best[1]}, val acc "
          f"{100 * best[0]:.2f}%); {1e3 * per_epoch:.2f} ms per epoch")
    return best[2]


def main(argv=None):
    args = parse_args(argv)
    t0 = time.perf_counter()
    out = {}
    if args.dataset in ("both", "synthetic"):
        out["synthetic"] = run_minibatch(args)
    if args.dataset in ("both", "cora"):
        out["cora_test_acc"] = run_cora(args)
    print(f"total time: {time.perf_counter() - t0:.2f} s")
    return out


if __name__ == "__main__":
    main()
