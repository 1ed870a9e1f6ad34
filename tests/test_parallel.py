"""Serial, ``--workers 2`` and ``--scheduler`` (a local cluster) give identical exact results.

The expected values are the serial engines' (an independent computation: the serial brute
force and, for symmetric mechanisms, the count engine); the parallel runs shard the same
enumeration over worker processes, so every field of the JSON answer, witnesses included,
must be equal. Random instances come from a seeded generator. The commands: check (brute
force joint tables, DP pairs, DP alone on claims that hold and fail), sweep, pso and search
(a conjecture with a counterexample and one without; the JSON without its wall time).
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from contextlib import suppress
from importlib.util import find_spec
from pathlib import Path

import pytest
from typer.testing import CliRunner

from verifier.cli import app
from verifier.core.errors import VerifierError
from verifier.parallel import SerialExecutor, current_executor, executor_for, use_executor

needs_dask = pytest.mark.skipif(find_spec("distributed") is None,
                                reason="needs plrv[distributed] (Dask), not installed")

runner = CliRunner()

MECHANISM = '''
from verifier import Dist

COEFFS = {coeffs!r}
NOISE, REST = {noise!r}, {rest!r}


def mech(db):
    """A weighted sum modulo 3 (not symmetric), kept with probability NOISE."""
    s = sum(c * v for c, v in zip(COEFFS, db, strict=True)) % 3
    return Dist({{s: NOISE, (s + 1) % 3: REST}}) if REST != "0" else s


def know(db):
    """The attacker learns whether record 0 is the smallest value, with noise."""
    return Dist({{int(db[0] == 0): "2/3", int(db[0] != 0): "1/3"}})
'''


def _instance(folder: Path, seed: int) -> Path:
    """A random brute-force check spec (not symmetric) with its user module."""
    rng = random.Random(seed)
    n, k = rng.randint(3, 5), rng.randint(2, 3)
    folder.mkdir(parents=True, exist_ok=True)
    noise, rest = rng.choice([("1", "0"), ("3/4", "1/4"), ("1/2", "1/2")])
    (folder / f"m{seed}.py").write_text(MECHANISM.format(
        coeffs=[rng.randint(0, 2) for _ in range(n)], noise=noise, rest=rest))
    weights = [rng.randint(1, 5) for _ in range(k)]
    prior = [f"{w}/{sum(weights)}" for w in weights]
    spec = folder / f"s{seed}.toml"
    spec.write_text(f"""
[data]
records = {n}
values = {list(range(k))}
prior = {json.dumps(prior)}

[mechanism]
kind = "function"
function = "m{seed}:mech"

[attacker]
target = {rng.randrange(n)}
knowledge = "m{seed}:know"

[query]
epsilon = "ln({rng.randint(2, 4)})"
delta = "{rng.randint(1, 9)}/10"
notions = ["dp", "apkdp", "ppkdp", "noiseless"]
""")
    return spec


DP_MECHANISM = '''
from verifier import Dist

COEFFS, WEIGHTS = {coeffs!r}, {weights!r}


def mech(db):
    """A weighted sum modulo 3 (not symmetric), read through noise of full support."""
    s = sum(c * v for c, v in zip(COEFFS, db, strict=True)) % 3
    return Dist({{(s + j) % 3: f"{{w}}/{{sum(WEIGHTS)}}" for j, w in enumerate(WEIGHTS)}})
'''


def _dp_instance(folder: Path, seed: int, holds: bool) -> Path:
    """A random DP-only spec (brute force: the mechanism is not symmetric). Every likelihood
    ratio is at most max(w)/min(w), so ε = ln of that holds at δ = 0; ε = 0 at δ = 0 fails
    unless every law is the same (the coefficients are not all 0)."""
    rng = random.Random(seed)
    n, k = rng.randint(3, 4), rng.randint(2, 3)
    weights = [rng.randint(1, 6) for _ in range(3)]
    coeffs = [rng.randint(0, 2) for _ in range(n - 1)] + [rng.randint(1, 2)]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"dp{seed}.py").write_text(DP_MECHANISM.format(coeffs=coeffs, weights=weights))
    epsilon = f"ln({max(weights)}/{min(weights)})" if holds else "0"
    spec = folder / f"dp{seed}.toml"
    spec.write_text(f"""
[data]
records = {n}
values = {list(range(k))}

[mechanism]
kind = "function"
function = "dp{seed}:mech"

