"""Curves that coincide stay visible: each curve of a plot has its own line style, marker and
width (three notions with the same δ(ε) were drawn in one style, so two were hidden)."""

from __future__ import annotations

from unittest import mock

import pytest
from gmpy2 import mpq

pytest.importorskip("matplotlib")


def _styles(lines) -> list[tuple]:
    return [(str(ln.get_linestyle()), ln.get_linewidth()) for ln in lines
            if ln.get_label() and not ln.get_label().startswith("_")]


def test_coinciding_curves_each_in_their_own_style():
    import matplotlib.pyplot as plt

    from verifier.reports.curve_plot import curve_figure

    # three notions with one and the same curve, two samples each
    rows = [{"notion": n, "epsilon_approx": e, "delta_approx": d, "breakpoint": False}
            for n in ("apkdp", "ppkdp", "noiseless") for e, d in (("0", "0.5"), ("1", "0"))]
    fig = curve_figure(rows, title="t", epsilon="1", delta="0", claim=None)
    lines = fig.axes[0].get_lines()
    plt.close(fig)
    styles = _styles(lines)
    assert len(styles) == 3 and len(set(s[0] for s in styles)) == 3
    # drawn in order, each narrower than the one below it: the lower ones show at its sides
    assert styles[0][1] > styles[1][1] > styles[2][1]


def test_sweep_plot_notions_each_in_their_own_style(tmp_path):
    from verifier.core.delta import Delta
    from verifier.core.epsilon import Epsilon
    from verifier.notions.sweep import SweepPoint
    from verifier.reports.plot import plot_threshold_sweep

    eps = Epsilon.log(mpq(2))
    points = [SweepPoint(None, t, n, Delta.make(mpq(1, 4), mpq(0), eps), eps, True)
              for n in ("apkdp", "ppkdp", "noiseless", "dp") for t in (1, 2)]
    seen = []

    def capture(fig, *args, **kwargs):
        seen.append(fig)

    with mock.patch("matplotlib.figure.Figure.savefig", capture):
        plot_threshold_sweep(points, tmp_path / "s.png", title="t", epsilon="ln(2)",
                             delta="1/4")
    for ax in seen[0].axes:
        styles = [(s, ln.get_marker()) for s, ln in zip(_styles(ax.get_lines()),
                                                         ax.get_lines(), strict=True)]
        assert len(styles) == 4 and len({s[0][0] for s in styles}) == 4
        assert len({s[1] for s in styles}) == 4
