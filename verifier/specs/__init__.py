"""Spec readers: one module per kind of spec file (check, pso, guess, compose, with the
symbolic ``[parameters]`` and the neighbouring relations), every problem a
:class:`~verifier.core.errors.SpecError` naming file and key, and the one table of which
command applies which spec feature (:mod:`.features`). They turn files into the plain problem
objects of the layers below."""
