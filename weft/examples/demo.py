"""Train a two-layer network on a toy regression problem with weft's autograd.

    python -m weft.examples.demo [--steps 1000] [--seed 0]

The model is written with plain tensor ops (matmul, tanh) and trained with
hand-written Adam on gradients from ``weft.grad``; the script prints the loss as
it falls and a check of the fitted curve against the target function.
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np

import weft


def make_data(n, rng):
    x = rng.uniform(-math.pi, math.pi, size=(n, 1))
    y = np.sin(2 * x) + 0.3 * x
    return weft.to_tensor(x, dtype="float32"), weft.to_tensor(y, dtype="float32")


def init_params(hidden, rng):
    def glorot(fan_in, fan_out):
        lim = math.sqrt(6.0 / (fan_in + fan_out))
        return weft.to_tensor(rng.uniform(-lim, lim, size=(fan_in, fan_out)), dtype="float32",
                              stop_gradient=False)
    return [glorot(1, hidden), weft.zeros([hidden], stop_gradient=False),
            glorot(hidden, 1), weft.zeros([1], stop_gradient=False)]


def forward(params, x):
    w1, b1, w2, b2 = params
    return weft.tanh(x @ w1 + b1) @ w2 + b2


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=1000, help="optimisation steps (default 1000)")
    p.add_argument("--hidden", type=int, default=32, help="hidden units (default 32)")
    p.add_argument("--lr", type=float, default=0.02, help="Adam learning rate (default 0.02)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.steps < 1 or args.hidden < 1 or args.lr <= 0:
        p.error("--steps and --hidden must be >= 1 and --lr > 0")

    rng = np.random.default_rng(args.seed)
    x, y = make_data(256, rng)
    params = init_params(args.hidden, rng)
    m = [weft.zeros_like(q) for q in params]
    v = [weft.zeros_like(q) for q in params]
    b1, b2, eps = 0.9, 0.999, 1e-8
    t0 = time.perf_counter()
    for step in range(1, args.steps + 1):
        loss = ((forward(params, x) - y) ** 2).mean()
        grads = weft.grad(loss, params)
        with weft.no_grad():
            for i, (q, g) in enumerate(zip(params, grads)):
                m[i] = b1 * m[i] + (1 - b1) * g
                v[i] = b2 * v[i] + (1 - b2) * g * g
                mhat = m[i] / (1 - b1 ** step)
                vhat = v[i] / (1 - b2 ** step)
                params[i] = (q - args.lr * mhat / (weft.sqrt(vhat) + eps)).detach()
                params[i].stop_gradient = False
        if step == 1 or step % 100 == 0 or step == args.steps:
            print(f"step {step:4d}  mse {loss.item():.5f}")
    dt = time.perf_counter() - t0
    xs = weft.to_tensor(np.linspace(-3, 3, 7)[:, None], dtype="float32")
    with weft.no_grad():
        pred = forward(params, xs).numpy().ravel()
    target = np.sin(2 * xs.numpy().ravel()) + 0.3 * xs.numpy().ravel()
    print("x      target  weft")
    for a, b, c in zip(xs.numpy().ravel(), target, pred):
        print(f"{a:+.2f}  {b:+.3f}  {c:+.3f}")
    print(f"{args.steps} steps in {dt:.2f} s ({1e3 * dt / args.steps:.2f} ms/step)")


if __name__ == "__main__":
    main()
