"""Run the certificate kernel as an outsider would: its folder copied away from plrv, in
Python's isolated mode (``python -I``: no user site, no environment, no current directory),
with every ``verifier`` module made unimportable as well."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

KERNEL = Path(__file__).resolve().parent.parent / "verifier" / "kernel"


def under_mutation() -> bool:
    """Whether the code under test is mutmut's instrumented copy (its trampolines import
    mutmut; mutmut also sets ``MUTANT_UNDER_TEST`` while a mutant is active)."""
    import verifier.kernel.verify  # noqa: F401  (the instrumented modules import mutmut)
    return bool(os.environ.get("MUTANT_UNDER_TEST")) or "mutmut" in sys.modules


def run_copied_kernel(tmp_path: Path, certificate: object) -> subprocess.CompletedProcess[str]:
    """Copy ``verifier/kernel`` to ``tmp_path/kernel`` and run ``python -I kernel CERT``.

    Under mutation testing (mutmut sets ``MUTANT_UNDER_TEST``) the kernel's files are
    instrumented for mutmut, which a copy run elsewhere cannot load: the test is skipped there
    (the in-process tests exercise the same code)."""
    if under_mutation():
        import pytest
        pytest.skip("a copied kernel cannot run mutmut's instrumented code")
    shutil.copytree(KERNEL, tmp_path / "kernel", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "cert.json").write_text(json.dumps(certificate))
    return subprocess.run([sys.executable, "-I", str(tmp_path / "kernel"),
                           str(tmp_path / "cert.json")],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
