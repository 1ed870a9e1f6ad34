"""Spec readers: one module per kind of spec file (check, pso, guess, compose, with the
symbolic ``[parameters]`` and the neighbouring relations), every problem a
:class:`~verifier.core.errors.SpecError` naming file and key. Each records the keys it reads
(:class:`.keys.Document`, :class:`.keys.Table`) and refuses any key present and unread, so what
a command applies is what its reader reads. They turn files into the plain problem objects of
the layers below."""
