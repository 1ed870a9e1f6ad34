"""``plrv compose --mechanism "KIND KEY=VALUE …"``: one built-in mechanism on the command line,
read as the compose spec it stands for, so that every value is checked as in a file.

Grammar (words separated by spaces)::

    KIND [KEY=VALUE ...]

``KIND`` is a built-in mechanism kind (``randomized_response``, ``count``,
``threshold_count``, ``geometric_count``, ``sum``, ``mean``, ``identity``; user code,
``function`` and ``program``, needs a spec file). ``KEY`` is a key of that kind's
``[mechanism]`` table (``truth``, ``alpha``, ``threshold``, ``counts``) or of ``[data]``:
``records`` (default 1) and ``values`` (default ``0,1``). ``VALUE`` is an integer (``2``), an
exact number as a spec writes it (``3/4``), or a comma-separated list (``0,1,2``; ``values``
and ``counts`` are always lists). The claim is ``--epsilon`` (required) and ``--delta``
(default 0); the relation is replace-one over the records.

``randomized_response truth=3/4`` is the spec ``[data] records = 1, values = [0, 1]``,
``[mechanism] kind = "randomized_response", truth = "3/4"``. A misspelt kind or key is an
error naming it, with the names it could have meant.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from verifier.core.errors import InvalidArgument, SpecError, VerifierError, did_you_mean
from verifier.model.mechanisms import MECHANISM_KINDS
from verifier.specs.compose import ComposeSpec, parse_compose

__all__ = ["mechanism_spec", "BUILT_IN", "DATA_KEYS"]

BUILT_IN = tuple(sorted(k for k in MECHANISM_KINDS if k not in ("function", "program")))
DATA_KEYS = ("records", "values")
_LISTS = ("values", "counts")
_INTEGER = re.compile(r"-?[0-9]+")
OPTION = "--mechanism"


def _fail(text: str, why: str, value: object = None) -> InvalidArgument:
    return InvalidArgument(f"{OPTION} {text!r}: {why}", argument=OPTION,
                           value=text if value is None else value)


def _item(word: str) -> int | str:
    return int(word) if _INTEGER.fullmatch(word) else word


def mechanism_raw(text: str, query: Mapping[str, str]) -> dict:
    """The compose spec (as read from TOML) that ``text`` stands for."""
    words = text.split()
    if not words:
        raise _fail(text, f"empty: name a built-in mechanism ({', '.join(BUILT_IN)})")
    kind, *pairs = words
    if kind not in BUILT_IN:
        why = ("runs user code, which a spec file names" if kind in MECHANISM_KINDS
               else "is not a built-in mechanism")
        raise _fail(text, f"{kind} {why}; built-in: {', '.join(BUILT_IN)}"
                          f"{did_you_mean(kind, BUILT_IN)}", kind)
    required, optional = MECHANISM_KINDS[kind][:2]
    keys = sorted(required | optional)
    data: dict[str, object] = {"records": 1, "values": [0, 1]}
    params: dict[str, object] = {}
    seen: set[str] = set()
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key or not value:
            raise _fail(text, f"{pair!r} is not KEY=VALUE", pair)
        if key not in keys and key not in DATA_KEYS:
            raise _fail(text, f"{kind} takes no key {key}; its keys: "
                              f"{', '.join([*keys, *DATA_KEYS])}"
                              f"{did_you_mean(key, [*keys, *DATA_KEYS])}", key)
        if key in seen:
            raise _fail(text, f"{key} is given twice", key)
        seen.add(key)
        target = data if key in DATA_KEYS else params
        items = value.split(",")
        target[key] = ([_item(w) for w in items] if key in _LISTS or len(items) > 1
                       else _item(value))
    missing = sorted(required - params.keys())
    if missing:
        raise _fail(text, f"{kind} needs {', '.join(f'{m}=VALUE' for m in missing)}",
                    missing[0])
    if "epsilon" not in query:
        raise InvalidArgument(f"{OPTION} needs --epsilon: the claimed ε of the composition "
                              f"(and --delta, default 0)", argument="--epsilon")
    return {"data": data, "mechanism": {"kind": kind, **params},
            "query": {"epsilon": query["epsilon"], "delta": query.get("delta", "0"),
                      "notions": ["dp"]}}


def mechanism_spec(text: str, query: Mapping[str, str]) -> ComposeSpec:
    """The compose spec of ``--mechanism text`` with the claim ``query`` (``--epsilon``,
    ``--delta``); an error names ``--mechanism`` (or the option) and the key."""
    raw = mechanism_raw(text, query)
    try:
        return parse_compose(raw, None, None)
    except SpecError as exc:
        key = exc.key or ""
        name = key.removeprefix("query.")
        if key.startswith("query.") and name in query:
            raise InvalidArgument(f"--{name} {query[name]!r}: {exc.detail}",
                                  argument=f"--{name}", value=query[name]) from None
        raise _fail(text, f"{key.split('.')[-1]}: {exc.detail}" if key else exc.detail
                    ) from None
    except VerifierError as exc:
        raise _fail(text, str(exc)) from None
