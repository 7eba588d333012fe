"""Sharing the process: weft next to PyTorch, and weft on a busy machine.

(a) PyTorch's own speed, in three fresh processes: torch alone, ``import weft``
    before ``import torch``, and ``import weft`` after it.  Timed: a batched
    ``torch.linalg.solve`` (float64, [1024, 32, 32] @ [1024, 32, 4]) and one Adam
    step of a 3-layer MLP (256-256-256-10, batch 512, cross-entropy).  weft must
    leave the threading of libraries that share the process as it found it, so
    the three rows of each case should agree within noise.
(b) weft's own kernels with and without a competing busy loop pinned to one core
    (another process spinning, as on a shared machine): a Cora GCN epoch
    (fwd + bwd + Adam, the model of ``python -m weft.examples.gcn``) and
    ``send_u_recv`` sum fwd + bwd on a power-law graph (2e4 nodes, 2e5 edges,
    64 float32 features), at weft's default thread count.  Idle workers of weft's
    pool sleep instead of spinning, so the busy loop should cost these little.

Each case runs in its own subprocess so that import order and thread state are
exactly as a user's script would have them.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from ._harness import Report

ORDERS = {"torch alone": "alone", "weft, then torch": "weft-first",
          "torch, then weft": "weft-after"}
CASE_SOLVE = "torch linalg.solve f64 [1024,32,32]@[1024,32,4]"
CASE_MLP = "torch MLP step (256-256-256-10, b512, Adam)"
CASE_GCN = "weft GCN epoch, Cora (fwd+bwd+Adam)"
CASE_SEND = "weft send_u_recv sum fwd+bwd (2e4 n, 2e5 E, 64 f32)"

# Runs in a fresh interpreter; argv: order, repeat.  Prints one JSON line.
_TORCH_CHILD = r"""
import json, sys
from benchmarks._harness import timeit  # stdlib only: imports neither torch nor weft
order, repeat = sys.argv[1], int(sys.argv[2])
if order == "weft-first":
    import weft
import torch
if order == "weft-after":
    import weft

def median_time(fn, repeat, number):
    return timeit(fn, repeat=repeat, number=number)

g = torch.Generator().manual_seed(0)
a = torch.randn(1024, 32, 32, dtype=torch.float64, generator=g) + 32 * torch.eye(32, dtype=torch.float64)
b = torch.randn(1024, 32, 4, dtype=torch.float64, generator=g)
solve = median_time(lambda: torch.linalg.solve(a, b), repeat, 5)

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256),
                            torch.nn.ReLU(), torch.nn.Linear(256, 10))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(512, 256, generator=g)
y = torch.randint(0, 10, (512,), generator=g)
def step():
    opt.zero_grad()
    torch.nn.functional.cross_entropy(model(x), y).backward()
    opt.step()
mlp = median_time(step, repeat, 10)
print(json.dumps({"solve": solve, "mlp": mlp, "threads": torch.get_num_threads()}))
"""

# argv: repeat.  Prints one JSON line.
_WEFT_CHILD = r"""
import json, sys
from benchmarks._harness import timeit
import numpy as np
import weft
from benchmarks.gnn import _weft_gcn
repeat = int(sys.argv[1])

def median_time(fn, repeat, number):
    return timeit(fn, repeat=repeat, number=number)

epoch, _ = _weft_gcn(weft.datasets.Planetoid("cora"))
gcn = median_time(epoch, repeat, 5)

rng = np.random.default_rng(0)
n, e, f = 20_000, 200_000, 64
w = 1.0 / np.arange(1, n + 1) ** 0.8
w /= w.sum()
src = weft.to_tensor(rng.choice(n, size=e, p=w).astype(np.int64))
dst = weft.to_tensor(rng.permutation(n)[rng.choice(n, size=e, p=w)].astype(np.int64))
x0 = rng.standard_normal((n, f)).astype(np.float32)
g = weft.to_tensor(rng.standard_normal((n, f)).astype(np.float32))
def send():
    x = weft.to_tensor(x0, stop_gradient=False)
    out = weft.geometric.send_u_recv(x, src, dst, reduce_op="sum")
    return weft.grad(out, [x], grad_outputs=[g])[0].numpy()
sur = median_time(send, repeat, 5)
print(json.dumps({"gcn": gcn, "send": sur, "threads": weft.get_num_threads()}))
"""

# Another process spinning on CPU 0.
_BUSY_LOOP = "import os\nos.sched_setaffinity(0, {0})\nwhile True:\n    pass\n"


def _child(code, *args):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    out = subprocess.run([sys.executable, "-c", code, *map(str, args)], env=env, cwd=root,
                         capture_output=True, text=True, timeout=900)
    if out.returncode != 0:
        raise RuntimeError(f"benchmark child failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench_torch(rep, quick):
    try:
        import torch  # noqa: F401  (only to know whether the peer is installed)
    except Exception:
        rep.note("torch is not installed: the import-order rows are skipped")
        return
    repeat = 3 if quick else 9
    results = {label: [] for label in ORDERS}
    # Rounds of the three processes in turn, so that drifts in machine load hit all.
    for _ in range(1 if quick else 3):
        for label, order in ORDERS.items():
            results[label].append(_child(_TORCH_CHILD, order, repeat))
    # the median process, and every process's median (on a loaded machine torch's
    # spinning OpenMP workers make these swing several-fold between processes)
    for label, runs in results.items():
        for case, key in ((CASE_SOLVE, "solve"), (CASE_MLP, "mlp")):
            rep.add(case, label, sorted(r[key] for r in runs)[len(runs) // 2],
                    threads=runs[0]["threads"], runs=[r[key] for r in runs])


def bench_busy(rep, quick):
    if not hasattr(os, "sched_setaffinity"):
        rep.note("no sched_setaffinity: the busy-machine rows are skipped")
        return
    repeat = 3 if quick else 9
    quiet, busy = [], []
    for _ in range(1 if quick else 3):
        quiet.append(_child(_WEFT_CHILD, repeat))
        spinner = subprocess.Popen([sys.executable, "-c", _BUSY_LOOP])
        try:
            time.sleep(0.2)
            if spinner.poll() is not None:
                raise RuntimeError("the busy loop did not start")
            busy.append(_child(_WEFT_CHILD, repeat))
        finally:
            spinner.kill()
            spinner.wait()
    for case, key in ((CASE_GCN, "gcn"), (CASE_SEND, "send")):
        for label, runs in (("quiet", quiet), ("busy core", busy)):
            rep.add(case, label, sorted(r[key] for r in runs)[len(runs) // 2],
                    threads=runs[0]["threads"], runs=[r[key] for r in runs])


def run(quick=False):
    rep = Report("interop")
    bench_torch(rep, quick)
    bench_busy(rep, quick)
    rep.note(f"{os.cpu_count()} CPUs; peers and weft at their default thread counts")
    return rep


def summary(rep):
    lines = []
    for case in (CASE_SOLVE, CASE_MLP):
        for label in ("weft, then torch", "torch, then weft"):
            r = rep.ratio(case, label, "torch alone")
            if r is not None:
                lines.append(f"{case}: ({label}) / (torch alone) = {r:.2f}")
    for case in (CASE_GCN, CASE_SEND):
        r = rep.ratio(case, "busy core", "quiet")
        if r is not None:
            lines.append(f"{case}: busy / quiet = {r:.2f}")
    return lines
