"""Every command's text output: at most 80 columns, δ near 1 shown by its distance to 1,
counts with their nouns in the right number, papers cited by name, audit witnesses short.

The expected values are derived by hand here (e^(1/2) = 1.6487212707…, the counts of the
specs), never read from plrv's own output.
"""

import importlib.util
import re
from pathlib import Path

import pytest
from gmpy2 import mpq
from rich.cells import cell_len
from typer.testing import CliRunner

from verifier.cli import app
from verifier.core.certified import shown_decimal
from verifier.core.delta import Delta
from verifier.core.epsilon import parse_epsilon
from verifier.core.numbers import counted
from verifier.reports.audit import witness_text
from verifier.reports.text import WIDTH, cite, wrapped

ROOT = Path(__file__).resolve().parent.parent
EX = ROOT / "examples"
runner = CliRunner()


def _commands():
    for f in sorted([*EX.glob("*.toml"), *EX.glob("gallery/*.toml"), *EX.glob("zoo/*.toml"),
                     *EX.glob("programs/*.toml")]):
        name = f.name
        if f.parent.name == "programs" and name == "adaptive_rr.toml":
            yield ["compose", str(f)]
        elif name == "cafeteria.toml" or name.startswith("guess_"):
            yield ["guess", str(f)]
        elif name.startswith("pso_"):
            yield ["pso", str(f)]
        elif name == "figure_3_4.toml":
            yield ["sweep", str(f), "--threshold", "3"]
        elif "symbolic" in name:
            yield ["reducible", str(f)]
        else:
            yield ["check", str(f)]
    yield ["curve", str(EX / "randomized_response.toml")]
    yield ["curve", str(EX / "threshold_partial.toml")]
    yield ["prove", str(EX / "rr_symbolic.toml"), "--claim", "lemma5"]
    yield ["compose", str(EX / "compose" / "adaptive_rr.toml")]


@pytest.mark.parametrize("args", list(_commands()), ids=lambda a: " ".join(
    [a[0], Path(a[1]).name if len(a) > 1 else ""]))
def test_no_line_of_text_output_is_wider_than_80_columns(args):
    """Error lines are the one exception (one line each, naming file and key, exit 2)."""
    result = runner.invoke(app, args)
    assert result.exit_code in (0, 1, 3), result.output
    wide = [line for line in result.output.splitlines() if cell_len(line) > WIDTH]
    assert wide == []


@pytest.mark.parametrize("config", ["opendp_randomized_response.toml",
                                    "opendp_bitvec_lengths.toml"])
def test_audit_text_fits_80_columns_and_names_the_constructor_in_full(config):
    if importlib.util.find_spec("opendp") is None:
        pytest.skip("needs opendp")
    result = runner.invoke(app, ["audit", str(EX / "audit" / config)])
    assert result.exit_code in (0, 1)
    assert [line for line in result.output.splitlines() if cell_len(line) > WIDTH] == []
    assert "opendp.make_randomized_response" in result.output  # never "make_randomized_resp…"
    assert "…" not in result.output.split("case[0]")[1].splitlines()[0]


def test_audit_shows_a_claim_the_double_states_exactly_with_equals():
    if importlib.util.find_spec("opendp") is None:
        pytest.skip("needs opendp")
    # case[2]: 3 categories at prob = 1/3 (the double), OpenDP's ε = ln(prob·(k − 1)/(1 − prob))
    # = ln 1 = 0.0, a double whose exact value is 0: "ε = 0", not "ε ≈ 0.0"
    result = runner.invoke(app, ["audit", str(EX / "audit" / "opendp_randomized_response.toml")])
    case = result.output.split("case[2]")[1].split("case[3]")[0]
    assert "  claim      ε = 0, δ = 0\n" in case, case
    assert "≈ 0.0" not in result.output
    # a double that is not its shortest decimal stays "≈"
    assert "  claim      ε ≈ 1.0986122886681098, δ = 0\n" in result.output


