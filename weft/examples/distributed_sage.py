"""Train GraphSAGE with neighbour sampling on a partitioned graph served by Dask
workers, and check it against the same training on one machine.

    python -m weft.examples.distributed_sage [--scheduler ADDRESS] [--workers 2]
        [--parts N] [--method bfs|hash|range] [--dir PATH] [--nodes 50000]
        [--edges 500000] [--features 8] [--classes 8] [--batch-size 512]
        [--fanout 10,5] [--epochs 3] [--steps-per-epoch 10] [--eval-nodes 2048]
        [--hidden 64] [--lr 0.01] [--seed 0] [--quick]

A :func:`weft.datasets.synthetic_graph` is partitioned with
:func:`weft.geometric.distributed.partition_graph` (features stored with their
owners) into ``--dir`` (default: a temporary directory, which must be readable by
every worker: on a real cluster pass a shared path), and served by a
:class:`~weft.geometric.distributed.DistGraph` on a ``LocalCluster`` of
``--workers`` worker processes, or on the cluster at ``--scheduler``.

Both runs train the same two-layer GraphSAGE (mean) with Adam from the same
``weft.seed``: each step samples ``--fanout`` in-neighbours per hop from a batch of
training nodes and re-indexes the blocks (as ``python -m weft.examples.graphsage``
does); the single-machine run samples the whole graph with
:func:`weft.geometric.sample_neighbors` and indexes its feature matrix, the
distributed run sends each hop to the workers owning the nodes
(``DistGraph.sample_neighbors``) and gathers features with
``DistGraph.fetch_features``.  The distributed sampler returns exactly what the
single-machine one does, so both runs see the same batches and reach the same
test accuracy; both are printed, with the seeds per second of each.
``--quick`` shrinks everything to a few seconds (used by the tests).
"""
from __future__ import annotations

import argparse
import shutil
import tempfile
import time

import numpy as np

import weft
from weft.nn import functional as F

from ._common import Progress, positive_float, nonnegative_int, positive_int
from .graphsage import GraphSAGE, _fanout, sample_blocks

QUICK = dict(nodes=3000, edges=30000, batch_size=128, epochs=1, steps_per_epoch=4,
             eval_nodes=256, hidden=16, fanout=[5, 3])


def build_parser():
    p = argparse.ArgumentParser(prog="python -m weft.examples.distributed_sage",
                                description=__doc__.splitlines()[0])
    a = p.add_argument
    a("--scheduler", default=None,
      help="address of a running Dask scheduler (default: start a LocalCluster)")
    a("--workers", type=positive_int, default=2,
      help="worker processes of the LocalCluster (default 2)")
    a("--parts", type=positive_int, default=None, help="parts (default: one per worker)")
    a("--method", choices=("bfs", "hash", "range"), default="bfs",
      help="partitioning method (default bfs)")
    a("--dir", default=None, help="where to write the parts (default: a temporary directory)")
    a("--nodes", type=positive_int, default=50_000, help="synthetic nodes (default 50000)")
    a("--edges", type=nonnegative_int, default=500_000, help="synthetic edges (default 500000)")
    a("--features", type=positive_int, default=8, help="synthetic features (default 8)")
    a("--classes", type=positive_int, default=8, help="synthetic classes (default 8)")
    a("--batch-size", type=positive_int, default=512, help="seeds per batch (default 512)")
    a("--fanout", type=_fanout, default=[10, 5],
      help="neighbours sampled per hop, seeds outward (default 10,5)")
    a("--epochs", type=positive_int, default=3, help="epochs (default 3)")
    a("--steps-per-epoch", type=positive_int, default=10, help="batches per epoch (default 10)")
    a("--eval-nodes", type=positive_int, default=2048,
      help="test nodes scored at the end (default 2048)")
    a("--hidden", type=positive_int, default=64, help="hidden units (default 64)")
    a("--lr", type=positive_float, default=0.01, help="Adam learning rate (default 0.01)")
    a("--seed", type=nonnegative_int, default=0, help="random seed (default 0)")
    a("--timeout", type=positive_float, default=300.0,
      help="seconds any distributed call may wait (default 300)")
    a("--quick", action="store_true", help="a tiny run of a few seconds")
    return p


def parse_args(argv=None):
    p = build_parser()
    args = p.parse_args(argv)
    if args.quick:
        for k, v in QUICK.items():
            setattr(args, k, v)
    n = args.nodes
    if args.edges > n * (n - 1):
        p.error(f"argument --edges: at most nodes * (nodes - 1) = {n * (n - 1)} distinct "
                f"edges fit in {n} nodes, got {args.edges}")
    if args.classes > n:
        p.error(f"argument --classes: expected at most --nodes = {n}, got {args.classes}")
    if args.parts is not None and args.parts > n:
        p.error(f"argument --parts: expected at most --nodes = {n}, got {args.parts}")
    return args


