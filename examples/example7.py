"""Example 7 (thesis §3.1.3; seed 003 Example 1) at full size, exactly.

1000 voters, P[yes] = 10^-6 each, the tally released only if it reaches 100, the attacker
knows 100 votes and targets another. Prints the exact APK and PPK δ at several ε (their size
in digits and a certified decimal) and the tight ε at several δ.

Run: python examples/example7.py [--json out.json]
"""

import json
import sys
import time

from verifier import analyse, iid, known_indices, threshold_count

N, P, T, KNOWN = 1000, "1/1000000", 100, 100
EPSILONS = ["0", "ln(2)", "ln(10)", "1"]
DELTAS = ["1e-460", "1e-456", "1e-100", "999/1000"]


def main() -> None:
    model = iid([f"{1000000 - 1}/1000000", P], [0, 1], N)
    mech = threshold_count([1], T)
    know = known_indices(range(KNOWN))
    out = {"delta_at_epsilon": {}, "epsilon_at_delta": {}}
    start = time.perf_counter()
    # the joint tables are built once (count engine); every claim below reuses them
    analysis = analyse(mech, values=model.values, records=N, models=model, knowledge=know,
                       targets=N - 1)
    for eps in EPSILONS:
        r = analysis.report(["apkdp", "ppkdp"], epsilon=eps)
        row = {}
        for notion, res in r.results.items():
            text = str(res.delta)
            row[notion] = text
            print(f"ε = {eps:7}  {notion}: δ ≈ {res.delta.approx():14}  "
                  f"(exact, {len(text)} characters)")
        out["delta_at_epsilon"][eps] = row
    for delta in DELTAS:
        r = analysis.report(["apkdp", "ppkdp"], delta=delta)
        row = {n: str(res.epsilon) for n, res in r.results.items()}
        for notion, res in r.results.items():
            shown = str(res.epsilon) if len(str(res.epsilon)) < 40 else \
                f"ln(<{len(str(res.epsilon))} characters>)"
            print(f"δ = {delta:7}  {notion}: tight ε = {shown}  ≈ {res.epsilon.approx()}")
        out["epsilon_at_delta"][delta] = row
    print(f"({time.perf_counter() - start:.1f} s; engine: {r.info[0]})")
    if "--json" in sys.argv:
        sys.set_int_max_str_digits(0)
        path = sys.argv[sys.argv.index("--json") + 1]
        with open(path, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
