"""``[mechanism] kind = "program"``: a spec's program enumerated in the user-code child.

Expected values: the built-in kinds' own answers for the same law (randomized response, the
geometric count), the literature's verdicts for the zoo (as tests/test_zoo.py), and hand
derivations where one exists."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "hostile"))
from harness import assert_error, assert_verdict, invoke, write

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PROGRAMS = EXAMPLES / "programs"


def _json(args) -> tuple[int, dict]:
    o = invoke([*args, "--json"])
    assert_verdict(o, (0, 1))
    return o.exit_code, json.loads(o.stdout)


def test_rr_program_gives_randomized_responses_exact_curve_and_verdict():
    answers = {}
    for command in ("check", "curve"):
        built_in = _json([command, EXAMPLES / "randomized_response.toml"])
        answers[command] = _json([command, PROGRAMS / "rr.toml"])
        assert answers[command] == built_in
    # the tight value by hand (examples/randomized_response.toml's comment): δ(ln 2) =
    # 3/4 − 2·1/4 = 1/4
    assert answers["check"][1]["dp"]["delta"] == "1/4"


def test_noisy_count_program_is_the_geometric_count(tmp_path):
    spec = (PROGRAMS / "noisy_count.toml").read_text(encoding="utf-8")
    built = spec.replace('kind = "program"\nfunction = "rr:noisy_count"\nsymmetric = true',
                         'kind = "geometric_count"\nalpha = "1/2"')
    assert built != spec
    path = write(tmp_path, built)
    assert _json(["curve", path]) == _json(["curve", PROGRAMS / "noisy_count.toml"])


# the literature's verdict at the claimed ε (tests/test_zoo.py's LITERATURE)
LITERATURE = {"report_noisy_max": True, "noisy_max_with_value": False, "sparse_vector": True,
              "svt_no_query_noise": False, "svt_no_threshold_noise": False,
              "svt_wrong_scale": False, "svt_returns_noisy_value": False}


@pytest.mark.parametrize("name", sorted(LITERATURE))
def test_zoo_programs_match_the_literatures_verdicts(name):
    status, out = _json(["check", PROGRAMS / f"{name}.toml"])
    assert status == (0 if LITERATURE[name] else 1)
    if not LITERATURE[name]:
        assert out["dp"]["witness"]["outputs"]


def test_svt_without_threshold_noise_costs_ln2_per_bottom_answer():
    """Five ⊥ answers against the exact threshold 1: each has P[q + Z ≤ 0] = 1/(1+α) = 2/3
    at q = 0 and α/(1+α) = 1/3 at q = 1 (clamping at −1 leaves these events alone), a ratio of
    2 per answer: tight ε = ln 32 — the zoo's value."""
    o = invoke(["check", PROGRAMS / "svt_no_threshold_noise.toml", "--epsilon", "ln(32)"])
    assert o.exit_code == 0
    o = invoke(["check", PROGRAMS / "svt_no_threshold_noise.toml", "--epsilon", "ln(31)"])
    assert o.exit_code == 1


def _program_spec(tmp_path: Path, code: str, *, limits: dict | None = None) -> Path:
    (tmp_path / "prog.py").write_text(code, encoding="utf-8")
    doc = {"data": {"records": 2, "values": [0, 1]},
           "mechanism": {"kind": "program", "function": "prog:f"},
           "query": {"epsilon": "ln(3)", "delta": "0", "notions": ["dp"]}}
    if limits:
        doc["limits"] = limits
    return write(tmp_path, doc)


def test_python_random_is_refused_naming_the_function(tmp_path):
    spec = _program_spec(tmp_path, "import random\n"
                                   "def f(db):\n    return int(random.random() < 0.75)\n")
    assert_error(invoke(["check", spec]), "prog:f", "random module")


def test_divergence_is_refused_naming_the_function_and_the_choice(tmp_path):
    spec = _program_spec(tmp_path, "from verifier.program import flip\nRUNS = []\n"
                                   "def f(db):\n    RUNS.append(1)\n"
                                   "    return flip('1/2') and flip('1/3' if len(RUNS) % 2 "
                                   "else '1/4')\n")
    assert_error(invoke(["check", spec]), "prog:f", "diverged at choice 2")


def test_divergence_caught_by_the_program_is_still_refused(tmp_path):
    # every other run draws flip(1/3) where flip(1/2) was recorded, inside
    # `except BaseException: return 0`: without the refusal plrv read a law and said the
    # claim holds (exit 0)
    spec = _program_spec(tmp_path, "from verifier.program import flip\nRUNS = []\n"
                                   "def f(db):\n    RUNS.append(1)\n    try:\n"
                                   "        a = flip('1/2' if len(RUNS) % 2 else '1/3')\n"
                                   "    except BaseException:\n        return 0\n"
                                   "    return 1 if a else 0\n")
    assert_error(invoke(["check", spec]), "prog:f", "diverged at choice 1")


def test_choice_limit_caught_by_the_program_is_still_refused(tmp_path):
    # 1-valued choices past limits.paths = 5, the stop caught: one path, which must not pass
    spec = _program_spec(tmp_path, "from verifier.program import flip\n"
                                   "def f(db):\n    try:\n        while True:\n"
                                   "            flip('1')\n"
                                   "    except BaseException:\n        return db[0]\n",
                         limits={"paths": 5})
    assert_error(invoke(["check", spec]), "prog:f", "more than 5 choices on one path")


