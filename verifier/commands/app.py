"""The ``plrv`` application: the exit-code contract every command follows, and the global
options (``--version``, ``--debug``, ``-h``, shell completion).

Exit status, the same for every command (a command added with ``@app.command()`` gets it from
:class:`_VerdictCommand`): 0 the claim holds, 1 it does not, 2 any error, 3 unknown. A command
function returns its verdict (:func:`verdict`); nothing else exits 0 or 1. Every exception —
a bad spec, an unreadable file, exhausted memory, an error in user code, an error while
rendering or writing the output — is one line ``error: …`` on stderr and exit 2
(:mod:`verifier.commands.failure`; ``--debug`` shows the traceback), and so is a usage error.
Help is printed without rich markup, so bracketed text such as ``[data]`` is shown as written.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

__all__ = ["app", "verdict", "HOLDS", "FAILS", "ERROR", "UNKNOWN", "EXIT_CODES"]

HOLDS, FAILS, ERROR, UNKNOWN = 0, 1, 2, 3
EXIT_CODES = ("Exit status: 0 the claim holds, 1 it does not hold, 2 error (bad spec or "
              "option, budget exceeded, unreadable file, …), 3 unknown (undecided).")
_DEBUG = "plrv.debug"


def verdict(holds: bool | None) -> int:
    """The exit status of a decided claim: 0 holds, 1 does not, 3 undecided (None)."""
    return HOLDS if holds else UNKNOWN if holds is None else FAILS


class _VerdictCommand(TyperCommand):
    """Runs a command whose function returns its exit status, and turns every exception
    (even one raised while rendering or writing the output) into ``error: …`` and exit 2."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """Refuse an option that takes one value given twice (the parser would keep the last
        one silently)."""
        from typer._click.exceptions import UsageError

        single = {name: opt.opts[-1] for opt in self.params
                  if opt.param_type_name == "option" and not getattr(opt, "multiple", False)
                  and not getattr(opt, "count", False)
                  for name in (*opt.opts, *opt.secondary_opts)}
        seen: set[str] = set()
        for token in args:
            if token == "--":
                break
            name = single.get(token.split("=", 1)[0])
            if name is not None:
                if name in seen:
                    raise UsageError(f"{name} is given twice; give it once", ctx)
                seen.add(name)
        return super().parse_args(ctx, args)

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        """The usage line names arguments plainly in capitals (``SPEC``; typer writes
        ``{spec}``, which reads as a set or a template)."""
        return [(p[1:-1] if p.startswith("{") and p.endswith("}") else p).upper()
                for p in super().collect_usage_pieces(ctx)]

    def invoke(self, ctx: Any) -> Any:
        try:
            code = super().invoke(ctx)
        except BaseException as exc:  # noqa: B036 — the exit-code contract covers everything
            from verifier.commands.failure import broken_pipe, error_line

            spec = ctx.params.get("spec")
            debug = bool(ctx.find_root().meta.get(_DEBUG))
            if broken_pipe(exc):
                _silence_stdout()
            else:
                sys.stdout.flush()
            typer.echo(error_line(exc, Path(spec) if isinstance(spec, (str, Path)) else None,
                                  debug), err=True)
            raise typer.Exit(ERROR) from None
        if code not in (HOLDS, FAILS, UNKNOWN):
            typer.echo(f"error: internal error (exit status {code!r}); rerun with --debug for "
                       f"the traceback", err=True)
            raise typer.Exit(ERROR)
        raise typer.Exit(code)


def _silence_stdout() -> None:
    """After a broken pipe, send what is left of stdout to /dev/null (no second error when
    Python flushes it at exit)."""
    import os
    from contextlib import suppress

    with suppress(OSError, ValueError):  # (stdout is not a file, e.g. captured in a test)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


class _Group(TyperGroup):
    """Usage errors (unknown option, bad integer, …) as one ``error:`` line and exit 2."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """Refuse a global option given twice before the command (``--debug --debug``), as
        a command refuses its own options given twice."""
        from typer._click.exceptions import UsageError

        seen: set[str] = set()
        for token in args:
            if not token.startswith("-") or token == "--":
                break  # the command's name: its own options are its own
            name = token.split("=", 1)[0]
            if name in seen:
                raise UsageError(f"{name} is given twice; give it once", ctx)
            seen.add(name)
        return super().parse_args(ctx, args)

    def main(self, args: Any = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             windows_expand_args: bool = True, **extra: Any) -> Any:
        from typer import _click as click
        from typer.exceptions import Abort

        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False,
                                windows_expand_args=windows_expand_args, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:
            typer.echo(exc.ctx.get_help() if exc.ctx else str(exc))
            code = ERROR
        except click.ClickException as exc:
            hint = ""
            ctx = getattr(exc, "ctx", None)
            if ctx is not None:
                hint = f" (see {ctx.command_path} --help)"
            typer.echo(f"error: {' '.join(exc.format_message().split())}{hint}", err=True)
            code = ERROR
        except Abort:
            typer.echo("error: aborted", err=True)
            code = ERROR
        except Exception as exc:  # while parsing the command line: still one line, exit 2
            from verifier.commands.failure import error_line

            typer.echo(error_line(exc, None, "--debug" in (args or sys.argv)), err=True)
            code = ERROR
        code = code if isinstance(code, int) else HOLDS
        if standalone_mode:
            sys.exit(code)
        return code


class _App(typer.Typer):
    """A Typer app whose commands all follow the exit-code contract and document it."""

    def command(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("cls", _VerdictCommand)
        kwargs.setdefault("epilog", EXIT_CODES)
        return super().command(*args, **kwargs)


app = _App(
    cls=_Group,
    add_completion=True,
    no_args_is_help=True,
    rich_markup_mode=None,  # help text is printed as written: "[data]" stays "[data]"
    context_settings={"help_option_names": ["-h", "--help"]},
    help="plrv: exact verification of privacy guarantees of small, finite mechanisms.",
    epilog=EXIT_CODES,
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"plrv {version('plrv')}")
        except PackageNotFoundError:
            typer.echo("plrv (not installed as a package)")
        raise typer.Exit(HOLDS)


@app.callback()
def _root(
    ctx: typer.Context,
    version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
    debug: Annotated[bool, typer.Option(
        "--debug", help="On an error, print the Python traceback too.")] = False,
) -> None:
    """plrv: exact verification of privacy guarantees of small, finite mechanisms."""
    ctx.meta[_DEBUG] = debug
