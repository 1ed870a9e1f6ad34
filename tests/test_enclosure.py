"""Certified enclosures (ball arithmetic) against the exact engine: containment, verdicts."""

import pytest
from gmpy2 import mpq

from verifier import (
    check_partial,
    count,
    geometric_count,
    iid,
    independent,
    known_indices,
    threshold_count,
)
from verifier.core.errors import InvalidArgument
from verifier.engines.enclosure import certified_partial

MPQ = type(mpq(0))


@pytest.mark.parametrize("n, p, eps", [
    (30, "1/10", "ln(2)"), (30, "1/10", "1/2"), (200, "1/1000", "ln(3/2)"),
    (1000, "1/1000000", "ln(2)"),
])
def test_exact_value_inside_every_enclosure(n, p, eps):
    model = iid([str(1 - mpq(p)), p], [0, 1], n)
    know = known_indices(range(n // 10))
    exact = check_partial(threshold_count([1], n // 10), model, knowledge=know, targets=n - 1,
                          epsilon=eps, notions=["apkdp", "ppkdp"])
    for precision in (24, 128):
        r = certified_partial(threshold_count([1], n // 10), model, know, n - 1, eps,
                              relative_width="1", precision=precision)
        for notion in ("apkdp", "ppkdp"):
            enc, d = r.results[notion], exact.results[notion].delta
            assert isinstance(enc.lo, MPQ) and isinstance(enc.hi, MPQ)
            lo, hi = d.bounds(256)  # rational δ: lo = hi = δ; else an enclosure of A − C·e^ε
            assert enc.lo <= lo and hi <= enc.hi


def test_verdicts_only_when_the_interval_decides():
    n = 30
    model = iid(["9/10", "1/10"], [0, 1], n)
    know = known_indices(range(3))
    exact = check_partial(count([1]), model, knowledge=know, targets=n - 1, epsilon="ln(2)",
                          notions=["apkdp"]).results["apkdp"].delta.value
    coarse = dict(relative_width="1", precision=8)
    at = certified_partial(count([1]), model, know, n - 1, "ln(2)", exact, **coarse)
    assert at.verdicts["apkdp"] is None and at.holds is None and at.exit_code == 3
    fine = dict(relative_width="1/100", precision=32)
    above = certified_partial(count([1]), model, know, n - 1, "ln(2)", exact * 2, **fine)
    assert above.verdicts["apkdp"] is True and above.exit_code == 0
    below = certified_partial(count([1]), model, know, n - 1, "ln(2)", exact / 2, **fine)
    assert below.verdicts["apkdp"] is False and below.exit_code == 1


def test_relative_width_is_reached():
    model = iid(["999/1000", "1/1000"], [0, 1], 500)
    r = certified_partial(threshold_count([1], 50), model, known_indices(range(50)), 499,
                          "ln(2)", relative_width="1e-30")
    assert all(e.relative_width <= mpq(1, 10**30) for e in r.results.values())


@pytest.mark.parametrize("model, mech, message", [
    (independent([["1/2", "1/2"], ["2/3", "1/3"], ["1/2", "1/2"]], [0, 1]), count([1]),
     "certified mode needs i.i.d. records on two values"),
    (iid(["1/2", "1/2"], [0, 1], 3), geometric_count([1], "1/2"),
     "certified mode needs a deterministic mechanism; geometric_count is randomized"),
    (iid(["1", "0"], [0, 1], 3), count([1]), "certified mode needs 0 < P[1] < 1, not 0"),
])
def test_refusals(model, mech, message):
    with pytest.raises(InvalidArgument) as info:
        certified_partial(mech, model, known_indices([0]), 2, "ln(2)")
    assert str(info.value) == message


def test_check_mode_certified_encloses_the_exact_value():
    """plrv check --mode certified: every interval contains the exact δ of plrv check (the
    exact engine), is marked not exact, and the verdicts and exit code agree with it."""
    import json
    import sys
    from pathlib import Path

    from typer.testing import CliRunner

    from verifier.cli import app

    sys.set_int_max_str_digits(0)
    spec = str(Path(__file__).resolve().parent.parent / "examples" / "example7_small.toml")
    runner = CliRunner()
    exact = runner.invoke(app, ["check", spec, "--json"])
    certified = runner.invoke(app, ["check", spec, "--json", "--mode", "certified"])
    assert certified.exit_code == exact.exit_code
    e, c = json.loads(exact.stdout), json.loads(certified.stdout)
    assert set(c) <= set(e) and c
    for notion, enc in c.items():
        if notion in ("schema", "verdict", "claim"):  # the shared keys of every --json
            continue
        lo, hi = (mpq(x) for x in enc["delta_interval"])
        assert lo <= mpq(e[notion]["delta"]) <= hi and enc["exact"] is False
        assert enc["holds"] == e[notion]["holds"]