[query]
epsilon = "{epsilon}"
delta = "0"
notions = ["dp"]
""")
    return spec


def _run(*args: str) -> tuple[int, dict]:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)


def _search(*args: str) -> tuple[int, dict]:
    """``plrv search`` (1 a counterexample, 3 none), its JSON without the wall time."""
    result = runner.invoke(app, ["search", *args, "--json"])
    assert result.exit_code in (1, 3), result.output
    out = json.loads(result.stdout)
    out.pop("seconds")
    return result.exit_code, out


def test_serial_executor_keeps_order_and_reports_progress():
    seen = []
    out = SerialExecutor().map(lambda x: x * x, [3, 1, 2], ["a", "b", "c"],
                               lambda done, total: seen.append((done, total)))
    assert out == [9, 1, 4]
    assert seen == [(1, 3), (2, 3), (3, 3)]
    assert isinstance(current_executor(), SerialExecutor)


class InOrderParallel(SerialExecutor):
    """Shards in this process, but taken for a parallel executor of ``workers`` workers
    (the sharded code paths, without Dask); records the shards' sizes."""

    parallel = True

    def __init__(self, workers: int = 2):
        self.workers = workers
        self.rounds: list[int] = []

    def map(self, fn, shards, labels, progress=None):
        self.rounds.append(len(shards))
        return super().map(fn, shards, labels, progress)


def test_first_passing_is_the_serial_first_whatever_the_rounds():
    from verifier.parallel.chunks import first_passing

    items = list(range(2000))
    for test in (lambda x: x % 97 == 96 and x > 300, lambda x: x == 0, lambda x: x == 1999,
                 lambda x: False, lambda x: x in (40, 17)):
        serial = next((j for j, x in enumerate(items) if test(x)), None)
        for workers, chunk in ((1, 1), (2, 16), (3, 7)):
            ex = InOrderParallel(workers)
            assert first_passing(iter(items), test, ex, chunk=chunk) == serial
            tested = sum(ex.rounds) * chunk
            assert ex.rounds and all(r <= workers * 8 for r in ex.rounds)
            if serial is not None:  # no round after the one holding the answer
                assert tested - workers * 8 * chunk <= serial < tested


def test_dp_pairs_sharded_in_process_equal_serial(tmp_path):
    """The sharded DP summary (shards run here) is the serial result: δ, ε, verdict, count
    and witness, for claims that hold and fail, over several shard counts."""
    from verifier.notions.dp.api import check_dp
    from verifier.notions.dp.neighbours import replace_one
    from verifier.specs.check import load_spec

    for seed, holds in ((30, True), (31, False), (32, True), (33, False)):
        s = load_spec(_dp_instance(tmp_path, seed, holds))
        serial = check_dp(s.mechanism, replace_one(s.values, s.records), s.epsilon, s.delta)
        assert serial.holds is holds
        for workers in (1, 2, 5):
            with use_executor(InOrderParallel(workers)) as ex:
                assert check_dp(s.mechanism, replace_one(s.values, s.records), s.epsilon,
                                s.delta) == serial
            assert ex.rounds and ex.rounds[0] > 1


def test_missing_dask_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    with pytest.raises(VerifierError, match=r"pip install -e '\.\[distributed\]'"), \
            executor_for(workers=2):
        pass


def test_workers_and_scheduler_together_are_refused():
    with pytest.raises(VerifierError, match="--workers 2 and --scheduler"), \
            executor_for(workers=2, scheduler="tcp://127.0.0.1:1"):
        pass


@needs_dask
@pytest.mark.slow
def test_unreachable_scheduler_exits_2(monkeypatch):
    from verifier.parallel import cluster

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", "1s")
    result = runner.invoke(app, ["check", "examples/randomized_response.toml", "--scheduler",
                                 "tcp://127.0.0.1:9"])
    assert result.exit_code == 2
    assert "--scheduler 'tcp://127.0.0.1:9'" in result.output


def _cases(tmp_path: Path) -> list[list[str]]:
    """Every enumerating command on random instances (check: brute force joint tables and
    DP pairs; sweep: its points)."""
    cases = [["check", str(_instance(tmp_path, seed)), "--engine", "brute", "--full"]
             for seed in range(3)]
    cases.append(["sweep", "examples/figure_3_4.toml", "--threshold", "0..3",
                  "--p", "1/3,1/2"])
    rng = random.Random(7)
    for seed in range(2):  # singling out: the success of a fixed and the optimal adversary
        spec = tmp_path / f"pso{seed}.toml"
        spec.write_text(f"""
[universe]
values = {list(range(rng.randint(5, 8)))}
[rows]
n = {rng.randint(3, 4)}
[mechanism]
kind = "count"
predicate = "x < {rng.randint(1, 4)}"
[adversary]
kind = "optimal"
weight_at_most = "1/{rng.randint(2, 5)}"
""")
        cases.append(["pso", str(spec), "--full"])
    cases.append(["pso", "examples/pso_bit_suppression.toml", "--full"])
    for seed, holds in ((20, True), (21, False)):  # DP alone: sharded pairs, both witnesses
        cases.append(["check", str(_dp_instance(tmp_path, seed, holds)), "--full"])
    return cases


