"""Shared helpers of the hostile-input suite: run plrv, judge its exit status and its stderr.

The contract these tests enforce (the project's issue):

* exit 0: the claim holds, 1: it does not, 2: any error, 3: unknown (solver). Nothing but a
  decided verdict may exit 0 or 1.
* every error ends as exit 2 with ONE line on stderr starting with ``error:`` that names the
  file and the key (``data.records``, ``mechanism.truth`` …), the command-line option
  (``--budget``) or the user function; never a Python traceback. An unexpected internal error
  says "internal error" and mentions ``--debug``.

Only the command line is used (``verifier.cli.app`` in-process, or the ``plrv`` console script
in a subprocess): the package's internal modules are being restructured.

Two ways to run a case:

* :func:`invoke` — in-process through typer's ``CliRunner`` (fast), for inputs that cannot hang
  or eat memory. A SIGALRM watchdog stops a runaway case where Python code is running.
* :func:`run` — in a subprocess with ``RLIMIT_AS`` (2 GiB), ``RLIMIT_CPU`` (20 s) and a
  wall-clock timeout (30 s), for inputs that could hang, block or exhaust memory. A case that
  times out or is killed fails its test with a message saying so.
"""

from __future__ import annotations

import json
import math
import os
import re
import resource
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent

MEMORY_LIMIT = 2 * 1024 ** 3  # RLIMIT_AS of a subprocess case
CPU_LIMIT = 20  # RLIMIT_CPU (seconds) of a subprocess case
WALL_TIMEOUT = 30  # seconds before a subprocess case is killed
INPROCESS_TIMEOUT = 20  # seconds before the in-process watchdog stops a case


# ------------------------------------------------------------------ outcomes


@dataclass
class Outcome:
    """What one run of plrv did."""

    args: list[str]
    exit_code: int
    stdout: str
    stderr: str
    how: str  # "subprocess" or "in-process"
    seconds: float
    exception: BaseException | None = None  # in-process: an exception that escaped the app
    exc_text: str = ""

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def describe(self) -> str:
        """A short account of the run, for assertion messages."""
        cmd = "plrv " + " ".join(_short(a) for a in self.args)
        head = f"{cmd}\n  -> exit {self.exit_code} ({self.how}, {self.seconds:.1f} s)"
        if self.exception is not None:
            head += f"; raised {type(self.exception).__name__}: {_short(str(self.exception), 300)}"
        raised = [line for line in self.stderr.splitlines() if _EXC_LINE.match(line)]
        if "Traceback" in self.stderr and raised:
            head += f"; traceback of {_short(raised[-1], 300)}"
        err = self.stderr.strip().splitlines()
        if err and "Traceback" not in self.stderr:  # (a traceback: its last line says it all)
            tail = err if len(err) <= 6 else [*err[:2], "  …", *err[-4:]]
            head += "\n  stderr: " + "\n          ".join(_short(x, 300) for x in tail)
        out = self.stdout.strip()
        if out:
            head += "\n  stdout: " + _short(out.replace("\n", " | "), 300)
        return head


_EXC_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit|Warning)\b")


def _short(text: str, n: int = 120) -> str:
    text = str(text)
    return text if len(text) <= n else f"{text[:n // 2]}…<{len(text)} chars>…{text[-n // 3:]}"


class _Hang(BaseException):
    """Raised by the in-process watchdog (a BaseException: `except Exception` won't stop it)."""


def _on_alarm(signum, frame):
    raise _Hang()


def invoke(args: Sequence[object], *, timeout: int = INPROCESS_TIMEOUT) -> Outcome:
    """Run ``plrv ARGS`` in-process with typer's CliRunner."""
    from typer.testing import CliRunner

    from verifier.cli import app

    args = [str(a) for a in args]
    digits = sys.get_int_max_str_digits()  # the CLI may change this process-wide setting
    old = signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(timeout)
    start = time.monotonic()
    try:
        result = CliRunner().invoke(app, args, catch_exceptions=True)
    except _Hang:
        pytest.fail(f"plrv {' '.join(_short(a) for a in args)}: still running after {timeout} s "
                    f"in-process (hang or runaway work)", pytrace=False)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
        sys.set_int_max_str_digits(digits)
    seconds = time.monotonic() - start
    exc = result.exception
    if isinstance(exc, SystemExit):
        exc = None
    exc_text = ""
    if exc is not None and result.exc_info is not None:
        exc_text = "".join(traceback.format_exception(*result.exc_info))
    try:
        stderr = result.stderr
    except ValueError:  # stderr not captured separately (old click)
        stderr = ""
    return Outcome(args, result.exit_code, result.stdout, stderr, "in-process", seconds, exc,
                   exc_text)


