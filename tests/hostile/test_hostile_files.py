"""Hostile files (issue item 4).

The spec must be a regular file of bounded size: a FIFO must not block forever, /dev/zero must
not be read to exhaustion, a sparse 10 GB file must not be loaded. Bytes that are not UTF-8
(even in a comment) and TOML nested thousands deep are errors (exit 2), not tracebacks; so are a
directory and a missing file. Output paths of ``plrv sweep`` (``--csv``, ``--json-file``,
``--plot``) and ``plrv guess --plot`` are checked before the computation and written atomically:
a failure leaves no partial files behind.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from harness import (
    FAMILY,
    GUESS,
    PSO_COUNT,
    RR,
    SWEEP,
    assert_error,
    assert_verdict,
    clean_env,
    dumps,
    invoke,
    run,
    write,
)

RR_TEXT = dumps(RR)
COMMANDS = {  # command -> (extra arguments, a valid spec for it)
    "check": ([], RR),
    "pso": ([], PSO_COUNT),
    "guess": ([], GUESS),
    "family": (["--param", "truth", "--range", "1/2..3/4"], FAMILY),
    "sweep": (["--threshold", "2..3"], SWEEP),
}
IO_TIMEOUT = 10  # seconds: refusing a file is instantaneous


def _args(command: str, spec: Path | str) -> list[str]:
    return [command, str(spec), *COMMANDS[command][0]]


# ---------------------------------------------------------------- not regular files

@pytest.mark.parametrize("command", ["check", "pso", "guess"])
def test_fifo_does_not_block(tmp_path, command):
    fifo = tmp_path / "spec.toml"
    os.mkfifo(fifo)
    assert_error(run(_args(command, fifo), timeout=IO_TIMEOUT), file=fifo)


def test_dev_zero_is_not_read_to_exhaustion():
    assert_error(run(["check", "/dev/zero"], timeout=IO_TIMEOUT), "/dev/zero")


def test_symlink_to_dev_zero(tmp_path):
    link = tmp_path / "spec.toml"
    link.symlink_to("/dev/zero")
    assert_error(run(["check", link], timeout=IO_TIMEOUT), file=link)


def test_dev_null_is_an_error(tmp_path):
    assert_error(invoke(["check", "/dev/null"]), "/dev/null")


def test_sparse_10_gb_file(tmp_path):
    spec = tmp_path / "spec.toml"
    with open(spec, "wb") as f:
        f.write(RR_TEXT.encode())
        f.truncate(10 * 1024 ** 3)  # sparse: no disk space used
    assert_error(run(["check", spec], timeout=IO_TIMEOUT), file=spec)


@pytest.mark.slow
def test_large_comment_file(tmp_path):
    """A spec followed by 100 MB of comment: refused by size, not parsed line by line."""
    spec = tmp_path / "spec.toml"
    line = b"# " + b"x" * 1022 + b"\n"
    with open(spec, "wb") as f:
        f.write(RR_TEXT.encode())
        f.write(line * (100 * 1024))
    try:
        assert_error(run(["check", spec], timeout=IO_TIMEOUT), file=spec)
    finally:
        spec.unlink()


@pytest.mark.parametrize("command", list(COMMANDS))
def test_directory_as_spec(tmp_path, command):
    folder = tmp_path / "spec.toml"
    folder.mkdir()
    assert_error(invoke(_args(command, folder)), file=folder)


@pytest.mark.parametrize("command", list(COMMANDS))
def test_missing_spec(tmp_path, command):
    missing = tmp_path / "absent.toml"
    assert_error(invoke(_args(command, missing)), file=missing)


def test_missing_spec_with_newline_in_name(tmp_path):
    """The error stays ONE line even when the file name contains a newline."""
    missing = tmp_path / "two\nlines.toml"
    assert_error(invoke(["check", missing]), "lines.toml")


# ---------------------------------------------------------------- bytes and syntax

BAD_BYTES = [
    pytest.param(b"# caf\xe9 latin-1 in a comment\n" + RR_TEXT.encode(), id="latin1-comment"),
    pytest.param(RR_TEXT.replace("ln(2)", "ln(2)\xff").encode("latin-1"),
                 id="0xff-in-a-string"),
    pytest.param(RR_TEXT.encode("utf-16"), id="utf-16-file"),
    pytest.param(b"\xff\xfe\x00\x00" + RR_TEXT.encode(), id="utf-32-bom"),
    pytest.param(RR_TEXT.encode().replace(b"records = 3", b"records = 3\x00"), id="nul-byte"),
    pytest.param(b"\xed\xa0\x80 = 1\n" + RR_TEXT.encode(), id="utf-8-encoded-surrogate"),
    pytest.param(b"\xc0\xaf\n" + RR_TEXT.encode(), id="overlong-utf-8"),
    pytest.param(RR_TEXT.encode().replace(b"records = 3", b"records = "), id="missing-value"),
    pytest.param(RR_TEXT.encode() + b"[data]\nrecords = 4\n", id="duplicate-table"),
    pytest.param(RR_TEXT.encode().replace(b"records = 3", b"records = 3\nrecords = 4"),
                 id="duplicate-key"),
    pytest.param(b'[data\nrecords = 3\n', id="unclosed-table-header"),
    pytest.param(b'x = """never closed\n', id="unclosed-multiline-string"),
]


