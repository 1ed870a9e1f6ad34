"""Composition under partial knowledge (REFERENCE.md §9): k runs on the same database.

Expected values come from an independent enumeration with ``fractions.Fraction``: every
database, every ordered tuple of outputs (not histograms), the mechanisms' laws written out
here by their closed forms, and δ(ε) = Σ_O max(0, P[O | a, B] − e^ε·P[O | b, B]).
"""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest
from typer.testing import CliRunner

from verifier.cli import app
from verifier.core.budget import Budget
from verifier.core.errors import BudgetExceeded, VerifierError
from verifier.model.data import iid
from verifier.model.knowledge import known_indices, no_knowledge
from verifier.model.mechanisms import count, geometric_count
from verifier.notions.composition.partial import histogram_count
from verifier.notions.composition.partial_check import compose_partial
from verifier.specs.check import parse_spec

runner = CliRunner()


def geometric_law(c: int, n: int, alpha: Fraction) -> dict[int, Fraction]:
    """c + two-sided geometric noise P[z] = (1−α)/(1+α)·α^|z|, clamped to 0..n: the tails
    P[Z ≤ −c] = α^c/(1+α) and P[Z ≥ n−c] = α^(n−c)/(1+α) pile on the ends."""
    if n == 0:
        return {0: Fraction(1)}
    law = {k: (1 - alpha) / (1 + alpha) * alpha ** abs(k - c) for k in range(1, n)}
    law[0] = alpha ** c / (1 + alpha)
    law[n] = alpha ** (n - c) / (1 + alpha)
    return law


def joint(n: int, p1: Fraction, law, k: int, target: int, known: tuple[int, ...]) -> dict:
    """``{(t, B): {(o_1..o_k): P[D(target)=t, D_known=B, O=(o_1..o_k)]}}``, by enumeration."""
    out: dict = {}
    for db in product((0, 1), repeat=n):
        p_db = Fraction(1)
        for x in db:
            p_db *= p1 if x else 1 - p1
        one = law(sum(db), n)
        key = (db[target], tuple(db[j] for j in known))
        row = out.setdefault(key, {})
        for outs in product(one, repeat=k):
            p = p_db
            for o in outs:
                p *= one[o]
            row[outs] = row.get(outs, Fraction(0)) + p
    return out


def delta_at(p: dict, q: dict, e: Fraction) -> Fraction:
    """Σ_O max(0, P(O) − e·Q(O)) for P, Q normalised to conditional laws."""
    sp, sq = sum(p.values()), sum(q.values())
    return sum((max(Fraction(0), p.get(o, 0) / sp - e * q.get(o, 0) / sq)
                for o in set(p) | set(q)), Fraction(0))


def problem(n: int, mech: str, notions: list[str], known: list[int] | None = None,
            eps: str = "ln(2)", alpha: str = "1/2"):
    raw: dict = {"data": {"records": n, "values": [0, 1], "prior": ["1/3", "2/3"]},
                 "mechanism": {"kind": mech},
                 "attacker": {"target": 0},
                 "query": {"epsilon": eps, "delta": "0", "notions": notions}}
    if mech == "geometric_count":
        raw["mechanism"]["alpha"] = alpha
    if known is not None:
        raw["attacker"]["known"] = known
    return parse_spec(raw, command="compose")


@pytest.mark.parametrize("mech", ["count", "geometric_count"])
def test_two_runs_of_a_count_under_noiseless_privacy_match_the_enumeration(mech):
    n, p1, e = 3, Fraction(2, 3), Fraction(2)
    if mech == "count":
        law = lambda c, n: {c: Fraction(1)}  # noqa: E731
    else:
        law = lambda c, n: geometric_law(c, n, Fraction(1, 2))  # noqa: E731
    table = joint(n, p1, law, 2, 0, ())
    expected = max(delta_at(table[(a, ())], table[(b, ())], e) for a, b in ((0, 1), (1, 0)))
    c = compose_partial(problem(n, mech, ["noiseless"]), 2)
    got = c.report.results["noiseless"].delta
    assert got == expected
    assert c.histograms == histogram_count(2, 4) == 10