def test_delta_near_1_shows_its_distance_to_1():
    # δ = 1 − 10^-30·e^(1/2); 1 − δ = 10^-30 · 1.6487212707… (e^(1/2), by hand)
    d = Delta.make(mpq(1), mpq(1, 10**30), parse_epsilon("1/2"))
    assert d.approx() == "0.999999"  # the truncation alone hides the distance
    assert shown_decimal(d) == "1 − 1.64872e-30"
    assert shown_decimal(1 - mpq(62, 10**30)) == "1 − 6.2e-29"
    assert shown_decimal(mpq(999999, 10**6)) == "0.999999"  # exact: shown as it is
    assert shown_decimal(mpq(9999995, 10**7)) == "1 − 5e-7"
    assert shown_decimal(mpq(62, 10**30)) == "6.2e-29"  # near 0: significant digits kept
    assert shown_decimal(mpq(1)) == "1"


def test_check_prints_delta_near_1_as_1_minus(tmp_path):
    # randomized response, truth t = 1 − 10^-30, one record, ε = 1/2 nats: δ = t − e^(1/2)(1 − t),
    # so 1 − δ = 10^-30·(1 + e^(1/2)) = 2.6487212707…e-30
    spec = tmp_path / "rr.toml"
    spec.write_text(f'[data]\nrecords = 1\nvalues = [0, 1]\n[mechanism]\n'
                    f'kind = "randomized_response"\ntruth = "{10**30 - 1}/{10**30}"\n'
                    f'[query]\nepsilon = "1/2"\ndelta = "1/2"\n', encoding="utf-8")
    result = runner.invoke(app, ["check", str(spec)])
    assert result.exit_code == 1
    text = " ".join(result.output.split())
    assert "≈ 1 − 2.64872e-30" in text and "0.999999" not in text
    assert "data 1 record over [0, 1]" in text  # not "1 records"


def test_compose_prints_delta_near_1_as_1_minus_and_its_values_after_a_colon():
    # --k 2 of the same randomized response (t = 1 − u, u = 10^-30), ε = 1/2 nats: the pair
    # (0), (1) has losses ±2·ln(t/u) (masses t², u²) and 0 (mass 2tu), so
    # δ = t² − e^(1/2)·u² and 1 − δ = 2u + (e^(1/2) − 1)·u² = 2.000…0648…e-30 (by hand),
    # whose 6-digit truncation is 2e-30
    result = runner.invoke(app, ["compose", "--mechanism",
                                 f"randomized_response truth={10**30 - 1}/{10**30}",
                                 "--k", "2", "--epsilon", "1/2", "--delta", "1/2"])
    assert result.exit_code == 1, result.output
    text = " ".join(result.output.split())
    assert "≈ 1 − 2e-30" in text and "0.999999" not in text, text
    # the 70-digit truth and the long exact δ fold at 80 columns, as check's lines do
    assert [line for line in result.output.splitlines() if cell_len(line) > WIDTH] == []
    # "tight ε at δ = 1/2 ln(…)" read as half a logarithm: the value follows a colon
    assert "tight δ at ε = 1/2: " in text and "tight ε at δ = 1/2: ln(" in text, text


def test_compose_text_of_100000_runs_reads_its_120000_character_delta():
    # the decimal beside δ is read off the exact string; read through Delta(text), a reader
    # of spec values limited to 10^5 characters, it made the text of 10^5 runs an error
    result = runner.invoke(app, ["compose", "--mechanism", "randomized_response truth=3/4",
                                 "--k", "100000", "--epsilon", "ln(2)"])
    assert result.exit_code == 1, result.output
    # the loss under P has mean (k/2)·ln 3, far above ε = ln 2: δ is within 10^-6 of 1
    assert re.search(r"tight δ at ε = ln\(2\): <\d+-digit>/<\d+-digit>  ≈ 1 − \d",
                     result.output), result.output


def test_a_table_title_wider_than_its_table_is_one_line_above_it():
    # the table of examples/randomized_response.toml is 57 columns; its 72-column title was
    # folded and centred over it as "   tight values, …, certified" / "decimals beside them"
    result = runner.invoke(app, ["check", str(EX / "randomized_response.toml")])
    title = "tight values, exact (in full in --json), certified decimals beside them"
    assert title in result.output.splitlines(), result.output


def test_counted_takes_the_number_of_its_count():
    assert [counted(n, "record") for n in (0, 1, 2)] == ["0 records", "1 record", "2 records"]
    assert counted(1, "class of values", "classes of values") == "1 class of values"
    assert counted("2^20", "database") == "2^20 databases"


