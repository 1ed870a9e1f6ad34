"""``python -m proofs``: run every theorem record without pytest.

Each record is run as the test suite runs it (:func:`proofs.registry.outcome`), and the
sampled records also on Hypothesis-generated instances. One line per record; the exit status
is 0 when every record gives its expected verdict, 1 when one does not, 2 on an error.
"""

from __future__ import annotations

import sys

EXPECTED = ("holds", "refuted, as the seeds say")


def main() -> int:
    if len(sys.argv) > 1:  # --json or --markdown: the registry's rows (proofs/registry.py)
        from proofs.registry import main as rows_main
        return rows_main(sys.argv[1:])
    from proofs.check_theorems import test_theorem_on_random_instances
    from proofs.registry import RECORDS, SAMPLED, outcome

    ok, error = True, False
    for theorem in RECORDS:
        tally, status, seconds = outcome(theorem)
        good = status in EXPECTED
        ok &= good
        error |= status.startswith("ERROR")
        print(f"{'ok  ' if good else 'FAIL'} {theorem.name}: {status} [{seconds:.1f} s]",
              flush=True)  # one line per record as it finishes: the run's progress
    for theorem in SAMPLED:
        try:
            test_theorem_on_random_instances(theorem=theorem)
            print(f"ok   {theorem.name}: no failure on Hypothesis-sampled instances",
                  flush=True)
        except AssertionError as exc:
            ok = False
            print(f"FAIL {theorem.name}: {exc}")
    print("every record gives its expected verdict" if ok else "some records FAIL")
    return 2 if error else 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