def test_apk_and_ppk_of_three_runs_match_the_enumeration():
    # one known record: APK is the worst over B̂, PPK the P[B | a]-average of the APK terms
    # (REFERENCE.md §4, Theorem 1) over the ordered tuples of three outputs
    n, p1, e = 3, Fraction(2, 3), Fraction(3, 2)
    law = lambda c, n: geometric_law(c, n, Fraction(1, 3))  # noqa: E731
    table = joint(n, p1, law, 3, 0, (2,))
    apk = max(delta_at(table[(a, (bg,))], table[(b, (bg,))], e)
              for a, b in ((0, 1), (1, 0)) for bg in (0, 1))
    ppk = Fraction(0)
    worst_ppk = Fraction(0)
    for a, b in ((0, 1), (1, 0)):
        total_a = sum(sum(table[(a, (bg,))].values()) for bg in (0, 1))
        ppk = sum(sum(table[(a, (bg,))].values()) / total_a
                  * delta_at(table[(a, (bg,))], table[(b, (bg,))], e) for bg in (0, 1))
        worst_ppk = max(worst_ppk, ppk)
    c = compose_partial(problem(n, "geometric_count", ["apkdp", "ppkdp"], [2], "ln(3/2)",
                                "1/3"), 3)
    assert c.report.results["apkdp"].delta == apk
    assert c.report.results["ppkdp"].delta == worst_ppk


def test_runs_share_the_unknown_records_not_a_product_of_conditionals():
    # the product of the one-run conditionals (independent unknown records per run) gives a
    # different δ: the mixture is what the attacker sees
    n, p1, e = 2, Fraction(2, 3), Fraction(2)
    law = lambda c, n: geometric_law(c, n, Fraction(1, 2))  # noqa: E731
    one = joint(n, p1, law, 1, 0, ())
    cond = {t: {o[0]: w / sum(one[(t, ())].values()) for o, w in one[(t, ())].items()}
            for t in (0, 1)}
    prod = {t: {(x, y): cond[t][x] * cond[t][y] for x in cond[t] for y in cond[t]}
            for t in (0, 1)}
    wrong = max(delta_at(prod[a], prod[b], e) for a, b in ((0, 1), (1, 0)))
    table = joint(n, p1, law, 2, 0, ())
    right = max(delta_at(table[(a, ())], table[(b, ())], e) for a, b in ((0, 1), (1, 0)))
    assert wrong != right
    got = compose_partial(problem(n, "geometric_count", ["noiseless"]), 2)
    assert got.report.results["noiseless"].delta == right


def test_brute_and_count_routes_agree():
    # a user function is not declared symmetric: the brute route; the built-in count: counts
    from verifier.engines.mixtures import mixture_tables
    from verifier.model.mechanisms import mechanism

    data = iid(["1/3", "2/3"], [0, 1], 3)
    geo = geometric_count([1], "1/2")
    plain = mechanism(lambda db: geo(db), name="geo")
    for know in (no_knowledge(), known_indices([1])):
        by_counts, e1 = mixture_tables(data, geo, know, [0])
        brute, e2 = mixture_tables(data, plain, know, [0])
        assert (e1, e2) == ("counts", "brute")
        # the count route names a background by its counts (one known record: its value)
        def rows(cells):
            return {t: sorted(sorted(row.items()) for row in by_b.values())
                    for t, by_b in cells.items()}
        assert rows(by_counts[0].cells()) == rows(brute[0].cells())


def test_work_is_refused_before_it_starts():
    p = problem(3, "geometric_count", ["noiseless"])
    small = type(p)(**{**p.__dict__, "budget": Budget(max_work=100)})
    with pytest.raises(BudgetExceeded, match="limits.work"):
        compose_partial(small, 50)
    small = type(p)(**{**p.__dict__, "budget": Budget(max_memory=1000)})
    with pytest.raises(BudgetExceeded, match="limits.memory"):
        compose_partial(small, 50)


def test_a_deterministic_count_gains_nothing_from_runs():
    # every run of a deterministic count repeats the first: k runs are one run
    one = compose_partial(problem(4, "count", ["noiseless"]), 1).report.results["noiseless"]
    many = compose_partial(problem(4, "count", ["noiseless"]), 7).report.results["noiseless"]
    assert (one.delta, one.epsilon) == (many.delta, many.epsilon)
    assert count([1]).kind == "count"


SPEC = """
[data]
records = 3
values = [0, 1]
prior = ["1/3", "2/3"]
[mechanism]
kind = "geometric_count"
alpha = "1/2"
[attacker]
target = 0
known = [2]
[query]
epsilon = "ln(2)"
delta = "1/10"
notions = ["apkdp", "ppkdp", "noiseless"]
"""


def _write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "spec.toml"
    path.write_text(text)
    return str(path)


def test_cli_exit_statuses_and_json(tmp_path):
    spec = _write(tmp_path, SPEC)
    run = runner.invoke(app, ["compose", "--json", spec, "--k", "1"])
    assert run.exit_code == 0, run.output
    out = json.loads(run.stdout)
    assert set(out["results"]) == {"apkdp", "ppkdp", "noiseless"} and out["k"] == 1
    run = runner.invoke(app, ["compose", "--json", spec, "--k", "6"])
    assert run.exit_code == 1, run.output
    assert json.loads(run.stdout)["holds"] is False


