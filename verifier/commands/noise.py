"""``plrv check`` on a spec whose mechanism is discrete Laplace or Gaussian noise: the
verdict, the worst δ at ε and the tight ε at δ, each marked exact or certified enclosure.

The options this route applies are :data:`verifier.commands.check.NOISE`; the others
(certificates, ``--full``, executors, the certified mode — these values already are certified
where not exact) are refused there, never ignored.
"""

from __future__ import annotations

from verifier.commands.app import verdict
from verifier.commands.common import echo, print_json
from verifier.core.certified import shown_decimal
from verifier.core.numbers import counted
from verifier.model.expnoise_vector import CoordinateGaussian
from verifier.notions.dp.noise_check import check_noise_dp
from verifier.specs.noise import NoiseProblem
from verifier.specs.noise_zoo import ChoiceProblem

__all__ = ["noise_check", "noise_json"]

_LONG = 160  # characters: a longer exact value is shown by its decimal in the text report


def _mechanism(s: NoiseProblem | ChoiceProblem) -> str:
    return s.choice.describe() if isinstance(s, ChoiceProblem) else s.noise.describe()


def noise_json(s: NoiseProblem | ChoiceProblem, r) -> dict:
    """The JSON of one noise check (``schemas/check-output.v1.json``, notion ``dp``;
    :meth:`~verifier.notions.dp.noise_check.NoiseResult.to_dict`), with the claim's doubles
    (``{f64 = "…"}``) under ``query.f64`` and ``claim.f64``."""
    from verifier.reports.json_out import doubles_json

    out = r.to_dict(s.epsilon, s.delta, _mechanism(s),
                    s.relation.name if isinstance(s, ChoiceProblem) else None)
    given = doubles_json((k.removeprefix("query."), d) for k, d in s.doubles
                         if k in ("query.epsilon", "query.delta"))
    if given:
        for where in (out["dp"]["query"], out["dp"]["claim"], out["claim"]):
            where["f64"] = given
    return out


def noise_check(s: NoiseProblem | ChoiceProblem, json_out: bool) -> int:
    if isinstance(s, ChoiceProblem):
        from verifier.notions.dp.noise_zoo import check_choice_dp

        if isinstance(s.choice, CoordinateGaussian):
            from verifier.notions.dp.noise_gauss_vector import check_gaussian_vector_dp

            r = check_gaussian_vector_dp(s.choice.sigma, s.relation, s.epsilon, s.delta,
                                         s.limits)
        else:
            r = check_choice_dp(s.choice, s.relation, s.epsilon, s.delta, s.limits)
        mechanism = f"{s.choice.describe()} over {s.relation.describe()}"
        cases = counted(r.pairs, "ordered pair of neighbouring inputs",
                        "ordered pairs of neighbouring inputs")
    else:
        if s.renyi is not None:
            return _renyi(s, json_out)
        r = check_noise_dp(s.noise, s.values, s.records, s.epsilon, s.delta)
        mechanism = (f"sum of {counted(s.records, 'record')} over {list(s.values)} + "
                     f"{s.noise.describe()}")
        cases = counted(r.pairs, "pair of neighbouring sums", "pairs of neighbouring sums")
    if json_out:
        print_json(noise_json(s, r))
        return verdict(r.holds)
    out = noise_json(s, r)["dp"]
    verdict_text = {True: "holds", False: "does not hold", None: "unknown (not decided)"}
    echo(f"mechanism  {mechanism}")
    echo(f"claim      ε = {s.epsilon}, δ = {s.delta}")
    for key, d in s.doubles:
        echo(f"double     {key} = {d} ({d.hex}) is read as exactly {d.exact}")
    echo(f"dp         {verdict_text[r.holds]} ({cases})")
    for name, label in (("delta", f"tight δ at ε = {s.epsilon}"),
                        ("epsilon", f"tight ε at δ = {s.delta}")):
        exact = out["exactness"][name] == "exact"
        enc = out["enclosure"][name]
        if name == "delta":  # near 1: its distance to 1 (the display rule of every δ)
            out["approx"][name] = shown_decimal(r.delta_enclosure)
        if exact and len(out[name]) > _LONG:
            shown = (f"≈ {out['approx'][name]} (certified; the exact expression, "
                     f"{len(out[name])} characters, is in --json)")
        elif exact:
            shown = f"{out[name]}  (≈ {out['approx'][name]})"
        else:
            shown = (f"≈ {out['approx'][name]} (a certified enclosure, not exact: "
                     f"[{enc[0]}, {enc[1]}] in full in --json)" if enc else out["approx"][name])
        echo(f"{label}: {shown}")
    side = "witness" if r.holds is False else "worst case"
    what = "inputs" if isinstance(s, ChoiceProblem) else "centres"
    if not r.witness:
        echo(f"note       dp holds {' '.join(r.notes)}")
        return verdict(r.holds)
    echo(f"{side}  {what} {r.witness[0]} and {r.witness[1]}")
    return verdict(r.holds)


def _renyi(s: NoiseProblem, json_out: bool) -> int:
    """rdp/zcdp of the discrete Gaussian (:mod:`verifier.notions.renyi.gaussian`)."""
    from verifier.notions.renyi.gaussian import gaussian_renyi
    from verifier.reports.renyi import renyi_lines

    assert s.renyi is not None
    report = gaussian_renyi(s.noise, s.values, s.records, s.notions, s.renyi)
    out = report.to_dict(s.renyi, s.noise.describe())
    if json_out:
        print_json(out)
        return verdict(report.holds)
    echo(f"mechanism  sum of {counted(s.records, 'record')} over {list(s.values)} + "
               f"{s.noise.describe()}")
    for key, d in s.doubles:
        echo(f"double     {key} = {d} ({d.hex}) is read as exactly {d.exact}")
    for label, text in renyi_lines(out, report.info):
        echo(f"{label:<10} {text}")
    return verdict(report.holds)
