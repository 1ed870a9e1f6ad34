"""Example 7 at small size from Python: the passive attacker is defeated, the active one not.

Run: python examples/example7_small.py
"""

from verifier import check_partial, iid, known_indices, threshold_count

report = check_partial(
    threshold_count([1], threshold=4),
    iid(["99/100", "1/100"], values=[0, 1], n=12),
    knowledge=known_indices([0, 1, 2]),
    targets=11,
    epsilon="ln(2)",
    delta="1/1000",
    notions=["apkdp", "ppkdp"],
)
for notion, result in report.results.items():
    print(f"{notion}: delta = {result.delta}")
    print(f"    ≈ {result.delta.approx()} (certified truncation); holds: {result.holds}")
print("worst background for the active attacker:", report.results["apkdp"].witness["background"])
