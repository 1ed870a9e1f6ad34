"""The process running user code: plain data both ways, answers kept and batched, one time
budget per run, load errors as in-process loading gives them, pickling and threads."""

from __future__ import annotations

import math
import os
import pickle
import textwrap
import threading
from fractions import Fraction
from pathlib import Path

import pytest
from gmpy2 import mpq, mpz

from verifier.core.distribution import BOTTOM, Dist
from verifier.core.errors import InvalidDistribution, UnknownName, UserCodeError
from verifier.model import sandbox as sandbox_module
from verifier.model.sandbox import Sandbox
from verifier.model.sandbox_wire import (
    Closed,
    Labelled,
    Timeout,
    WireError,
    decode,
    dumps,
    encode,
    loads,
    recv_frame,
    send_frame,
)
from verifier.model.user_code import load_function
from verifier.pso.predicates import Predicate

SOURCE = '''
import time

CALLS = []


def counted(x):
    """The number of calls so far, this one included."""
    CALLS.append(x)
    return len(CALLS)


def slow(x):
    time.sleep(0.45)
    return x


def total(db):
    return sum(db)


VALUE = 5
'''


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    (tmp_path / "sb_mod.py").write_text(textwrap.dedent(SOURCE), encoding="utf-8")
    return tmp_path


@pytest.fixture()
def exchanges(monkeypatch) -> list:
    """The requests sent to children (their first word), in order."""
    sent: list = []
    original = Sandbox._exchange

    def spy(self, message, f):
        sent.append(message[0] if isinstance(message, list) else message.split(b",")[0])
        return original(self, message, f)

    monkeypatch.setattr(Sandbox, "_exchange", spy)
    return sent


# ---------------------------------------------------------------- the wire

ROUND_TRIP = [None, True, False, 0, -5, 2**53 - 1, 2**53, -(2**100), 10**5000, "", "é ⊥",
              "\ud800", Fraction(-3, 7), mpq(5, 9), mpz(2**70), (), (1, ("a", None)), [1, [2]],
              {1, "x"}, frozenset({(1, 2)}), {1: "a", (2,): [3]}, 0.25, -0.0]


@pytest.mark.parametrize("value", ROUND_TRIP,
                         ids=[f"{j}-{type(v).__name__}" for j, v in enumerate(ROUND_TRIP)])
def test_values_cross_with_their_type(value):
    back = decode(loads(dumps(encode(value))))
    assert type(back) is type(value)
    assert back == value
    if isinstance(value, float):
        assert math.copysign(1, back) == math.copysign(1, value)


def test_nan_bottom_dist_and_predicate_cross():
    assert math.isnan(decode(loads(dumps(encode(float("nan"))))))
    assert decode(loads(dumps(encode(BOTTOM)))) is BOTTOM
    d = Dist({(0, BOTTOM): "1/3", "x": Fraction(2, 3)})
    back = decode(loads(dumps(encode(d))))
    assert isinstance(back, Dist) and back == d
    assert back[(0, BOTTOM)] == mpq(1, 3)
    p = decode(loads(dumps(encode(Predicate(frozenset({1, 2}), "x < 3")))))
    assert p == Labelled(frozenset({1, 2}), "x < 3")


def test_other_objects_cross_as_named_stand_ins():
    class Widget:
        def __repr__(self):
            return "<widget 7>"
    back = decode(loads(dumps(encode(Widget()))))
    assert type(back).__name__ == "Widget" and repr(back) == "<widget 7>"


@pytest.mark.parametrize("data, error", [
    (["q", "1", "0"], "denominator"),
    (["F", "1", "-2"], "denominator"),
    (["q", "x", "2"], "hexadecimal"),
    (["I", "zz"], "hexadecimal"),
    (["I", 5], "hexadecimal"),
    (["f", "1" * 50], "tagged 'f'"),
    (["f", "one"], "float"),
    (["?"], "tagged"),
    ([], "a value"),
    (1.5, "float"),
    ({"a": 1}, "dict"),
    (["s", ["l"]], "unhashable"),
    (["d", [1]], "pair"),
    (["t"] * 300, "nested"),
], ids=["zero-den", "negative-den", "bad-num", "bad-int", "int-not-text", "long-float",
        "not-a-float", "unknown-tag", "empty", "bare-float", "object", "unhashable-member",
        "half-pair", "too-deep"])
def test_data_that_is_not_a_value_is_refused(data, error):
    if data == ["t"] * 300:
        data = ["t"]
        for _ in range(300):
            data = ["t", data]
    with pytest.raises(WireError, match=error):
        decode(data)


def test_a_dist_not_summing_to_one_is_refused_by_dist_itself():
    with pytest.raises(InvalidDistribution, match="sums to 1/2"):
        decode(["D", [0, ["q", "1", "2"]]])


@pytest.mark.parametrize("payload", [b"NaN", b"[Infinity]", b"\xff", b"[", b"[1,"],
                         ids=["nan", "infinity", "not-ascii", "open", "cut"])
