"""``plrv sweep`` with [input] / [neighbours]: thresholds swept under the spec's relation; a
prior (--p) refused, since classical DP has none. Expected values by hand."""

import json
import textwrap

import pytest
from typer.testing import CliRunner

from verifier.cli import app
from verifier.core.errors import InvalidArgument
from verifier.notions.sweep import threshold_sweep
from verifier.specs.check import load_spec

runner = CliRunner()

SPEC = """
[data]
records = 2
values = [0, 1]
[neighbours]
{neighbours}
[mechanism]
kind = "threshold_count"
threshold = 1
[query]
epsilon = "ln(2)"
delta = "0"
notions = ["dp"]
"""


def spec_file(tmp_path, neighbours: str) -> str:
    path = tmp_path / "spec.toml"
    path.write_text(textwrap.dedent(SPEC.format(neighbours=neighbours)))
    return str(path)


@pytest.mark.parametrize("neighbours, deltas", [
    # replace-one: at T = 2, (0, 1) releases ⊥ and (1, 1) the count 2: δ = 1; at T = 3 every
    # database releases ⊥: δ = 0
    ('relation = "replace-one"', {0: "1", 2: "1", 3: "0"}),
    # only [0, 0] ~ [0, 1]: counts 0 and 1, both ⊥ from T = 2 on, distinct below
    ('relation = "pairs"\npairs = [[[0, 0], [0, 1]]]', {0: "1", 2: "0", 3: "0"}),
    # add-remove-one: (1, 1) gives 2 at T = 2 and (1,) gives ⊥; at T = 3 all ⊥
    ('relation = "add-remove-one"', {0: "1", 2: "1", 3: "0"}),
], ids=["replace-one", "pairs", "add-remove-one"])
def test_thresholds_are_swept_under_the_relation(tmp_path, neighbours, deltas):
    report = threshold_sweep(load_spec(spec_file(tmp_path, neighbours)), sorted(deltas))
    assert {pt.threshold: str(pt.delta) for pt in report.points} == deltas
    assert [pt.holds for pt in report.points] == [deltas[t] == "0" for t in sorted(deltas)]


def test_cli_sweep_with_a_relation(tmp_path):
    path = spec_file(tmp_path, 'relation = "pairs"\npairs = [[[0, 0], [0, 1]]]')
    out = runner.invoke(app, ["sweep", path, "--threshold", "2..3", "--json"])
    assert out.exit_code == 0, out.output
    assert [r["delta"] for r in json.loads(out.stdout)["rows"]] == ["0", "0"]


def test_a_prior_is_refused_with_a_relation(tmp_path):
    path = spec_file(tmp_path, 'relation = "add-remove-one"')
    with pytest.raises(InvalidArgument) as info:
        threshold_sweep(load_spec(path), [1], ["1/2"])
    assert info.value.argument == "--p"
    out = runner.invoke(app, ["sweep", path, "--threshold", "1", "--p", "1/2"])
    assert out.exit_code == 2
    assert out.stderr.strip().splitlines() == [
        f"error: {path}: --p sets the prior of the records, which dp under the spec's "
        "[input]/[neighbours] (add-remove-one over databases of 2 records over 2 values) does "
        "not use: it ranges over every input; leave out --p"]