def test_an_int_subclass_that_equals_everything_cannot_merge_outputs(tmp_path):
    # returns 0 or the record on a fair flip: P[1 | (1, x)] = 1/2 against 0 for (0, x), so
    # no ε holds at δ = 0. With S(0) == S(1) the paths merged into a point mass and
    # "ε = ln(3), δ = 0 holds" came out (exit 0)
    code = ("from verifier.program import flip\n"
            "class S(int):\n    def __eq__(self, other):\n        return True\n"
            "    def __hash__(self):\n        return 0\n"
            "def f(db):\n    return S(0) if flip('1/2') else S(db[0])\n")
    assert_error(invoke(["check", _program_spec(tmp_path, code)]), "prog:f", "subclass")
    plain = code.replace("S(0) if", "0 if").replace("S(db[0])", "db[0]")
    assert invoke(["check", _program_spec(tmp_path, plain)]).exit_code == 1


def test_a_function_that_catches_the_primitives_refusal_is_still_refused(tmp_path):
    # kind = "function" is called, not enumerated: flip() there is refused. Caught by
    # `except BaseException: return 0`, the function looked constant and "ε = ln(3), δ = 0
    # holds" came out (exit 0), though the code it names releases the record half the time
    code = ("from verifier.program import flip\n"
            "def f(db):\n    try:\n        return db[0] if flip('1/2') else 0\n"
            "    except BaseException:\n        return 0\n")
    spec = _program_spec(tmp_path, code)
    spec.write_text(spec.read_text().replace('"program"', '"function"'))
    assert_error(invoke(["check", spec]), "prog:f", "does not enumerate")


def test_paths_limit_is_applied_in_the_child(tmp_path):
    code = ("from verifier.program import flip\n"
            "def f(db):\n    return tuple(x if flip('3/4') else 1 - x for x in db)\n")
    assert invoke(["check", _program_spec(tmp_path, code, limits={"paths": 4})]).exit_code == 0
    assert_error(invoke(["check", _program_spec(tmp_path, code, limits={"paths": 3})]),
                 "limits.paths", "prog:f")


@pytest.mark.parametrize("body, needle", [
    ("    while True:\n        pass\n", "user_seconds"),
    ("    import os\n    os._exit(3)\n", "exit status 3"),
    # choices without end: one path longer than limits.paths
    ("    while flip('1/2') or True:\n        pass\n", "limits.paths"),
])
def test_a_program_that_hangs_or_exits_ends_in_exit_2_within_the_limit(tmp_path, body, needle):
    code = "from verifier.program import flip\ndef f(db):\n" + body
    limits = {"user_seconds": 1, "paths": 1000}
    o = invoke(["check", _program_spec(tmp_path, code, limits=limits)])
    assert_error(o, "prog:f", needle)
    assert o.seconds < 15


def test_a_programs_certificate_records_its_laws_as_user_codes(tmp_path):
    """As for kind = "function": the kernel takes the laws from the certificate and answers
    "consistent", exit 3 (it does not run user code)."""
    cert = tmp_path / "rr.cert.json"
    assert invoke(["check", PROGRAMS / "rr.toml", "--certificate", cert]).exit_code == 0
    assert json.loads(cert.read_text(encoding="utf-8"))["spec"]["mechanism"]["kind"] == \
        "function"
    o = invoke(["verify-certificate", cert])
    assert o.exit_code == 3
    assert "user code 'rr'" in o.stdout + o.stderr


def _reference():
    sys.path.insert(0, str(EXAMPLES.parent / "benchmarks"))
    sys.path.insert(0, str(PROGRAMS))
    import programs
    import zoo_programs
    return programs, zoo_programs


@pytest.mark.parametrize("q", [(0, 1, 0), (1, 1, 0, 1), (2, 0, 1)])
def test_zoo_program_laws_equal_a_recursive_fraction_enumerator(q):
    """benchmarks/programs.py's reference (Fractions, recursion sharing prefixes, each noise
    law by its own formula; nothing of plrv) gives the same exact law."""
    from fractions import Fraction

    from verifier.program import program
    ref, zoo = _reference()
    for f, paths in ((zoo.sparse_vector, ref.svt_paths), (zoo.report_noisy_max, ref.max_paths)):
        law, _ = ref.reference(paths(q))
        got = program(f)(q)
        assert {o: Fraction(int(w.numerator), int(w.denominator)) for o, w in got.items()} == law


def test_a_function_that_is_not_a_program_may_not_draw(tmp_path):
    """kind = "function" is called, not enumerated: a primitive there would sample and one
    draw would be taken for the law. Refused, even where the function catches Exception."""
    code = ("from verifier.program import flip\ndef f(db):\n    try:\n"
            "        return int(flip('3/4'))\n    except Exception:\n        return 0\n")
    spec = _program_spec(tmp_path, code)
    text = spec.read_text(encoding="utf-8").replace('kind = "program"', 'kind = "function"')
    spec.write_text(text, encoding="utf-8")
    assert_error(invoke(["check", spec]), "prog:f", "flip(3/4)", 'kind = "program"')
    from verifier.core.errors import UserCodeError
    from verifier.model.user_code import load_function
    f = load_function("prog:f", search_dir=tmp_path)  # in-process, the same refusal
    with pytest.raises(UserCodeError, match=r"flip\(3/4\) was drawn"):
        f((0,))
