"""Pages generated at build time, so that they cannot drift from the code.

``reference/specs.md`` and the output formats are written from the JSON Schemas in
``schemas/``; ``reference/cli.md`` from the commands of the ``plrv`` application
(``verifier.cli.app``), each one's ``--help`` text as click formats it. mkdocs loads this file
through the ``hooks:`` setting of ``mkdocs.yml``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas"
WIDTH = 100

# page title and lead paragraph of each schema page, in the order of the reference
SPEC_KINDS = ("check-spec", "pso-spec", "guess-spec")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _type(node: dict[str, Any], stem: str) -> str:
    """A short description of a schema node's type."""
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{stem}-{name})"
    if "const" in node:
        return f"`{json.dumps(node['const'], ensure_ascii=False)}`"
    if "enum" in node:
        return "one of " + ", ".join(f"`{json.dumps(v, ensure_ascii=False)}`"
                                     for v in node["enum"])
    for key in ("oneOf", "anyOf"):
        if key in node:
            return " or ".join(_type(option, stem) for option in node[key])
    kind = node.get("type")
    if isinstance(kind, list):
        return " or ".join(f"`{k}`" for k in kind)
    if kind == "array" and isinstance(node.get("items"), dict):
        return f"array of {_type(node['items'], stem)}"
    return f"`{kind}`" if kind else "any"


def _limits(node: dict[str, Any]) -> str:
    words = {"minimum": "≥", "maximum": "≤", "exclusiveMinimum": ">", "exclusiveMaximum": "<",
             "minItems": "items ≥", "maxItems": "items ≤", "minLength": "length ≥",
             "maxLength": "length ≤", "pattern": "matches"}
    parts = [f"{word} `{node[key]}`" for key, word in words.items() if key in node]
    if "default" in node:
        parts.append(f"default `{json.dumps(node['default'], ensure_ascii=False)}`")
    return "; ".join(parts)


def _rows(node: dict[str, Any], prefix: str, rows: list[str], stem: str) -> None:
    """One table row per property, depth first (nested objects as dotted keys)."""
    required = set(node.get("required", ()))
    for name, child in node.get("properties", {}).items():
        key = f"{prefix}{name}"
        notes = "; ".join(x for x in (child.get("description", ""), _limits(child)) if x)
        rows.append(f"| `{key}` | {_cell(_type(child, stem))} | {'yes' if name in required else ''}"
                    f" | {_cell(notes)} |")
        if child.get("type") == "object" or "properties" in child:
            _rows(child, f"{key}.", rows, stem)
        items = child.get("items")
        if isinstance(items, dict) and "properties" in items:
            _rows(items, f"{key}[].", rows, stem)


def _table(node: dict[str, Any], stem: str) -> str:
    rows: list[str] = []
    _rows(node, "", rows, stem)
    if not rows:
        return ""
    head = "| key | type | required | meaning and limits |\n|---|---|---|---|\n"
    return head + "\n".join(rows) + "\n"


def schema_section(path: Path) -> str:
    """One schema as markdown: its title, description, key tables, definitions, raw text."""
    schema = json.loads(path.read_text(encoding="utf-8"))
    stem = path.name.removesuffix(".json").replace(".", "-")
    out = [f"## {schema.get('title', path.stem)}\n",
           f"`schemas/{path.name}` (version {schema.get('version')}, `$id` "
           f"`{schema.get('$id', '')}`)\n"]
    if schema.get("description"):
        out.append(schema["description"] + "\n")
    if "additionalProperties" in schema and schema["additionalProperties"] is False:
        out.append("No keys other than those listed are allowed.\n")
    for key in ("oneOf", "anyOf"):
        if key in schema:
            out.append("One of: " + ", ".join(_type(o, stem) for o in schema[key]) + ".\n")
    if "allOf" in schema:
        out.append(f"The schema also states {len(schema['allOf'])} conditions between keys "
                   "(`allOf`: which keys go together); they are in the schema itself, at the "
                   "end of this section.\n")
    if schema.get("type") == "array" and isinstance(schema.get("items"), dict):
        out.append("A list; each item:\n")
        out.append(_table(schema["items"], stem))
    out.append(_table(schema, stem))
    for name, sub in schema.get("$defs", {}).items():
        out.append(f'### `{name}` {{ #{stem}-{name} }}\n')
        if sub.get("description"):
            out.append(sub["description"] + "\n")
        table = _table(sub, stem)
        out.append(table or f"Type: {_type(sub, stem)}.\n")
    raw = json.dumps(schema, indent=2, ensure_ascii=False)
    out.append(f'??? note "The schema itself: `schemas/{path.name}`"\n\n'
               "    ```json\n" + "\n".join("    " + line for line in raw.splitlines())
               + "\n    ```\n")
    return "\n".join(out)


def schema_page(title: str, lead: str, paths: list[Path]) -> str:
    sections = "\n".join(schema_section(p) for p in paths)
    return f"# {title}\n\n{lead}\n\n{sections}"


def spec_page() -> str:
    paths = [SCHEMAS / f"{kind}.v1.json" for kind in SPEC_KINDS]
    return schema_page(
        "Spec files (generated)",
        "Generated at build time from the JSON Schemas (draft 2020-12) in `schemas/`, which the "
        "tests validate every bundled example against. A TOML spec is read into JSON values "
        "and then checked; plrv's own readers are stricter still (a number is an exact "
        "string or an integer, never a float). See the "
        "[guide to spec files](../how-to/spec-files.md).",
        paths)


def output_page() -> str:
    paths = sorted(p for p in SCHEMAS.glob("*.json")
                   if not any(p.name.startswith(kind) for kind in SPEC_KINDS))
    return schema_page(
        "Output formats (generated)",
        "Generated at build time from the JSON Schemas in `schemas/`: the `--json` output of "
        "each command that has one, and certificates. Every exact number is a string "
        "(`\"num/den\"`, `\"ln(q)\"`, `\"inf\"`); approximations are separate keys.",
        paths)


def cli_page() -> str:
    """Every command's --help, formatted by click as ``plrv COMMAND --help`` prints it."""
    import typer.main

    from verifier.cli import app

    group = typer.main.get_command(app)
    ctx = group.make_context("plrv", [], resilient_parsing=True, terminal_width=WIDTH,
                             max_content_width=WIDTH)
    out = ["# Command line (generated)\n",
           "Generated at build time from the commands of the `plrv` application: each section "
           "is what `plrv COMMAND --help` prints. Exit codes: see "
           "[exit codes](exit-codes.md).\n",
           "```text\n" + group.get_help(ctx).rstrip() + "\n```\n"]
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        sub = command.make_context(name, [], parent=ctx, resilient_parsing=True,
                                   terminal_width=WIDTH, max_content_width=WIDTH)
        out.append(f"## plrv {name}\n")
        out.append("```text\n" + command.get_help(sub).rstrip() + "\n```\n")
    return "\n".join(out)


PAGES = {"reference/specs.md": spec_page, "reference/outputs.md": output_page,
         "reference/cli.md": cli_page}


def on_files(files: Any, config: Any) -> Any:
    """Add the generated pages to the site (mkdocs hook)."""
    from mkdocs.structure.files import File

    for uri, make in PAGES.items():
        files.append(File.generated(config, uri, content=make()))
    return files