@pytest.mark.parametrize("content", BAD_BYTES)
def test_undecodable_or_invalid_toml(tmp_path, content):
    spec = write(tmp_path, content)
    assert_error(invoke(["check", spec]), file=spec)


@pytest.mark.parametrize("command", ["check", "pso", "guess"])
def test_non_utf8_comment_every_command(tmp_path, command):
    spec = write(tmp_path, b"# \xe9\xe8\n" + dumps(COMMANDS[command][1]).encode())
    assert_error(invoke(_args(command, spec)), file=spec)


DEEP = [
    pytest.param("values = " + "[" * 5_000 + "]" * 5_000, id="arrays-5000-deep"),
    pytest.param("values = " + "[" * 100_000 + "]" * 100_000, id="arrays-100000-deep"),
    pytest.param("values = " + "{a = " * 5_000 + "1" + "}" * 5_000, id="inline-tables-5000-deep"),
    pytest.param("[" + ".".join(["a"] * 5_000) + "]\nx = 1", id="dotted-table-5000-deep"),
]


@pytest.mark.parametrize("nested", DEEP)
@pytest.mark.slow
def test_deeply_nested_toml(tmp_path, nested):
    text = RR_TEXT.replace("values = [0, 1]", nested.split("\n")[0]) if nested.startswith(
        "values") else nested + "\n"
    spec = write(tmp_path, text)
    assert_error(run(["check", spec], timeout=IO_TIMEOUT), file=spec)


@pytest.mark.parametrize("command, needle", [("check", "[data]"), ("pso", "universe"),
                                             ("guess", "[domain]")])
def test_empty_file(tmp_path, command, needle):
    spec = write(tmp_path, "")
    assert_error(invoke(_args(command, spec)), needle, file=spec)


# ---------------------------------------------------------------- controls

def test_control_symlink_to_regular_file(tmp_path):
    real = write(tmp_path, RR, "real.toml")
    link = tmp_path / "spec.toml"
    link.symlink_to(real)
    assert_verdict(invoke(["check", link]), 1)


def test_control_utf8_comment(tmp_path):
    spec = write(tmp_path, "# δ = 1/4, ε = ln 2 — café\n" + dumps(RR))
    assert_verdict(invoke(["check", spec]), 1)


def test_control_crlf_line_endings(tmp_path):
    spec = write(tmp_path, dumps(RR).replace("\n", "\r\n").encode())
    assert_verdict(invoke(["check", spec]), 1)


# ---------------------------------------------------------------- output paths of sweep


def _sweep(tmp_path, *outputs: str, extra=()):
    spec = write(tmp_path, SWEEP)
    return invoke(["sweep", spec, "--threshold", "2..3", *outputs, *extra])


BAD_OUTPUTS = [
    pytest.param(["--csv", "{tmp}/missing_dir/x.csv"], "--csv", id="csv-missing-folder"),
    pytest.param(["--csv", "{tmp}"], "--csv", id="csv-is-a-folder"),
    pytest.param(["--json-file", "{tmp}/missing_dir/x.json"], "--json-file",
                 id="json-file-missing-folder"),
    pytest.param(["--json-file", "{tmp}"], "--json-file", id="json-file-is-a-folder"),
    pytest.param(["--plot", "{tmp}/missing_dir/x.png"], "--plot", id="plot-missing-folder"),
    pytest.param(["--plot", "{tmp}"], "--plot", id="plot-is-a-folder"),
    pytest.param(["--plot", "{tmp}/x.txt"], "--plot", id="plot-unknown-extension"),
]


