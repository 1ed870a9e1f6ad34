"""User functions: ``"module:function"`` references in ``[mechanism] function`` and
``[attacker] knowledge`` (issue item 7).

Malformed references, a module with a syntax error or an import error, a function that raises,
returns a float probability or a non-distribution, and ``os:system`` are all exit 2 naming the
function; a function or module that calls ``sys.exit(0)`` must not forge a verdict. Importing
writes no ``__pycache__`` into the user's folder. A mechanism returning a list is treated like
a tuple (accepted).

Every case runs in a subprocess (fresh imports; user code could do anything), with the spec in
its own folder and the working directory elsewhere.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from harness import assert_error, assert_verdict, clean_env, mutate, run, write

FN = "leaky_release"  # a distinctive name: the error must name it
REF = f"hostile_uf:{FN}"

CHECK = {
    "data": {"records": 2, "values": [0, 1]},  # dp reads no data model
    "mechanism": {"kind": "function", "function": REF},
    "query": {"epsilon": "ln(2)", "delta": "0", "notions": ["dp"]},
}
KNOWLEDGE = {
    "data": {"records": 3, "values": [0, 1], "prior": ["1/2", "1/2"]},
    "mechanism": {"kind": "count", "counts": [1]},
    "attacker": {"target": 2, "knowledge": REF},
    "query": {"epsilon": "ln(2)", "delta": "0", "notions": ["apkdp", "ppkdp"]},
}
GUESS_FN = {
    "domain": {"values": [0, 1, 2]},
    "mechanism": {"kind": "function", "function": REF},
    "goal": {"precision": 1},
}
PSO_FN = {
    "universe": {"values": [0, 1, 2, 3]},
    "rows": {"n": 2},
    "mechanism": {"kind": "function", "function": REF, "symmetric": False},
    "adversary": {"kind": "trivial", "weight_at_most": "1/4"},
}
PSO_ATTACK = {
    "universe": {"values": [0, 1, 2, 3]},
    "rows": {"n": 2},
    "mechanism": {"kind": "identity"},
    "adversary": {"kind": "function", "function": REF, "weight_at_most": "1/4"},
}


def setup(tmp_path: Path, source: str, doc=CHECK, module: str = "hostile_uf"):
    """The spec and its module in ``tmp_path/user``; the working directory ``tmp_path/cwd``."""
    user, cwd = tmp_path / "user", tmp_path / "cwd"
    user.mkdir()
    cwd.mkdir()
    (user / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    return write(user, doc), cwd


def plrv(command, spec, cwd, *extra):
    return run([command, spec, *extra], cwd=cwd, env=clean_env())


# ---------------------------------------------------------------- malformed references

@pytest.mark.parametrize("reference", [
    pytest.param(f"..hostile_uf:{FN}", id="relative-dots"),
    pytest.param(f".hostile_uf:{FN}", id="relative-dot"),
    pytest.param(f":{FN}", id="empty-module"),
    pytest.param("hostile_uf:", id="empty-function"),
    pytest.param("hostile_uf", id="no-colon"),
    pytest.param(f"hostile_uf:{FN}:x", id="two-colons"),
    pytest.param(f"hostile_uf.:{FN}", id="trailing-dot"),
    pytest.param(f"hostile uf:{FN}", id="space-in-module"),
    pytest.param(f"hostile_uf:{FN}.__globals__", id="dotted-attribute"),
    pytest.param(f"/etc/passwd:{FN}", id="a-path"),
    pytest.param(f"hostile_uf\x00:{FN}", id="nul-byte"),
    pytest.param(f"no_such_module_xyz:{FN}", id="missing-module"),
    pytest.param("hostile_uf:not_there", id="missing-function"),
    pytest.param("hostile_uf:VALUE", id="not-callable"),
])
@pytest.mark.slow
def test_malformed_reference(tmp_path, reference):
    spec, cwd = setup(tmp_path, f"VALUE = 5\ndef {FN}(db):\n    return sum(db)\n",
                      mutate(CHECK, "mechanism.function", reference))
    assert_error(plrv("check", spec, cwd), "mechanism.function", file=spec)


# ---------------------------------------------------------------- broken modules

BROKEN_MODULES = [
    pytest.param(f"def {FN}(db) return 1\n", id="syntax-error"),
    pytest.param(f"import no_such_module_xyz\ndef {FN}(db):\n    return 1\n", id="import-error"),
    pytest.param(f"raise RuntimeError('boom at import')\ndef {FN}(db):\n    return 1\n",
                 id="raises-at-import"),
    pytest.param(f"1 / 0\ndef {FN}(db):\n    return 1\n", id="zero-division-at-import"),
    pytest.param(f"def {FN}(db):\n    return 1\ndef f():\n    return f()\nf()\n",
                 id="recursion-at-import"),
    pytest.param("\xff\xfe".encode("latin-1").decode("latin-1") + f"\ndef {FN}(db):\n"
                 "    return 1\n", id="non-utf8-source"),
]


@pytest.mark.parametrize("source", BROKEN_MODULES)
@pytest.mark.slow
def test_broken_module(tmp_path, source):
    spec, cwd = setup(tmp_path, "", CHECK)
    (spec.parent / "hostile_uf.py").write_bytes(source.encode("latin-1"))
    assert_error(plrv("check", spec, cwd), "mechanism.function", "hostile_uf", file=spec)


# ---------------------------------------------------------------- misbehaving functions

MISBEHAVING = [
    pytest.param(f"def {FN}(db):\n    raise ValueError('user bug')\n", id="raises-ValueError"),
    pytest.param(f"def {FN}(db):\n    raise KeyError('k')\n", id="raises-KeyError"),
    pytest.param(f"def {FN}(db):\n    return {FN}(db)\n", id="infinite-recursion"),
    pytest.param(f"def {FN}():\n    return 1\n", id="wrong-signature"),
    pytest.param(f"from verifier import Dist\ndef {FN}(db):\n    return Dist({{0: 0.5, 1: 0.5}})\n",
                 id="Dist-with-float-probability"),
    pytest.param(f"def {FN}(db):\n    return {{0: 0.5, 1: 0.5}}\n",
                 id="dict-of-float-probabilities"),
    pytest.param(f"from verifier import Dist\ndef {FN}(db):\n"
                 f"    return Dist({{0: '1/4', 1: '1/4'}})\n", id="Dist-summing-to-1/2"),
    pytest.param(f"def {FN}(db):\n    return {{sum(db)}}\n", id="returns-a-set"),
    pytest.param(f"def {FN}(db):\n    return [[0], {{}}]\n", id="returns-list-with-dict"),
]


@pytest.mark.parametrize("source", MISBEHAVING)
@pytest.mark.slow
def test_misbehaving_mechanism(tmp_path, source):
    spec, cwd = setup(tmp_path, source, CHECK)
    assert_error(plrv("check", spec, cwd), FN, file=spec)


@pytest.mark.parametrize("source", [
    pytest.param(f"def {FN}(db):\n    raise ValueError('user bug')\n", id="raises"),
    pytest.param(f"def {FN}(db):\n    return {{db[0]: 0.75, 1 - db[0]: 0.25}}\n",
                 id="dict-of-float-probabilities"),
    pytest.param(f"def {FN}(db):\n    return {{db[0]}}\n", id="returns-a-set"),
])
def test_misbehaving_knowledge(tmp_path, source):
    spec, cwd = setup(tmp_path, source, KNOWLEDGE)
    assert_error(plrv("check", spec, cwd), FN, file=spec)


@pytest.mark.parametrize("command, doc, source", [
    pytest.param("guess", GUESS_FN, f"def {FN}(x):\n    raise ValueError('user bug')\n",
                 id="guess-mechanism-raises"),
    pytest.param("guess", GUESS_FN, f"def {FN}(x):\n    return {{x: 1.0}}\n",
                 id="guess-mechanism-dict-of-floats"),
    pytest.param("pso", PSO_FN, f"def {FN}(rows):\n    raise ValueError('user bug')\n",
                 id="pso-mechanism-raises"),
    pytest.param("pso", PSO_FN, f"def {FN}(rows):\n    return {{rows[0]: 1}}\n",
                 id="pso-mechanism-returns-dict"),
    pytest.param("pso", PSO_ATTACK, f"def {FN}(output):\n    return 5\n",
                 id="pso-adversary-returns-int"),
    pytest.param("pso", PSO_ATTACK, f"def {FN}(output):\n    raise ValueError('user bug')\n",
                 id="pso-adversary-raises"),
])
@pytest.mark.slow
def test_misbehaving_function_other_commands(tmp_path, command, doc, source):
    spec, cwd = setup(tmp_path, source, doc)
    assert_error(plrv(command, spec, cwd), FN, file=spec)


def test_pso_symmetric_must_be_boolean(tmp_path):
    spec, cwd = setup(tmp_path, f"def {FN}(rows):\n    return sum(rows)\n",
                      mutate(PSO_FN, "mechanism.symmetric", "false"))
    assert_error(plrv("pso", spec, cwd), "mechanism.symmetric", file=spec)


# ---------------------------------------------------------------- verdict forgery

@pytest.mark.parametrize("doc, source", [
    pytest.param(CHECK, f"import sys\ndef {FN}(db):\n    sys.exit(0)\n", id="function-exit-0"),
    pytest.param(CHECK, f"import sys\ndef {FN}(db):\n    sys.exit(1)\n", id="function-exit-1"),
    pytest.param(CHECK, f"def {FN}(db):\n    raise SystemExit(0)\n", id="function-SystemExit"),
    pytest.param(CHECK, f"import sys\nsys.exit(0)\ndef {FN}(db):\n    return 1\n",
                 id="module-exit-0"),
    pytest.param(KNOWLEDGE, f"import sys\ndef {FN}(db):\n    sys.exit(0)\n",
                 id="knowledge-exit-0"),
])
@pytest.mark.slow
def test_user_code_cannot_forge_a_verdict(tmp_path, doc, source):
    """Only a decided verdict may exit 0 or 1: a user function calling sys.exit is an error."""
    spec, cwd = setup(tmp_path, source, doc)
    assert_error(plrv("check", spec, cwd), ("hostile_uf", FN), file=spec)


# ---------------------------------------------------------------- standard-library functions

@pytest.mark.parametrize("doc, reference", [
    pytest.param(CHECK, "os:system", id="mechanism-os:system"),
    pytest.param(KNOWLEDGE, "os:system", id="knowledge-os:system"),
    pytest.param(CHECK, "builtins:exec", id="mechanism-builtins:exec"),
    pytest.param(CHECK, "shutil:rmtree", id="mechanism-shutil:rmtree"),
])
@pytest.mark.slow
def test_stdlib_function_refused(tmp_path, doc, reference):
    key = "mechanism.function" if doc is CHECK else "attacker.knowledge"
    spec, cwd = setup(tmp_path, "", mutate(doc, key, reference) if doc is CHECK else
                      mutate(doc, "attacker.knowledge", reference))
    assert_error(plrv("check", spec, cwd), reference, file=spec)


def test_subprocess_call_cannot_run_records(tmp_path):
    """With string records, ``subprocess:call`` would execute a database as a command line."""
    doc = {"data": {"records": 2, "values": ["touch", "PWNED"]},
           "mechanism": {"kind": "function", "function": "subprocess:call"},
           "query": {"epsilon": "ln(2)", "delta": "0", "notions": ["dp"]}}
    spec, cwd = setup(tmp_path, "", doc)
    o = plrv("check", spec, cwd)
    created = sorted(p.name for p in cwd.iterdir())
    assert_error(o, "subprocess:call", file=spec)
    assert created == [], f"a database was executed as a command: it created {created}"


# ---------------------------------------------------------------- no __pycache__

@pytest.mark.parametrize("command, doc, source, code", [
    pytest.param("check", CHECK, f"def {FN}(db):\n    return sum(db)\n", 1, id="check-mechanism"),
    pytest.param("check", KNOWLEDGE, f"def {FN}(db):\n    return db[0]\n", 1,
                 id="check-knowledge"),
    pytest.param("guess", GUESS_FN, f"def {FN}(x):\n    return x\n", 0, id="guess-mechanism"),
    pytest.param("pso", PSO_FN, f"def {FN}(rows):\n    return sum(rows)\n", (0, 1),
                 id="pso-mechanism"),
])
@pytest.mark.slow
def test_no_pycache_in_user_folder(tmp_path, command, doc, source, code):
    spec, cwd = setup(tmp_path, source, doc)
    assert_verdict(plrv(command, spec, cwd), code)
    left = sorted(p.name for p in spec.parent.iterdir())
    assert "__pycache__" not in left, f"plrv wrote bytecode into the user's folder: {left}"


# ---------------------------------------------------------------- controls and lists

@pytest.mark.parametrize("source, code", [
    pytest.param(f"def {FN}(db):\n    return sum(db)\n", 1, id="sum-fails"),
    pytest.param(f"def {FN}(db):\n    return tuple(db)\n", 1, id="tuple-identity-fails"),
    pytest.param(f"def {FN}(db):\n    return list(db)\n", 1, id="list-identity-like-tuple"),
    pytest.param(f"def {FN}(db):\n    return [list(db), [0]]\n", 1, id="nested-list-output"),
    pytest.param(f"def {FN}(db):\n    return 0\n", 0, id="constant-holds"),
    pytest.param(f"from verifier import Dist\ndef {FN}(db):\n"
                 "    return Dist({0: '1/2', 1: '1/2'})\n", 0, id="coin-flip-holds"),
])
@pytest.mark.slow
def test_control_user_mechanism(tmp_path, source, code):
    spec, cwd = setup(tmp_path, source, CHECK)
    assert_verdict(plrv("check", spec, cwd), code)


def test_control_list_and_tuple_outputs_agree(tmp_path):
    """A list output is the same mechanism as the tuple output: identical JSON reports."""
    outs = []
    for kind in ("tuple", "list"):
        (tmp_path / kind).mkdir()
        spec, cwd = setup(tmp_path / kind, f"def {FN}(db):\n    return {kind}(db)\n", CHECK)
        o = plrv("check", spec, cwd, "--json")
        assert_verdict(o, 1)
        outs.append(o.stdout)
    assert outs[0] == outs[1]


def test_control_knowledge_list_return(tmp_path):
    spec, cwd = setup(tmp_path, f"def {FN}(db):\n    return [db[0], db[1]]\n", KNOWLEDGE)
    assert_verdict(plrv("check", spec, cwd), (0, 1))


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_a_mechanism_closing_a_standard_stream_does_not_take_the_report(tmp_path, stream):
    """The count of 2 records, released by a function that closes sys.stdout (or stderr)
    on every call: replace-one changes the count by 1, a point mass, so δ(ln 2) = 1 > 0 —
    the claim fails (exit 1) and the report is still printed."""
    source = f"import sys\ndef {FN}(db):\n    sys.{stream}.close()\n    return sum(db)\n"
    spec, cwd = setup(tmp_path, source, CHECK)
    o = plrv("check", spec, cwd)
    assert_verdict(o, 1)
    assert "δ = 1 > 0" in o.stdout


def test_a_mechanism_closing_stdout_before_an_error_still_names_itself(tmp_path):
    source = (f"import sys\ndef {FN}(db):\n    sys.stdout.close()\n"
              f"    raise ValueError('user bug')\n")
    spec, cwd = setup(tmp_path, source, CHECK)
    assert_error(plrv("check", spec, cwd), FN, file=spec)
