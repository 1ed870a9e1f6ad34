"""The figures of ``plrv report``, drawn as inline SVG (display only: floats appear here, each
from a certified decimal of an exact value, and the axes say they are approximate).

The privacy-loss distribution of a case is read off its exact δ(E) curve (seed 003, Lemma 1:
``δ(E) = P[r = ∞] + Σ_{r_j > E} (P_j − E·Q_j)``): each breakpoint ``r_j`` of one case's curve
is a likelihood ratio of its law, and the drops of the line's ``A`` and ``C`` there are its
masses ``P_j`` and ``Q_j``; the last piece's ``A`` is ``P[r = ∞]``. So any engine's loss law
(a :class:`~verifier.notions.loss.PrivacyLoss`, the linear route's shift losses) gives its
atoms exactly, through :func:`verifier.symbolic.closed_form.curve_of`.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence

from gmpy2 import mpq

from verifier.core.certified import decimal_string
from verifier.core.epsilon import Epsilon
from verifier.notions.html_page import Html
from verifier.reports.plot import require_matplotlib

__all__ = ["LossAtoms", "loss_atoms", "svg", "histogram_svg"]

_BARS = 30  # atoms drawn one bar each up to this many; binned beyond


class LossAtoms:
    """A case's privacy loss where it is > 0: ``atoms`` ``(ratio, P, Q)`` (ratio > 1, in
    increasing order), ``infinite`` = ``P[r = ∞]`` and ``rest`` = ``P[L ≤ 0]``, exact."""

    def __init__(self, atoms: Sequence[tuple[mpq, mpq, mpq]], infinite: mpq) -> None:
        self.atoms = tuple(atoms)
        self.infinite = infinite
        self.rest = 1 - infinite - sum((p for _, p, _ in self.atoms), mpq(0))


def loss_atoms(loss: object, eps: Epsilon) -> LossAtoms:
    """The atoms of a case's loss law, exactly; a worst over classes (the linear route's
    ``WorstClass``) gives those of its class with the largest δ at ``eps``."""
    from verifier.notions.partial.shift_loss import WorstClass
    from verifier.symbolic.closed_form import curve_of

    while isinstance(loss, WorstClass):
        worst = loss.losses[0]
        for other in loss.losses[1:]:
            if other.delta(eps).compare(worst.delta(eps)) > 0:
                worst = other
        loss = worst
    pieces = curve_of(loss).pieces
    atoms = [(start, a0 - a1, c0 - c1)
             for (_, a0, c0), (start, a1, c1) in zip(pieces, pieces[1:], strict=False)]
    return LossAtoms(atoms, pieces[-1][1])


_NAMESPACES = re.compile(r'\s+xmlns(?::\w+)?="[^"]*"')


def svg(fig) -> Html:
    """A matplotlib figure as an ``<svg>`` element (text drawn as paths: no font to load),
    the figure closed. Its root's namespace declarations are dropped: inside HTML an
    ``<svg>`` is in the SVG namespace and ``xlink:href`` is read as XLink without them, and
    the page then names no web address at all."""
    import matplotlib.pyplot as plt

    buffer = io.StringIO()
    # no metadata block: no date (the same page for the same spec), no addresses in it
    fig.savefig(buffer, format="svg",
                metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    plt.close(fig)
    text = buffer.getvalue()
    text = text[text.index("<svg"):]
    root = text.index(">") + 1
    return Html(_NAMESPACES.sub("", text[:root]) + text[root:])


def _f(text: str) -> float:
    return float(text)  # float ok: a plot coordinate from a certified decimal


def histogram_svg(law: LossAtoms, title: str) -> Html:
    """The privacy-loss distribution ``L = ln(P/Q)`` under ``P`` where ``L > 0`` (the part
    δ depends on): one bar per atom (binned beyond :data:`_BARS` atoms), ``L = +∞`` as a bar
    of its own at the right; the mass where ``L ≤ 0`` is given in the legend."""
    require_matplotlib()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    xs = [_f(Epsilon.log(r).approx(8)) for r, _, _ in law.atoms]
    ws = [_f(decimal_string(p, 8)) for _, p, _ in law.atoms]
    top = max(xs, default=1.0)
    if len(xs) <= _BARS:
        width = max(top, 1.0) / 60
        ax.bar(xs, ws, width=width, color="C0", label="P[L = ℓ], ℓ > 0")
    else:
        ax.hist(xs, bins=_BARS, weights=ws, color="C0", label="P[L in bin], L > 0")
    right = top * 1.1 + 0.1
    if law.infinite:
        right = top * 1.15 + 0.1
        ax.bar([right], [_f(decimal_string(law.infinite, 8))], width=max(top, 1.0) / 30,
               color="C3", label="P[L = +∞] (drawn at the right)")
        right += max(top, 1.0) / 15
    ax.set_xlim(0, right)
    ax.plot([], [], " ", label=f"P[L ≤ 0] ≈ {decimal_string(law.rest, 6)} (not drawn)")
    ax.set_xlabel("privacy loss ℓ = ln(P(o)/Q(o)) (approx.)")
    ax.set_ylabel("probability under P (approx.)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return svg(fig)
