"""The commands added beside check, pso, guess, sweep and family keep the same contract:
``compose``, ``prove``, ``reducible``, ``search``, ``verify-certificate``, ``theorems`` and
``check --mode certified`` / ``--closed-form``. Bad input is exit 2 with one line naming the
option or the file; a decided verdict alone exits 0 or 1."""

from __future__ import annotations

import pytest
from harness import (
    PSO_COUNT,
    ROOT,
    RR,
    assert_contract,
    assert_error,
    assert_verdict,
    invoke,
    mutate,
    write,
)

TALLY = str(ROOT / "examples" / "tally_symbolic.toml")
EXAMPLE7_SMALL = str(ROOT / "examples" / "example7_small.toml")


@pytest.mark.parametrize("args, needle", [
    (["compose", "SPEC", "--k", "0"], "--k"),
    (["compose", "SPEC", "--k", "-3"], "--k"),
    (["compose", "SPEC", "--k", "x"], "--k"),
    (["compose", "PSO", "--k", "2"], "plrv pso"),
    (["prove", "SPEC", "--claim", "__import__('os').system('true')"], "--claim"),
    (["prove", "TALLY", "--claim", "apk <= "], "--claim"),
    (["prove", "TALLY", "--claim", "lemma99"], "--claim"),
    (["prove", "TALLY", "--claim", "(" * 500 + "apk <= ppk" + ")" * 500], "--claim"),
    (["prove", "TALLY", "--claim", "not " * 3000 + "apk <= ppk"], "--claim"),
    (["prove", "TALLY", "--claim", "- " * 60 + "apk <= ppk"], "--claim"),
    (["prove", "TALLY", "--claim", " + ".join(["apk"] * 200) + " <= ppk"], "--claim"),
    (["prove", "TALLY", "--claim", "lemma5", "--timeout", "0"], "--timeout"),
    (["prove", "PSO", "--claim", "lemma5"], "plrv pso"),
    (["reducible", "PSO"], "plrv pso"),
    (["search", "no-such-conjecture"], "no-such-conjecture"),
    (["check", "SPEC", "--mode", "fast"], "--mode"),
    (["check", "SPEC", "--mode", "certified", "--full", "--json"], "--mode"),
    (["check", "SPEC", "--mode", "certified"], "data.prior"),
    (["check", "TALLY", "--at", "q=1/2"], "q"),
    (["check", "TALLY", "--at", "p=2"], "p"),
    (["check", "TALLY", "--at", "p=abc"], "p"),
], ids=lambda v: v if isinstance(v, str) else " ".join(map(str, v))[:60])
def test_bad_input_to_the_newer_commands(tmp_path, args, needle):
    paths = {"SPEC": str(write(tmp_path, RR)),
             "PSO": str(write(tmp_path, PSO_COUNT, "pso.toml")), "TALLY": TALLY}
    assert_error(invoke([paths.get(a, a) for a in args]), needle)


@pytest.mark.parametrize("args, expected", [
    (["compose", "SPEC", "--k", "3"], 1),             # δ(ln 2) of 3-fold RR 3/4 is 17/32 > 0
    (["compose", "HOLDS", "--k", "1"], 0),            # one run: δ(ln 2) = 1/4 ≤ 1/4
    (["check", "SMALL", "--mode", "certified"], 1),   # APK fails (README), PPK holds
    (["check", "SPEC", "--closed-form"], 1),
    (["reducible", "TALLY"], 0),
], ids=["compose-3", "compose-1", "certified", "closed-form", "reducible"])
def test_controls_still_decide(tmp_path, args, expected):
    paths = {"SPEC": str(write(tmp_path, mutate(RR, "data.records", 1))),
             "HOLDS": str(write(tmp_path, mutate(mutate(RR, "data.records", 1), "query.delta",
                                                 "1/4"), "holds.toml")),
             "SMALL": EXAMPLE7_SMALL, "TALLY": TALLY}
    assert_verdict(invoke([paths.get(a, a) for a in args]), expected)


@pytest.mark.parametrize("text", ["", "{", "[]", '{"format": "plrv-certificate"}', "null",
                                  '{"version": 99}', "\udcff" * 3],
                         ids=["empty", "brace", "list", "fields-missing", "null", "version",
                              "surrogates"])
def test_verify_certificate_never_forges_a_verdict(tmp_path, text):
    """Garbage is an error or a rejection (both 2) — never 'verified'."""
    path = tmp_path / "c.json"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    o = invoke(["verify-certificate", str(path)])
    assert_contract(o)
    assert o.exit_code == 2
