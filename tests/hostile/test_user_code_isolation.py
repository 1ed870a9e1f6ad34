"""User code named by a spec runs in a process of its own, under ``limits.user_seconds`` and
``limits.user_memory``: whatever it does to that process — loop, exit with any status, crash,
exhaust memory, recurse forever, write to plrv's pipes — plrv exits 2 with one line naming
the function, within the limit plus a little, and never with a verdict it did not decide.

Each case is a small module written beside its spec in a temporary folder and a ``plrv`` run
in a subprocess (under the suite's own memory, CPU and wall-clock limits), the working
directory elsewhere.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from harness import assert_error, assert_verdict, clean_env, mutate, run, write

FN = "escaping_release"  # a distinctive name: the error must name it
MODULE = "isolated_uf"
REF = f"{MODULE}:{FN}"
LIMIT = 1  # limits.user_seconds of the cases that hang (the least the key takes)
SLACK = 8  # seconds for plrv's own start, reading and reporting on a loaded machine

CHECK = {
    "data": {"records": 2, "values": [0, 1]},  # dp reads no data model
    "mechanism": {"kind": "function", "function": REF},
    "query": {"epsilon": "ln(2)", "delta": "0", "notions": ["dp"]},
    "limits": {"user_seconds": LIMIT},
}
KNOWLEDGE = {
    "data": {"records": 3, "values": [0, 1], "prior": ["1/2", "1/2"]},
    "mechanism": {"kind": "count", "counts": [1]},
    "attacker": {"target": 2, "knowledge": REF},
    "query": {"epsilon": "ln(2)", "delta": "0", "notions": ["apkdp"]},
    "limits": {"user_seconds": LIMIT},
}
RELATION = {
    "input": {"coordinates": 2, "range": [0, 1]},
    "neighbours": {"relation": REF},
    "mechanism": {"kind": "count", "counts": [1]},
    "query": {"epsilon": "ln(2)", "delta": "0", "notions": ["dp"]},
    "limits": {"user_seconds": LIMIT},
}
COMPOSE = {
    "data": {"records": 1, "values": [0, 1]},
    "composition": {"steps": [REF]},
    "query": {"epsilon": "ln(2)", "delta": "0", "notions": ["dp"]},
    "limits": {"user_seconds": LIMIT},
}
GUESS = {
    "domain": {"values": [0, 1, 2]},
    "mechanism": {"kind": "function", "function": REF},
    "goal": {"precision": 1},
    "limits": {"user_seconds": LIMIT},
}
PSO_MECHANISM = {
    "universe": {"values": [0, 1, 2, 3]},
    "rows": {"n": 2},
    "mechanism": {"kind": "function", "function": REF, "symmetric": False},
    "adversary": {"kind": "trivial", "weight_at_most": "1/4"},
    "limits": {"user_seconds": LIMIT},
}
PSO_ADVERSARY = {
    "universe": {"values": [0, 1, 2, 3]},
    "rows": {"n": 2},
    "mechanism": {"kind": "identity"},
    "adversary": {"kind": "function", "function": REF, "weight_at_most": "1/4"},
    "limits": {"user_seconds": LIMIT},
}


def setup(tmp_path: Path, source: str, doc) -> tuple[Path, Path]:
    """The spec and its module in ``tmp_path/user``; the working directory ``tmp_path/cwd``."""
    user, cwd = tmp_path / "user", tmp_path / "cwd"
    user.mkdir()
    cwd.mkdir()
    (user / f"{MODULE}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    return write(user, doc), cwd


def plrv(command: str, spec: Path, cwd: Path, *extra: str):
    return run([command, spec, *extra], cwd=cwd, env=clean_env())


def body(lines: str, args: str = "db") -> str:
    """A module whose function runs ``lines`` (indented into it)."""
    inner = textwrap.indent(textwrap.dedent(lines).strip(), "    ")
    return f"import os, signal, sys\n\ndef {FN}({args}):\n{inner}\n"


LOOP = "while True:\n    pass"


# ---------------------------------------------------------------- hangs end within the limit

@pytest.mark.parametrize("command, doc, args", [
    pytest.param("check", CHECK, "db", id="check-mechanism"),
    pytest.param("check", KNOWLEDGE, "db", id="check-knowledge"),
    pytest.param("check", RELATION, "x, y", id="check-neighbour-predicate"),
    pytest.param("compose", COMPOSE, "x, history", id="compose-adaptive-step"),
    pytest.param("guess", GUESS, "x", id="guess-mechanism"),
    pytest.param("pso", PSO_MECHANISM, "rows", id="pso-mechanism"),
    pytest.param("pso", PSO_ADVERSARY, "output", id="pso-adversary"),
])
def test_an_endless_loop_ends_at_the_limit(tmp_path, command, doc, args):
    spec, cwd = setup(tmp_path, body(LOOP, args), doc)
    o = plrv(command, spec, cwd)
    assert_error(o, REF, "limits.user_seconds", file=spec)
    assert LIMIT <= o.seconds < LIMIT + SLACK, o.describe()


def test_an_endless_loop_at_import_ends_at_the_limit(tmp_path):
    spec, cwd = setup(tmp_path, f"while True:\n    pass\n\ndef {FN}(db):\n    return 0\n", CHECK)
    o = plrv("check", spec, cwd)
    assert_error(o, REF, "limits.user_seconds", file=spec)
    assert LIMIT <= o.seconds < LIMIT + SLACK, o.describe()


def test_the_limit_bounds_the_run_not_each_call(tmp_path):
    """Each call sleeps 0.4 s, well under the limit of 1 s; the 8 databases of 3 records need
    8 calls (answers are kept), 3.2 s in all."""
    spec, cwd = setup(tmp_path, body("import time\ntime.sleep(0.4)\nreturn sum(db)"),
                      mutate(CHECK, "data.records", 3))
    o = plrv("check", spec, cwd)
    assert_error(o, REF, "limits.user_seconds", file=spec)
    assert LIMIT <= o.seconds < LIMIT + SLACK, o.describe()


# ---------------------------------------------------------------- the child's end is an error

@pytest.mark.parametrize("lines, fragment", [
    pytest.param("os._exit(0)", "exit status 0", id="os._exit(0)"),
    pytest.param("os._exit(1)", "exit status 1", id="os._exit(1)"),
    pytest.param("os._exit(3)", "exit status 3", id="os._exit(3)"),
    pytest.param("os._exit(2)", "exit status 2", id="os._exit(2)"),
    pytest.param("sys.exit(0)", "SystemExit(0)", id="sys.exit(0)"),
    pytest.param("raise SystemExit(1)", "SystemExit(1)", id="SystemExit(1)"),
    pytest.param("os.kill(os.getpid(), signal.SIGSEGV)", "SIGSEGV", id="SIGSEGV"),
    pytest.param("os.kill(os.getpid(), signal.SIGKILL)", "SIGKILL", id="SIGKILL"),
    pytest.param("signal.raise_signal(signal.SIGTERM)", "SIGTERM", id="SIGTERM"),
    pytest.param(f"return {FN}(db)", "RecursionError", id="infinite-recursion"),
    pytest.param("return len(bytearray(50 * 10**9))", "MemoryError", id="allocate-50-GB"),
    pytest.param("raise KeyboardInterrupt", "KeyboardInterrupt", id="KeyboardInterrupt"),
    pytest.param("class Odd(BaseException):\n    def __str__(self):\n        raise ValueError\n"
                 "raise Odd()", "Odd", id="exotic-exception-unprintable"),
    pytest.param("return lambda: 0", "returned function", id="returns-unpicklable"),
    pytest.param("return (x for x in db)", "returned generator", id="returns-generator"),
    pytest.param("os.closerange(3, 1 << 16)\nreturn 0", "exit status", id="closes-its-pipes"),
])
def test_whatever_ends_the_function_is_an_error_naming_it(tmp_path, lines, fragment):
    spec, cwd = setup(tmp_path, body(lines), CHECK)
    o = plrv("check", spec, cwd)
    assert_error(o, REF, fragment, file=spec)
    assert o.seconds < LIMIT + SLACK, o.describe()


@pytest.mark.parametrize("source", [
    pytest.param(f"import os\nos._exit(0)\ndef {FN}(db):\n    return 0\n", id="os._exit(0)"),
    pytest.param(f"import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\ndef {FN}(db):\n"
                 "    return 0\n", id="SIGSEGV"),
    pytest.param(f"import sys\nsys.exit(0)\ndef {FN}(db):\n    return 0\n", id="sys.exit(0)"),
])
def test_an_import_that_ends_the_process_is_an_error(tmp_path, source):
    spec, cwd = setup(tmp_path, source, CHECK)
    assert_error(plrv("check", spec, cwd), REF, file=spec)


FORGE = '''
    frame = json.dumps(["v", ["D", [0, ["q", "1", "2"]]]]).encode()
    for fd in range(3, 64):
        try:
            os.write(fd, len(frame).to_bytes(8, "big") + frame)
        except OSError:
            pass
    os._exit(0)
'''


@pytest.mark.parametrize("lines, fragment", [
    pytest.param("for fd in range(3, 64):\n    try:\n        os.write(fd, b'\\xff' * 64)\n"
                 "    except OSError:\n        pass\nreturn 0", "cannot read", id="garbage"),
    pytest.param("import json\n" + textwrap.dedent(FORGE), "invalid distribution",
                 id="a-forged-Dist-summing-to-1/2"),
])
def test_what_the_child_writes_on_its_pipe_is_data_to_validate(tmp_path, lines, fragment):
    """A function that writes to the descriptors of its pipe to plrv: bytes that are not a
    frame, or a well-formed answer whose distribution sums to 1/2, are errors naming it."""
    spec, cwd = setup(tmp_path, body(lines), CHECK)
    assert_error(plrv("check", spec, cwd), REF, fragment, file=spec)


# ---------------------------------------------------------------- the memory limit

# 1.2 GB of address space (mapped, not touched: quick), then the count
BIG = "import mmap\nmmap.mmap(-1, 1_200_000_000).close()\nreturn sum(db)"


def test_user_memory_is_applied(tmp_path):
    """1.2 GB fits under the suite's 2 GiB address space, not under limits.user_memory =
    2^30: the same function gives its verdict (the count fails dp at ln 2) without the key."""
    spec, cwd = setup(tmp_path, body(BIG), CHECK)
    assert_verdict(plrv("check", spec, cwd), 1)
    spec.write_text(spec.read_text().replace("[limits]", "[limits]\nuser_memory = 1073741824"))
    assert_error(plrv("check", spec, cwd), REF, "Cannot allocate memory",
                 "limits.user_memory = 1073741824", file=spec)


# ---------------------------------------------------------------- harmless to plrv's output

@pytest.mark.parametrize("lines", [
    pytest.param("os.close(1)\nos.close(2)\nreturn sum(db)", id="os.close(1)-and-(2)"),
    pytest.param("sys.stdout.close()\nsys.stderr.close()\nreturn sum(db)",
                 id="sys.stdout.close()"),
    pytest.param("print('garbage \\x00\\x1b[2J' * 50)\nos.write(1, b'\\xff\\xfe\\n' * 50)\n"
                 "return sum(db)", id="garbage-to-stdout"),
])
def test_streams_of_user_code_do_not_touch_the_report(tmp_path, lines):
    """User code's standard streams are its own process's: what it closes or prints leaves
    plrv's --json report byte for byte that of the same function without it."""
    spec, cwd = setup(tmp_path, body(lines), CHECK)
    o = plrv("check", spec, cwd, "--json")
    assert_verdict(o, 1)
    (tmp_path / "quiet").mkdir()
    quiet, qcwd = setup(tmp_path / "quiet", body("return sum(db)"), CHECK)
    q = plrv("check", quiet, qcwd, "--json")
    assert_verdict(q, 1)
    assert o.stdout == q.stdout
    assert json.loads(o.stdout)["dp"]["delta"] == "1"  # the count at ln 2: δ = 1 (by hand)