SEARCHES = [["apk-le-ppk", "--records", "2"],  # a counterexample (exhaustive, instance 22)
            ["lemma6", "--records", "2", "--examples", "5"]]  # none: 256 instances


@needs_dask
@pytest.mark.slow
def test_workers_2_equal_serial(tmp_path):
    """One instance of each command (each run starts its own local cluster); every instance
    goes through the shared cluster of :func:`test_scheduler_equals_serial`."""
    cases = _cases(tmp_path)
    for args in [cases[0], cases[3], cases[4], cases[7]]:  # check, sweep, pso, check dp
        assert _run(*args, "--workers", "2") == _run(*args), args
    assert _search(*SEARCHES[0], "--workers", "2") == _search(*SEARCHES[0])


@needs_dask
@pytest.mark.slow
def test_library_tables_on_a_cluster_equal_serial(tmp_path):
    """Joint tables (exact ``==`` of every cell) and DP cases through one cluster."""
    from verifier.engines.joint import brute_force_tables, check_targets
    from verifier.notions.dp.api import check_dp
    from verifier.notions.dp.brute import dp_cases
    from verifier.notions.dp.neighbours import replace_one
    from verifier.specs.check import load_spec

    specs = [load_spec(_instance(tmp_path, seed)) for seed in range(10, 13)]
    serial_dp = {(s.path, eps, delta): check_dp(s.mechanism, replace_one(s.values, s.records),
                                                eps, delta, engine="brute")
                 for s in specs for eps, delta in (("0", "0"), ("ln(3)", "1/2"))}
    assert all(not isinstance(s.model, tuple) for s in specs)
    serial = [(brute_force_tables(s.model, s.mechanism, s.knowledge,
                                  check_targets(s.targets, s.records)),
               [(c.label, c.loss) for c in dp_cases(s.mechanism, s.values, s.records,
                                                    engine="brute")]) for s in specs]
    with executor_for(workers=2) as ex, use_executor(ex):
        assert ex.parallel and ex.workers == 2
        for s, (tables, cases) in zip(specs, serial, strict=True):
            done: list[tuple[int, int]] = []
            assert brute_force_tables(s.model, s.mechanism, s.knowledge,
                                      check_targets(s.targets, s.records),
                                      progress=lambda d, t, seen=done: seen.append((d, t))
                                      ) == tables
            assert [(c.label, c.loss) for c in dp_cases(s.mechanism, s.values, s.records,
                                                        engine="brute")] == cases
            for eps, delta in (("0", "0"), ("ln(3)", "1/2")):  # the sharded summary
                assert check_dp(s.mechanism, replace_one(s.values, s.records), eps, delta,
                                engine="brute") == serial_dp[s.path, eps, delta]
            total = done[-1][1]  # progress counts completed shards, one call each
            assert total > 1 and done == [(j, total) for j in range(1, total + 1)]


def _wait_for(path: Path, seconds: float) -> None:
    end = time.monotonic() + seconds
    while not path.exists():
        if time.monotonic() > end:
            raise TimeoutError(f"{path} not written in {seconds} s")
        time.sleep(0.1)


@pytest.fixture
def local_cluster(tmp_path):
    """A scheduler and a worker (two processes) as separate processes on 127.0.0.1."""
    import distributed

    dask = shutil.which("dask", path=str(Path(sys.executable).parent)) or shutil.which("dask")
    if dask is None:
        pytest.skip("the dask command is not installed")
    file = tmp_path / "scheduler.json"
    env = dict(os.environ, DASK_DISTRIBUTED__LOGGING__DISTRIBUTED="error")
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env,
             "cwd": tmp_path}  # workers do not see the test's folders: code is shipped
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", "0",
                               "--no-dashboard", "--scheduler-file", str(file)], **quiet)]
    try:
        _wait_for(file, 30)
        procs.append(subprocess.Popen([dask, "worker", "--scheduler-file", str(file),
                                       "--nworkers", "2", "--nthreads", "1",
                                       "--no-dashboard", "--host", "127.0.0.1"], **quiet))
        address = json.loads(file.read_text())["address"]
        with distributed.Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=30)
        yield address
    finally:
        if file.exists():  # the scheduler closes its workers, then itself
            with suppress(Exception), distributed.Client(
                    json.loads(file.read_text())["address"], timeout="5s") as client:
                client.shutdown()
        for p in reversed(procs):
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=5)


