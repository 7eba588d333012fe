"""``python -m benchmarks <area> [--quick] [--json PATH]``: weft against its peers.

Areas: core, autograd, nn, sparse, sparse_structural, sparse_nn, geometric, gnn, fft,
interop, linalg, distribution, distributed (needs dask[distributed]). Each prints a table of
medians with ratios and writes ``benchmarks/results/<area>.json``.
"""
from __future__ import annotations

import argparse
import importlib

AREAS = ["core", "autograd", "nn", "sparse", "sparse_structural", "sparse_nn", "geometric", "gnn",
         "fft", "interop", "linalg", "distribution", "distributed"]


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    p.add_argument("area", choices=AREAS + ["all"])
    p.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    p.add_argument("--json", default=None, help="where to write the JSON results")
    args = p.parse_args(argv)
    for area in AREAS if args.area == "all" else [args.area]:
        mod = importlib.import_module(f"benchmarks.{area}")
        rep = mod.run(quick=args.quick)
        rep.print_table()
        for line in mod.summary(rep):
            print(line)
        rep.write_json(args.json)


if __name__ == "__main__":
    main()