# ---------------------------------------------------------------- the keys themselves

@pytest.mark.parametrize("key, value", [
    pytest.param("user_seconds", 0, id="seconds-0"),
    pytest.param("user_seconds", -5, id="seconds-negative"),
    pytest.param("user_seconds", "60", id="seconds-string"),
    pytest.param("user_seconds", 1.5, id="seconds-float"),
    pytest.param("user_seconds", True, id="seconds-bool"),
    pytest.param("user_memory", 0, id="memory-0"),
    pytest.param("user_memory", "4 GiB", id="memory-string"),
])
def test_a_bad_limit_is_refused_by_its_key(tmp_path, key, value):
    spec, cwd = setup(tmp_path, body("return sum(db)"), mutate(CHECK, f"limits.{key}", value))
    assert_error(plrv("check", spec, cwd), f"limits.{key}", file=spec)


@pytest.mark.parametrize("command, doc, lines, args, code", [
    pytest.param("compose", COMPOSE, "from verifier import Dist\n"
                 "return Dist({x[0]: '3/4', 1 - x[0]: '1/4'})", "x, history", 1,
                 id="compose"),
    pytest.param("guess", GUESS, "return x", "x", 0, id="guess"),
    pytest.param("pso", PSO_MECHANISM, "return 0", "rows", 0, id="pso"),
])
def test_the_keys_are_read_by_every_command_running_user_code(tmp_path, command, doc, lines,
                                                              args, code):
    doc = mutate(mutate(doc, "limits.user_seconds", 30), "limits.user_memory", 1 << 31)
    spec, cwd = setup(tmp_path, body(lines, args), doc)
    assert_verdict(plrv(command, spec, cwd), code)


