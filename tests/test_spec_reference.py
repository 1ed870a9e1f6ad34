"""docs/reference/spec-keys.md is generated from the readers' declarations, and complete."""

from pathlib import Path

import pytest

from verifier.model.expnoise import NOISE_KINDS
from verifier.model.expnoise_zoo import ZOO_KINDS
from verifier.pso.attacks import MECHANISMS as PSO_KINDS
from verifier.specs import reference
from verifier.specs.reference import REQUIRED, SECTIONS, Key, markdown, undocumented

DOC = Path(__file__).resolve().parent.parent / "docs" / "reference" / "spec-keys.md"

# every kind plrv builds, written out here (not read from the readers): the page names each
KINDS = {
    0: {"count", "threshold_count", "sum", "mean", "identity", "randomized_response",
        "geometric_count", "function", "program"},
    1: {"discrete_laplace", "discrete_gaussian"},
    2: {"discrete_laplace", "discrete_gaussian", "noisy_max", "above_threshold"},
    3: {"count", "counts", "composition_counts", "predicate", "bit_predicates",
        "bit_suppression", "interval_buckets", "randomized_response", "identity", "function"},
    4: {"truncated_geometric", "exponential", "identity", "function"},
}


def test_docs_spec_keys_md_is_up_to_date():
    assert DOC.read_text(encoding="utf-8") == markdown(), (
        "docs/reference/spec-keys.md is stale: regenerate it with "
        "python -m verifier.specs.reference > docs/reference/spec-keys.md")


def test_every_declared_key_is_described_and_no_other():
    assert undocumented() == []


@pytest.mark.parametrize("section", range(len(SECTIONS)))
def test_every_kind_is_on_the_page(section):
    title, _, kinds, declared = SECTIONS[section]
    assert set(kinds) == set(declared) == KINDS[section]
    page = markdown()
    part = page[page.index(f"## {title}"):]
    for kind in KINDS[section]:
        assert f'### `kind = "{kind}"`' in part


def test_the_kinds_are_those_the_readers_build():
    assert set(NOISE_KINDS) == KINDS[1] and set(ZOO_KINDS) | KINDS[1] == KINDS[2]
    assert set(PSO_KINDS) == KINDS[3]


def test_a_key_a_reader_adds_without_a_description_is_found(monkeypatch):
    title, lead, kinds, declared = SECTIONS[0]
    grown = {**declared, "count": (declared["count"][0], {*declared["count"][1], "weight"})}
    monkeypatch.setattr(reference, "SECTIONS", ((title, lead, kinds, grown), *SECTIONS[1:]))
    assert undocumented() == [f"{title}: count.weight"]


def test_a_key_described_as_optional_but_required_is_found(monkeypatch):
    title, lead, kinds, declared = SECTIONS[0]
    summary, keys = kinds["randomized_response"]
    wrong = {**kinds, "randomized_response": (summary, {"truth": Key("x", "1/2", "y")})}
    monkeypatch.setattr(reference, "SECTIONS", ((title, lead, wrong, declared), *SECTIONS[1:]))
    assert undocumented() == [f"{title}: randomized_response.truth required"]
    assert keys["truth"].default == REQUIRED


def test_limits_defaults_are_the_budgets():
    page = markdown()
    assert "| `databases` | integer ≥ 1 | 1048576 | databases enumerated by brute force " \
           "(also --budget) |" in page
    assert "| `paths` | integer ≥ 1 | 1000000 |" in page
