"""One line for the user when a command fails (exit status 2).

Every exception that leaves a command becomes ``error: …`` on one line: a plrv error as it
reads (a :class:`~verifier.core.errors.SpecError` names its file and key), an operating-system
or decoding error with the file it is about, an exception raised in the user's own code with
the file, line and function, and anything else as an internal error that says how to see the
traceback (``--debug``).
"""

from __future__ import annotations

import sys
import sysconfig
import traceback
import unicodedata
from pathlib import Path

from verifier.core.errors import SpecError, VerifierError

__all__ = ["error_line", "broken_pipe", "MAX_LENGTH"]

MAX_LENGTH = 400  # characters of an error line; longer messages are cut in the middle
_PACKAGE = str(Path(__file__).resolve().parent.parent)
_SYSTEM = tuple({sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib",
                                                     "platlib")})


_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})  # controls, format (bidi), unassigned


def _one_line(text: str) -> str:
    """One line, every character visible: a control, bidirectional or other invisible
    character (from a key or a value of the user's) is shown as its escape ``\\u202e``."""
    text = " ".join(text.split())
    text = "".join(f"\\u{ord(c):04x}" if unicodedata.category(c) in _HIDDEN else c
                   for c in text)
    if len(text) <= MAX_LENGTH:
        return text
    half = MAX_LENGTH // 2 - 2
    return f"{text[:half]} … {text[-half:]}"


def _user_frame(exc: BaseException) -> traceback.FrameSummary | None:
    """The innermost frame of the traceback that is neither plrv nor an installed library:
    the user's own code (a ``module:function`` of a spec)."""
    user = None
    for frame in traceback.extract_tb(exc.__traceback__):
        f = str(Path(frame.filename).resolve()) if not frame.filename.startswith("<") else ""
        if f and not f.startswith(_PACKAGE) and not f.startswith(_SYSTEM):
            user = frame
    return user


def _message(exc: BaseException, spec: Path | None) -> str:
    where = f"{spec}: " if spec is not None else ""
    if isinstance(exc, SpecError):
        return str(exc) if exc.file else f"{where}{exc}"
    if isinstance(exc, VerifierError):
        return f"{where}{exc}"
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted"
    if broken_pipe(exc):
        return "the output was closed before it was written in full (broken pipe)"
    if isinstance(exc, MemoryError):
        return (f"{where}out of memory: the instance is too large; make it smaller or lower the "
                f"budget ([limits] or --budget)")
    if isinstance(exc, RecursionError):
        return f"{where}input nested too deeply (Python's recursion limit was reached)"
    if isinstance(exc, UnicodeDecodeError):
        return (f"{where}not UTF-8 text: byte 0x{exc.object[exc.start]:02x} at offset "
                f"{exc.start}")
    if isinstance(exc, OSError):
        name = exc.filename if exc.filename is not None else spec
        reason = exc.strerror or str(exc)
        return f"{name}: {reason}" if name is not None else reason
    frame = _user_frame(exc)
    if frame is not None:
        return (f"{where}user code raised {type(exc).__name__}: {exc} (in {frame.name}, "
                f"{frame.filename}:{frame.lineno})")
    if isinstance(exc, SystemExit):
        return f"{where}sys.exit({exc.code!r}) was called while the command ran"
    return (f"{where}internal error ({type(exc).__name__}: {exc}); rerun with --debug for "
            f"the traceback")


def broken_pipe(exc: BaseException) -> bool:
    """Writing to stdout failed because its reader went away (rich exits on it itself)."""
    return isinstance(exc, BrokenPipeError) or (
        isinstance(exc, SystemExit) and isinstance(exc.__context__, BrokenPipeError))


def error_line(exc: BaseException, spec: Path | None = None, debug: bool = False) -> str:
    """``error: …`` for ``exc``; with ``debug`` the traceback is printed to stderr first."""
    if debug:
        traceback.print_exception(exc, file=sys.stderr)
    return "error: " + _one_line(_message(exc, spec))