# ---------------------------------------------------------------- honest code, same answer

RR_SOURCE = '''
from fractions import Fraction
from itertools import product

from verifier import Dist


def rr(db):
    """Binary randomized response on each record: the truth with probability 3/4."""
    law = {}
    for reports in product((0, 1), repeat=len(db)):
        p = Fraction(1)
        for x, r in zip(db, reports):
            p *= Fraction(3, 4) if x == r else Fraction(1, 4)
        law[reports] = p
    return Dist(law)
'''


@pytest.mark.parametrize("delta, code, tight", [
    pytest.param("1/4", 0, "ln(2)", id="holds-at-delta-1/4"),
    pytest.param("0", 1, "ln(3)", id="fails-at-delta-0"),
])
def test_an_honest_mechanism_gives_the_built_in_answer(tmp_path, delta, code, tight):
    """Randomized response written as user code and the built-in kind give the same report;
    by hand (examples/randomized_response.toml): each report has likelihood ratio 3, so the
    tight δ at ln 2 is 3/4 − 2·1/4 = 1/4 and the tight ε at δ = 0 is ln 3."""
    doc = {"data": {"records": 3, "values": [0, 1]},
           "mechanism": {"kind": "function", "function": "rr_mod:rr"},
           "query": {"epsilon": "ln(2)", "delta": delta, "notions": ["dp"]}}
    user = tmp_path / "user"
    user.mkdir()
    (user / "rr_mod.py").write_text(RR_SOURCE, encoding="utf-8")
    mine = run(["check", write(user, doc), "--json"], cwd=tmp_path, env=clean_env())
    built = mutate(mutate(doc, "mechanism.kind", "randomized_response"), "mechanism.function")
    theirs = run(["check", write(tmp_path, mutate(built, "mechanism.truth", "3/4")), "--json"],
                 cwd=tmp_path, env=clean_env())
    assert_verdict(mine, code)
    assert_verdict(theirs, code)
    a, b = json.loads(mine.stdout)["dp"], json.loads(theirs.stdout)["dp"]
    assert a == b
    assert (a["delta"], a["epsilon"]) == ("1/4", tight)
