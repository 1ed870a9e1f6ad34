"""A misspelt key, table or kind is refused (exit 2) with the nearest name the reader knows.

Every key of every bundled example of each spec kind is misspelt in turn (a letter doubled
at its end); the refusal must name the misspelt key and suggest the real one. The expected
suggestion is the key that was misspelt, known before the reader runs.
"""

import re
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from verifier.cli import app
from verifier.core.errors import did_you_mean

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
runner = CliRunner()

# (example, command): one spec of each kind a reader reads
SPECS = [
    ("gallery/randomized_response.toml", "check"),
    ("gallery/thresholded_count.toml", "check"),
    ("example7_small.toml", "check"),
    ("coordinate_laplace.toml", "check"),
    ("compose/noisy_count.toml", "compose"),
    ("pso_count_optimal.toml", "pso"),
    ("guess_geometric.toml", "guess"),
]


def _misspellings():
    for example, command in SPECS:
        raw = tomllib.loads((EXAMPLES / example).read_text(encoding="utf-8"))
        for table, keys in raw.items():
            yield pytest.param(example, command, table, None, id=f"{example}:[{table}]")
            if isinstance(keys, dict):
                for key in keys:
                    yield pytest.param(example, command, table, key,
                                       id=f"{example}:{table}.{key}")


def _misspelt(word: str) -> str:
    return word + word[-1]


def _rewrite(text: str, table: str, key: str | None) -> str:
    """``text`` with ``[table]`` (key None) or ``table.key`` misspelt, line by line."""
    out, current = [], None
    for line in text.splitlines():
        header = re.fullmatch(r"\[(\w+)\]\s*(#.*)?", line.strip())
        if header:
            current = header.group(1)
            if key is None and current == table:
                line = line.replace(f"[{table}]", f"[{_misspelt(table)}]", 1)
        elif key is not None and current == table and re.match(rf"{key}\s*=", line):
            line = _misspelt(key) + line[len(key):]
        out.append(line)
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("example, command, table, key", list(_misspellings()))
def test_a_misspelt_key_or_table_gets_did_you_mean(tmp_path, example, command, table, key):
    text = (EXAMPLES / example).read_text(encoding="utf-8")
    changed = _rewrite(text, table, key)
    assert changed != text
    named = table if key is None else key
    wrong = f"[{_misspelt(table)}]" if key is None else f"{table}.{_misspelt(key)}"
    spec = tmp_path / Path(example).name
    spec.write_text(changed, encoding="utf-8")
    for py in (EXAMPLES / example).parent.glob("*.py"):  # user code beside the spec
        (tmp_path / py.name).write_text(py.read_text(encoding="utf-8"), encoding="utf-8")
    result = runner.invoke(app, [command, str(spec)])
    assert result.exit_code == 2, result.output
    message = result.output.strip()
    assert message.count("\n") == 0 and f": {wrong}: " in message, message
    assert message.endswith(f"did you mean `{named}`?"), message


@pytest.mark.parametrize("text, option, expected", [
    ('kind = "randomized_respons"\ntruth = "3/4"', "mechanism.kind", "randomized_response"),
    ('kind = "thresold_count"\nthreshold = 2', "mechanism.kind", "threshold_count"),
    ('kind = "discrete_laplac"\nscale = 2', "mechanism.kind", "discrete_laplace"),
    ('kind = "geometric_count"\nalhpa = "1/2"', "mechanism.alhpa", "alpha"),
    ('kind = "threshold_count"\ncount = [1]\nthreshold = 2', "mechanism.count", "counts"),
])
def test_a_misspelt_mechanism_kind_or_parameter_gets_did_you_mean(tmp_path, text, option,
                                                                    expected):
    spec = tmp_path / "spec.toml"
    spec.write_text(f'[data]\nrecords = 2\nvalues = [0, 1]\n[mechanism]\n{text}\n'
                    f'[query]\nepsilon = "ln(3)"\n', encoding="utf-8")
    result = runner.invoke(app, ["check", str(spec)])
    assert result.exit_code == 2
    assert f": {option}: " in result.output
    assert result.output.strip().endswith(f"; did you mean `{expected}`?")


def test_a_misspelt_relation_gets_did_you_mean(tmp_path):
    # a relation is a value, not a key: it was refused without the name it could have meant
    spec = tmp_path / "spec.toml"
    spec.write_text('[data]\nrecords = 1\nvalues = [0, 1]\n[mechanism]\n'
                    'kind = "randomized_response"\ntruth = "3/4"\n[neighbours]\n'
                    'relation = "add-remove"\n[query]\nepsilon = "ln(3)"\n', encoding="utf-8")
    result = runner.invoke(app, ["check", str(spec)])
    assert result.exit_code == 2
    assert ": neighbours.relation: " in result.output
    assert result.output.strip().endswith("; did you mean `add-remove-one`?"), result.output


@pytest.mark.parametrize("text, expected", [
    ("randomised_response truth=3/4", "randomized_response"),
    ("randomized_response truht=3/4", "truth"),
    ("threshold_count threshold=2 recods=3", "records"),
])
def test_compose_mechanism_gets_did_you_mean_as_a_spec_does(text, expected):
    # the same ending as a spec file's misspelt kind or key, not a phrasing of its own
    result = runner.invoke(app, ["compose", "--mechanism", text, "--k", "2", "--epsilon", "0"])
    assert result.exit_code == 2
    message = result.output.strip()
    assert message.count("\n") == 0 and "--mechanism" in message, message
    assert message.endswith(f"; did you mean `{expected}`?"), message


def test_an_audit_case_key_gets_did_you_mean(tmp_path):
    spec = tmp_path / "audit.toml"
    spec.write_text('[[case]]\nlibrary = "opendp"\nconstrutor = "make_randomized_response_bool"'
                    '\n', encoding="utf-8")
    result = runner.invoke(app, ["audit", str(spec)])
    assert result.exit_code == 2
    assert result.output.strip().endswith("; did you mean `constructor`?"), result.output


def test_did_you_mean_is_silent_when_nothing_is_close():
    assert did_you_mean("epsilom", ("delta", "epsilon")) == "; did you mean `epsilon`?"
    assert did_you_mean("prior", ("delta", "epsilon")) == ""
    assert did_you_mean(3, ("delta",)) == ""


def test_a_misspelt_parameter_bound_gets_did_you_mean(tmp_path):
    text = (EXAMPLES / "rr_symbolic.toml").read_text(encoding="utf-8")
    spec = tmp_path / "rr_symbolic.toml"
    spec.write_text(text.replace('t = { gt = "1/2"', 't = { gtt = "1/2"'), encoding="utf-8")
    result = runner.invoke(app, ["reducible", str(spec)])
    assert result.exit_code == 2
    assert result.output.strip().endswith("; did you mean `gt`?"), result.output