@pytest.mark.parametrize("extra, key", [
    ('[composition]\nenclosure = "never"\n', "composition"),
    ("[limits]\nloss_values = 10\n", "limits.loss_values"),
    ("[limits]\nengine = \"brute\"\n", "limits.engine"),
])
def test_keys_that_do_not_apply_are_refused(tmp_path, extra, key):
    run = runner.invoke(app, ["compose", "--json", _write(tmp_path, SPEC + extra), "--k", "2"])
    assert run.exit_code == 2
    assert key in run.output


def test_limits_of_the_count_engine_apply(tmp_path):
    run = runner.invoke(app, ["compose", "--json", _write(tmp_path, SPEC + "[limits]\nwork = 10\n"),
                              "--k", "20"])
    assert run.exit_code == 2 and "limits.work" in run.output
    run = runner.invoke(app, ["compose", _write(tmp_path, SPEC + "[limits]\nmemory = 10\n"),
                              "--k", "20"])
    assert run.exit_code == 2 and "limits.memory" in run.output


@pytest.mark.parametrize("option", [["--accounting"], ["--enclosure", "always"],
                                    ["--max-values", "5"], ["--grid", "ln(1001/1000)"]])
def test_options_of_dp_are_refused(tmp_path, option):
    run = runner.invoke(app, ["compose", "--json", _write(tmp_path, SPEC), "--k", "2", *option])
    assert run.exit_code == 2 and option[0] in run.output


def test_missing_k_and_mixed_notions_are_refused(tmp_path):
    run = runner.invoke(app, ["compose", "--json", _write(tmp_path, SPEC)])
    assert run.exit_code == 2 and "--k" in run.output
    mixed = SPEC.replace('notions = ["apkdp",', 'notions = ["dp", "apkdp",')
    run = runner.invoke(app, ["compose", "--json", _write(tmp_path, mixed), "--k", "2"])
    assert run.exit_code == 2 and "query.notions" in run.output
    with pytest.raises(VerifierError):
        compose_partial(problem(3, "count", ["noiseless"]), 0)


def test_adaptive_steps_under_partial_knowledge_are_refused_naming_the_key(tmp_path):
    # composition.steps compose dp only; a partial notion there is refused, not run as dp
    text = (Path(__file__).resolve().parent.parent / "examples" / "compose" /
            "adaptive_rr.toml").read_text().replace('notions = ["dp"]', 'notions = ["apkdp"]')
    spec = tmp_path / "steps.toml"
    spec.write_text(text)
    (tmp_path / "adaptive_rr.py").write_text(
        (Path(__file__).resolve().parent.parent / "examples" / "compose" /
         "adaptive_rr.py").read_text())
    run = runner.invoke(app, ["compose", "--json", str(spec)])
    assert run.exit_code == 2 and "query.notions" in run.output and "--k" in run.output


FAMILIES = """
[data]
records = 3
values = [0, 1]
models = [{prior = ["1/2", "1/2"]}, {prior = ["2/3", "1/3"]}]
[mechanism]
kind = "geometric_count"
alpha = "1/2"
[attacker]
target = [0, 2]
known = [[1], []]
pairs = [[0, 1]]
[query]
epsilon = "ln(3/2)"
delta = "1/10"
notions = ["apkdp", "ppkdp", "noiseless"]
"""
RANDOM_KNOWLEDGE = """
[data]
records = 3
values = [0, 1]
prior = ["1/3", "2/3"]
[mechanism]
kind = "geometric_count"
alpha = "1/3"
[attacker]
target = 0
knowledge = "k:noisy_view"
[query]
epsilon = "ln(3/2)"
delta = "1/10"
notions = ["apkdp", "ppkdp"]
"""


@pytest.mark.parametrize("text", [FAMILIES, RANDOM_KNOWLEDGE, SPEC], ids=["families Θ and Z",
                                                                         "randomized ζ", "one"])
def test_one_run_is_plrv_check(tmp_path, text):
    # k = 1: the mixtures summed back give the joint tables of plrv check (another engine)
    (tmp_path / "k.py").write_text("from verifier import Dist\n\ndef noisy_view(db):\n"
                                   "    return Dist({db[1]: '3/4', 1 - db[1]: '1/4'})\n")
    spec = _write(tmp_path, text)
    composed = json.loads(runner.invoke(app, ["compose", "--json", spec, "--k", "1"]).stdout)[
        "results"]
    checked = json.loads(runner.invoke(app, ["check", spec, "--json"]).stdout)
    assert set(composed) == set(checked) - {"schema", "verdict", "claim"}
    for notion, r in composed.items():
        assert (r["delta"], r["epsilon"], r["cases"], r["holds"]) == (
            checked[notion]["delta"], checked[notion]["epsilon"], checked[notion]["cases"],
            checked[notion]["holds"])
