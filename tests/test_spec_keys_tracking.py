"""The tracking readers of verifier.specs.keys: a key is read by asking for it; what was never
asked for is refused by finish(), naming the dotted key and the command."""

from __future__ import annotations

import pytest

from verifier.core.errors import SpecError
from verifier.specs.keys import Document, Table

RAW = {"data": {"records": 2, "values": [0, 1], "prior": ["1/2", "1/2"]},
       "attacker": {"known": [0], "target": 1},
       "query": {"epsilon": "ln(2)"}}


def _refused(doc: Document | Table, command: str = "plrv check") -> SpecError:
    with pytest.raises(SpecError) as info:
        doc.finish(command)
    return info.value


def test_each_way_of_asking_reads_a_key():
    t = Table({"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}, "t", "spec.toml")
    t.integer("a")
    t.given("b", "x")
    assert "c" in t and "x" not in t
    assert t.get("d") == 4
    assert [k for k, _ in t.unread()] == ["t.e"]
    t.rest("a")  # everything else, as a mechanism's parameters handed to their builder
    t.finish("plrv check")


def test_a_table_never_opened_is_refused_key_by_key():
    doc = Document(RAW, "spec.toml")
    data = doc.table("data")
    data.integer("records")
    data.read("values", lambda v, k: v)
    doc.table("query").string("epsilon")
    err = _refused(doc)
    assert err.key == "data.prior"
    doc.table("data").get("prior")  # the same table object: now read
    err = _refused(doc)
    assert err.key == "attacker.known" and "does not read attacker.known" in err.detail


def test_the_reason_and_remedy_given_by_the_reader_are_in_the_message():
    doc = Document(RAW, "spec.toml")
    data = doc.table("data")
    data.integer("records")
    data.read("values", lambda v, k: v)
    doc.table("query").string("epsilon")
    doc.explain(["data.prior"], "dp ranges over the neighbouring relation",
                "remove it or ask for apkdp")
    doc.explain(["attacker"], "no notion asked has an attacker")
    err = _refused(doc, 'plrv check with notions = ["dp"]')
    assert str(err) == ('spec.toml: data.prior: plrv check with notions = ["dp"] does not read '
                        "data.prior (dp ranges over the neighbouring relation); remove it or "
                        "ask for apkdp")
    data.get("prior")
    err = _refused(doc)
    assert err.detail == ("plrv check does not read attacker.known (no notion asked has an "
                          "attacker); remove it")


def test_nested_tables_are_checked_too():
    t = Table({"models": [{"prior": [1], "extra": 2}]}, "data", None)
    models = t.get("models")
    child = t.child(models[0], "data.models[0]")
    child.get("prior")
    assert [k for k, _ in t.unread()] == ["data.models[0].extra"]


def test_a_top_level_value_that_is_not_a_table_is_named_as_such():
    doc = Document({"kind": "check", "query": {}}, "spec.toml")
    doc.table("query")
    err = _refused(doc)
    assert err.key == "kind" and "does not read [kind]" in err.detail