def _command() -> list[str]:
    script = Path(sys.executable).parent / "plrv"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from verifier.cli import main; main()"]


def _limit_resources() -> None:  # runs in the child, before exec
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    # soft limit: SIGXCPU (reported as such); the hard limit a little later is SIGKILL
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT, CPU_LIMIT + 5))


def clean_env(**extra: str) -> dict[str, str]:
    """The environment of a subprocess case: bytecode writing NOT disabled (the suite checks
    that plrv itself writes no ``__pycache__`` into the user's folder), no colours, and this
    checkout's ``verifier`` first on the path (an installed plrv may be another checkout's)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH", "FORCE_COLOR")}
    env.update({"NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "200", "PYTHONPATH": str(ROOT)},
               **extra)
    return env


_SIGNALS = {signal.SIGXCPU: f"exceeded the CPU limit of {CPU_LIMIT} s",
            signal.SIGKILL: "was killed (SIGKILL, e.g. out of memory)",
            signal.SIGSEGV: "crashed (SIGSEGV, e.g. C stack overflow)",
            signal.SIGABRT: "aborted (SIGABRT)"}


def run(args: Sequence[object], *, cwd: Path | str | None = None, timeout: int = WALL_TIMEOUT,
        env: Mapping[str, str] | None = None, prefix: Sequence[str] | None = None) -> Outcome:
    """Run ``plrv ARGS`` in a subprocess under memory, CPU and wall-clock limits.

    A case that times out or is killed by a signal fails the calling test with a clear message.
    ``prefix`` replaces the command (e.g. ``[python, "-c", code]``).
    """
    args = [str(a) for a in args]
    cmd = [*(prefix if prefix is not None else _command()), *args]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=cwd, env=dict(env or clean_env()),
                            preexec_fn=_limit_resources, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # our own child's process group
        out, err = proc.communicate()
        pytest.fail(f"plrv {' '.join(_short(a) for a in args)}: no answer within {timeout} s "
                    f"(hang, blocked read or runaway work); killed.\n  stderr so far: "
                    f"{_short(err.decode(errors='replace').strip(), 300)}", pytrace=False)
    seconds = time.monotonic() - start
    o = Outcome(args, proc.returncode, out.decode("utf-8", errors="replace"),
                err.decode("utf-8", errors="replace"), "subprocess", seconds)
    if proc.returncode < 0:
        sig = -proc.returncode
        what = _SIGNALS.get(sig, f"was killed by signal {sig}")
        pytest.fail(f"plrv {' '.join(_short(a) for a in args)}: {what} after {seconds:.1f} s "
                    f"(limits: {MEMORY_LIMIT >> 30} GiB, {CPU_LIMIT} s CPU)\n{o.describe()}",
                    pytrace=False)
    return o


# ------------------------------------------------------------------ judging outcomes


def _no_crash(o: Outcome) -> None:
    if o.exception is not None:
        pytest.fail(f"an exception escaped the command (a traceback for the user):\n"
                    f"{o.describe()}\n{_short(o.exc_text, 1500)}", pytrace=False)
    if "Traceback" in o.output:
        pytest.fail(f"a Python traceback was printed:\n{o.describe()}", pytrace=False)


Needle = str | tuple  # a substring, or a tuple of alternatives (any one suffices)


def _has(line: str, needle: Needle) -> bool:
    if isinstance(needle, tuple):
        return any(n in line for n in needle)
    return needle in line


def assert_error(o: Outcome, *needles: Needle, file: Path | str | None = None,
                 max_len: int | None = None) -> str:
    """Exit 2, no traceback, exactly one non-empty stderr line starting with ``error:`` that
    contains every needle (the key, the option, the function) and the file's name."""
    _no_crash(o)
    if o.exit_code != 2:
        pytest.fail(f"expected exit 2 (error), got {o.exit_code}:\n{o.describe()}",
                    pytrace=False)
    lines = [line for line in o.stderr.splitlines() if line.strip()]
    if len(lines) != 1 or not lines[0].startswith("error:"):
        pytest.fail(f"expected ONE stderr line starting with 'error:', got {len(lines)} "
                    f"line(s):\n{o.describe()}", pytrace=False)
    line = lines[0]
    wanted = [*needles, *([Path(file).name] if file is not None else [])]
    missing = [n for n in wanted if not _has(line, n)]
    if missing:
        pytest.fail(f"the error does not name {' / '.join(map(repr, missing))}:\n{o.describe()}",
                    pytrace=False)
    if "internal error" in line and "--debug" not in line:
        pytest.fail(f"an internal error must mention --debug:\n{o.describe()}", pytrace=False)
    if max_len is not None and len(line) >= max_len:
        pytest.fail(f"the error is {len(line)} characters long (limit {max_len}):\n"
                    f"{o.describe()}", pytrace=False)
    return line


