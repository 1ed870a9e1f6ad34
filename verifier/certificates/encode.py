"""How values, outputs, background values and specs are written into a certificate.

The encoding is canonical and typed, so that the independent checker
(:mod:`verifier.kernel`), which computes its own outputs with
``fractions.Fraction``, writes the same JSON value for the same outcome:

* an integer is a JSON integer, a string a JSON string, a tuple a JSON list;
* a rational is ``{"rational": "num/den"}`` (``"3"`` when whole);
* ``⊥`` (nothing released) is ``{"bottom": true}``;
* the class of background values of the count engine (the known records up to order) is
  ``{"known_counts": [c_1, …, c_k], "stands_for": m}`` with the counts per value of
  ``spec.values`` and ``m = |K|!/Π c_v!`` the number of background values it stands for.
"""

from __future__ import annotations

from fractions import Fraction

from gmpy2 import mpq

from verifier.core.delta import Delta
from verifier.core.distribution import Bottom
from verifier.core.errors import InvalidArgument
from verifier.core.numbers import format_rational

__all__ = ["FORMAT", "VERSION", "encode", "number", "delta_json", "spec_json", "provenance",
           "source_of"]

FORMAT = "plrv-certificate"
VERSION = 1
_MPQ = type(mpq(0))
_MPZ = type(mpq(0).numerator)


def encode(value: object) -> object:
    """The certificate's JSON form of a record value, an output or a background value."""
    if isinstance(value, Bottom):
        return {"bottom": True}
    if isinstance(value, bool):
        raise InvalidArgument(f"value {value!r}: booleans cannot be written to a certificate")
    if isinstance(value, (int, _MPZ)):
        return int(value)
    if isinstance(value, str):
        return value
    if isinstance(value, (_MPQ, Fraction)):
        return {"rational": number(value)}
    if isinstance(value, (tuple, list)):
        return [encode(v) for v in value]
    counts = getattr(value, "counts", None)
    if isinstance(counts, tuple) and hasattr(value, "multiplicity"):
        return {"known_counts": [int(c) for c in counts],
                "stands_for": int(value.multiplicity)}
    raise InvalidArgument(f"value {value!r} of type {type(value).__name__} cannot be written "
                          f"to a certificate")


def number(x: object) -> str:
    """An exact rational as ``"num/den"`` (``"3"`` when whole)."""
    return format_rational(mpq(x))


def delta_json(d: Delta) -> object:
    """``"num/den"`` for a rational δ, ``{"a": A, "c": C}`` for ``δ = A − C·e^ε``."""
    if d.c == 0:
        return number(d.a)
    return {"a": number(d.a), "c": number(d.c)}


def _model_json(model) -> dict:
    priors = getattr(model, "priors", None)
    if priors is not None:
        return {"priors": [[number(p[v]) for v in model.values] for p in priors]}
    dist = model.distribution()
    return {"support": [encode(db) for db, _ in dist.items()],
            "weights": [number(w) for _, w in dist.items()]}


def _knowledge_json(know) -> dict:
    if know.known is not None:
        return {"known": list(know.known)}
    return {"function": know.name}


def _mechanism_json(mech) -> dict:
    """The built-in kind the mechanism was built as (never read off its name: a user function
    ``def count(db)`` is user code), with its parameters; user code as ``"function"``."""
    params = {k: encode(v) for k, v in mech.params.items()} if mech.kind else {}
    return {"kind": mech.kind or "function", "name": mech.name, "params": params}


def spec_json(spec, pairs: tuple, targets: tuple) -> dict:
    """The normalised spec of ``plrv check``: every model, knowledge and pair written out."""
    models = spec.model if isinstance(spec.model, tuple) else \
        (() if spec.model is None else (spec.model,))
    if tuple(spec.notions) == ("dp",):
        models = ()  # dp reads no data model: the checker requires none to be listed
    knows = spec.knowledge if isinstance(spec.knowledge, tuple) else (spec.knowledge,)
    return {
        "values": [encode(v) for v in spec.values],
        "records": spec.records,
        "models": [_model_json(m) for m in models],
        "mechanism": _mechanism_json(spec.mechanism),
        "knowledge": [_knowledge_json(k) for k in knows],
        "targets": list(targets),
        "pairs": [[encode(a), encode(b)] for a, b in pairs],
        "epsilon": str(spec.epsilon),
        "delta": number(spec.delta),
        "notions": list(spec.notions),
    }


def spec_hash(spec: object) -> str:
    """SHA-256 of a certificate's embedded spec written canonically (keys sorted, no spaces,
    UTF-8), which the kernel recomputes from the spec it reads."""
    import hashlib
    import json

    text = json.dumps(spec, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def source_of(path: object) -> dict:
    """The spec file's name and the SHA-256 of its bytes (nulls when there is no file),
    read before any user code runs (it may change the working folder)."""
    import hashlib
    from pathlib import Path

    if path is None:
        return {"file": None, "sha256": None}
    p = Path(str(path))
    return {"file": p.name, "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}


def provenance(cert: dict, source: dict) -> dict:
    """``cert`` with the spec it was made from named: ``source`` (:func:`source_of`) and
    ``spec_sha256`` (the hash of the embedded spec, see :func:`spec_hash`), placed after
    ``kind``."""
    head = {k: cert[k] for k in ("format", "version", "kind")}
    rest = {k: v for k, v in cert.items() if k not in head}
    return {**head, "source": source, "spec_sha256": spec_hash(rest["spec"]), **rest}
