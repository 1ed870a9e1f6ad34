"""User functions named ``"module:function"`` in a spec: one loader, strict references, the
spec's folder only, no bytecode written, every failure an error naming the function."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from verifier.core.distribution import Dist
from verifier.core.errors import UnknownName, UserCodeError
from verifier.model.knowledge import knowledge
from verifier.model.mechanisms import mechanism
from verifier.model.user_code import load_function

SOURCE = '''
VALUE = 5

def total(db):
    return sum(db)

def as_list(db):
    return list(db)

def as_tuple(db):
    return tuple(db)

def raises(db):
    raise KeyError("k")

def exits(db):
    raise SystemExit(0)

def returns_dict(db):
    return {0: 0.5, 1: 0.5}

def returns_set(db):
    return {sum(db)}

def float_dist(db):
    from verifier import Dist
    return Dist({0: 0.5, 1: 0.5})

def returns_nan(db):
    return float("nan")

def returns_object(db):
    return object()

def returns_generator(db):
    yield 1

def returns_bool(db):
    return db[0] == 0

def nan_outputs(db):
    from verifier import Dist
    return Dist({float("nan"): "1/2", float("nan") + 0: "1/2"})

def huge_label(db):
    return 10**100000 + sum(db)
'''


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    (tmp_path / "uf_mod.py").write_text(textwrap.dedent(SOURCE), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("reference", [
    "..uf_mod:total", ".uf_mod:total", ":total", "uf_mod:", "uf_mod", "uf_mod:total:x",
    "uf_mod.:total", "uf mod:total", "uf_mod:total.__globals__", "/etc/passwd:total",
    "uf_mod\x00:total",
], ids=["dots", "dot", "no-module", "no-function", "no-colon", "two-colons", "trailing-dot",
        "space", "attribute", "path", "nul"])
def test_malformed_reference(folder, reference):
    with pytest.raises(UnknownName) as info:
        load_function(reference, search_dir=folder)
    assert str(info.value).startswith(f"function = {reference!r} is not of the form "
                                      f'"module:function"')
    assert info.value.argument == "function"


@pytest.mark.parametrize("reference, fragment", [
    ("os:system", "'os' is a standard-library or plrv module"),
    ("builtins:exec", "'builtins' is a standard-library or plrv module"),
    ("subprocess:call", "'subprocess' is a standard-library or plrv module"),
    ("verifier:Dist", "'verifier' is a standard-library or plrv module"),
    ("not_here:f", "no module 'not_here' in the spec's folder"),
    ("uf_mod:missing", "module 'uf_mod' has no function 'missing'"),
    ("uf_mod:VALUE", "'VALUE' in module 'uf_mod' is a int, not a function"),
], ids=["os", "builtins", "subprocess", "verifier", "absent-module", "absent-function",
        "not-callable"])
def test_refused_references(folder, reference, fragment):
    with pytest.raises(UnknownName) as info:
        load_function(reference, search_dir=folder, name="knowledge")
    assert str(info.value).startswith(f"knowledge = {reference!r}: ")
    assert fragment in str(info.value)


@pytest.mark.parametrize("source, fragment", [
    ("def f(db) return 1\n", "SyntaxError"),
    ("import no_such_module_xyz\ndef f(db):\n    return 1\n", "ModuleNotFoundError"),
    ("raise RuntimeError('boom')\n", "RuntimeError: boom"),
    ("import sys\nsys.exit(0)\n", "SystemExit(0)"),
], ids=["syntax", "import", "raises", "exit"])
def test_broken_module(tmp_path, source, fragment):
    (tmp_path / "broken_mod.py").write_text(source, encoding="utf-8")
    with pytest.raises(UserCodeError) as info:
        load_function("broken_mod:f", search_dir=tmp_path)
    assert str(info.value).startswith("function = 'broken_mod:f': cannot import module "
                                      "'broken_mod' (")
    assert fragment in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("name, fragment", [
    ("raises", "the function raised KeyError: 'k'"),
    ("exits", "the function raised SystemExit(0) (sys.exit was called)"),
    ("returns_dict", "returned a dict"),
    ("returns_set", "returned a set"),
    ("float_dist", "the function raised InvalidNumber: distribution[0] = 0.5 is a float"),
    # outputs compared by identity or Python's == would forge a verdict: nan ≠ nan gives a
    # constant mechanism an infinite loss, True == 1 merges two outputs
    ("returns_nan", "returned the float nan"),
    ("returns_object", "returned object"),
    ("returns_generator", "returned generator"),
    ("returns_bool", "returned the bool True"),
    ("nan_outputs", "returned the float nan"),
    ("huge_label", "bits as an output"),
], ids=["raises", "sys-exit", "dict", "set", "float-probability", "nan", "object",
        "generator", "bool", "nan-in-dist", "huge-label"])
def test_misbehaving_function(folder, name, fragment):
    m = mechanism(load_function(f"uf_mod:{name}", search_dir=folder))
    with pytest.raises(UserCodeError) as info:
        m((0, 1))
    assert str(info.value).startswith(f"function = 'uf_mod:{name}': ")
    assert fragment in str(info.value)
    assert info.value.function == f"uf_mod:{name}"


def test_knowledge_errors_name_the_function(folder):
    z = knowledge(load_function("uf_mod:returns_set", search_dir=folder, name="knowledge"))
    with pytest.raises(UserCodeError) as info:
        z((0, 1))
    assert str(info.value).startswith("knowledge = 'uf_mod:returns_set': returned a set")


def test_a_list_is_the_tuple(folder):
    as_list = mechanism(load_function("uf_mod:as_list", search_dir=folder))
    as_tuple = mechanism(load_function("uf_mod:as_tuple", search_dir=folder))
    for db in [(0, 1), (1, 1, 0)]:
        assert as_list(db) == as_tuple(db) == Dist.point(db)


def test_no_bytecode_in_the_users_folder(folder):
    assert load_function("uf_mod:total", search_dir=folder).function((1, 2)) == 3
    assert not (folder / "__pycache__").exists()


def test_each_folder_loads_its_own_module(tmp_path):
    """Two specs in two folders with modules of the same name: each gets its own."""
    for name, value in (("a", 1), ("b", 2)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "same_mod.py").write_text(f"def f(db):\n    return {value}\n")
    assert load_function("same_mod:f", search_dir=tmp_path / "a").function(()) == 1
    assert load_function("same_mod:f", search_dir=tmp_path / "b").function(()) == 2
