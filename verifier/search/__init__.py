"""Searching counterexamples to conjectures: small instances enumerated exhaustively, then
Hypothesis, then z3 over symbolic templates; every counterexample re-checked exactly and
minimised (:mod:`verifier.search.conjectures`)."""
