"""Seed 004's cafeteria, with and without noise: Alice's eating time within 5 minutes.

Run: python examples/cafeteria.py
"""

from dataclasses import replace
from pathlib import Path

from verifier import Dist
from verifier.guessing.report import guess_report
from verifier.specs.guess import load_guess_spec

spec = load_guess_spec(Path(__file__).parent / "cafeteria.toml")
noiseless = replace(spec, model=replace(spec.model, kernel=Dist.point), mechanism="identity")
for name, s in (("with noise (α = 9/10)", spec), ("without noise", noiseless)):
    rep = guess_report(s)
    print(name, "— tight ε·d:", ", ".join(str(t[0]) for t in rep.tight))
    for row in rep.rows:
        print(f"  Alice ate {row.target:2} min: prior {row.prior}, best posterior "
              f"{row.posterior} (≈ {float(row.posterior):.3f}), advantage ≈ "  # float ok: display
              f"{float(row.advantage):.3f}; simplified bound ≈ {row.simplified.approx()}")
