"""What a new user sees: help text, long exact values, witnesses, progress, output files, and
the exit-code contract (0 holds, 1 does not, 2 any error, 3 unknown) of every command."""

import builtins
import json
import subprocess
import sys
import textwrap
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from verifier.cli import app

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
runner = CliRunner()

RR = """
[data]
records = 3
values = [0, 1]
[mechanism]
kind = "randomized_response"
truth = "3/4"
[query]
epsilon = "ln(2)"
delta = "{delta}"
notions = ["dp"]
"""


def spec(tmp_path: Path, delta: str = "0") -> Path:
    p = tmp_path / "rr.toml"
    p.write_text(textwrap.dedent(RR.format(delta=delta)))
    return p


def error_lines(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.strip()]


# ------------------------------------------------------------------ help, version, completion

def test_brackets_in_help_are_shown():
    out = runner.invoke(app, ["family", "--help"])
    assert out.exit_code == 0
    assert "A spec file: [data], [mechanism], [query]." in out.stdout


@pytest.mark.parametrize("command", ["check", "sweep", "guess", "pso", "family"])
def test_every_command_documents_its_exit_codes(command):
    out = runner.invoke(app, [command, "-h"])
    assert out.exit_code == 0
    text = " ".join(out.stdout.split())
    assert "Exit status: 0 the claim holds, 1 it does not hold, 2 error" in text
    assert "3 unknown" in text


def test_version_and_short_help():
    from importlib.metadata import version

    out = runner.invoke(app, ["--version"])
    assert (out.exit_code, out.stdout.strip()) == (0, f"plrv {version('plrv')}")
    short = runner.invoke(app, ["-h"])
    assert short.exit_code == 0 and "Usage: " in short.stdout and "--version" in short.stdout


def test_shell_completion_is_offered():
    out = runner.invoke(app, ["--help"])
    assert "--install-completion" in out.stdout and "--show-completion" in out.stdout


