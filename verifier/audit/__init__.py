"""Exact audits of deployed differential-privacy libraries (``plrv audit``).

An audit case names a library, one of its constructors and the arguments it is called with;
an adapter builds the library's object, reads the privacy claim the library itself makes
(as the binary64 rationals its floats are), builds the law the implementation actually
samples from, and decides exactly (or by certified enclosure) whether the claim holds.
"""
