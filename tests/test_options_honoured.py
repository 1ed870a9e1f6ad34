"""Every option of every command is honoured or refused, never silently ignored.

The options are read from the typer application itself (:func:`command_options`), so a new
option cannot be added without a case here: ``test_every_option_has_a_case`` fails until it has
one. Each case runs a command on a small spec where honouring the option changes the answer,
and says what the honoured answer is — a value derived by hand in the comment beside it — or
that the option must be refused (exit 2, one line naming it).

``classify`` sorts a run into *honoured* (the honoured answer), *refused* (exit 2 naming the
option) or *ignored* (anything else: the answer as if the option were absent). Run on the
code before the one rule for options (verifier.commands.routes), the same matrix counted
what was ignored then.

Where an option's effect is where the work runs or how long a solver may take, the case
watches that the value reaches the code that uses it (a spy on the executor, the solver's
entry point), with the answer unchanged: ``--workers`` must put the enumeration on the
executor it asks for, ``--timeout`` must reach z3.
"""

from __future__ import annotations

import contextlib
import json
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from unittest import mock

import pytest
import typer
from typer.testing import CliRunner

from verifier.cli import app

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
runner = CliRunner()

# ------------------------------------------------------------------------------------ specs

_RR = """
[data]
records = 1
values = [0, 1]
[mechanism]
kind = "randomized_response"
truth = "{truth}"
[query]
epsilon = "{epsilon}"
delta = "0"
notions = ["{notion}"]
"""
# threshold_count, T = 2, over 3 i.i.d. records with P[1] = p, the passive attacker of record
# 2 knowing nothing. Given t = 1 the output is ⊥ (x0 + x1 = 0), 2 or 3; given t = 0, ⊥ or 2.
# p = 1/2: P[· | 1] = (⊥ 1/4, 2 1/2, 3 1/4), P[· | 0] = (⊥ 3/4, 2 1/4), so APK δ at ln 3 is
# max(1/4 (output 3), 3/4 − 3·1/4 = 0) = 1/4, at ε = 0 it is 1/4 + 1/4 = 1/2.
# p = 1/3: P[· | 1] = (⊥ 4/9, 2 4/9, 3 1/9), P[· | 0] = (⊥ 8/9, 2 1/9): δ at ln 3 = 1/9 +
# (4/9 − 3/9) = 2/9.
_THRESHOLD = """
[data]
records = 3
values = [0, 1]
{data}
[mechanism]
kind = "threshold_count"
counts = [1]
threshold = 2
{attacker}
[query]
epsilon = "ln(3)"
delta = "{delta}"
notions = ["{notion}"]
"""
_ATTACKER = "[attacker]\ntarget = 2\nknown = []"
_PARAMETERS = '[parameters]\nt = { gt = "1/2", lt = "1" }\n'

SPECS = {
    # randomized response 3/4 on one record: tight ε = ln(3/4 / 1/4) = ln 3; δ at ln 2 =
    # 3/4 − 2·1/4 = 1/4
    "rr1": _RR.format(truth="3/4", epsilon="ln(3)", notion="dp"),
    "rr_ln2": _RR.format(truth="3/4", epsilon="ln(2)", notion="dp"),
    "rrp": _PARAMETERS + _RR.format(truth="t", epsilon="ln(3)", notion="dp"),
    # ρ* = KL(P0 ‖ P1) = (3/4 − 1/4)·ln 3 = ln(3)/2 ≈ 0.549 ≤ 11/20
    "rrz": _RR.format(truth="3/4", epsilon="ln(3)", notion="zcdp") + 'rho = "11/20"\n',
    "rrzp": _PARAMETERS + _RR.format(truth="t", epsilon="ln(3)", notion="zcdp")
    + 'rho = "11/20"\n',
    "thr3": _THRESHOLD.format(data='prior = ["1/2", "1/2"]', attacker=_ATTACKER,
                              delta="1/4", notion="apkdp"),
    "thr3_dp": _THRESHOLD.format(data="", attacker="", delta="0", notion="dp"),
    "thr3_models": _THRESHOLD.format(
        data='models = [{prior = ["1/2", "1/2"]}, {prior = ["2/3", "1/3"]}]',
        attacker=_ATTACKER, delta="1/4", notion="apkdp"),
    # discrete Laplace of scale 1 on a sum of one bit: P[k] ∝ e^{−|k − s|}, so the loss
    # between s = 0 and s = 1 is at most 1 nat: tight ε = 1, and at ε = 1/2, δ > 0
    "dlap": '[data]\nrecords = 1\nvalues = [0, 1]\n[mechanism]\nkind = "discrete_laplace"\n'
            'scale = "1"\n[query]\nepsilon = "1"\ndelta = "0"\nnotions = ["dp"]\n',
    # the truncated geometric of examples/guess_geometric.toml without its eta
    "guess_noeta": '[domain]\nrange = [0, 20]\n[mechanism]\nkind = "truncated_geometric"\n'
                   'alpha = "1/2"\n[goal]\nprecision = 1\n',
    "audit1": '[[case]]\nlibrary = "opendp"\nconstructor = "make_randomized_response_bool"\n'
              'args = { prob = { f64 = "0.75" } }\nd_in = 1\n',
    "sym1": _PARAMETERS + textwrap.dedent("""
        [data]
        records = 2
        values = [0, 1]
        prior = ["1/2", "1/2"]
        [mechanism]
        kind = "randomized_response"
        truth = "t"
        [attacker]
        target = 1
        known = [0]
        [query]
        epsilon = "ln(2)"
        delta = "0"
        notions = ["apkdp", "ppkdp"]
        """),
    # randomized response 3/4 on 2 records, record 0 known, record 1 the target: no unknown
    # record is shared, so k runs are k independent reports of the target (as "rr1" for dp)
    "pk2": textwrap.dedent("""
        [data]
        records = 2
        values = [0, 1]
        prior = ["1/2", "1/2"]
        [mechanism]
        kind = "randomized_response"
        truth = "3/4"
        [attacker]
        target = 1
        known = [0]
        [query]
        epsilon = "ln(3)"
        delta = "0"
        notions = ["apkdp"]
        """),
}
PATHS = {"guess_geometric": EXAMPLES / "guess_geometric.toml",
         "pso_dp": EXAMPLES / "pso_dp.toml",
         "adaptive": EXAMPLES / "compose" / "adaptive_rr.toml"}