def train(args, g, sampler, features, label):
    """Train from ``weft.seed(args.seed)``; ``sampler(nodes, k)`` samples one hop and
    ``features(ids)`` returns node features.  Returns (test accuracy, seeds/s)."""
    weft.seed(args.seed)
    rng = np.random.default_rng(args.seed)
    model = GraphSAGE([g.num_features] + [args.hidden] * (len(args.fanout) - 1)
                      + [g.num_classes])
    opt = weft.optimizer.Adam(learning_rate=args.lr, parameters=model.parameters())
    train_ids = g.train_index.numpy()
    steps = min(args.steps_per_epoch, -(-len(train_ids) // args.batch_size))
    seen, t0 = 0, time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        model.train()
        perm = rng.permutation(train_ids)
        bar = Progress(f"{label} epoch {epoch}", steps, unit="step")
        for step in range(steps):
            seeds = weft.to_tensor(perm[step * args.batch_size:(step + 1) * args.batch_size])
            sampled, blocks, _ = sample_blocks(None, None, seeds, args.fanout, sampler=sampler)
            loss = F.cross_entropy(model.forward_blocks(features(sampled), blocks), g.y[seeds])
            loss.backward()
            opt.step()
            opt.clear_grad()
            seen += int(seeds.shape[0])
            bar.update(step + 1, f"train loss {loss.item():.4f}")
        bar.close()
    rate = seen / (time.perf_counter() - t0)
    model.eval()
    test = rng.permutation(g.test_index.numpy())[:args.eval_nodes]
    hits = 0
    with weft.no_grad():
        for i in range(0, len(test), args.batch_size):
            seeds = weft.to_tensor(test[i:i + args.batch_size])
            sampled, blocks, _ = sample_blocks(None, None, seeds, args.fanout, sampler=sampler)
            logits = model.forward_blocks(features(sampled), blocks)
            hits += int((logits.argmax(axis=-1) == g.y[seeds]).astype("int64").sum().item())
    return hits / len(test), rate


def _client(args):
    from dask.distributed import Client, LocalCluster  # noqa: PLC0415 (optional dependency)

    if args.scheduler:
        return Client(args.scheduler, timeout=args.timeout), None
    cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                           dashboard_address=":0")
    return Client(cluster), cluster


def main(argv=None, client=None):
    """Run both trainings; ``client`` (a dask Client) replaces the one the arguments
    describe.  Returns a dict with both accuracies and rates."""
    from weft.geometric.distributed import DistGraph, partition_graph  # noqa: PLC0415

    args = parse_args(argv)
    t0 = time.perf_counter()
    g = weft.datasets.synthetic_graph(args.nodes, args.edges, args.features, args.classes,
                                      seed=args.seed)
    print(f"synthetic: {g.num_nodes} nodes, {g.num_edges} edges, {g.num_features} features, "
          f"{g.num_classes} classes")
    cluster = None
    if client is None:
        client, cluster = _client(args)
    workers = len(client.nthreads())
    parts = args.parts or max(workers, 1)
    path = args.dir or tempfile.mkdtemp(prefix="weft-parts-")
    try:
        info = partition_graph((g.row, g.colptr), None, parts, path, method=args.method,
                               features=g.x, overwrite=True)
        print(f"partitioned into {parts} parts ({args.method}) in {path}: edge cut "
              f"{100 * info.edge_cut:.1f}% of the edges; {workers} workers"
              + (f" at {args.scheduler}" if args.scheduler else " (LocalCluster)"))
        fan = ",".join(map(str, args.fanout))
        print(f"GraphSAGE: fanout {fan}, batch {args.batch_size}, hidden {args.hidden}, "
              f"{args.epochs} epochs of {args.steps_per_epoch} steps, Adam lr {args.lr:g}")
        acc1, rate1 = train(args, g,
                            lambda nodes, k: weft.geometric.sample_neighbors(
                                g.row, g.colptr, nodes, sample_size=k),
                            lambda ids: g.x[ids], "single")
        with DistGraph(client, path, timeout=args.timeout) as dg:
            acc2, rate2 = train(args, g, dg.sample_neighbors, dg.fetch_features, "distributed")
            stats = dg.stats
    finally:
        if args.dir is None:
            shutil.rmtree(path, ignore_errors=True)
        if cluster is not None:
            client.close()
            cluster.close()
    print(f"single-machine test accuracy: {100 * acc1:.2f}% ({rate1:,.0f} seeds/s)")
    print(f"distributed test accuracy:    {100 * acc2:.2f}% ({rate2:,.0f} seeds/s; "
          f"{stats['tasks']} tasks, {stats['bytes_sent'] + stats['bytes_received']:,} bytes "
          f"of arrays moved)")
    print("identical" if acc1 == acc2 else "DIFFERENT", f"(chance {100 / g.num_classes:.1f}%); "
          f"total time {time.perf_counter() - t0:.1f} s")
    return dict(single_acc=acc1, distributed_acc=acc2, single_rate=rate1,
                distributed_rate=rate2, edge_cut=info.edge_cut, stats=stats)


if __name__ == "__main__":
    main()
