"""docs/theorems.md is generated from the registry of proofs/, and the registry is complete.

The records run once per test process (proofs/check_theorems.py runs the same cached
results), so this costs nothing more when the whole suite runs.
"""

from pathlib import Path

import pytest

from proofs.registry import RECORDS, markdown, passed, rows

# one worker runs every test that reads the records (pyproject: --dist loadgroup)
pytestmark = pytest.mark.xdist_group("theorems")

DOC = Path(__file__).resolve().parent.parent / "docs" / "theorems.md"


@pytest.mark.slow
def test_docs_theorems_md_is_up_to_date():
    assert DOC.read_text(encoding="utf-8") == markdown(), (
        "docs/theorems.md is stale: regenerate it with "
        "python -m proofs --markdown > docs/theorems.md")


@pytest.mark.slow
def test_at_least_58_statements_none_failing_each_with_meaningful_instances():
    table = rows()
    assert len(table) >= 58
    assert len({r["id"] for r in table}) == len(table) == len(RECORDS)
    for r in table:
        assert {"id", "seed", "statement", "method", "instances", "status"} <= set(r)
        assert passed(r), r
        assert isinstance(r["instances"], int) and r["instances"] > 0, r


@pytest.mark.slow
def test_sampled_checks_are_never_reported_as_proofs():
    for r in rows():
        assert not r["method"].startswith("Hypothesis"), r


@pytest.mark.slow
def test_plrv_theorems_json():
    import json

    from typer.testing import CliRunner

    from verifier.cli import app
    out = CliRunner().invoke(app, ["theorems", "--json"])
    assert out.exit_code == 0, out.output
    printed = json.loads(out.stdout)
    assert printed["schema"] == {"name": "theorems-output", "version": 1}
    assert printed["verdict"] == "holds"
    table = printed["theorems"]
    assert len(table) >= 35 and all(passed(r) for r in table)


@pytest.mark.slow
def test_the_records_report_progress_as_they_run(monkeypatch):
    """plrv theorems takes minutes: the registry calls progress(done, total) after each
    record (shown on stderr by plrv theorems and python -m proofs --json)."""
    from proofs import registry

    monkeypatch.setattr(registry, "RECORDS", registry.RECORDS[:2])
    calls: list[tuple[int, int]] = []
    table = registry.rows(lambda done, total: calls.append((done, total)))
    assert calls == [(1, 2), (2, 2)] and len(table) == 2