# ------------------------------------------------------------------------------------ spies

def _counting(record: dict):
    """A parallel executor that runs its shards in this process and counts them."""
    from verifier.parallel import SerialExecutor

    class Counting(SerialExecutor):
        parallel, workers = True, 2

        def map(self, *args, **kwargs):
            record["shards"] = record.get("shards", 0) + 1
            return super().map(*args, **kwargs)

        def describe(self) -> str:
            return "counting"
    return Counting()


@contextlib.contextmanager
def _spy(kind: str | None, calls: list[dict]) -> Iterator[None]:
    if kind is None:
        yield
        return
    if kind == "executor":
        @contextlib.contextmanager
        def executor_for(workers=None, scheduler=None):
            record = {"workers": workers, "scheduler": scheduler}
            calls.append(record)
            yield _counting(record)
        with mock.patch("verifier.parallel.cluster.executor_for", executor_for), \
                mock.patch("verifier.parallel.executor_for", executor_for):
            yield
        return
    if kind == "theorems":  # the real records take a minute: one fixed row stands in
        def theorem_rows(progress=None):
            calls.append({})
            if progress is not None:
                progress(1, 1)
            return [{"id": "x", "seed": "s", "statement": "st", "method": "m",
                     "instances": 1, "vacuous": 0, "status": "holds"}], True
        with mock.patch("verifier.certificates.records.theorem_rows", theorem_rows):
            yield
        return
    target = {"family": "verifier.symbolic.family.check_family",
              "prove": "verifier.symbolic.prove.prove"}[kind]
    module, _, name = target.rpartition(".")
    real = getattr(__import__(module, fromlist=[name]), name)

    def spy(*args, **kwargs):
        calls.append(kwargs)
        return real(*args, **kwargs)
    with mock.patch(target, spy):
        yield


# ------------------------------------------------------------------------------------ cases

@dataclass(frozen=True)
class Run:
    code: int
    stdout: str
    stderr: str
    out: Path
    calls: list[dict] = field(default_factory=list)

    def json(self):
        return json.loads(self.stdout)


@dataclass(frozen=True)
class Case:
    command: str
    option: str
    argv: tuple[str, ...]
    honoured: Callable[[Run], bool] | None = None  # None: the option must be refused
    spy: str | None = None
    route: str = ""

    @property
    def id(self) -> str:
        return f"{self.command} {self.option}{' (' + self.route + ')' if self.route else ''}"


def _j(run: Run, *path):
    value = run.json()
    for key in path:
        value = value[key]
    return value


def _err(run: Run, text: str) -> bool:
    return run.code == 2 and text in run.stderr


def _written(run: Run, name: str) -> bool:
    return (run.out / name).is_file() and (run.out / name).stat().st_size > 0


def _shards(run: Run, **expected) -> bool:
    return run.code in (0, 1) and len(run.calls) == 1 and all(
        run.calls[0][k] == v for k, v in expected.items()) and run.calls[0].get("shards", 0) > 0


def _ln_ratio(text: str) -> Fraction:
    assert text.startswith("ln(") and text.endswith(")"), text
    return Fraction(text[3:-1])


def _tolerance_ok(run: Run) -> bool:
    lo, hi = (_ln_ratio(e) for e in _j(run, "inversion", "precise_epsilon"))
    # the default (10^-6) interval is narrower; 1/10 allows e^{ε} to vary by at most 10 %
    return run.code == 0 and 1 + Fraction(1, 10 ** 6) < hi / lo <= 1 + Fraction(1, 10)


SCHEDULER = "tcp://10.0.0.5:8786"
_CERT = ("check", "{thr3}", "--mode", "certified")
_RENYI = ("check", "{rrz}")
_NOISE = ("check", "{dlap}")

