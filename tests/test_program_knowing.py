"""Background knowledge and adaptive composition steps written as programs: a function that
draws with :mod:`verifier.program` is enumerated exactly, never sampled.

Expected values: the same function written returning its ``Dist``
(examples/user_functions.py:noisy_first_bit, examples/compose/adaptive_rr.py), and the laws
by hand (a flip of 3/4 between the record and its complement)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from gmpy2 import mpq

sys.path.insert(0, str(Path(__file__).resolve().parent / "hostile"))
from harness import assert_error, assert_verdict, invoke, write

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PROGRAMS = EXAMPLES / "programs"


def _json(command: str, spec: Path) -> tuple[int, dict]:
    o = invoke([command, spec, "--json"])
    assert_verdict(o, (0, 1))
    return o.exit_code, json.loads(o.stdout)


def test_a_knowledge_program_gives_the_same_apk_and_ppk_delta_as_its_dist():
    """``db[0] if flip("3/4") else 1 - db[0]`` against ``Dist({db[0]: 3/4, 1 - db[0]:
    1/4})``: the same exact δ for every notion (the mechanism is the same in both specs)."""
    program = _json("check", PROGRAMS / "knowledge.toml")
    returned = _json("check", EXAMPLES / "user_functions.toml")
    assert program == returned
    assert program[1]["apkdp"]["delta"] == returned[1]["apkdp"]["delta"]
    assert program[1]["ppkdp"]["delta"] == returned[1]["ppkdp"]["delta"]


def test_adaptive_steps_as_programs_give_the_same_exact_composition():
    """examples/compose/adaptive_rr.toml's steps as programs; δ(ln 2) = 1/3 by hand there."""
    program = _json("compose", PROGRAMS / "adaptive_rr.toml")
    returned = _json("compose", EXAMPLES / "compose" / "adaptive_rr.toml")
    assert program == returned
    assert program[1]["tight_delta"] == "1/3"


def _laws():
    sys.path.insert(0, str(PROGRAMS))
    import knowing
    return knowing


def test_the_python_api_enumerates_knowledge_and_steps():
    from verifier import Dist
    from verifier.model.knowledge import knowledge
    from verifier.notions.composition.adaptive import adaptive_step

    knowing = _laws()
    zeta = knowledge(knowing.noisy_first_bit)
    assert dict(zeta((1, 0)).items()) == {1: mpq(3, 4), 0: mpq(1, 4)}
    step = adaptive_step(knowing.again)
    assert dict(step((0,), (1,)).items()) == {0: mpq(2, 3), 1: mpq(1, 3)}
    assert dict(step((0,), (0,)).items()) == {"stop": mpq(1)}
    # a function returning its Dist, or a value, reads as before (one path)
    assert dict(knowledge(lambda db: Dist({db[0]: "1/3", 2: "2/3"}))((5,)).items()) == \
        {5: mpq(1, 3), 2: mpq(2, 3)}
    assert dict(adaptive_step(lambda x, h: [x[0], len(h)])((7,), ()).items()) == {(7, 0): 1}


def _spec(tmp_path: Path, code: str, doc: dict) -> Path:
    (tmp_path / "prog.py").write_text("from verifier.program import flip\n" + code,
                                      encoding="utf-8")
    return write(tmp_path, doc)


_KNOW = {"data": {"records": 2, "values": [0, 1], "prior": ["1/2", "1/2"]},
         "mechanism": {"kind": "identity"},
         "attacker": {"target": 1, "knowledge": "prog:z"},
         "query": {"epsilon": "ln(3)", "delta": "0", "notions": ["apkdp"]}}
_STEPS = {"data": {"records": 1, "values": [0, 1]},
          "composition": {"steps": ["prog:s", "prog:s"]},
          "query": {"epsilon": "ln(9)", "delta": "0", "notions": ["dp"]}}
_TWO_FLIPS = "(x[0] if flip('3/4') else 1 - x[0], int(flip('1/2')))"


