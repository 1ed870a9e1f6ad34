"""One rule for every command's options: honoured or refused, never ignored.

A command reads which options the user typed (:func:`typed_options`); each route of the
command — the code path that answers — declares the options it applies, and
:func:`refuse_options` refuses every other option typed, naming it and why (exit 2). An option
is *typed* when it came from the command line with a value that asks for something (not
``None``, not ``False``: ``--no-progress`` asks for no bar, which a route without one gives).
A value taken from the environment (``PLRV_SCHEDULER``) is a default: the routes that
enumerate use it, the others leave it alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["typed_options", "refuse_options", "without"]


def typed_options() -> dict[str, object]:
    """The options of the running command typed on its command line, by their long name
    (``--workers``), with their values (arguments such as SPEC are not options)."""
    from typer._click.core import ParameterSource
    from typer._click.globals import get_current_context

    ctx = get_current_context(silent=True)
    if ctx is None:  # called as a function, not from the command line
        return {}
    typed: dict[str, object] = {}
    for param in ctx.command.params:
        if param.param_type_name != "option" or param.name is None:
            continue
        value = ctx.params.get(param.name)
        if ctx.get_parameter_source(param.name) is not ParameterSource.COMMANDLINE:
            continue
        if value is None or value is False:
            continue
        typed[max(param.opts, key=len)] = value
    return typed


def without(typed: Mapping[str, object], *options: str) -> dict[str, object]:
    """``typed`` less ``options`` (those a command has already dealt with)."""
    return {k: v for k, v in typed.items() if k not in options}


def refuse_options(route: str, typed: Mapping[str, object], applied: Iterable[str],
                   why: Mapping[str, str] | None = None) -> None:
    """Refuse the first option of ``typed`` that ``route`` does not apply: one line naming
    the option, the route, and (from ``why``) the reason, e.g. ``--workers: plrv check --mode
    certified does not apply --workers (the certified enclosure runs in one process); remove
    it``."""
    from verifier.core.errors import InvalidArgument

    applies = set(applied)
    for option, value in typed.items():
        if option in applies:
            continue
        reason = (why or {}).get(option)
        raise InvalidArgument(f"{option}: {route} does not apply {option}"
                              + (f" ({reason})" if reason else "") + "; remove it",
                              argument=option, value=value)
