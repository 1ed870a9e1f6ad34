"""Exact merges of shard results, in shard order (so that insertion order is the serial one)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

__all__ = ["add_in_order", "add_nested_in_order", "head_labels"]


def add_in_order(parts: Iterable[Mapping]) -> dict:
    """``{key: Σ part[key]}``, keys in order of first appearance over the parts."""
    out: dict = {}
    for part in parts:
        for key, w in part.items():
            out[key] = out.get(key, 0) + w
    return out


def add_nested_in_order(parts: Iterable[Mapping[object, Mapping]]) -> dict:
    """``{key: {sub: Σ part[key][sub]}}``, keys in order of first appearance."""
    out: dict = {}
    for part in parts:
        for key, inner in part.items():
            target = out.setdefault(key, {})
            for sub, w in inner.items():
                target[sub] = target.get(sub, 0) + w
    return out


def head_labels(heads: Sequence[tuple], what: str = "datasets whose leading classes are"
                ) -> list[str]:
    """Shard names for error messages: ``"<what> [0, 2]"``."""
    return [f"{what} {list(h)}" for h in heads]