def test_cli_imports_no_library_until_a_command_runs():
    code = ("import sys, verifier.cli; print(sorted(m for m in ('gmpy2', 'rich', 'sympy', 'z3', "
            "'matplotlib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ------------------------------------------------------------------ long exact values

def test_long_epsilon_keeps_ln_and_counts_digits():
    args = ["sweep", str(EXAMPLES / "figure_3_4.toml"), "--threshold", "3", "--p", "1/10000"]
    rows = json.loads(runner.invoke(app, [*args, "--json"]).stdout)["rows"]
    eps = next(r["epsilon"] for r in rows if r["notion"] == "ppkdp")
    num, den = eps.removeprefix("ln(").removesuffix(")").split("/")
    assert (len(num), len(den)) == (3952, 3951)  # the sizes quoted in the issue
    out = runner.invoke(app, args)
    assert "ln(<3952-digit>/<3951-digit>)" in out.stdout


def test_long_table_values_show_decimal_and_digit_count():
    path = str(EXAMPLES / "cafeteria.toml")
    data = json.loads(runner.invoke(app, ["guess", path, "--json"]).stdout)
    out = runner.invoke(app, ["guess", path])
    assert out.exit_code == 0
    assert "P[g] prior" in out.stdout
    assert "19197498484000000000…" not in out.stdout
    row = data["targets"][0]
    num, den = row["posterior"].split("/")
    exact = Fraction(int(num), int(den))
    decimal = f"0.{int(exact * 10**6):06d}"  # 6 significant digits, truncated (0.1 ≤ x < 1)
    assert f"≈ {decimal} ({len(num)}/{len(den)}" in " ".join(out.stdout.split())


# ------------------------------------------------------------------ witnesses

def test_witness_only_for_a_failing_claim(tmp_path):
    fails = runner.invoke(app, ["check", str(spec(tmp_path, "0"))])
    assert fails.exit_code == 1
    assert "witness" in fails.stdout and "does not hold" in fails.stdout
    assert "worst case" not in fails.stdout
    holds = runner.invoke(app, ["check", str(spec(tmp_path, "1/4"))])
    assert holds.exit_code == 0
    assert "worst case" in holds.stdout and "witness" not in holds.stdout
    for out in (fails.stdout, holds.stdout):
        assert "{'" not in out  # no Python dicts
    # randomized response on 3 records: a pair of neighbours differing in one record
    words = " ".join(holds.stdout.split())  # as printed, wrapped at the terminal's width
    assert "databases (" in words and "differing in record" in words
    # where the tight ε = ln 2 is reached: the outputs whose loss is ln 3 (3/4 against 1/4)
    assert "is reached at" in words and "L ≥ tight ε: (0, 0, 0) (L = ln(3))" in words


def test_json_witness_and_worst_case(tmp_path):
    fails = json.loads(runner.invoke(app, ["check", str(spec(tmp_path, "0")), "--json"]).stdout)
    holds = json.loads(runner.invoke(app, ["check", str(spec(tmp_path, "1/4")),
                                           "--json"]).stdout)
    assert "witness" in fails["dp"] and "worst_case" not in fails["dp"]
    assert "worst_case" in holds["dp"] and "witness" not in holds["dp"]


def test_json_per_row_tables_only_with_full():
    path = str(EXAMPLES / "threshold_partial.toml")
    short = json.loads(runner.invoke(app, ["check", path, "--json"]).stdout)
    full = json.loads(runner.invoke(app, ["check", path, "--json", "--full"]).stdout)
    assert "backgrounds" not in short["apkdp"]
    # two known binary records: their counts of 1s are 0, 1 or 2 — three background classes
    assert len(full["apkdp"]["backgrounds"]) == 3
    assert short["apkdp"]["delta"] == full["apkdp"]["delta"] == "1024/3125"


# ------------------------------------------------------------------ progress

def test_progress_forced_into_a_file():
    path = str(EXAMPLES / "threshold_partial.toml")
    forced = runner.invoke(app, ["check", path, "--progress"])
    assert "joint tables" in forced.stderr
    default = runner.invoke(app, ["check", path])
    assert default.stderr == ""


# ------------------------------------------------------------------ exit codes

def test_sweep_and_guess_exit_with_their_claim(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(textwrap.dedent("""
        [data]
        records = 6
        values = [0, 1]
        prior = ["1/2", "1/2"]
        [mechanism]
        kind = "threshold_count"
        counts = [1]
        threshold = 2
        [query]
        epsilon = "ln(2)"
        delta = "{delta}"
        notions = ["ppkdp"]
        """))
    text = p.read_text()
    # δ = 1 always holds. δ = 0 fails at every threshold ≤ 6: the released count 6 is
    # impossible when the target is 0 and has probability (1/2)^5 when it is 1 (an infinite
    # privacy loss), so PPK δ ≥ 1/32 > 0.
    p.write_text(text.replace("{delta}", "1"))
    assert runner.invoke(app, ["sweep", str(p), "--threshold", "2..3"]).exit_code == 0
    p.write_text(text.replace("{delta}", "0"))
    failing = runner.invoke(app, ["sweep", str(p), "--threshold", "2..3"])
    assert failing.exit_code == 1 and "does not hold at" in failing.stdout
    assert runner.invoke(app, ["guess", str(EXAMPLES / "guess_geometric.toml")]).exit_code == 0


def _boom(exc):
    def raise_it(*args, **kwargs):
        raise exc
    return raise_it


def _internal_boom(exc):
    """A function that raises ``exc`` from a frame inside the package (compiled under a
    package file name), as an unexpected error inside plrv would."""
    ns = {"exc": exc}
    code = "def raise_it(*args, **kwargs):\n    raise exc\n"
    exec(compile(code, str(ROOT / "verifier" / "io" / "spec.py"), "exec"), ns)
    return ns["raise_it"]


def test_an_exception_from_user_code_names_the_function(tmp_path, monkeypatch):
    monkeypatch.setattr("verifier.specs.check.run_spec", _boom(ZeroDivisionError("division")))
    out = runner.invoke(app, ["check", str(spec(tmp_path))])
    assert out.exit_code == 2
    lines = error_lines(out)
    assert len(lines) == 1
    assert "user code raised ZeroDivisionError: division (in raise_it" in lines[0]
    assert "test_cli_ux.py" in lines[0]


@pytest.mark.parametrize("exc, needle", [
    (RuntimeError("simulated"), "internal error (RuntimeError: simulated); rerun with --debug"),
    (ValueError("v"), "internal error (ValueError: v)"),
    (TypeError("t"), "internal error (TypeError: t)"),
    (MemoryError(), "out of memory"),
    (RecursionError(), "nested too deeply"),
    (KeyboardInterrupt(), "interrupted"),
    (SystemExit(1), "sys.exit(1)"),
    (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), "not UTF-8"),
    (FileNotFoundError(2, "No such file or directory", "x.py"), "x.py: No such file"),
], ids=["runtime", "value", "type", "memory", "recursion", "interrupt", "sys-exit", "unicode",
        "oserror"])
def test_every_exception_is_one_error_line_and_exit_2(tmp_path, monkeypatch, exc, needle):
    monkeypatch.setattr("verifier.specs.check.run_spec", _internal_boom(exc))
    out = runner.invoke(app, ["check", str(spec(tmp_path))])
    assert out.exit_code == 2
    lines = error_lines(out)
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0]
    assert "Traceback" not in out.stderr