def assert_verdict(o: Outcome, expected: int | Iterable[int]) -> None:
    """A decided verdict: the expected exit status, output on stdout, no error, no traceback."""
    _no_crash(o)
    allowed = {expected} if isinstance(expected, int) else set(expected)
    if o.exit_code not in allowed:
        pytest.fail(f"expected exit {' or '.join(map(str, sorted(allowed)))}, got "
                    f"{o.exit_code}:\n{o.describe()}", pytrace=False)
    if not o.stdout.strip():
        pytest.fail(f"a verdict without any report on stdout:\n{o.describe()}", pytrace=False)
    if any(line.startswith("error:") for line in o.stderr.splitlines()):
        pytest.fail(f"exit {o.exit_code} together with an error message:\n{o.describe()}",
                    pytrace=False)


def assert_verdict_or_error(o: Outcome, verdicts: Iterable[int], *needles: Needle,
                            file: Path | str | None = None, max_len: int | None = None) -> None:
    """Either a decided verdict in ``verdicts`` or a proper error naming ``needles``."""
    if o.exit_code == 2 or o.exception is not None:
        assert_error(o, *needles, file=file, max_len=max_len)
    else:
        assert_verdict(o, verdicts)


def assert_contract(o: Outcome) -> None:
    """Whatever the input: exit 0–3, no traceback; an error is one ``error:`` line."""
    _no_crash(o)
    if o.exit_code not in (0, 1, 2, 3):
        pytest.fail(f"exit status {o.exit_code} is not one of 0, 1, 2, 3:\n{o.describe()}",
                    pytrace=False)
    if o.exit_code == 2:
        assert_error(o)


def error_line(o: Outcome) -> str:
    lines = [line for line in o.stderr.splitlines() if line.strip()]
    return lines[0] if lines else ""


# ------------------------------------------------------------------ writing specs


_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _toml_string(s: str) -> str:
    out = ['"']
    for ch in s:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _toml_key(k: str) -> str:
    return k if _BARE_KEY.match(k) else _toml_string(k)