def test_frames_that_are_not_json_are_refused(payload):
    with pytest.raises(WireError):
        loads(payload)


def test_frames_over_the_limit_end_of_file_and_deadline():
    r, w = os.pipe()
    send_frame(w, b"x" * 100)
    with pytest.raises(WireError, match="over the limit of 99"):
        recv_frame(r, limit=99)
    os.close(r)
    os.close(w)
    r, w = os.pipe()
    with pytest.raises(Timeout):
        recv_frame(r, deadline=0.0)  # nothing to read, and the deadline long past
    send_frame(w, b"[1]")
    assert recv_frame(r) == b"[1]"
    os.close(w)
    with pytest.raises(Closed):
        recv_frame(r)
    os.close(r)


# ---------------------------------------------------------------- calls

def test_answers_are_kept_by_their_exact_arguments(folder, exchanges):
    sb = Sandbox(folder)
    f = load_function("sb_mod:counted", sandbox=sb)
    assert [f((1,)), f((1,)), f((2,)), f((1,)), f((mpq(1),))] == [1, 1, 2, 1, 3]
    # the int 1 and the mpq 1 are equal in Python but different arguments to user code
    assert exchanges == ["load", b'["call"', b'["call"', b'["call"']
    sb.close()


def test_prefetch_is_one_round_trip(folder, exchanges):
    sb = Sandbox(folder)
    f = load_function("sb_mod:counted", sandbox=sb)
    f.prefetch([((j,),) for j in range(10)] + [((3,),)])
    assert exchanges == ["load", b'["many"']
    assert [f((j,)) for j in range(10)] == list(range(1, 11))
    assert len(exchanges) == 2  # every call answered from the batch
    f.prefetch([((j,),) for j in range(10)])
    assert len(exchanges) == 2  # nothing left to ask
    sb.close()


def test_the_time_limit_is_one_budget_for_the_run(folder):
    """Each call sleeps 0.45 s, under the 2 s limit; the calls together are not."""
    sb = Sandbox(folder, seconds=2)
    f = load_function("sb_mod:slow", sandbox=sb)
    done = 0
    with pytest.raises(UserCodeError, match="limits.user_seconds = 2") as info:
        for j in range(10):
            f(j)
            done += 1
    assert 2 <= done <= 4  # 4 calls take 1.8 s at least, 5 take 2.25 s
    assert info.value.function == "sb_mod:slow"
    pid = sb._child.pid
    with pytest.raises(ChildProcessError):  # killed and reaped
        os.waitpid(pid, os.WNOHANG)
    with pytest.raises(UserCodeError, match="sb_mod:total.*limits.user_seconds"):
        load_function("sb_mod:total", sandbox=sb)  # the sandbox stays ended


def test_load_errors_are_those_of_in_process_loading(folder):
    sb = Sandbox(folder)
    with pytest.raises(UnknownName, match="module 'sb_mod' has no function 'missing'"):
        load_function("sb_mod:missing", sandbox=sb, name="knowledge")
    with pytest.raises(UnknownName, match="'VALUE' in module 'sb_mod' is a int"):
        load_function("sb_mod:VALUE", sandbox=sb)
    (folder / "broken_mod.py").write_text("raise RuntimeError('boom')\n")
    with pytest.raises(UserCodeError, match="cannot import module 'broken_mod' "
                                            r"\(RuntimeError: boom\)"):
        load_function("broken_mod:f", sandbox=sb)
    assert load_function("sb_mod:total", sandbox=sb)((1, 2)) == 3  # the child lives on
    sb.close()


def test_refused_references_start_no_child(folder):
    sb = Sandbox(folder)
    for reference in ("os:system", "nowhere:f", "sb_mod:a.b"):
        with pytest.raises(UnknownName):
            load_function(reference, sandbox=sb)
    assert sb._child is None
    assert not (folder / "__pycache__").exists()


def test_a_pickled_function_runs_in_a_child_of_the_unpickling_process(folder):
    sb = Sandbox(folder, seconds=7, memory=1 << 31)
    f = load_function("sb_mod:counted", sandbox=sb)
    assert f(5) == 1
    g = pickle.loads(pickle.dumps(f))
    assert g(5) == 1  # another child: its own calls, no answers carried over
    h = pickle.loads(pickle.dumps(f))
    assert h.function.sandbox is g.function.sandbox  # one per folder and limits
    assert (g.function.sandbox.seconds, g.function.sandbox.memory) == (7, 1 << 31)
    assert g.function.sandbox is not sb
    sb.close()
    sandbox_module._SHARED.clear()


def test_with_threads_running_the_child_is_a_fresh_interpreter(folder):
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        sb = Sandbox(folder)
        f = load_function("sb_mod:total", sandbox=sb)
        assert sb._child is not None and sb._child.popen is not None
        assert f((1, 2, 3)) == 6
        sb.close()
    finally:
        stop.set()
        thread.join()


