"""Shards on Dask: a local cluster of worker processes, or an existing cluster by address.

``--workers N`` starts a :class:`distributed.LocalCluster` of ``N`` single-threaded worker
processes on 127.0.0.1 for the duration of the command; ``--scheduler ADDRESS`` (or the
environment variable ``PLRV_SCHEDULER``) connects to a running scheduler, whose workers must
have plrv (and the user's spec folder, for user functions shipped by value) importable.
Dask is the optional extra ``plrv[distributed]``.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from importlib import import_module
from pathlib import Path
from typing import Any

from verifier.core.errors import InvalidArgument, VerifierError
from verifier.parallel.executor import (
    Executor,
    MissingDistributed,
    Progress,
    SerialExecutor,
    ShardFailed,
    use_executor,
)

__all__ = ["DaskExecutor", "executor_for", "require_distributed", "run_on",
           "SCHEDULER_ENV"]

SCHEDULER_ENV = "PLRV_SCHEDULER"
RETRIES = 1  # a shard whose worker dies is run once more before the job fails
CONNECT_TIMEOUT = "10s"
POLL_SECONDS = 2  # how often a waiting job looks whether the cluster still has workers
NO_WORKER_SECONDS = 120  # a cluster without any worker for this long fails the job


def require_distributed(option: str) -> Any:
    """The ``distributed`` module, or :class:`MissingDistributed` naming the extra."""
    try:  # by name: the type checker runs without the optional extra
        distributed = import_module("distributed")
    except ImportError:
        raise MissingDistributed(
            f"{option} needs Dask (dask.distributed), which is not installed; install the "
            f"distributed extra: pip install -e '.[distributed]' from a checkout of plrv "
            f"(or pip install 'dask[distributed]')") from None
    return distributed


def _outside_install(module: object) -> bool:
    """A module loaded from a file outside the Python installation and plrv itself: the
    user's own code (a spec's module, a test), which workers cannot import by name."""
    path = getattr(module, "__file__", None)
    if not path:
        return False
    here = Path(path).resolve()
    homes = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    homes.add(Path(__file__).resolve().parents[1])
    return not any(here.is_relative_to(h) for h in homes)


def _ship_user_code_by_value() -> None:
    """Pickle the user's modules by value, so that workers need only plrv installed."""
    cloudpickle = import_module("cloudpickle")  # installed with distributed

    for name, module in list(sys.modules.items()):
        if "." not in name and _outside_install(module):
            with suppress(ValueError):  # not importable by name: pickled by value anyway
                cloudpickle.register_pickle_by_value(module)


def _shard_error(label: str, exc: BaseException) -> VerifierError:
    if isinstance(exc, VerifierError):
        return exc
    text = " ".join(str(exc).split())
    text = text if len(text) <= 160 else text[:157] + "…"
    return ShardFailed(f"shard {label} failed on the cluster: {type(exc).__name__}"
                       + (f": {text}" if text else "") + "; no result is reported")


class DaskExecutor(Executor):
    """Shards as Dask tasks on ``client``'s cluster, each retried once if its worker dies."""

    parallel = True

    def __init__(self, client: Any, where: str):
        self.client = client
        self.where = where
        self.workers = max(1, len(client.scheduler_info().get("workers", {})))

    def describe(self) -> str:
        return self.where

    def map(self, fn: Callable, shards: Sequence, labels: Sequence[str],
            progress: Progress | None = None) -> list:
        wait = import_module("distributed").wait
        _ship_user_code_by_value()
        futures = [self.client.submit(fn, shard, pure=False, retries=RETRIES,
                                      key=f"plrv-shard-{j}-{os.urandom(6).hex()}")
                   for j, shard in enumerate(shards)]
        index = {f.key: j for j, f in enumerate(futures)}
        results: list = [None] * len(shards)
        errors: dict[int, BaseException] = {}
        pending, done, idle_since = set(futures), 0, None
        try:
            while pending:
                try:
                    with self.client.as_current():  # wait() asks for the current client
                        finished, pending = wait(pending, timeout=POLL_SECONDS,
                                                 return_when="FIRST_COMPLETED")
                except TimeoutError:
                    finished = set()
                if not finished:  # nothing finished: is anyone still working on the shards?
                    idle_since = self._check_workers(idle_since, len(pending), len(shards))
                    continue
                idle_since = None
                for future in sorted(finished, key=lambda f: index[f.key]):
                    j = index[future.key]
                    try:
                        results[j] = future.result()
                    except Exception as exc:  # a worker's exception, or the worker lost
                        errors[j] = exc
                    done += 1
                    if progress:
                        progress(done, len(shards))
        finally:
            for f in futures:
                f.release()
        if errors:
            j = min(errors)
            raise _shard_error(f"{j + 1} of {len(shards)} ({labels[j]})", errors[j])
        return results

    def _check_workers(self, idle_since: float | None, pending: int, total: int
                       ) -> float | None:
        """Fail the job once the cluster has had no worker for :data:`NO_WORKER_SECONDS`
        (shards would wait for one forever); return since when it has had none."""
        if self.client.scheduler_info(n_workers=-1).get("workers"):
            return None
        now = time.monotonic()
        if idle_since is None:
            return now
        if now - idle_since >= NO_WORKER_SECONDS:
            raise ShardFailed(f"{self.where} has had no worker for {NO_WORKER_SECONDS:g} s "
                              f"with {pending} of {total} shards not computed; no result is "
                              f"reported")
        return idle_since