@needs_dask
@pytest.mark.slow
def test_scheduler_equals_serial(tmp_path, local_cluster):
    verdicts = []
    for args in _cases(tmp_path / "specs"):
        serial = _run(*args)
        assert _run(*args, "--scheduler", local_cluster) == serial, args
        verdicts.append(serial[0])
    assert verdicts[-2:] == [0, 1]  # the DP instances: one holds, one fails
    for args in SEARCHES:
        assert _search(*args, "--scheduler", local_cluster) == _search(*args), args


DYING = '''
import os
import signal


def mech(db):
    """The sum of the records; run for a Dask worker, a database with record 0 = 1 kills
    that worker (user code runs in a child process of the worker: its parent). A worker is
    a process started by multiprocessing (titled "dask worker" where setproctitle is
    installed); plrv run by the tests is neither."""
    if db[0] == 1:
        with open(f"/proc/{os.getppid()}/cmdline", "rb") as parent:
            line = parent.read()
        if line.startswith(b"dask worker") or b"multiprocessing" in line:
            os.kill(os.getppid(), signal.SIGKILL)
    return sum(db)
'''


@needs_dask
@pytest.mark.slow
def test_a_lost_worker_fails_the_job_naming_the_shard(tmp_path):
    (tmp_path / "dying.py").write_text(DYING)
    spec = tmp_path / "dying.toml"
    spec.write_text('[data]\nrecords = 3\nvalues = [0, 1]\nprior = ["1/2", "1/2"]\n'
                    '[mechanism]\nkind = "function"\nfunction = "dying:mech"\n'
                    '[attacker]\ntarget = 2\n[query]\nepsilon = "ln(2)"\ndelta = "0"\n'
                    'notions = ["apkdp"]\n')
    assert runner.invoke(app, ["check", str(spec), "--engine", "brute"]).exit_code in (0, 1)
    import dask

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        result = runner.invoke(app, ["check", str(spec), "--engine", "brute", "--workers",
                                     "2", "--json"])
    assert result.exit_code == 2
    # the shard named is one lost with a worker (a worker's death loses its other shards too)
    assert re.search(r"shard [1-4] of 4 \(records 0\.\.1 = \[[01], [01]\]\) failed",
                     result.output), result.output
    assert '"holds"' not in result.output  # no partial verdict


def _square(x: int) -> int:
    return x * x


@needs_dask
@pytest.mark.slow
def test_a_cluster_left_without_workers_fails_the_job(monkeypatch):
    """Shards would wait for a worker forever: the job fails with exit-2 error instead."""
    from verifier.parallel import cluster

    monkeypatch.setattr(cluster, "POLL_SECONDS", 0.2)
    monkeypatch.setattr(cluster, "NO_WORKER_SECONDS", 1)
    with executor_for(workers=1) as ex:
        assert ex.map(_square, [2, 3], ["a", "b"]) == [4, 9]  # the cluster works
        ex.client.cluster.scale(0)  # the local cluster keeps no worker, and starts none
        end = time.monotonic() + 30
        while ex.client.scheduler_info(n_workers=-1).get("workers") and time.monotonic() < end:
            time.sleep(0.1)
        start = time.monotonic()
        with pytest.raises(VerifierError, match=r"no worker for 1 s with 2 of 2 shards"):
            ex.map(_square, [4, 5], ["c", "d"])
        assert time.monotonic() - start < 30


def test_sharded_dp_evaluates_the_mechanism_once_per_database():
    """Phase 1 evaluates each database's law once; phase 2 reads neighbours' laws by rank
    (a shard never re-evaluates a neighbour that lies in another shard)."""
    from verifier.model.mechanisms import mechanism
    from verifier.notions.dp.api import check_dp
    from verifier.notions.dp.neighbours import replace_one

    calls: list[tuple] = []

    def weighted(db):
        calls.append(db)
        return (db[0] + 2 * db[1] + db[2]) % 3

    mech = mechanism(weighted, "weighted")
    # one probe of the output count for the budget, then each of the 3^3 databases once
    serial = check_dp(mech, replace_one([0, 1, 2], 3), "ln(2)", "0", engine="brute")
    assert len(calls) == 28 and len(set(calls)) == 27 and serial.witness["databases"]
    calls.clear()
    with use_executor(InOrderParallel(2)) as ex:
        assert check_dp(mech, replace_one([0, 1, 2], 3), "ln(2)", "0", engine="brute") == serial
    assert len(calls) == 28 and len(set(calls)) == 27  # the same: once each
    assert ex.rounds == [9, 9]  # the laws, then the pairs, over the same 9 shards
