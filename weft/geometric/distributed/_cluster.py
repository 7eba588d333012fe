"""Placing parts on Dask workers and waiting for them with bounded time.

Every distributed object of this package keeps its parts on chosen workers
(``workers=[address]``, ``allow_other_workers=False``), held there by Dask
*actors*: a part is loaded or built on its worker once and never travels, and
every request goes from the client straight to the actor's worker, without a
round trip through the scheduler (the latency that matters for sampling).  If
that worker dies, a request could wait forever; ``Placement.gather`` therefore
waits in short slices and, between them, checks that every worker holding a part
is still the one that loaded it, and raises a ``RuntimeError`` naming the lost
worker and parts instead of hanging.
"""
from __future__ import annotations

import time

import numpy as np

from ._dask import distributed

_POLL_S = 0.25


def client_arg(client, op):
    dd = distributed()
    if not isinstance(client, dd.Client):
        raise TypeError(f"{op}: client must be a dask.distributed.Client, got "
                        f"{type(client).__name__}")
    return client


def timeout_arg(timeout, op):
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"{op}: timeout must be a positive number of seconds, got {timeout!r}")
    return float(timeout)


class Placement:
    """``num_parts`` parts spread round-robin over the client's workers, or the
    subset ``use_workers`` (sorted by address, so the layout is a function of the
    cluster), with the waiting rules
    above.  ``stats`` counts tasks and the bytes of arrays sent and received."""

    def __init__(self, client, num_parts, timeout, op, use_workers=None):
        self.client = client_arg(client, op)
        self.timeout = timeout_arg(timeout, op)
        self.op = op
        workers = self._workers()
        if not workers:
            raise ValueError(f"{op}: the client has no workers (scheduler "
                             f"{client.scheduler.address}); start workers or wait for them "
                             "(client.wait_for_workers) first")
        addrs = sorted(workers)
        if use_workers is not None:
            if isinstance(use_workers, str) or not all(isinstance(w, str) for w in use_workers) \
                    or not use_workers:
                raise TypeError(f"{op}: workers must be a non-empty list of worker addresses, "
                                f"got {use_workers!r}")
            unknown = sorted(set(use_workers) - set(addrs))
            if unknown:
                raise ValueError(f"{op}: workers {unknown} are not workers of this client "
                                 f"(it has {addrs})")
            addrs = sorted(set(use_workers))
        self.part_worker = [addrs[p % len(addrs)] for p in range(num_parts)]
        self.worker_id = {a: workers[a].get("id") for a in set(self.part_worker)}
        self.stats = dict(tasks=0, bytes_sent=0, bytes_received=0)

    def _workers(self):
        # asked of the scheduler directly: Client.scheduler_info() returns a cached
        # identity that a periodic refresh (without the worker list) can overwrite
        info = self.client.sync(self.client.scheduler.identity, n_workers=-1)
        return dict(info["workers"])

    def check_alive(self, what):
        """``RuntimeError`` if a worker holding a part has gone or was restarted."""
        alive = self._workers()
        lost = [a for a, wid in self.worker_id.items()
                if a not in alive or alive[a].get("id") != wid]
        if lost:
            parts = [p for p, a in enumerate(self.part_worker) if a in lost]
            raise RuntimeError(
                f"{self.op}: worker {', '.join(lost)} holding part(s) {parts} was lost "
                f"while {what}; the parts it held are gone. Create the "
                f"{self.op.split('.')[0]} again on the remaining workers")

    def actors(self, cls, args_of, where=None):
        """Actors ``cls(*args_of(i))``, one on the worker of each part (or on each
        address of ``where``); returns ``(futures, actors)``."""
        where = self.part_worker if where is None else where
        futures = [self.client.submit(cls, *args_of(i), workers=[w], allow_other_workers=False,
                                      actor=True, pure=False)
                   for i, w in enumerate(where)]
        return futures, self.gather(futures, "starting the parts", count=False)

    def call(self, actor, method, *args):
        """``actor.method(*args)`` (an ActorFuture), counted in ``stats``."""
        self._count(args)
        try:
            fn = getattr(actor, method)
        except RuntimeError:    # "Worker holding Actor was lost"
            self.check_alive(f"calling {method}")
            raise
        return fn(*args)

    def _count(self, args):
        self.stats["tasks"] += 1
        self.stats["bytes_sent"] += _nbytes(args)

    def gather(self, futures, what, count=True):
        """The results of ``futures``, waiting at most ``timeout`` seconds in all."""
        dd = distributed()
        deadline = time.monotonic() + self.timeout
        out = []
        try:
            for f in futures:
                while True:
                    left = deadline - time.monotonic()
                    try:
                        out.append(f.result(timeout=max(min(_POLL_S, left), 0.001)))
                        break
                    except TimeoutError:
                        self.check_alive(what)
                        if time.monotonic() >= deadline:
                            raise TimeoutError(
                                f"{self.op}: {what} did not finish within timeout="
                                f"{self.timeout:g} s (the workers are alive but busy or "
                                "stuck; raise timeout= for large graphs)") from None
                    except dd.KilledWorker as err:
                        raise RuntimeError(f"{self.op}: a worker died while {what}: "
                                           f"{err}") from err
                    except OSError:
                        # an actor whose worker is gone fails with a comm error: name the
                        # worker; any other OSError (a missing part file) is the answer
                        self.check_alive(what)
                        raise
        except BaseException:
            self.client.cancel([f for f in futures if isinstance(f, dd.Future)])
            raise
        if count:
            self.stats["bytes_received"] += sum(_nbytes(r) for r in out)
        return out

    def reset_stats(self):
        for k in self.stats:
            self.stats[k] = 0


def aligned(a, writeable=False):
    """``a`` as a C-contiguous, aligned (and, if asked, writeable) array: Dask may
    hand over arrays that view its message frames at any byte offset, which the
    native kernels refuse, and read-only, which a result given to the user must
    not be."""
    if a is None or (a.flags.c_contiguous and a.flags.aligned
                     and (a.flags.writeable or not writeable)):
        return a
    return np.array(a, order="C", copy=True)


def _nbytes(r):
    if isinstance(r, (tuple, list)):
        return sum(_nbytes(x) for x in r)
    return getattr(r, "nbytes", 0)