def toml_value(v: object) -> str:
    """One TOML value (inline), including the non-finite floats ``nan`` and ``inf``."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        r = repr(v)
        return r if any(c in r for c in ".en") else r + ".0"
    if isinstance(v, str):
        return _toml_string(v)
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{_toml_key(str(k))} = {toml_value(x)}"
                               for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {v!r} as TOML")


def dumps(doc: Mapping[str, object]) -> str:
    """A TOML document: top-level tables as ``[name]`` sections, anything else as a key."""
    head, sections = [], []
    for name, content in doc.items():
        if isinstance(content, Mapping):
            lines = [f"[{_toml_key(name)}]"]
            lines += [f"{_toml_key(str(k))} = {toml_value(v)}" for k, v in content.items()]
            sections.append("\n".join(lines))
        else:
            head.append(f"{_toml_key(name)} = {toml_value(content)}")
    return "\n".join(head + [""] + sections) + "\n" if head else "\n\n".join(sections) + "\n"


def write(folder: Path, doc: Mapping | str | bytes, name: str = "spec.toml") -> Path:
    """Write a spec (a dict, TOML text or raw bytes) into ``folder``; return its path."""
    path = Path(folder) / name
    if isinstance(doc, bytes):
        path.write_bytes(doc)
    elif isinstance(doc, str):
        path.write_text(doc, encoding="utf-8")
    else:
        path.write_text(dumps(doc), encoding="utf-8")
    return path


def deep_copy(doc):
    return json.loads(json.dumps(doc))


_MISSING = object()
DROP = _MISSING  # mutate(doc, key, DROP) removes the key


def mutate(doc: Mapping, dotted: str, value: object = _MISSING) -> dict:
    """A copy of ``doc`` with ``table.key`` set to ``value`` (or removed if no value)."""
    out = deep_copy(doc)
    table, _, key = dotted.partition(".")
    if not key:
        if value is _MISSING:
            out.pop(table, None)
        else:
            out[table] = value
        return out
    t = out.setdefault(table, {})
    if value is _MISSING:
        t.pop(key, None)
    else:
        t[key] = value
    return out


# ------------------------------------------------------------------ base specs

# Binary randomized response on 3 records, truth 3/4: tight ε = ln 3, δ(ln 2) = 1/4.
# At ε = ln 2: δ = 0 fails (exit 1), δ = 1/4 holds (exit 0).
RR = {
    "data": {"records": 3, "values": [0, 1]},
    "mechanism": {"kind": "randomized_response", "truth": "3/4"},
    "query": {"epsilon": "ln(2)", "delta": "0", "notions": ["dp"]},
}
RR_HOLDS = mutate(RR, "query.delta", "1/4")

# A thresholded count of 8 records against an attacker who knows two of them
# (APK δ = 1024/3125, PPK δ = 459/3125 at ε = ln 2).
PARTIAL = {
    "data": {"records": 8, "values": [0, 1], "prior": ["4/5", "1/5"]},
    "mechanism": {"kind": "threshold_count", "counts": [1], "threshold": 3},
    "attacker": {"target": 7, "known": [0, 1]},
    "query": {"epsilon": "ln(2)", "delta": "1/100", "notions": ["apkdp", "ppkdp"]},
}
PARTIAL_HOLDS = mutate(PARTIAL, "query.delta", "1/3")

# The count of 2 records under an explicit distribution, the attacker knows record 0.
SUPPORT = {
    "data": {"records": 2, "values": [0, 1], "support": [[0, 0], [0, 1], [1, 0], [1, 1]],
             "weights": ["1/4", "1/4", "1/4", "1/4"]},
    "mechanism": {"kind": "count", "counts": [1]},
    "attacker": {"target": 1, "known": [0]},
    "query": {"epsilon": "ln(2)", "delta": "0", "notions": ["apkdp", "ppkdp"]},
}

# The geometric count (α = 1/2) of 3 records: ε-DP with ε = ln 2.
GEOMETRIC = {
    "data": {"records": 3, "values": [0, 1]},
    "mechanism": {"kind": "geometric_count", "counts": [1], "alpha": "1/2"},
    "query": {"epsilon": "ln(2)", "delta": "0", "notions": ["dp"]},
}

# A family of two data models and two attackers.
FAMILIES = {
    "data": {"records": 4, "values": [0, 1],
             "models": [{"prior": ["1/2", "1/2"]},
                        {"priors": [["1/3", "2/3"], ["1/2", "1/2"], ["1/2", "1/2"],
                                    ["3/4", "1/4"]]}]},
    "mechanism": {"kind": "threshold_count", "threshold": 2},
    "attacker": {"target": 3, "known": [[0], [0, 1]]},
    "query": {"epsilon": "ln(2)", "notions": ["apkdp", "ppkdp"]},
}

# PSO, Proposition 4.2: one count is PSO secure, success ≤ (n + 1)·baseline (exit 0).
PSO_COUNT = {
    "universe": {"values": [0, 1, 2, 3, 4, 5, 6, 7]},
    "rows": {"n": 3},
    "mechanism": {"kind": "count", "predicate": "x < 3"},
    "adversary": {"kind": "optimal", "weight_at_most": "1/4"},
    "claim": {"factor": 4},
}
# The same mechanism against the trivial adversary (fast; predicates are checked at load).
PSO_TRIVIAL = mutate(PSO_COUNT, "adversary", {"kind": "trivial", "weight_at_most": "1/4"})
# PSO, Theorem 4.6: counts compose into an attack: success 27/64 > baseline 675/4096 (exit 1).
PSO_COMPOSITION = {
    "universe": {"bits": 4},
    "rows": {"n": 3},
    "mechanism": {"kind": "composition_counts", "base": "x < 4"},
    "adversary": {"kind": "composition", "weight_at_most": "1/16"},
}
# PSO: bit suppression on {0,1}^4 (exit 1).
PSO_BITS = {
    "universe": {"bits": 4},
    "rows": {"n": 4},
    "mechanism": {"kind": "bit_suppression", "k": 2},
    "adversary": {"kind": "bit_suppression", "weight_at_most": "1/8"},
}
# PSO: randomized response rows against the optimal adversary (exit 0 with factor 2).
PSO_RR = {
    "universe": {"values": [0, 1, 2, 3]},
    "rows": {"n": 2},
    "mechanism": {"kind": "randomized_response", "truth": "2/5"},
    "adversary": {"kind": "optimal", "weight_at_most": "1/4"},
    "claim": {"factor": 2},
}

# Guessing: the truncated geometric on {0..20}, α = 1/2 (exit 0).
GUESS = {
    "domain": {"range": [0, 20]},
    "mechanism": {"kind": "truncated_geometric", "alpha": "1/2"},
    "goal": {"precision": 1},
    "query": {"eta": "1/2"},
}
# Guessing over explicit values with a prior, the exponential mechanism, chosen targets.
GUESS_VALUES = {
    "domain": {"values": [0, 1, 2, 3, 4]},
    "prior": {"weights": ["1/10", "2/10", "4/10", "2/10", "1/10"]},
    "mechanism": {"kind": "exponential", "beta": "1/2"},
    "goal": {"precision": 1},
    "query": {"targets": [1, 2], "epsilon": "ln(3)"},  # above the tight ε·d = ln(76/31)
}
# Guessing over a grid of two attributes.
GUESS_GRID = {
    "domain": {"grid": [[0, 1, 2], [0, 1]]},
    "mechanism": {"kind": "identity"},
    "goal": {"precision": [1, 1], "mode": "and"},
}

# A small thresholded count for `plrv sweep` (count engine, fast).
SWEEP = {
    "data": {"records": 12, "values": [0, 1], "prior": ["9/10", "1/10"]},
    "mechanism": {"kind": "threshold_count", "counts": [1], "threshold": 2},
    "attacker": {"target": 11, "known": [0, 1]},
    "query": {"epsilon": "ln(3)", "delta": "1/100", "notions": ["apkdp", "ppkdp"]},
}

# A spec for `plrv family`: randomized response on 2 records, ε = ln 3, δ = 0.
FAMILY = {
    "data": {"records": 2, "values": [0, 1]},
    "mechanism": {"kind": "randomized_response", "truth": "3/4"},
    "query": {"epsilon": "ln(3)", "delta": "0", "notions": ["dp"]},
}

USER_MODULE = '''\
"""User functions for the hostile suite (a copy of examples/user_functions.py)."""

from verifier import Dist


def largest_record(db):
    return max(db)


def noisy_first_bit(db):
    return Dist({db[0]: "3/4", 1 - db[0]: "1/4"})
'''

USER = {
    "data": {"records": 4, "values": [0, 1], "prior": ["2/3", "1/3"]},
    "mechanism": {"kind": "function", "function": "hostile_user_functions:largest_record",
                  "symmetric": True},
    "attacker": {"target": 3, "knowledge": "hostile_user_functions:noisy_first_bit"},
    "query": {"epsilon": "ln(2)", "delta": "1/10", "notions": ["dp", "apkdp", "ppkdp"]},
}


def with_user_module(folder: Path, doc: Mapping = USER) -> Path:
    """Write the user module beside a spec using it; return the spec's path."""
    (Path(folder) / "hostile_user_functions.py").write_text(USER_MODULE, encoding="utf-8")
    return write(folder, doc)