CASES: list[Case] = [
    # ---- check, the exact route
    Case("check", "--json", ("check", "{rr1}", "--json"),
         lambda r: r.code == 0 and _j(r, "dp", "epsilon") == "ln(3)"),
    Case("check", "--full", ("check", "{thr3}", "--json", "--full"),
         lambda r: r.code == 0 and _j(r, "apkdp", "backgrounds")[0]["delta"] == "1/4"),
    Case("check", "--budget", ("check", "{rr1}", "--budget", "1"),  # 2 databases > 1
         lambda r: _err(r, "limits.databases")),
    Case("check", "--budget-counts", ("check", "{thr3}", "--budget-counts", "1"),
         lambda r: _err(r, "limits.combinations")),
    Case("check", "--engine", ("check", "{rr1}", "--engine", "counts"),  # not symmetric
         lambda r: _err(r, "engine = 'counts' does not apply")),
    Case("check", "--progress", ("check", "{thr3}", "--progress"),
         lambda r: r.code == 0 and "joint tables" in r.stderr),
    Case("check", "--certificate", ("check", "{rr1}", "--certificate", "{out}/c.json"),
         lambda r: r.code == 0 and _written(r, "c.json")),
    Case("check", "--workers", ("check", "{rr1}", "--workers", "2"),
         lambda r: _shards(r, workers=2), spy="executor"),
    Case("check", "--scheduler", ("check", "{rr1}", "--scheduler", SCHEDULER),
         lambda r: _shards(r, scheduler=SCHEDULER), spy="executor"),
    Case("check", "--at", ("check", "{rrp}", "--at", "t=3/4", "--json"),
         lambda r: _j(r, "dp", "epsilon") == "ln(3)" and "t = 3/4" in _j(r, "parameters")),
    # δ(E) = 3/4 − E/4 for E = e^ε < 3, then 0
    Case("check", "--closed-form", ("check", "{rr1}", "--closed-form", "--json"),
         lambda r: [(p["from"], p["to"], p["a"], p["c"])
                    for p in _j(r, "closed_form", "dp", "pieces")]
         == [("1", "3", "3/4", "1/4"), ("3", None, "0", "0")]),
    Case("check", "--mode", ("check", "{thr3}", "--mode", "certified", "--json"),
         lambda r: r.code == 0 and _j(r, "apkdp", "delta_interval") == ["1/4", "1/4"]),
    Case("check", "--epsilon", ("check", "{rr1}", "--epsilon", "ln(2)", "--json"),
         lambda r: r.code == 1 and _j(r, "dp", "delta") == "1/4"),
    Case("check", "--delta", ("check", "{rr_ln2}", "--delta", "1/4"),
         lambda r: r.code == 0),
    # ---- check --mode certified: intervals of one enclosure, nothing enumerated
    *(Case("check", o, (*_CERT, *a), route="certified")
      for o, a in (("--full", ("--json", "--full")), ("--budget", ("--budget", "5")),
                   ("--budget-counts", ("--budget-counts", "5")),
                   ("--engine", ("--engine", "brute")), ("--progress", ("--progress",)),
                   ("--certificate", ("--certificate", "{out}/c.json")),
                   ("--workers", ("--workers", "2")), ("--scheduler", ("--scheduler", SCHEDULER)),
                   ("--closed-form", ("--closed-form",)))),
    Case("check", "--epsilon", (*_CERT, "--epsilon", "0", "--json"), route="certified",
         honoured=lambda r: r.code == 1 and _j(r, "apkdp", "delta_interval") == ["1/2", "1/2"]),
    Case("check", "--delta", (*_CERT, "--delta", "1/5"), route="certified",
         honoured=lambda r: r.code == 1),
    # ---- check of rdp/zcdp
    Case("check", "--progress", (*_RENYI, "--progress"), route="renyi",
         honoured=lambda r: r.code == 0 and "zcdp: pairs searched" in r.stderr),
    *(Case("check", o, (*_RENYI, *a), route="renyi")
      for o, a in (("--full", ("--json", "--full")),
                   ("--certificate", ("--certificate", "{out}/c.json")),
                   ("--workers", ("--workers", "2")), ("--scheduler", ("--scheduler", SCHEDULER)),
                   ("--closed-form", ("--closed-form",)), ("--mode", ("--mode", "certified")))),
    Case("check", "--epsilon", (*_RENYI, "--epsilon", "ln(2)", "--json"), route="renyi",
         honoured=lambda r: any(c["at"].get("epsilon") == "ln(2)"
                                for c in _j(r, "zcdp", "conversions"))),
    Case("check", "--budget", (*_RENYI, "--budget", "1"), route="renyi",
         honoured=lambda r: _err(r, "limits.databases")),
    Case("check", "--at", ("check", "{rrzp}", "--at", "t=3/4", "--json"), route="renyi",
         honoured=lambda r: r.code == 0 and "t = 3/4" in _j(r, "parameters")),
    # ---- check of noise on a sum
    *(Case("check", o, (*_NOISE, *a), route="noise")
      for o, a in (("--full", ("--json", "--full")), ("--budget", ("--budget", "5")),
                   ("--budget-counts", ("--budget-counts", "5")),
                   ("--engine", ("--engine", "brute")), ("--progress", ("--progress",)),
                   ("--certificate", ("--certificate", "{out}/c.json")),
                   ("--workers", ("--workers", "2")), ("--scheduler", ("--scheduler", SCHEDULER)),
                   ("--closed-form", ("--closed-form",)), ("--mode", ("--mode", "certified")))),
    Case("check", "--epsilon", (*_NOISE, "--epsilon", "1/2"), route="noise",
         honoured=lambda r: r.code == 1),
    Case("check", "--delta", (*_NOISE, "--epsilon", "1/2", "--delta", "1"), route="noise",
         honoured=lambda r: r.code == 0),  # every mechanism has δ ≤ 1
    # ---- sweep (thr3: δ at ln 3 is 1/4 at T = 2 with the spec's p = 1/2, 2/9 with p = 1/3)
    Case("sweep", "--threshold", ("sweep", "{thr3}", "--threshold", "2", "--json"),
         lambda r: [(x["threshold"], x["delta"]) for x in _j(r, "rows")] == [(2, "1/4")]),
    Case("sweep", "--p", ("sweep", "{thr3}", "--threshold", "2", "--p", "1/3", "--json"),
         lambda r: [(x["p"], x["delta"]) for x in _j(r, "rows")] == [("1/3", "2/9")]),
    Case("sweep", "--p", ("sweep", "{thr3_dp}", "--threshold", "2", "--p", "1/3"),
         route="dp only"),
    Case("sweep", "--p", ("sweep", "{thr3_models}", "--threshold", "2", "--p", "1/3"),
         route="data.models"),
    Case("sweep", "--csv", ("sweep", "{thr3}", "--threshold", "2", "--csv", "{out}/s.csv"),
         lambda r: _written(r, "s.csv") and "1/4" in (r.out / "s.csv").read_text()),
    Case("sweep", "--json-file", ("sweep", "{thr3}", "--threshold", "2", "--json-file",
                                  "{out}/s.json"),
         lambda r: _written(r, "s.json")
         and json.loads((r.out / "s.json").read_text())[0]["delta"] == "1/4"),
    Case("sweep", "--json", ("sweep", "{thr3}", "--threshold", "2", "--json"),
         lambda r: _j(r, "holds") is True),
    Case("sweep", "--plot", ("sweep", "{thr3}", "--threshold", "2", "--plot", "{out}/s.png"),
         lambda r: r.code == 0 and _written(r, "s.png")),
    Case("sweep", "--budget", ("sweep", "{thr3}", "--threshold", "2", "--engine", "brute",
                               "--budget", "4"),  # brute force: 2^3 = 8 databases > 4
         lambda r: _err(r, "limits.databases")),
    Case("sweep", "--budget-counts", ("sweep", "{thr3}", "--threshold", "2",
                                      "--budget-counts", "1"),
         lambda r: _err(r, "limits.combinations")),
    Case("sweep", "--engine", ("sweep", "{thr3}", "--threshold", "2", "--engine", "brute",
                               "--budget", "4"),
         lambda r: _err(r, "limits.databases")),
    Case("sweep", "--progress", ("sweep", "{thr3}", "--threshold", "2", "--progress"),
         lambda r: r.code == 0 and "thresholds" in r.stderr),
    Case("sweep", "--workers", ("sweep", "{thr3}", "--threshold", "2", "--workers", "2"),
         lambda r: _shards(r, workers=2), spy="executor"),
    Case("sweep", "--scheduler", ("sweep", "{thr3}", "--threshold", "2", "--scheduler",
                                  SCHEDULER),
         lambda r: _shards(r, scheduler=SCHEDULER), spy="executor"),
    # ---- guess: the simplified inversion ln((1−p)(p+η)/(p(1−p−η)))/R; example: target 1,
    # p = 3/21 = 1/7, R = 20; η = 1/4 gives (6/7)(11/28)/((1/7)(17/28)) = 66/17
    Case("guess", "--json", ("guess", "{guess_geometric}", "--json"),
         lambda r: _j(r, "inversion", "simplified_epsilon") == "ln(54/5)/20"),
    Case("guess", "--eta", ("guess", "{guess_geometric}", "--eta", "1/4", "--json"),
         lambda r: _j(r, "inversion", "simplified_epsilon") == "ln(66/17)/20"),
    # without SPEC, the worst prior (1 − η)/2 = 1/4 and R = 2: ln(((1+η)/(1−η))²)/2 = ln 3
    Case("guess", "--diameter", ("guess", "--eta", "1/2", "--diameter", "2", "--json"),
         lambda r: _j(r, "epsilon") == "ln(3)"),
    # p = 1/10: ln((9/10)(6/10)/((1/10)(4/10)))/2 = ln(27/2)/2
    Case("guess", "--prior", ("guess", "--eta", "1/2", "--diameter", "2", "--prior", "1/10",
                              "--json"),
         lambda r: _j(r, "epsilon") == "ln(27/2)/2"),
    Case("guess", "--plot", ("guess", "{guess_geometric}", "--plot", "{out}/g.png"),
         lambda r: r.code == 0 and _written(r, "g.png")),
    Case("guess", "--tolerance", ("guess", "{guess_geometric}", "--tolerance", "1/10",
                                  "--json"), _tolerance_ok),
    Case("guess", "--tolerance", ("guess", "{guess_noeta}", "--tolerance", "1/10"),
         route="no eta"),
    Case("guess", "--tolerance", ("guess", "--eta", "1/2", "--diameter", "2", "--tolerance",
                                  "1/10"), route="without SPEC"),
    Case("guess", "--diameter", ("guess", "{guess_geometric}", "--diameter", "2"),
         route="with SPEC"),
    Case("guess", "--certificate", ("guess", "{guess_geometric}", "--certificate",
                                    "{out}/g.json"),
         lambda r: r.code == 0 and _written(r, "g.json")),
    Case("guess", "--certificate", ("guess", "--eta", "1/2", "--diameter", "2",
                                    "--certificate", "{out}/g.json"), route="without SPEC"),
    # ---- pso (examples/pso_dp.toml: baseline n·w·(1−w)^(n−1) = 2·(1/4)·(3/4) = 3/8)
    Case("pso", "--json", ("pso", "{pso_dp}", "--json"),
         lambda r: r.code == 0 and _j(r, "baseline") == "3/8"),
    Case("pso", "--full", ("pso", "{pso_dp}", "--json", "--full"),
         lambda r: len(_j(r, "strategy")) > 0),
    Case("pso", "--progress", ("pso", "{pso_dp}", "--progress"),
         lambda r: r.code == 0 and "datasets" in r.stderr),
    Case("pso", "--certificate", ("pso", "{pso_dp}", "--certificate", "{out}/p.json"),
         lambda r: r.code == 0 and _written(r, "p.json")),
    Case("pso", "--workers", ("pso", "{pso_dp}", "--workers", "2"),
         lambda r: _shards(r, workers=2), spy="executor"),
    Case("pso", "--scheduler", ("pso", "{pso_dp}", "--scheduler", SCHEDULER),
         lambda r: _shards(r, scheduler=SCHEDULER), spy="executor"),
    # ---- family (randomized response: ε = ln(t/(1−t)); ≤ ln 3 iff t ≤ 3/4)
    Case("family", "--param", ("family", "{rr1}", "--param", "truth", "--range", "3/4..4/5"),
         lambda r: r.code == 1),
    Case("family", "--range", ("family", "{rr1}", "--param", "truth", "--range", "1/2..3/4"),
         lambda r: r.code == 0),
    Case("family", "--timeout", ("family", "{rr1}", "--param", "truth", "--range", "1/2..3/4",
                                 "--timeout", "7"),
         lambda r: r.code == 0 and [c["timeout_ms"] for c in r.calls] == [7000], spy="family"),
    Case("family", "--json", ("family", "{rr1}", "--param", "truth", "--range", "3/4..4/5",
                              "--json"),
         lambda r: r.code == 1 and _j(r, "status") == "fails"),
    # ---- compose (randomized response 3/4, two runs: the output (0, 0) has loss ln 9, its
    # δ at ln 3 is 9/16 − 3·1/16 = 3/8; every other output has loss ≤ ln 3)
    Case("compose", "--k", ("compose", "{rr1}", "--k", "2", "--json"),
         lambda r: r.code == 1 and _j(r, "tight_delta") == "3/8"),
    Case("compose", "--accounting", ("compose", "{rr1}", "--k", "1", "--accounting", "--json"),
         lambda r: Fraction(_j(r, "accountant", "delta")) >= 0 and _j(r, "tight_delta") == "0"),
    Case("compose", "--accounting", ("compose", "{adaptive}", "--accounting"), route="steps"),
    Case("compose", "--enclosure", ("compose", "{rr1}", "--k", "2", "--enclosure", "always",
                                    "--json"),
         lambda r: _j(r, "exact") is False
         and Fraction(_j(r, "tight_delta", "lower")) <= Fraction(3, 8)
         <= Fraction(_j(r, "tight_delta", "upper"))),
    Case("compose", "--grid", ("compose", "{rr1}", "--k", "2", "--enclosure", "always",
                               "--grid", "ln(1001/1000)", "--json"),
         lambda r: _j(r, "enclosure", "grid") == ["ln(1001/1000)"]),
    Case("compose", "--grid", ("compose", "{rrz}", "--k", "2", "--grid", "ln(1001/1000)"),
         route="zcdp"),
    # three distinct loss values (ln 9, 0, −ln 9) do not fit in one, exactly or enclosed
    Case("compose", "--max-values", ("compose", "{rr1}", "--k", "2", "--max-values", "1"),
         lambda r: _err(r, "over the limit of 1")),
    Case("compose", "--max-values", ("compose", "{rrz}", "--k", "2", "--max-values", "1"),
         route="zcdp"),
    Case("compose", "--json", ("compose", "{rr1}", "--k", "2", "--json"),
         lambda r: _j(r, "tight", "epsilon") == "ln(9)" and _j(r, "verdict") == "fails"),
    # the claim at ε = ln 9 holds for two runs (every loss is at most ln 9): δ = 0
    Case("compose", "--epsilon", ("compose", "{rr1}", "--k", "2", "--epsilon", "ln(9)"),
         lambda r: r.code == 0 and "holds" in r.stdout),
    # δ(ln 3) of two runs is 3/8 (above): the claim δ = 3/8 holds
    Case("compose", "--delta", ("compose", "{rr1}", "--k", "2", "--delta", "3/8"),
         lambda r: r.code == 0),
    Case("compose", "--progress", ("compose", "{rr1}", "--k", "2", "--progress"),
         lambda r: r.code == 1 and "neighbouring pairs" in r.stderr),
    # randomized response 3/4 without a spec file: two runs, δ(ln 3) = 3/8 as for {rr1}
    Case("compose", "--mechanism", ("compose", "--mechanism", "randomized_response truth=3/4",
                                    "--k", "2", "--epsilon", "ln(3)", "--json"),
         lambda r: r.code == 1 and _j(r, "tight", "delta") == "3/8"),
    Case("compose", "--epsilon", ("compose", "{rrz}", "--k", "2", "--epsilon", "1"),
         route="zcdp"),
    Case("compose", "--progress", ("compose", "{pk2}", "--k", "2", "--progress"),
         route="apkdp", honoured=lambda r: r.code == 1 and "histograms" in r.stderr),
    # ---- compose of apkdp (pk2): the target's two reports both 1 have ratio 9, δ at ln 3 is
    # 9/16 − 3·1/16 = 3/8, as for dp; one run has the ratio 3 only, δ = 0
    Case("compose", "--k", ("compose", "{pk2}", "--k", "2", "--json"), route="apkdp",
         honoured=lambda r: r.code == 1 and _j(r, "results", "apkdp", "delta") == "3/8"),
    Case("compose", "--json", ("compose", "{pk2}", "--k", "1", "--json"), route="apkdp",
         honoured=lambda r: r.code == 0 and _j(r, "results", "apkdp", "epsilon") == "ln(3)"),
    *(Case("compose", o, ("compose", "{pk2}", "--k", "2", *a), route="apkdp")
      for o, a in (("--accounting", ("--accounting",)), ("--enclosure", ("--enclosure", "never")),
                   ("--grid", ("--grid", "ln(1001/1000)")), ("--max-values", ("--max-values",
                                                                              "9")))),
    # ---- audit (opendp's randomized response, prob 3/4: ε = ln 3 exactly)
    Case("audit", "--json", ("audit", "{audit1}", "--json"),
         lambda r: _j(r, "cases")[0]["tight"]["epsilon"]["value"] == "ln(3)"),
    Case("audit", "--conformance", ("audit", "{audit1}", "--json", "--conformance", "20"),
         lambda r: _j(r, "conformance") == 20),
    # prob 1/2 .. 1 on a grid of 3: ε = 0, ln 3, ∞ — the claim ln(p/(1−p)) holds at each
    Case("audit", "--scan", ("audit", "{audit1}", "--json", "--scan", "args.prob=1/2..1/3"),
         lambda r: [p["value"].split()[0] for p in _j(r, "scans")[0]["points"]]
         == ["0.5", "0.75", "1.0"]),
    Case("audit", "--report", ("audit", "{audit1}", "--report", "{out}/rep"),
         lambda r: r.code == 0 and (r.out / "rep").is_dir()),
    Case("audit", "--html", ("audit", "{audit1}", "--html", "{out}/a.html"),
         lambda r: r.code == 0 and "<td>make_randomized_response_bool</td>"
         in (r.out / "a.html").read_text(encoding="utf-8")),
    # ---- report (rr1: tight ε = ln 3 at δ = 0, so the claim (ln 3, 0) holds; at ln 2 the
    # tight δ is 3/4 − 2·1/4 = 1/4 > 0)
    Case("report", "--output", ("report", "{rr1}", "--output", "{out}/r.html"),
         lambda r: r.code == 0 and _written(r, "r.html")),
    Case("report", "--epsilon", ("report", "{rr1}", "-o", "{out}/r.html", "--epsilon",
                                 "ln(2)"),
         lambda r: r.code == 1 and "tight δ at ε = ln(2): 1/4" in r.stdout),
    Case("report", "--delta", ("report", "{rr_ln2}", "-o", "{out}/r.html", "--delta", "1/4"),
         lambda r: r.code == 0),
    # ---- curve (rr1: δ = 3/4 − e^ε/4 below ln 3, then 0)
    Case("curve", "--json", ("curve", "{rr1}", "--json"),
         lambda r: _j(r, "notions", "dp", "breakpoints") == ["ln(3)"]),
    Case("curve", "--plot", ("curve", "{rr1}", "--plot", "{out}/c.png"),
         lambda r: r.code == 0 and _written(r, "c.png")),
    Case("curve", "--csv", ("curve", "{rr1}", "--csv", "{out}/c.csv"),
         lambda r: r.code == 0 and _written(r, "c.csv")),
    Case("curve", "--points", ("curve", "{rr1}", "--csv", "{out}/c.csv", "--points", "3"),
         # 3 evenly spaced samples, and the breakpoint ln 3 and the claim's ε (the same)
         lambda r: r.code == 0 and len((r.out / "c.csv").read_text().splitlines()) - 1 <= 5),
    # at ε = 0 the exact δ is the total variation 3/4 − 1/4 = 1/2; dp_accounting's
    # pessimistic δ is at least that
    Case("curve", "--accounting", ("curve", "{rr1}", "--accounting", "--json", "--points",
                                   "2"),
         lambda r: _j(r, "accountant", "samples")[0]["exact_delta"] == "1/2"
         and Fraction(_j(r, "accountant", "samples")[0]["delta"]) >= Fraction(1, 2)),
    Case("curve", "--at", ("curve", "{rrp}", "--at", "t=3/4", "--json"),
         lambda r: _j(r, "notions", "dp", "breakpoints") == ["ln(3)"]),
    Case("curve", "--epsilon", ("curve", "{rr1}", "--epsilon", "ln(2)", "--json"),
         lambda r: r.code == 1 and _j(r, "holds") is False),
    Case("curve", "--delta", ("curve", "{rr_ln2}", "--delta", "1/4", "--json"),
         lambda r: r.code == 0),
    Case("curve", "--budget", ("curve", "{rr1}", "--budget", "1"),
         lambda r: _err(r, "limits.databases")),
    Case("curve", "--budget-counts", ("curve", "{thr3}", "--budget-counts", "1"),
         lambda r: _err(r, "limits.combinations")),
    Case("curve", "--engine", ("curve", "{rr1}", "--engine", "counts"),
         lambda r: _err(r, "engine = 'counts' does not apply")),
    # ---- prove (sym1: randomized response t on 2 records, the attacker of record 1 knows
    # record 0; with --every-known-set the known sets are {} and {0}: two instances)
    Case("prove", "--claim", ("prove", "{sym1}", "--claim", "apk-le-ppk", "--json"),
         lambda r: _j(r, "claim", "text") == "apk-le-ppk" and _j(r, "status") == "proved"),
    Case("prove", "--every-epsilon", ("prove", "{sym1}", "--claim", "apk <= ppk",
                                      "--every-epsilon", "--json"),
         lambda r: _j(r, "epsilon") == "every ε"),
    Case("prove", "--every-known-set", ("prove", "{sym1}", "--claim", "apk <= ppk",
                                        "--every-known-set", "--json"),
         lambda r: len(_j(r, "instances")) == 2),
    Case("prove", "--timeout", ("prove", "{sym1}", "--claim", "apk <= ppk", "--timeout", "7"),
         lambda r: r.code == 0 and [c["timeout_ms"] for c in r.calls] == [7000], spy="prove"),
    Case("prove", "--max-instances", ("prove", "{sym1}", "--claim", "apk <= ppk",
                                      "--every-known-set", "--max-instances", "1"),
         lambda r: _err(r, "instances")),
    Case("prove", "--json", ("prove", "{sym1}", "--claim", "apk <= ppk", "--json"),
         lambda r: _j(r, "status") == "proved"),
    Case("prove", "--certificate", ("prove", "{sym1}", "--claim", "apk <= ppk",
                                    "--certificate", "{out}/p.json"),
         lambda r: r.code == 0 and _written(r, "p.json")),
    # ---- reducible
    Case("reducible", "--json", ("reducible", "{sym1}", "--json"),
         lambda r: _j(r, "reducible") is True),
    Case("reducible", "--certificate", ("reducible", "{sym1}", "--certificate",
                                        "{out}/r.json"),
         lambda r: r.code == 0 and _written(r, "r.json")),
    # ---- search
    Case("search", "--records", ("search", "apk-le-ppk", "--records", "1", "--examples", "0",
                                 "--json"),
         lambda r: "1..1 binary records" in _j(r, "evidence")[0]),
    Case("search", "--examples", ("search", "apk-le-ppk", "--records", "1", "--examples", "0",
                                  "--json"),
         lambda r: "hypothesis: skipped (0 examples asked)" in _j(r, "evidence")),
    Case("search", "--json", ("search", "apk-le-ppk", "--records", "1", "--examples", "0",
                              "--json"),
         lambda r: r.code == 1 and _j(r, "counterexample_found") is True),
    Case("search", "--workers", ("search", "apk-le-ppk", "--records", "1", "--examples", "0",
                                 "--workers", "2"),
         lambda r: _shards(r, workers=2), spy="executor"),
    Case("search", "--scheduler", ("search", "apk-le-ppk", "--records", "1", "--examples",
                                   "0", "--scheduler", SCHEDULER),
         lambda r: _shards(r, scheduler=SCHEDULER), spy="executor"),
    # ---- theorems (one stand-in row)
    Case("theorems", "--json", ("theorems", "--json"),
         lambda r: r.code == 0 and _j(r, "theorems")[0]["id"] == "x"
         and _j(r, "verdict") == "holds", spy="theorems"),
    Case("theorems", "--markdown", ("theorems", "--markdown"),
         lambda r: r.stdout.startswith("# Theorem records"), spy="theorems"),
    Case("theorems", "--markdown", ("theorems", "--json", "--markdown"), spy="theorems",
         route="with --json"),
    Case("theorems", "--progress", ("theorems", "--progress"),
         lambda r: r.code == 0 and "theorem records" in r.stderr, spy="theorems"),
]


