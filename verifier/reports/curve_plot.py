"""The plot of ``plrv curve --plot`` (display only: floats appear here, drawn from the certified
decimals of the exact sample rows of :mod:`verifier.reports.curve`, and are labelled as
approximations)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from verifier.reports.plot import LABELS, require_matplotlib

__all__ = ["plot_curve"]

_STYLES = ("-", "--", ":", "-.")


def _f(text: str) -> float:
    return float(text)  # float ok: a plot coordinate from a certified decimal


def plot_curve(rows: Sequence[dict], path: str | Path, *, title: str, epsilon: str,
               delta: str, claim: tuple[str, str] | None, fmt: str) -> None:
    """δ against ε, one line per notion through its sample rows, its breakpoints marked, the
    accountant's δ dashed beside it when the rows carry it, and the claimed point
    (``claim``: certified decimals of ε and δ, or None when ε = ∞)."""
    require_matplotlib()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    notions = list(dict.fromkeys(r["notion"] for r in rows))
    for k, name in enumerate(notions):
        mine = [r for r in rows if r["notion"] == name]
        colour = f"C{k}"
        label = LABELS.get(name, name)
        # coinciding curves (APK = PPK = noiseless) stay visible: each notion its own dash
        # pattern, drawn thinner than the one before it, on top of it
        ax.plot([_f(r["epsilon_approx"]) for r in mine], [_f(r["delta_approx"]) for r in mine],
                _STYLES[k % len(_STYLES)], color=colour, linewidth=max(3.2 - 0.9 * k, 1.0),
                label=f"{label}: exact δ(ε)")
        marks = [r for r in mine if r["breakpoint"]]
        if marks:
            ax.plot([_f(r["epsilon_approx"]) for r in marks],
                    [_f(r["delta_approx"]) for r in marks], "o", color=colour, markersize=4,
                    label=f"{label}: breakpoints ln(r)")
        theirs = [r for r in mine if r.get("accountant_delta_approx")]
        if theirs:
            ax.plot([_f(r["epsilon_approx"]) for r in theirs],
                    [_f(r["accountant_delta_approx"]) for r in theirs], "--", color="0.35",
                    label=f"{label}: dp_accounting (pessimistic)")
    if claim is not None:
        ax.plot([_f(claim[0])], [_f(claim[1])], "kx", label=f"claim (ε = {epsilon}, "
                                                          f"δ = {delta})")
    ax.set_xlabel("ε (approx.)")
    ax.set_ylabel("tight δ (approx.)")
    ax.set_title(title + " — exact values, drawn approximately", fontsize=10)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120, format=fmt)
    plt.close(fig)