def test_prove_cites_the_paper_and_counts_one_instance():
    result = runner.invoke(app, ["prove", str(EX / "rr_symbolic.toml"), "--claim", "lemma5"])
    assert result.exit_code == 0
    assert "Desfontaines et al. 2019 Lemma 5" in result.output
    assert "seed 003" not in result.output
    assert result.output.rstrip().endswith("status: proved (1 instance)")


def test_prove_folds_a_long_statement_and_method_under_their_column():
    # "claim lemma6: … APKDP and PPKDP" + "coincide" and "… z3: the negation is" +
    # "unsatisfiable (…)" went on at column 0, as if they were lines of their own
    result = runner.invoke(app, ["prove", str(EX / "rr_symbolic.toml"), "--claim", "lemma6"])
    assert result.exit_code == 0
    starts = ("claim lemma6: ", "for every ", "  target 2, records [0, 1]: ", "status: ")
    lines = result.output.splitlines()
    assert [x for x in lines if not x.startswith(starts) and not x.startswith(" " * 14)] == []
    assert "coincide" in result.output and "unsatisfiable" in result.output


def test_cite_names_every_seed():
    assert cite("seed 000, seed 001, seed 002, seed 003, seed 004, thesis") == (
        "Desfontaines 2020 §3.1.3, Desfontaines 2020 §3.2.2, Cohen and Nissim 2019, "
        "Desfontaines et al. 2019, Pankova and Laud 2022, Desfontaines 2020")


def test_an_audit_witness_is_short_and_readable():
    outputs = [f"o{j}" for j in range(64)]
    assert witness_text({"inputs": [[0, 1], [1, 1]], "outputs": outputs}) == (
        "inputs [0, 1] vs [1, 1], outputs {o0, o1, o2, o3, o4, …} (64 outputs; first 5 shown)")
    assert witness_text({"inputs": [0, 1], "outputs": "every output"}) == (
        "inputs 0 vs 1, outputs every output")
    # an output with its loss, as the JSON lists it ([o, loss]), in plrv check's words, not
    # as a Python list inside set braces ("outputs {[False, ln(3)]}")
    assert witness_text({"inputs": [False, True], "outputs": [[False, "ln(3)"]]}) == (
        "inputs False vs True, outputs {False (L = ln(3))}")
    assert witness_text({"outputs": [[[1, 0], "ln(9)"], [[0, 1], "inf"]]}) == (
        "outputs {[1, 0] (L = ln(9)), [0, 1] (L = inf)}")


def test_wrapped_hangs_continuations_under_the_value():
    text = wrapped("engine     " + "word " * 20, 40)
    lines = text.splitlines()
    assert all(len(x) <= 40 for x in lines) and len(lines) == 4  # 6 + 6 + 6 + 2 words
    assert all(x.startswith(" " * 11 + "word") for x in lines[1:])
    assert wrapped("short line") == "short line"


def test_a_mechanism_repr_shows_no_function_address():
    from verifier import mechanism, randomized_response

    assert repr(randomized_response("3/4", [0, 1])) == (
        "Mechanism(randomized_response(truth=3/4, values=[0, 1]))")
    assert " at 0x" not in repr(mechanism(lambda db: db[0], name="first"))


def test_coinciding_curves_are_drawn_in_distinct_styles(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from matplotlib.axes import Axes

    from verifier.reports.curve_plot import plot_curve

    drawn = []
    original = Axes.plot

    def record(self, *args, **kwargs):
        if kwargs.get("label", "").endswith("exact δ(ε)"):
            drawn.append((kwargs.get("linestyle"), kwargs.get("linewidth")))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Axes, "plot", record)
    rows = [{"notion": n, "epsilon_approx": e, "delta_approx": "0.25", "breakpoint": False}
            for n in ("apkdp", "ppkdp", "noiseless") for e in ("0", "1")]  # one curve, thrice
    plot_curve(rows, tmp_path / "c.png", title="t", epsilon="0", delta="0", claim=None,
               fmt="png")
    assert len(drawn) == 3 and len(set(drawn)) == 3
