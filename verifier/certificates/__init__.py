"""Certificates: the evidence behind a verdict, written so that a reader can re-check it.

:mod:`verifier.certificates.emit` builds a certificate from a spec and the engines' exact
tables; :mod:`verifier.kernel` is the independent checker (standard library and
``fractions.Fraction`` only, nothing from the rest of the package).
"""
