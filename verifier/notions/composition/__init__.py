"""Composition of privacy losses: exact independent composition (:mod:`.exact`), adaptive
composition over trees of outputs (:mod:`.adaptive`), and certified enclosures on a grid of
loss values (:mod:`.grid`, :mod:`.enclosure`) where the exact law is too large."""
