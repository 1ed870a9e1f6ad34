"""``plrv audit --report DIR``: one Markdown file per unsound case, for the library's maintainers.

Each file holds the library and its version, the configuration (the case as TOML), the
library's claim and plrv's exact (or certified) values, the witness (the two inputs and the
outputs), the exact-arithmetic derivation (plrv's notes, which state the law and how it was
decided), and a reproduction script that imports only the library: it builds the same
object and, where the witness is a pair of inputs the mechanism can be run on, counts its own
draws at both inputs, for a maintainer to set against the claim without plrv.
"""

from __future__ import annotations

import json
from pathlib import Path

from verifier.audit.case import AuditRow
from verifier.audit.runner import AuditResult
from verifier.core.binary64 import F64
from verifier.core.errors import InvalidArgument
from verifier.reports.audit import row_json
from verifier.reports.audit_repro import accountant_script

__all__ = ["write_reports", "finding_markdown", "reproduction"]


def _toml(v: object) -> str:
    if isinstance(v, F64):
        return f'{{ f64 = "{v.hex}" }}'
    if isinstance(v, tuple):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    return str(v)


def _case_toml(row: AuditRow) -> str:
    c = row.case
    lines = ["[[case]]", f'library = "{c.library}"', f'constructor = "{c.constructor}"']
    for key, table in (("args", c.args), ("options", c.options)):
        if table:
            lines.append(f"{key} = {{ " + ", ".join(f"{k} = {_toml(v)}"
                                                    for k, v in table.items()) + " }")
    for key, v in (("d_in", c.d_in), ("compose", c.compose)):
        if v is not None:
            lines.append(f"{key} = {_toml(v)}")
    if c.epsilon is not None:
        lines.append(f'epsilon = "{c.epsilon}"')
    if c.delta is not None:
        lines.append(f'delta = "{c.delta}"')
    return "\n".join(lines)