MAX_WORKERS_PER_CORE = 4  # --workers N starts N processes here: at most this many per core


def _named(scheduler: str) -> str:
    """``--scheduler 'ADDRESS'``, saying so when the address came from ``PLRV_SCHEDULER``."""
    source = f" (from {SCHEDULER_ENV})" if os.environ.get(SCHEDULER_ENV) == scheduler else ""
    return f"--scheduler {scheduler!r}{source}"


def _check_address(scheduler: str) -> None:
    """Refuse what is not a scheduler address before connecting (a client given one fails
    late and leaves a connection that blocks the interpreter's exit)."""
    get_address_host_port = import_module("distributed.comm").get_address_host_port
    try:
        host, port = get_address_host_port(scheduler)
        if not host or not 0 < port < 65536:
            raise ValueError("a host and a port in 1..65535 are needed")
    except ValueError as exc:  # no port, an unknown protocol, a port that is no number
        raise InvalidArgument(f"{_named(scheduler)} is not a scheduler address such as "
                              f"tcp://10.0.0.5:8786 ({exc})", argument="--scheduler"
                              ) from None


@contextmanager
def executor_for(workers: int | None = None, scheduler: str | None = None
                 ) -> Iterator[Executor]:
    """The executor for ``--workers``/``--scheduler`` (``PLRV_SCHEDULER`` when neither is
    given): serial without either, a local cluster of ``workers`` processes, or the cluster
    at ``scheduler``; the local cluster and the connection are closed on exit."""
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or workers < 1):
        raise InvalidArgument(f"--workers {workers!r} is not a positive integer")
    most = MAX_WORKERS_PER_CORE * (os.cpu_count() or 1)
    if workers is not None and workers > most:
        raise InvalidArgument(f"--workers {workers}: a local cluster here has at most {most} "
                              f"worker processes ({MAX_WORKERS_PER_CORE} per core); for more, "
                              f"start a cluster and give --scheduler", argument="--workers")
    if scheduler is None and workers is None:
        scheduler = os.environ.get(SCHEDULER_ENV) or None
    if workers is not None and scheduler is not None:
        raise InvalidArgument(f"--workers {workers} and {_named(scheduler)} both given; "
                              f"use one")
    if workers is None and scheduler is None:
        yield SerialExecutor()
        return
    distributed = require_distributed("--scheduler" if scheduler else "--workers")
    if scheduler is not None:
        _check_address(scheduler)
        try:
            client = distributed.Client(scheduler, timeout=CONNECT_TIMEOUT,
                                        set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise ShardFailed(f"{_named(scheduler)}: cannot connect to a Dask "
                              f"scheduler there ({type(exc).__name__})") from None
        with client:
            yield DaskExecutor(client, f"Dask scheduler {scheduler}")
        return
    cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                       processes=True, host="127.0.0.1",
                                       dashboard_address=":0", silence_logs=40)
    with cluster, distributed.Client(cluster, set_as_default=False) as client:
        yield DaskExecutor(client, f"local Dask cluster of {workers} worker processes")


@contextmanager
def run_on(workers: int | None = None, scheduler: str | None = None) -> Iterator[Executor]:
    """:func:`executor_for` installed as the current executor for the enclosed work."""
    with executor_for(workers, scheduler) as executor, use_executor(executor):
        yield executor