def test_debug_shows_the_traceback(tmp_path, monkeypatch):
    monkeypatch.setattr("verifier.specs.check.run_spec", _internal_boom(RuntimeError("simulated")))
    out = runner.invoke(app, ["--debug", "check", str(spec(tmp_path))])
    assert out.exit_code == 2 and "Traceback" in out.stderr


def test_an_error_while_rendering_is_exit_2_not_the_verdict(tmp_path, monkeypatch):
    monkeypatch.setattr("verifier.reports.terminal.print_check",
                        _boom(OSError(28, "No space left")))
    out = runner.invoke(app, ["check", str(spec(tmp_path, "0"))])  # the verdict would be 1
    assert out.exit_code == 2 and "No space left" in out.stderr


@pytest.mark.parametrize("args, needle", [
    (["check"], "Missing argument"),
    (["check", "x.toml", "--budget", "0"], "--budget"),
    (["check", "x.toml", "--no-such-option"], "--no-such-option"),
    (["family", "x.toml", "--param", "truth", "--range", "0..1", "--timeout", "0"], "--timeout"),
])
def test_usage_errors_are_one_line_and_exit_2(args, needle):
    out = runner.invoke(app, args)
    assert out.exit_code == 2
    lines = error_lines(out)
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0]


# ------------------------------------------------------------------ output files

SWEEP = str(EXAMPLES / "figure_3_4.toml")


def test_output_paths_checked_before_computing(tmp_path):
    out = runner.invoke(app, ["sweep", SWEEP, "--threshold", "3", "--p", "1/10000",
                              "--csv", str(tmp_path / "missing" / "x.csv"), "--budget-counts", "1"])
    assert out.exit_code == 2 and "--csv" in out.stderr and "does not exist" in out.stderr


def test_a_failing_output_leaves_no_file(tmp_path, monkeypatch):
    def fail(*args, **kwargs):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr("verifier.reports.plot.plot_threshold_sweep", fail)
    csv_path = tmp_path / "ok.csv"
    out = runner.invoke(app, ["sweep", SWEEP, "--threshold", "3", "--p", "1/10000",
                              "--csv", str(csv_path), "--plot", str(tmp_path / "p.png")])
    assert out.exit_code == 2 and "No space left" in out.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_plot_without_matplotlib_names_the_extra(tmp_path, monkeypatch):
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    png = tmp_path / "adv.png"
    out = runner.invoke(app, ["guess", "--eta", "1/2", "--diameter", "1", "--plot", str(png)])
    assert out.exit_code == 2
    assert "pip install -e '.[plot]'" in out.stderr and "--plot" in out.stderr
    assert not png.exists()


# ------------------------------------------------------------------ scripts

def test_benchmark_default_output_is_not_a_tracked_file():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from run import output_path
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    default = output_path(["run.py"])
    ignored = subprocess.run(["git", "check-ignore", "-q", str(default)], cwd=ROOT)
    if ignored.returncode == 128:
        pytest.skip("not a git checkout")
    assert ignored.returncode == 0  # git ignores it
    tracked = subprocess.run(["git", "ls-files", "--error-unmatch", "pyproject.toml"], cwd=ROOT,
                             capture_output=True)
    assert tracked.returncode == 0
    with pytest.raises(SystemExit):
        output_path(["run.py", "--out", str(ROOT / "pyproject.toml")])


@pytest.mark.slow
def test_check_theorems_imports_as_a_script(tmp_path):
    """``python proofs/check_theorems.py`` from any folder finds its package (the file is
    loaded as a script would be, without running the records, which pytest runs)."""
    code = ("import runpy; runpy.run_path("
            f"{str(ROOT / 'proofs' / 'check_theorems.py')!r}, run_name='check_theorems')")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, env={"PATH": ""})
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("make", ["device", "symlink"])
def test_output_never_replaces_a_special_file(tmp_path, make):
    """Outputs are written to a temporary file renamed over the target: renaming over a device
    node or a link would replace it, so such targets are refused before any work."""
    import os
    import stat

    target = tmp_path / "out.csv"
    if make == "device":
        target = Path("/dev/null")
    else:
        (tmp_path / "real.csv").write_text("keep", encoding="utf-8")
        target.symlink_to(tmp_path / "real.csv")
    result = runner.invoke(app, ["sweep", SWEEP, "--threshold", "3", "--csv", str(target)])
    assert result.exit_code == 2
    assert "--csv" in result.stderr and "Traceback" not in result.stderr
    if make == "device":
        assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    else:
        assert target.is_symlink() and (tmp_path / "real.csv").read_text() == "keep"