def _py(v: object) -> str:
    if isinstance(v, F64):
        return f"float.fromhex({v.hex!r})"
    if isinstance(v, tuple):
        return "(" + ", ".join(_py(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    return repr(v)


_DOUBLES = ("scale", "prob", "f", "epsilon", "sensitivity")  # arguments taken as a float


def _args(args: dict) -> str:
    def one(k: str, v: object) -> str:
        if k in _DOUBLES and isinstance(v, int) and not isinstance(v, bool):
            return f"{v}.0"
        # OpenDP takes categories as a list and bounds as a tuple (a list is refused)
        return _py(list(v) if k == "categories" and isinstance(v, tuple) else v)
    return ", ".join(f"{k}={one(k, v)}" for k, v in args.items())


_OPENDP_THRESHOLD = {
    "make_laplace_threshold": "l01inf_distance",
    "make_gaussian_threshold": "l02inf_distance",
}


def reproduction(row: AuditRow, draws: int = 5_000) -> str | None:
    """A script that uses only the library to build the case's object and, at the witness,
    count the library's own draws (None when plrv writes none for this constructor)."""
    c = row.case
    inputs = row.witness.get("inputs")
    accountant = accountant_script(c)
    if accountant is not None:
        return accountant
    if c.library == "opendp":
        args = _args(dict(c.args))
        head = ["import collections", "import opendp.prelude as dp",
                'dp.enable_features("contrib")']
        if c.constructor in _OPENDP_THRESHOLD:
            metric = _OPENDP_THRESHOLD[c.constructor]
            body = [f"meas = dp.m.{c.constructor}(",
                    "    dp.map_domain(dp.atom_domain(T=str), dp.atom_domain(T=int)),",
                    f"    dp.{metric}(dp.absolute_distance(T=int)), {args})",
                    f"print('claim:', meas.map({_py(c.d_in)}))"]
            count = "'a' in meas(x)"
        elif c.constructor in ("make_laplace", "make_geometric", "make_gaussian"):
            body = [f"meas = dp.m.{c.constructor}(dp.atom_domain(T=int), "
                    f"dp.absolute_distance(T=int), {args})",
                    f"print('claim:', meas.map({_py(c.d_in if c.d_in is not None else 1)}))"]
            count = "meas(x)"
        elif c.constructor.startswith("make_randomized_response") and \
                c.constructor != "make_randomized_response_bitvec":
            body = [f"meas = dp.m.{c.constructor}({args})", "print('claim:', meas.map(1))"]
            count = "meas(x)"
        else:
            return None
    elif c.library == "pydp" and c.constructor == "LaplaceMechanism":
        head = ["import collections",
                "from pydp.algorithms.numerical_mechanisms import LaplaceMechanism"]
        body = [f"mech = LaplaceMechanism({_args(dict(c.args))})",
                "print('claim: epsilon =', mech.epsilon)"]
        count = "mech.add_noise(x)"
    elif c.library == "diffprivlib" and c.constructor == "Binary":
        args = _args(dict(c.args))
        head = ["import collections", "from diffprivlib.mechanisms import Binary"]
        body = [f"mech = Binary({args})", "print('claim: epsilon =', mech.epsilon)"]
        count = "mech.randomise(x)"
    else:
        return None
    if not isinstance(inputs, tuple | list) or len(inputs) != 2:
        return "\n".join(head + body)
    lines = head + body + [
        f"N = {draws}",
        f"for x in ({_py(inputs[0])}, {_py(inputs[1])}):",
        f"    counts = collections.Counter({count} for _ in range(N))",
        "    print(x, sorted(counts.items(), key=str)[:20])",
    ]
    return "\n".join(lines)


_LONG = 400  # characters of an exact value written out in a report; longer ones in --json


def _value(v: dict | None) -> str:
    if v is None:
        return "—"
    exact = v["value"] if v["value"] is not None else f"in [{v['enclosure'][0]}, " \
                                                      f"{v['enclosure'][1]}]"
    if len(exact) > _LONG:
        kind = "exact value" if v["value"] is not None else "enclosure of two exact ends"
        return f"≈ {v['approx']} (an {kind}, {len(exact)} characters: in `--json`)"
    return f"`{exact}` ≈ {v['approx']}"


def finding_markdown(row: AuditRow, version: str) -> str:
    """The report of one unsound case (see the module)."""
    j = row_json(row)
    c = row.case
    out = [f"# {c.library} {version}: `{c.constructor}` — claim exceeded", "",
           f"plrv audit decided this case **{row.verdict}** ({row.exactness}): the privacy "
           f"the library claims is below what the law it samples from gives.", "",
           "## Configuration", "", "```toml", _case_toml(row), "```", "",
           "## Claimed and exact values", "", "| | claimed (the library's own value) | "
           "exact for the implemented law |", "|---|---|---|",
           f"| ε (ρ under zCDP) | {_value(j['claim']['epsilon'])} | "
           f"{_value(j['tight']['epsilon'])} |",
           f"| δ | {_value(j['claim']['delta'])} | {_value(j['tight']['delta'])} |", ""]
    if j["witness"]:
        out += ["## Witness", ""]
        out += [f"- **{k}**: `{v}`" for k, v in j["witness"].items()]
        out.append("")
    out += ["## Derivation (exact arithmetic)", ""]
    out += [f"- {n}" for n in row.notes] or ["- (no notes)"]
    out.append("")
    script = reproduction(row)
    if script is not None:
        what = ("builds the same accountant, composes the same runs and prints the claim "
                "(an accountant draws nothing)" if accountant_script(c) is not None else
                "builds the same object, prints the claim, and counts the library's own "
                "draws at the two witness inputs" if "collections.Counter(" in script else
                "builds the same object and prints the claim (the witness names no two "
                "inputs to draw at)")
        out += ["## Reproduction (the library only)", "", f"The script {what}:", "",
                "```python", script, "```", ""]
    return "\n".join(out)


_DISTRIBUTIONS = {"pydp": "python-dp"}  # a library imported under another name than its own


def _version(library: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(_DISTRIBUTIONS.get(library, library))
    except PackageNotFoundError:  # pragma: no cover - the audit has just imported it
        return "(version unknown)"


def write_reports(result: AuditResult, directory: Path) -> list[Path]:
    """One ``case-<i>-<constructor>.md`` per unsound row into ``directory`` (created);
    an existing file of that name is replaced. Returns the files written."""
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise InvalidArgument(f"--report {directory}: exists and is not a directory",
                              argument="--report", value=str(directory))
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for n, row in enumerate(result.rows):
        if row.verdict != "unsound":
            continue
        version = _version(row.case.library)
        suffix = f"-{n}" if result.scans else ""
        path = directory / f"case-{row.case.index}{suffix}-{row.case.constructor}.md"
        path.write_text(finding_markdown(row, version), encoding="utf-8")
        written.append(path)
    return written
