"""Run the kernel: ``python -m verifier.kernel FILE``, or from a copied folder
``python -I path/to/kernel FILE`` — isolated mode, where the folder itself, not the current
one, is what Python puts on the path, so that no ``fractions.py`` shipped beside a
certificate is imported in place of the standard library's (the kernel refuses to run,
exit 2, when one of its standard modules resolves outside the standard library)."""

import sys

if __package__:
    from .verify import main
else:  # run as a folder: import it as the package it is, from its parent
    import importlib
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    del sys.path[0]  # the standard modules first, from the standard library alone
    for name in ("collections", "dataclasses", "fractions", "hashlib", "itertools", "json",
                 "math", "re", "stat", "sysconfig", "typing"):
        importlib.import_module(name)
    sys.path.insert(0, os.path.dirname(here))
    main = importlib.import_module(os.path.basename(here) + ".verify").main

sys.exit(main(sys.argv[1:]))
