"""Theorems of the seed papers, kept as executable regressions (see theorems.py)."""
