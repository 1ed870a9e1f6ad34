"""Plots of exact results (display only: floats appear here and nowhere on an exact path).

Values are drawn from certified decimal truncations of the exact numbers; δ is plotted as
``log10 δ`` computed from its decimal mantissa and exponent, so values far below the range
of a float (``δ ≈ 1e-456``) still plot.

matplotlib is an optional extra (``pip install -e '.[plot]'`` from a checkout); asking for a
plot without it is a :class:`MissingExtra` error naming the extra, raised before any work is
done.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from verifier.core.delta import Delta
from verifier.core.epsilon import Epsilon
from verifier.core.errors import VerifierError
from verifier.notions.sweep import SweepPoint

__all__ = ["EXTENSIONS", "MissingExtra", "require_matplotlib", "log10_approx",
           "plot_threshold_sweep", "plot_advantage"]

EXTENSIONS = (".png", ".pdf", ".svg")  # the formats a plot is written in


class MissingExtra(VerifierError, ImportError):
    """An optional dependency that is not installed."""


def require_matplotlib(option: str = "--plot") -> None:
    """Fail early, naming the extra to install, when matplotlib is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise MissingExtra(f"{option} needs matplotlib, which is not installed; install the "
                           f"plot extra: pip install -e '.[plot]' from a checkout of plrv "
                           f"(or pip install matplotlib)") from None


def _format(path: str | Path, fmt: str | None) -> str:
    return fmt if fmt is not None else Path(path).suffix.lstrip(".").lower() or "png"

LABELS = {"apkdp": "active (APK)", "ppkdp": "passive (PPK)", "noiseless": "noiseless",
          "dp": "DP"}
# (line style, marker, width) of each notion in a sweep's plot: all different, widest first
_NOTION_STYLES = {"apkdp": ("-", "o", 3.0), "ppkdp": ("--", "s", 2.0),
                  "noiseless": (":", "^", 1.5), "dp": ("-.", "D", 1.1)}


def log10_approx(d: Delta) -> float | None:
    """``log10 δ`` as a float for plotting (approximate), or None for δ = 0."""
    text = d.approx(8)
    if text == "0":
        return None
    mantissa, _, exponent = text.partition("e")
    return math.log10(float(mantissa)) + (int(exponent) if exponent else 0)  # float ok: plot


def _epsilon_float(e: Epsilon) -> float | None:
    if e.infinite:
        return None
    return float(e.approx(8))  # float ok: plot coordinate


def plot_threshold_sweep(points: Sequence[SweepPoint], path: str | Path, *, title: str,
                         epsilon: str, delta: str, fmt: str | None = None) -> None:
    """Two panels: log10 δ at ε against T, and tight ε at δ against T; one line per (p, notion).
    ``fmt`` is the file format (default: from the extension)."""
    require_matplotlib()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_d, ax_e) = plt.subplots(1, 2, figsize=(11, 4.2))
    series: dict[tuple, list[SweepPoint]] = {}
    for pt in points:
        series.setdefault((pt.p, pt.notion), []).append(pt)
    colours = {p: f"C{k}" for k, p in enumerate(dict.fromkeys(pt.p for pt in points))}
    for (p, notion), pts in series.items():
        label = LABELS.get(notion, notion) + ("" if p is None else f", p = {p}")
        # each notion its own line style, marker and width: coinciding curves stay visible
        style, marker, width = _NOTION_STYLES.get(notion, _NOTION_STYLES["dp"])
        drawn = {"linestyle": style, "marker": marker, "linewidth": width, "label": label,
                 "color": colours[p], "fillstyle": "full" if notion == "apkdp" else "none"}
        ts = [pt.threshold for pt in pts]
        ds = [log10_approx(pt.delta) for pt in pts]
        es = [_epsilon_float(pt.epsilon) for pt in pts]
        ax_d.plot([t for t, d in zip(ts, ds, strict=True) if d is not None],
                  [d for d in ds if d is not None], **drawn)
        ax_e.plot([t for t, e in zip(ts, es, strict=True) if e is not None],
                  [e for e in es if e is not None], **drawn)
    ax_d.set_xlabel("threshold T")
    ax_d.set_ylabel(f"log10 δ at ε = {epsilon} (approx.)")
    ax_e.set_xlabel("threshold T")
    ax_e.set_ylabel(f"tight ε at δ = {delta} (approx.; ∞ not drawn)")
    ax_d.legend(fontsize=7)
    ax_e.legend(fontsize=7)
    fig.suptitle(title + " — exact values, drawn approximately", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120, format=_format(path, fmt))
    plt.close(fig)


def plot_advantage(path: str | Path, diameter, priors=("1/100", "1/20", "1/10", "1/4", "1/2"),
                   fmt: str | None = None) -> None:
    """Advantage allowed by the simplified bound against ε, for several priors ``p``:
    ``η(ε) = 1/(1 + e^{−εR}(1−p)/p) − p``, and the worst prior's ``tanh(Rε/4)`` (seed 004,
    "Guessing advantage vs epsilon for different prior distributions"). Display only."""
    require_matplotlib()
    import matplotlib
    matplotlib.use("Agg")
    from fractions import Fraction

    import matplotlib.pyplot as plt

    R = float(Fraction(str(diameter)))  # float ok: plot coordinate
    xs = [i / 50 for i in range(0, 401)]  # ε from 0 to 8
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for p_text in priors:
        p = float(Fraction(p_text))  # float ok: plot coordinate
        ax.plot(xs, [1 / (1 + math.exp(-e * R) * (1 - p) / p) - p for e in xs],  # float ok
                label=f"prior {p_text}")
    # float ok: plot coordinates only
    ax.plot(xs, [math.tanh(R * e / 4) for e in xs], "k--", label="worst prior: tanh(Rε/4)")
    ax.set_xlabel("ε")
    ax.set_ylabel("largest advantage η (simplified bound, approx.)")
    ax.set_title(f"Guessing advantage against ε, R = {diameter}", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120, format=_format(path, fmt))
    plt.close(fig)
