"""The gallery of natural mechanisms (``docs/gallery.md``): for each spec of
``examples/gallery/``, the exact tight ε at δ = 10⁻⁶ and the Rényi divergence ``D_2`` under
DP (replace-one), APK, PPK and noiseless privacy, as one Markdown page.

Every value is computed by the public checks — :func:`verifier.specs.check.run_spec` for the
(ε, δ) notions, :func:`verifier.notions.renyi.check.check_renyi` (``rdp``) and
:func:`verifier.notions.renyi.partial.check_renyi_partial` (``apkrdp``, ``ppkrdp``,
``noiselessrdp``) at order 2 — and shown exactly (``ln(q)``, or its shape when long) with a
certified decimal beside it. ``python -m verifier.reports.gallery > docs/gallery.md``
regenerates the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from verifier.notions.dp.neighbours import replace_one
from verifier.notions.renyi.check import check_renyi
from verifier.notions.renyi.partial import check_renyi_partial
from verifier.reports.text import short
from verifier.specs.check import load_spec, run_spec

__all__ = ["GALLERY", "FORMS", "Row", "gallery_row", "gallery_rows", "markdown"]

EXAMPLES = Path(__file__).resolve().parent.parent.parent / "examples" / "gallery"
DELTA = "1/1000000"
# (spec file in examples/gallery/, what the mechanism is)
GALLERY: tuple[tuple[str, str], ...] = (
    ("randomized_response.toml", "randomized response (truth 3/4) on each of 3 records"),
    ("geometric_count.toml", "count + clamped two-sided geometric noise (1/2), 6 records"),
    ("thresholded_count.toml", "noisy count (geometric 1/2) released only if ≥ 3, 5 records"),
    ("top1.toml", "top-1 of two noisy counts (geometric 1/2), fair coin on ties, 4 records"),
    ("suppression.toml", "count released only if ≥ k = 3, else ⊥ (no noise), 8 records"),
    ("sampling.toml", "count of 1s among 3 of 6 records drawn without replacement"),
    ("mean.toml", "exact mean of 16 records in {0, 1, 2}"),
)
# the columns: the (ε, δ) notion and the Rényi form of each attacker
FORMS = (("DP", "dp", "rdp"), ("APK", "apkdp", "apkrdp"), ("PPK", "ppkdp", "ppkrdp"),
         ("noiseless", "noiseless", "noiselessrdp"))


@dataclass(frozen=True)
class Row:
    """One mechanism: per form (``FORMS``' first column), the tight ε at δ = 10⁻⁶ and ``D_2``
    (their exact objects: :class:`verifier.core.epsilon.Epsilon`,
    :class:`verifier.notions.renyi.divergence.Renyi`)."""

    spec: str
    title: str
    epsilon: dict[str, object]
    d2: dict[str, object]

    @property
    def apk_differs(self) -> bool:
        """Whether APK and PPK differ in ε or in ``D_2`` (exact strings are canonical)."""
        return any(str(v["APK"]) != str(v["PPK"]) for v in (self.epsilon, self.d2))


def gallery_row(spec_file: str | Path, title: str = "") -> Row:
    """The row of one spec: its (ε, δ) notions at δ = 10⁻⁶ and ``D_2`` of each form, claims
    ``D_2 ≤`` the spec's ε (the claim does not change the values)."""
    s = load_spec(spec_file, query={"delta": DELTA, "notions": [f[1] for f in FORMS]})
    report = run_spec(s)
    orders, budgets = [2], [str(s.epsilon)]
    relation = s.relation if s.relation is not None else replace_one(s.values, s.records)
    rdp = check_renyi(s.mechanism, relation, ["rdp"], orders=orders, budgets=budgets,
                      budget=s.budget, engine=s.engine)
    assert s.model is not None
    partial = check_renyi_partial(s.mechanism, s.model, [f[2] for f in FORMS[1:]],
                                  knowledge=s.knowledge, targets=s.targets, pairs=s.pairs,
                                  orders=orders, budgets=budgets, budget=s.budget,
                                  engine=s.engine)
    renyi = {**rdp.results, **partial.results}
    return Row(Path(spec_file).name, title,
               {name: report.results[key].epsilon for name, key, _ in FORMS},
               {name: renyi[key].orders[0].value for name, _, key in FORMS})  # type: ignore[union-attr]


def gallery_rows(where: Path = EXAMPLES) -> list[Row]:
    return [gallery_row(where / name, title) for name, title in GALLERY]


def cell(value: object) -> str:
    """An exact value, short, with its certified decimal (``≈``) when it is not exact."""
    text = str(value)
    if text in ("inf", "+inf"):
        return "∞"
    approx = value.approx()  # type: ignore[attr-defined]
    return f"`{short(text)}`" if approx == text else f"`{short(text)}` ≈ {approx}"


_INTRO = """\
# Gallery: natural mechanisms under DP, APK, PPK and noiseless privacy

Seed 003 closes with "the analysis of natural mechanisms under PPK-DP and APK-DP" as future
work. Each row below is a spec in `examples/gallery/` (run any of them with `plrv check`): a
small data model of i.i.d. records, an attacker who knows some records, and a target record.
Every value is exact; a decimal beside it is a certified truncation, marked ≈.

- **ε at δ = 10⁻⁶** is the tight ε: the least ε for which the mechanism is (ε, 10⁻⁶)-private
  under each notion (`REFERENCE.md` §3), the log of a rational. **DP** ranges over replace-one
  neighbours (every database, no prior); **APK** (the active attacker) over the target's
  ordered value pairs and every background value the known records can take, the worst one
  chosen; **PPK** (the passive attacker) with the known records drawn with the data;
  **noiseless** with no known records (the prior alone).
- **D_2** is the Rényi divergence of order 2 (`REFERENCE.md` §8): `ln(S_2)` for the rational
  moment `S_2 = Σ_O P(O)²/Q(O)`, under `rdp`, `apkrdp`, `ppkrdp` and `noiselessrdp` (the PPK
  moment averages the APK moments over the background). It is ∞ when one value of the target
  gives an output the other cannot.
- **APK ≠ PPK** marks the rows where the passive attacker's value differs from the active
  one's in either table (it is never larger: Lemma 5, and an average of moments is at most
  the largest). A mean is Θ-reducible (Proposition 26), so there the two coincide; so do they
  for the clamped geometric count, whose loss law does not depend on the known count (clamping
  to 0..n only merges outputs of equal loss); a thresholded count is not reducible (Remark 2).
  An ∞ in both columns may hide a difference in δ: `plrv check` on the spec shows the APK
  and PPK δ at the spec's ε.

Regenerate this page with `python -m verifier.reports.gallery > docs/gallery.md`; a test
checks that it is current.
"""


def _table(rows: Sequence[Row], column: str, head: str) -> list[str]:
    names = [f[0] for f in FORMS]
    lines = [f"| mechanism | {' | '.join(f'{head} {n}' for n in names)} | APK ≠ PPK |",
             "|---" * (len(names) + 2) + "|"]
    for r in rows:
        values = getattr(r, column)
        mark = "**yes**" if str(values["APK"]) != str(values["PPK"]) else ""
        lines.append(f"| {r.title} (`{r.spec}`) | "
                     f"{' | '.join(cell(values[n]) for n in names)} | {mark} |")
    return lines


def markdown(rows: Sequence[Row] | None = None) -> str:
    """The page ``docs/gallery.md``."""
    rows = gallery_rows() if rows is None else rows
    out = [_INTRO, "## Tight ε at δ = 10⁻⁶", "", *_table(rows, "epsilon", "ε"), "",
           "## Rényi divergence of order 2", "", *_table(rows, "d2", "D_2"), ""]
    return "\n".join(out)


if __name__ == "__main__":
    print(markdown(), end="")
