"""Run the kernel: ``python -m verifier.kernel FILE``, or from a copied folder
``python -m kernel FILE`` (beside it) or ``python -I path/to/kernel FILE`` (isolated mode,
where the folder itself, not its parent, is what Python puts on the path)."""

import sys

if __package__:
    from .verify import main
else:  # run as a folder: import it as the package it is, from its parent
    import importlib
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[0] = os.path.dirname(here)
    main = importlib.import_module(os.path.basename(here) + ".verify").main

sys.exit(main(sys.argv[1:]))