@pytest.mark.parametrize("args, option", [
    (["guess", str(EXAMPLES / "guess_geometric.toml"), "--diameter", "3"], "--diameter"),
    (["guess", "--eta", "1/2", "--diameter", "1", "--tolerance", "0"], "--tolerance"),
    (["guess", "--eta", "1/2", "--diameter", "1e9999"], "--diameter"),
    (["guess", str(EXAMPLES / "guess_geometric.toml"), "--eta", "1/2", "--tolerance",
      "1e-10000"], "--tolerance"),
], ids=["diameter-with-spec", "tolerance-without-spec", "huge-diameter", "tiny-tolerance"])
def test_guess_options_are_never_ignored(args, option):
    """An option the command would ignore, or one that would hang the bisection, is an error."""
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and option in result.stderr
    assert "internal error" not in result.stderr


def test_digits_of_other_scripts_are_not_numbers(tmp_path):
    """Python's int() reads '٤' as 4; an exact reader accepts ASCII digits only."""
    spec = tmp_path / "s.toml"
    spec.write_text(textwrap.dedent('''
        [data]
        records = 2
        values = [0, 1]
        prior = ["٤/٥", "١/٥"]
        [mechanism]
        kind = "count"
        [query]
        epsilon = "ln(2)"
        notions = ["noiseless"]
    '''), encoding="utf-8")
    result = runner.invoke(app, ["check", str(spec)])
    assert result.exit_code == 2 and "data.prior" in result.stderr
    assert "internal error" not in result.stderr


def test_check_of_a_plain_spec_loads_neither_sympy_nor_z3():
    """Start-up: sympy and z3 are imported only for specs that need them ([parameters],
    --at, prove, reducible, family); a plain check stays fast."""
    code = ("import sys\nfrom verifier.cli import main\n"
            f"sys.argv = ['plrv', 'check', {str(EXAMPLES / 'randomized_response.toml')!r}]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('sympy', 'z3', 'matplotlib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.parametrize("command, example", [("check", "randomized_response.toml"),
                                              ("pso", "pso_full.toml")])
def test_full_without_json_is_refused_not_ignored(command, example):
    result = runner.invoke(app, [command, str(EXAMPLES / example), "--full"])
    assert result.exit_code == 2 and "--full" in result.stderr


# ------------------------------------------------------------------ the command line itself

@pytest.mark.parametrize("args, option", [
    (["check", "examples/tally_symbolic.toml", "--at", "p=1/3", "--at", "p=1/2"], "--at"),
    (["check", "examples/randomized_response.toml", "--json", "--json"], "--json"),
    (["check", "examples/randomized_response.toml", "--workers", "2", "--workers=3"],
     "--workers"),
    (["compose", "examples/randomized_response.toml", "--k", "2", "--k", "3"], "--k"),
])
def test_an_option_given_twice_is_refused(args, option):
    """The parser would keep the last value silently; which one the user meant is unknown."""
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert f"error: {option} is given twice" in result.output


def test_a_failure_while_parsing_the_command_line_is_one_line_and_exit_2(monkeypatch):
    from verifier.commands import app as app_module

    def broken(self, ctx, args):
        raise RuntimeError("parser broke")

    monkeypatch.setattr(app_module._VerdictCommand, "parse_args", broken)
    result = runner.invoke(app, ["check", "examples/randomized_response.toml"])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "RuntimeError" in lines[0]


CHDIR_MECH = '''
import os


def mech(db):
    """The sum of the records, released after moving the working directory elsewhere."""
    os.chdir(os.path.join(os.path.dirname(__file__), "elsewhere"))
    return sum(db)
'''


def test_output_paths_are_fixed_before_user_code_runs(tmp_path, monkeypatch):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "wander.py").write_text(CHDIR_MECH)
    (tmp_path / "spec.toml").write_text(
        '[data]\nrecords = 2\nvalues = [0, 1]\n[mechanism]\nkind = "function"\n'
        'function = "wander:mech"\n[query]\nepsilon = "ln(2)"\nnotions = ["dp"]\n')
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["check", "spec.toml", "--certificate", "cert.json"])
    assert result.exit_code in (0, 1), result.output
    assert (tmp_path / "cert.json").is_file()  # where the command line said, when it said it
    assert not (tmp_path / "elsewhere" / "cert.json").exists()
