"""Check specs whose mechanism is discrete Laplace or Gaussian noise on the sum of the records.

::

    [data]       records, values (integers)
    [mechanism]  kind = "discrete_laplace" (key scale) or "discrete_gaussian" (key sigma);
                 optional lo, hi: the released value is clamped to [lo, hi]
    [query]      epsilon, delta, notions = ["dp"]; for the unclamped discrete Gaussian also
                 notions = ["rdp", "zcdp"] with orders, rho, rdp_epsilon (verifier.specs.renyi;
                 zcdp of a clamped one is bounded by post-processing)

Numbers may be exact (``"3/2"``) or doubles named as such (``{f64 = "0x1.71547652b82fep+0"}``).
Only ``plrv check`` decides these specs, under replace-one neighbours; every other
table (an attacker, a data model, ``[neighbours]``, ``[limits]``) is refused, never ignored.
With ``[input]`` instead of ``[data]`` the noise is added to each coordinate of the vectors, and
``kind = "noisy_max"`` / ``"above_threshold"`` are the testing literature's patterns over them
(:mod:`verifier.specs.noise_zoo`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gmpy2 import mpq

from verifier.core.epsilon import Epsilon, parse_epsilon
from verifier.core.errors import SpecError, did_you_mean
from verifier.core.numbers import probability
from verifier.model.expnoise import NOISE_KINDS, ExpNoise, discrete_gaussian, discrete_laplace
from verifier.model.expnoise_zoo import ZOO_KINDS
from verifier.notions.renyi.check import RenyiClaim
from verifier.specs.files import check_kind
from verifier.specs.keys import MISSING, Document, doubles, integer_value
from verifier.specs.noise_zoo import ChoiceProblem, read_choice_spec, read_coordinate_spec
from verifier.specs.renyi import RENYI_KEYS, read_notions, read_renyi

__all__ = ["NoiseProblem", "is_noise_spec", "read_noise_spec", "NOISE_KEYS"]

_PARAMETER = {"discrete_laplace": "scale", "discrete_gaussian": "sigma"}
# kind -> the keys of [mechanism] besides kind (noise on the sum of [data] records)
NOISE_KEYS = {kind: frozenset({param, "lo", "hi"}) for kind, param in _PARAMETER.items()}


@dataclass(frozen=True)
class NoiseProblem:
    """A noise spec: the law, the records, the claim, and the doubles it was written with."""

    path: str | None
    values: tuple[int, ...]
    records: int
    noise: ExpNoise
    epsilon: Epsilon
    delta: mpq
    doubles: tuple = ()
    notions: tuple[str, ...] = ("dp",)
    renyi: RenyiClaim | None = None  # the claim of rdp and zcdp (the discrete Gaussian)


def is_noise_spec(raw: Mapping) -> bool:
    mech = raw.get("mechanism")
    return isinstance(mech, dict) and mech.get("kind") in (*NOISE_KINDS, *ZOO_KINDS)


def read_noise_spec(raw: Mapping, file: str | None, command: str
                    ) -> NoiseProblem | ChoiceProblem:
    """Read a noise spec for ``command`` (only ``check`` decides it): noise on a sum, or
    report noisy max / above threshold (:mod:`verifier.specs.noise_zoo`)."""
    kind = raw["mechanism"]["kind"]
    if kind in ZOO_KINDS:
        return read_choice_spec(raw, file, command)
    if "input" in raw:  # noise on each coordinate of the [input] vectors
        return read_coordinate_spec(raw, file, command)
    if command != "check":
        raise SpecError(f"plrv {command} does not decide {kind} noise; plrv check does",
                        file=file, key="mechanism.kind", value=kind)
    check_kind(raw, "check", file)
    for name in raw:
        if name not in ("data", "mechanism", "query"):
            raise SpecError(f"a {kind} spec is decided for dp under replace-one neighbours of "
                            f"[data]; [{name}] is not applied to it: remove it"
                            f"{did_you_mean(name, ('data', 'mechanism', 'query', 'input'))}",
                            file=file,
                            key=f"[{name}]", value=raw[name])
    doc = Document(raw, file)
    data = doc.table("data", required=True)
    data.only({"records", "values"}, "[data] of a noise spec")
    mech = doc.table("mechanism", required=True)
    param = _PARAMETER[kind]
    mech.only({"kind", *NOISE_KEYS[kind]}, f"kind {kind!r}")
    mech.string("kind")
    query = doc.table("query", required=True)
    query.only({"epsilon", "delta", "notions", *RENYI_KEYS})

    values = tuple(data.list_of("values", integer_value,
                                missing="missing: the integer values a record can take"))
    if len(set(values)) != len(values):
        raise data.fail("values", "a value is listed twice", list(values))
    records = data.integer("records", lo=1, missing="missing: the number of records n")
    build = discrete_laplace if kind == "discrete_laplace" else discrete_gaussian
    lo = mech.read("lo", integer_value, None)
    hi = mech.read("hi", integer_value, None)
    if param not in mech:
        raise mech.fail(param, f"missing: kind {kind!r} needs {param}")
    noise = mech.check(param, build, mech.get(param), lo, hi)
    notions = read_notions(query)
    renyi = read_renyi(query, notions)
    if renyi is None:
        if notions != ("dp",):
            raise query.fail("notions", f'{kind} noise is decided for dp, and the discrete '
                                        f'Gaussian for rdp and zcdp: write notions = ["dp"]',
                             list(notions))
        eps = query.read("epsilon", parse_epsilon, MISSING)
        delta = query.rational("delta", check=probability)
    else:
        if kind != "discrete_gaussian":
            raise query.fail("notions", "rdp and zcdp are decided for the discrete Gaussian; "
                                        'ask for notions = ["dp"] of the discrete Laplace',
                             list(notions))
        if "rdp" in notions and (lo is not None or hi is not None):
            raise query.fail("notions", "rdp of a clamped discrete Gaussian is not computed "
                                        "exactly: leave out lo and hi for the closed form, or "
                                        "ask for zcdp (bounded by post-processing)",
                             list(notions))
        eps, delta = parse_epsilon(0), mpq(0)  # the conversion points are in the claim
    doc.finish(f"plrv {command} with {kind} noise and notions = {list(notions)}")
    return NoiseProblem(file, values, records, noise, eps, delta, doubles(raw), notions, renyi)