@pytest.mark.parametrize("outputs, needle", BAD_OUTPUTS)
def test_sweep_bad_output_path(tmp_path, outputs, needle):
    out = tmp_path / "out"
    out.mkdir()
    o = _sweep(tmp_path, *[a.replace("{tmp}", str(out)) for a in outputs])
    assert_error(o, needle)
    assert sorted(p.name for p in out.iterdir()) == [], "files left behind by a failed run"


@pytest.mark.parametrize("outputs, leftover", [
    pytest.param(["--csv", "ok.csv", "--json-file", "missing_dir/x.json"], "ok.csv",
                 id="csv-then-bad-json"),
    pytest.param(["--json-file", "ok.json", "--plot", "missing_dir/x.png"], "ok.json",
                 id="json-then-bad-plot"),
    pytest.param(["--csv", "ok.csv", "--plot", "bad.txt"], "ok.csv", id="csv-then-bad-extension"),
])
def test_sweep_failure_leaves_no_partial_files(tmp_path, outputs, leftover):
    out = tmp_path / "out"
    out.mkdir()
    o = _sweep(tmp_path, *[a if a.startswith("--") else str(out / a) for a in outputs])
    assert_error(o, ("--csv", "--json-file", "--plot"))
    assert not (out / leftover).exists(), f"{leftover} was written although the run failed"


def test_sweep_failure_keeps_existing_file(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "ok.csv").write_text("previous content\n")
    o = _sweep(tmp_path, "--csv", str(out / "ok.csv"), "--json-file",
               str(out / "missing_dir" / "x.json"))
    assert_error(o, "--json-file")
    assert (out / "ok.csv").read_text() == "previous content\n"


def test_sweep_output_checked_before_the_computation(tmp_path):
    """The computation would fail on its budget; the bad output path is reported first."""
    o = _sweep(tmp_path, "--csv", str(tmp_path / "missing_dir" / "x.csv"),
               extra=["--budget-counts", "1"])
    assert_error(o, "--csv")


def test_control_sweep_writes_outputs(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    o = _sweep(tmp_path, "--csv", str(out / "ok.csv"), "--json-file", str(out / "ok.json"))
    assert_verdict(o, (0, 1))  # a sweep's status: every point holds, or not
    assert "threshold" in (out / "ok.csv").read_text().splitlines()[0]
    assert len(json.loads((out / "ok.json").read_text())) == 4  # 2 thresholds × 2 notions


# ---------------------------------------------------------------- output paths of guess

@pytest.mark.parametrize("plot", [
    pytest.param("{tmp}/missing_dir/adv.png", id="missing-folder"),
    pytest.param("{tmp}", id="a-folder"),
    pytest.param("{tmp}/adv.txt", id="unknown-extension"),
])
@pytest.mark.parametrize("with_spec", [True, False], ids=["spec", "eta-diameter"])
def test_guess_bad_plot_path(tmp_path, plot, with_spec):
    out = tmp_path / "out"
    out.mkdir()
    plot = plot.replace("{tmp}", str(out))
    args = ["guess", write(tmp_path, GUESS)] if with_spec else \
        ["guess", "--eta", "1/2", "--diameter", "1"]
    assert_error(invoke([*args, "--plot", plot]), "--plot")
    assert sorted(p.name for p in out.iterdir()) == [], "files left behind by a failed run"


# ---------------------------------------------------------------- an internal error

PATCHED = ("import tomllib\n"
           "def boom(*a, **k):\n"
           "    raise RuntimeError('simulated internal failure')\n"
           "tomllib.loads = tomllib.load = boom\n"
           "from verifier.cli import main\n"
           "main()\n")


def test_internal_error_says_so_and_mentions_debug(tmp_path):
    """An unexpected exception inside plrv (here: the TOML reader fails) is reported as an
    internal error mentioning --debug, on one line, with exit 2 and no traceback."""
    spec = write(tmp_path, RR)
    o = run(["check", spec], prefix=[sys.executable, "-c", PATCHED], env=clean_env())
    assert_error(o, "internal error", "--debug")


def test_a_full_disk_while_writing_a_certificate_names_the_option(tmp_path, monkeypatch):
    """The disk fills up while the certificate is written: exit 2 naming --certificate, and
    no file (not even a partial one) is left."""
    import errno

    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    spec = write(tmp_path, RR)
    monkeypatch.setattr(Path, "write_text", full)
    out = tmp_path / "cert.json"
    assert_error(invoke(["check", spec, "--certificate", out]),
                 "--certificate", "No space left on device")
    assert list(tmp_path.iterdir()) == [tmp_path / "spec.toml"]