def command_options() -> dict[str, list[str]]:
    """Every command of the application and its options (long names), from typer itself."""
    group = typer.main.get_command(app)
    return {name: [max(p.opts, key=len) for p in cmd.params if p.param_type_name == "option"]
            for name, cmd in group.commands.items()}  # type: ignore[attr-defined]


def write_specs(folder: Path) -> dict[str, str]:
    names = {}
    for name, text in SPECS.items():
        path = folder / f"{name}.toml"
        path.write_text(text)
        names[name] = str(path)
    return names | {k: str(v) for k, v in PATHS.items()}


def run_case(case: Case, specs: dict[str, str], out: Path) -> Run:
    argv = [a.format(**specs, out=out) for a in case.argv]
    calls: list[dict] = []
    with _spy(case.spy, calls):
        result = runner.invoke(app, argv)
    return Run(result.exit_code, result.stdout, result.stderr, out, calls)


def classify(case: Case, run: Run) -> str:
    """honoured (the honoured answer), refused (exit 2 naming the option) or ignored."""
    with contextlib.suppress(Exception):  # an answer that is not the honoured one
        if case.honoured is not None and case.honoured(run):
            return "honoured"
    if run.code == 2 and case.option in run.stderr:
        return "refused"
    return "ignored"


# ------------------------------------------------------------------------------------ tests