@pytest.mark.parametrize("command, doc, code", [
    ("check", _KNOW, f"def z(x):\n    return {_TWO_FLIPS}\n"),
    ("compose", _STEPS, f"def s(x, h):\n    return {_TWO_FLIPS}\n"),
])
def test_limits_paths_bounds_knowledge_and_steps(tmp_path, command, doc, code):
    """Two flips: 4 paths per call, within limits.paths = 4 and refused at 3."""
    o = invoke([command, _spec(tmp_path, code, {**doc, "limits": {"paths": 4}})])
    assert o.exit_code in (0, 1), o.describe()
    assert_error(invoke([command, _spec(tmp_path, code, {**doc, "limits": {"paths": 3}})]),
                 "limits.paths", "prog:")


@pytest.mark.parametrize("command, doc, name", [
    ("check", _KNOW, "z"), ("compose", _STEPS, "s"),
])
def test_a_knowledge_or_step_using_random_is_refused(tmp_path, command, doc, name):
    code = f"import random\ndef {name}(*a):\n    return int(random.random() < 0.75)\n"
    assert_error(invoke([command, _spec(tmp_path, code, doc)]), f"prog:{name}", "random")


# ------------------------------------------------------------------ progress


def test_enumeration_reports_its_paths_while_watched():
    """13 fair flips: 2^13 = 8192 paths, reported as two runs of 4096 as they go; 3 paths
    (a flip, then a second flip on one branch) reported at the end."""
    from verifier.model.program_enum import enumerate_program, watching
    from verifier.program import flip

    seen: list[int] = []
    with watching(seen.append):
        enumerate_program(lambda: sum(flip() for _ in range(13)), (), name="thirteen")
        assert seen == [4096, 4096]
        enumerate_program(lambda: flip() and flip(), (), name="two")
    assert seen == [4096, 4096, 3]
    enumerate_program(lambda: flip(), (), name="unwatched")
    assert seen == [4096, 4096, 3]


def test_progress_counts_the_paths_a_spec_program_runs_in_the_child():
    """examples/programs/rr.toml: 3 records, each flipped: 2^3 = 8 paths on each of the 2^3
    databases, 64 in all, sent by the user-code child; no line without --progress."""
    import re

    forced = invoke(["check", PROGRAMS / "rr.toml", "--progress"])
    assert forced.exit_code == 0
    totals = [int(t) for t in re.findall(r"program paths: (\d+)", forced.stderr)]
    assert totals and totals[-1] == 64
    assert "program paths" not in invoke(["check", PROGRAMS / "rr.toml"]).stderr


def test_the_child_sends_a_programs_paths_as_they_run(tmp_path, monkeypatch):
    """2^14 paths enumerated in the child: with no wait between frames (the child is forked
    from this process and keeps its module state) the parent hears 4096 paths four times,
    before the answer; with the default wait their sum is still 2^14."""
    import threading

    from verifier.model import sandbox_child
    from verifier.model.program_enum import watching
    from verifier.model.sandbox import Sandbox
    from verifier.model.user_code import load_program

    if threading.active_count() != 1:
        pytest.skip("the child is started afresh, not forked, when threads run")
    (tmp_path / "many.py").write_text(
        "from verifier.program import flip\n"
        "def f(x):\n    return sum(flip() for _ in range(14)) + x\n", encoding="utf-8")
    for tick, expected in ((0.0, [4096] * 4), (sandbox_child._TICK, None)):
        monkeypatch.setattr(sandbox_child, "_TICK", tick)
        sb = Sandbox(tmp_path)
        try:
            f = load_program("many:f", sb, "function", 1 << 14)
            seen: list[int] = []
            with watching(seen.append):
                law = f(0)
            assert law[7] == mpq(3432, 1 << 14)  # C(14, 7) / 2^14
            assert sum(seen) == 1 << 14
            if expected is not None:
                assert seen == expected
        finally:
            sb.close()
