"""The privacy notions plrv decides, one record each.

A notion is named in spec files (``notions = ["apkdp"]``) and on the command line by its
``key``; everything else about it (its title, the seed it comes from, whether it needs a data
model, how it is read off the joint table) is looked up here rather than spelled out by string
comparisons across the package.

>>> notion("ppkdp").title
'PPK-DP (passive attacker)'
>>> notion("pkdp")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
verifier.core.errors.UnknownName: notion 'pkdp' is unknown; known notions: dp, apkdp, ...
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from verifier.core.errors import UnknownName, did_you_mean

__all__ = ["Notion", "Conditioning", "DP", "APKDP", "PPKDP", "NOISELESS", "RDP", "ZCDP",
           "NOTIONS", "RENYI", "PARTIAL_RENYI", "RENYI_FORM", "RDP_FORMS", "ZCDP_FORMS", "notion"]


class Conditioning(Enum):
    """What the two compared output laws are conditioned on."""

    NEIGHBOURS = "neighbouring databases"            # classical DP
    VALUE_AND_CHOSEN_BACKGROUND = "D(i) and a background value the attacker chooses"
    VALUE_AND_DRAWN_BACKGROUND = "D(i) and a background value drawn with the data"
    VALUE = "D(i) alone"


@dataclass(frozen=True, slots=True)
class Notion:
    """A privacy notion: its key, its name for people, its source and what it needs."""

    key: str
    title: str
    label: str                  # short, for plot legends
    source: str                 # where the definition comes from
    conditioning: Conditioning
    needs_model: bool           # needs a data model Θ (a prior), not only the mechanism

    def __str__(self) -> str:
        return self.key


_DKM = "Desfontaines, Krahmer and Mohammadi 2019"  # "Passive and active attackers in
#                                                     noiseless privacy" (seed 003)
DP = Notion("dp", "(ε,δ)-DP", "DP", _DKM + ", Definition 2 and Lemma 1",
            Conditioning.NEIGHBOURS, needs_model=False)
APKDP = Notion("apkdp", "APK-DP (active attacker)", "active (APK)", _DKM + ", Definition 6",
               Conditioning.VALUE_AND_CHOSEN_BACKGROUND, needs_model=True)
PPKDP = Notion("ppkdp", "PPK-DP (passive attacker)", "passive (PPK)", _DKM + ", Definition 7",
               Conditioning.VALUE_AND_DRAWN_BACKGROUND, needs_model=True)
NOISELESS = Notion("noiseless", "noiseless privacy", "noiseless", _DKM + ", Definition 3",
                   Conditioning.VALUE, needs_model=True)
RDP = Notion("rdp", "Rényi DP", "RDP", "Mironov 2017, Rényi Differential Privacy, Definition 4",
             Conditioning.NEIGHBOURS, needs_model=False)
ZCDP = Notion("zcdp", "ρ-zCDP", "zCDP", "Bun and Steinke 2016, Concentrated Differential "
              "Privacy: Simplifications, Extensions, and Lower Bounds, Definition 1.1",
              Conditioning.NEIGHBOURS, needs_model=False)

_EXT = "REFERENCE.md §8 (seed 003's future work: Rényi forms of its PLRV)"
_PARTIAL_RENYI = tuple(
    Notion(f"{form}{kind}", f"{title}-{'RDP' if kind == 'rdp' else 'zCDP'}",
           f"{label} {'RDP' if kind == 'rdp' else 'zCDP'}", _EXT, cond, needs_model=True)
    for kind in ("rdp", "zcdp")
    for form, title, label, cond in (
        ("apk", "APK", "active", Conditioning.VALUE_AND_CHOSEN_BACKGROUND),
        ("ppk", "PPK", "passive", Conditioning.VALUE_AND_DRAWN_BACKGROUND),
        ("noiseless", "noiseless", "noiseless", Conditioning.VALUE)))

NOTIONS: dict[str, Notion] = {n.key: n for n in (DP, APKDP, PPKDP, NOISELESS, RDP, ZCDP,
                                                 *_PARTIAL_RENYI)}
# the partial-knowledge Rényi notions: name -> (attacker form, rdp or zcdp)
RENYI_FORM: dict[str, tuple[str, str]] = {
    n.key: (n.key[:-4] if n.key.endswith("zcdp") else n.key[:-3],
            "zcdp" if n.key.endswith("zcdp") else "rdp") for n in _PARTIAL_RENYI}
PARTIAL_RENYI = frozenset(RENYI_FORM)
RDP_FORMS = frozenset({"rdp"} | {k for k, (_, kind) in RENYI_FORM.items() if kind == "rdp"})
ZCDP_FORMS = frozenset({"zcdp"} | {k for k, (_, kind) in RENYI_FORM.items() if kind == "zcdp"})
# decided by verifier.notions.renyi, not by (ε, δ) cases
RENYI = frozenset({"rdp", "zcdp"}) | PARTIAL_RENYI


def notion(name: object) -> Notion:
    """The notion called ``name`` (a key such as ``"apkdp"``, or a :class:`Notion`)."""
    if isinstance(name, Notion):
        return name
    if isinstance(name, str) and name in NOTIONS:
        return NOTIONS[name]
    raise UnknownName(f"notion {name!r} is unknown; known notions: {', '.join(NOTIONS)}"
                      f"{did_you_mean(name, NOTIONS)}")