def test_every_option_has_a_case():
    covered = {(c.command, c.option) for c in CASES}
    missing = [(command, option) for command, options in command_options().items()
               for option in options if (command, option) not in covered]
    assert missing == []


def test_the_cases_name_real_options():
    options = command_options()
    assert [c.id for c in CASES if c.option not in options.get(c.command, ())] == []


@pytest.fixture(scope="module")
def specs(tmp_path_factory) -> dict[str, str]:
    return write_specs(tmp_path_factory.mktemp("specs"))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_option_honoured_or_refused(case, specs, tmp_path):
    run = run_case(case, specs, tmp_path)
    expected = "refused" if case.honoured is None else "honoured"
    assert classify(case, run) == expected, (run.code, run.stdout[-500:], run.stderr)
    if expected == "refused":
        lines = [line for line in run.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: ")
        assert f"{case.option}: " in lines[0] and "remove it" in lines[0]
        assert run.stdout == ""


# ------------------------------------------------ a spec read at a point says which point

def _schema(name: str):
    from jsonschema import Draft202012Validator

    return Draft202012Validator(json.loads((ROOT / "schemas" / f"{name}.v1.json").read_text()))


def test_compose_refuses_parameters(specs):
    # plrv compose has no --at: a spec with [parameters] is refused naming the table, in both
    # routes (dp and zcdp), rather than composed at a point the user did not choose
    for spec in ("rrp", "rrzp"):
        run = runner.invoke(app, ["compose", specs[spec], "--k", "2"])
        assert run.exit_code == 2
        assert "parameters" in run.stderr and len(run.stderr.strip().splitlines()) == 1


def test_compose_without_parameters_says_nothing_of_them(specs):
    out = json.loads(runner.invoke(app, ["compose", specs["rr1"], "--k", "2", "--json"]).stdout)
    assert "parameters" not in out


def test_the_renyi_route_says_the_sample_point(specs):
    run = runner.invoke(app, ["check", specs["rrzp"]])
    assert run.exit_code == 0
    assert run.stdout.splitlines()[0].startswith("parameters: checked at the sample point "
                                                 "t = 9/14 ")
    out = json.loads(runner.invoke(app, ["check", specs["rrzp"], "--json"]).stdout)
    assert out["parameters"].startswith("checked at the sample point t = 9/14 ")
    _schema("check-output").validate(out)


def test_the_certified_route_says_the_point(tmp_path):
    spec = tmp_path / "p.toml"
    spec.write_text("[parameters]\np = { gt = \"0\", lt = \"1\" }\n" + SPECS["thr3"].replace(
        'prior = ["1/2", "1/2"]', 'prior = ["1 - p", "p"]'))
    # the sample point p = 2/7: P[· | 1] = (⊥ 25/49, 2 20/49, 3 4/49), P[· | 0] = (⊥ 45/49,
    # 2 4/49); δ at ln 3 = 4/49 + (20/49 − 12/49) = 12/49
    run = runner.invoke(app, ["check", str(spec), "--mode", "certified"])
    assert run.stdout.splitlines()[0].startswith("parameters: checked at the sample point "
                                                 "p = 2/7 ")
    run = runner.invoke(app, ["check", str(spec), "--mode", "certified", "--json"])
    out = json.loads(run.stdout)
    lo, hi = (Fraction(x) for x in out["apkdp"]["delta_interval"])
    assert lo <= Fraction(12, 49) <= hi and out["parameters"].startswith(
        "checked at the sample point p = 2/7 ")
    _schema("check-output").validate(out)
    # at p = 1/3 the δ is 2/9 (see _THRESHOLD)
    run = runner.invoke(app, ["check", str(spec), "--mode", "certified", "--at", "p=1/3",
                              "--json"])
    out = json.loads(run.stdout)
    lo, hi = (Fraction(x) for x in out["apkdp"]["delta_interval"])
    assert lo <= Fraction(2, 9) <= hi and out["parameters"] == "checked at p = 1/3"


def test_plrv_scheduler_from_the_environment_is_left_to_the_routes_that_enumerate(specs):
    # the variable is a default for every command, not an option typed: the certified
    # route, which runs in one process, answers
    run = runner.invoke(app, ["check", specs["thr3"], "--mode", "certified"],
                        env={"PLRV_SCHEDULER": SCHEDULER})
    assert run.exit_code == 0, run.stderr