# ---------------------------------------------------------------- batched by the engines

def _check(folder: Path, body: str) -> int:
    from typer.testing import CliRunner

    from verifier.cli import app

    (folder / "spec.toml").write_text(textwrap.dedent(body), encoding="utf-8")
    return CliRunner().invoke(app, ["check", str(folder / "spec.toml")]).exit_code


def test_dp_by_brute_force_asks_for_every_law_at_once(folder, exchanges):
    """The sum of 3 binary records at ε = ln 2: neighbours differ by 1 in the sum, a point
    mass, so δ = 1 and the claim fails (exit 1); after the law of one database (for the
    work estimate), the 7 others come in one round trip."""
    assert _check(folder, '''
        [data]
        records = 3
        values = [0, 1]
        [mechanism]
        kind = "function"
        function = "sb_mod:total"
        [query]
        epsilon = "ln(2)"
        notions = ["dp"]
        ''') == 1
    assert exchanges == ["load", b'["call"', b'["many"']


def test_partial_notions_ask_for_mechanism_and_knowledge_at_once(folder, exchanges):
    """APK-DP of the sum against knowledge of record 0 given by user code: two loads (the
    knowledge then enumerated as a program: one more request), each function on one database
    (the work estimate: outputs and background values of one database), then the others'
    laws of each function in one round trip each."""
    (folder / "know_mod.py").write_text("def first(db):\n    return db[0]\n")
    assert _check(folder, '''
        [data]
        records = 3
        values = [0, 1]
        prior = ["1/2", "1/2"]
        [mechanism]
        kind = "function"
        function = "sb_mod:total"
        [attacker]
        target = 2
        knowledge = "know_mod:first"
        [query]
        epsilon = "ln(2)"
        notions = ["apkdp"]
        ''') == 1
    assert exchanges == ["load", "load", "program", b'["call"', b'["call"', b'["many"',
                         b'["many"']


def _run(folder: Path, command: str, body: str) -> int:
    from typer.testing import CliRunner

    from verifier.cli import app

    (folder / "spec.toml").write_text(textwrap.dedent(body), encoding="utf-8")
    return CliRunner().invoke(app, [command, str(folder / "spec.toml")]).exit_code


def test_singling_out_and_guessing_ask_at_once(folder, exchanges):
    """A constant mechanism releases nothing: singling out with predicates of weight ≤ 1/4
    succeeds no better than the baseline (exit 0), and a guess no better than the prior
    (exit 0); the 16 datasets of 2 rows over 4 values in one round trip, the 3 secrets in
    one after the first (the work estimate's)."""
    (folder / "const_mod.py").write_text("def zero(x):\n    return 0\n")
    assert _run(folder, "pso", '''
        [universe]
        values = [0, 1, 2, 3]
        [rows]
        n = 2
        [mechanism]
        kind = "function"
        function = "const_mod:zero"
        [adversary]
        kind = "trivial"
        weight_at_most = "1/4"
        ''') == 0
    assert exchanges == ["load", b'["many"']
    exchanges.clear()
    assert _run(folder, "guess", '''
        [domain]
        values = [0, 1, 2]
        [mechanism]
        kind = "function"
        function = "const_mod:zero"
        [goal]
        precision = 1
        ''') == 0
    assert exchanges == ["load", b'["call"', b'["many"']  # a law for the work estimate


@pytest.mark.parametrize("returned", [
    "{o[0]}",
    "Predicate(frozenset({o[0]}), 'x == first row')",
    "(Predicate(frozenset({o[0]}), 'x == first row'),)",
    "Dist({frozenset({o[0]}): '1/2', Predicate(frozenset({o[0]}), 'first'): '1/2'})",
], ids=["set", "Predicate", "tuple-of-Predicate", "Dist-of-both"])
def test_an_isolated_adversary_returns_predicates(folder, returned):
    """The identity on 2 rows over 4 equally likely values, and an adversary naming the first
    row's value (weight 1/4, admissible): it singles out a row exactly when the second row
    differs, with probability 3/4 (by hand) — however the predicate is returned."""
    import json

    from typer.testing import CliRunner

    from verifier.cli import app

    (folder / "adv_mod.py").write_text(
        "from verifier import Dist\nfrom verifier.pso.predicates import Predicate\n\n"
        f"def first(o):\n    return {returned}\n")
    (folder / "spec.toml").write_text(textwrap.dedent('''
        [universe]
        values = [0, 1, 2, 3]
        [rows]
        n = 2
        [mechanism]
        kind = "identity"
        [adversary]
        kind = "function"
        function = "adv_mod:first"
        weight_at_most = "1/4"
        '''))
    result = CliRunner().invoke(app, ["pso", str(folder / "spec.toml"), "--json"])
    assert result.exit_code == 1, result.output  # 3/4 > the baseline's 3/8
    assert json.loads(result.stdout)["success"] == "3/4"
