"""The certificate kernel: the small, independent checker of plrv certificates.

Standard library and ``fractions.Fraction`` only, relative imports only: the folder can be
copied anywhere and run as ``python -I path/to/kernel CERTIFICATE.json`` with plrv absent.
"""
