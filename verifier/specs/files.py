"""Reading spec files and writing output files.

A spec must be a regular file (not a FIFO, a device or a folder: they are refused before they
are opened for reading) of at most :data:`MAX_SPEC_BYTES`, UTF-8 text, valid TOML; every problem
is a :class:`SpecError` naming the file (and the line, for bad bytes or bad TOML). A spec
written for another command (a singling-out spec given to ``plrv check``) is recognised by its
tables and the error says which command to run.

Output files are checked before any work (:func:`check_output_path`) and written all or
nothing (:func:`write_atomically`).
"""

from __future__ import annotations

import os
import stat
import tempfile
import tomllib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from verifier.core.errors import InvalidArgument, SpecError, did_you_mean

__all__ = ["read_toml", "check_tables", "check_kind", "check_output_path",
           "write_atomically", "MAX_SPEC_BYTES", "SPEC_KINDS"]

MAX_SPEC_BYTES = 10 * 1024 * 1024  # a spec is a few hundred bytes; 10 MB is generous

# the tables that say which command a spec is for: command -> (what it is, its tables)
SPEC_KINDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "check": ("a privacy-check spec", ("data", "attacker")),
    "pso": ("a singling-out spec", ("universe", "rows", "adversary", "claim")),
    "guess": ("a guessing spec", ("domain", "prior", "goal")),
}


def _file_kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _read_bytes(path: str | Path) -> bytes:
    """The bytes of a regular file of at most :data:`MAX_SPEC_BYTES`; anything else is
    refused without blocking (a FIFO is opened non-blocking and never read)."""
    file = str(path)
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise SpecError(f"is {_file_kind(st.st_mode)}, not a regular file; give a spec "
                            f"file", file=file)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise SpecError(f"cannot read the file ({exc.strerror})", file=file) from None
    try:
        st = os.fstat(fd)  # the file opened, not the one looked at a moment before
        if not stat.S_ISREG(st.st_mode):
            raise SpecError(f"is {_file_kind(st.st_mode)}, not a regular file; give a spec "
                            f"file", file=file)
        if st.st_size > MAX_SPEC_BYTES:
            raise SpecError(f"the file has {st.st_size} bytes, more than the limit of "
                            f"{MAX_SPEC_BYTES} bytes for a spec", file=file)
        chunks, size = [], 0
        while size <= MAX_SPEC_BYTES:
            chunk = os.read(fd, MAX_SPEC_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise SpecError(f"cannot read the file ({exc.strerror})", file=file) from None
    finally:
        os.close(fd)
    if size > MAX_SPEC_BYTES:
        raise SpecError(f"the file has more than {MAX_SPEC_BYTES} bytes, the limit for a "
                        f"spec", file=file)
    return b"".join(chunks)


_OVERWRITE = "Cannot overwrite a value"  # tomllib's words for a key set twice


def _overwritten(text: str) -> str | None:
    """Where a key is set a second time: tomllib says only "Cannot overwrite a value (at end
    of document)". The first line whose prefix of the document fails so is found by bisection
    (a prefix fails so exactly when it holds that line)."""
    from bisect import bisect_left

    lines = text.splitlines()

    def fails_so(k: int) -> bool:
        try:
            tomllib.loads("\n".join(lines[:k]))
        except (tomllib.TOMLDecodeError, RecursionError, ValueError) as exc:
            return str(exc).startswith(_OVERWRITE)
        return False

    k = bisect_left(range(len(lines) + 1), True, key=fails_so)
    if not 0 < k <= len(lines):
        return None
    line = " ".join(lines[k - 1].split())
    shown = line if len(line) <= 60 else line[:57] + "…"
    return f"line {k}: {shown!r} sets a key that is already set"


def read_toml(path: str | Path) -> dict:
    """The file's tables; an unreadable, oversized or non-regular file, bytes that are not
    UTF-8 and invalid TOML are each a :class:`SpecError` naming the file (and the line)."""
    file = str(path)
    data = _read_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise SpecError(f"not UTF-8 text: byte 0x{data[exc.start]:02x} at line {line}, "
                        f"column {column}", file=file) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        where = _overwritten(text) if str(exc).startswith(_OVERWRITE) else None
        raise SpecError(f"not valid TOML: {where or exc}", file=file) from None
    except RecursionError:
        raise SpecError("not valid TOML: arrays or tables nested too deeply", file=file) from None
    except ValueError as exc:  # e.g. an integer beyond Python's digit limit
        raise SpecError(f"not valid TOML: {' '.join(str(exc).split())}", file=file) from None


def check_kind(raw: Mapping, command: str, file: str | None) -> None:
    """A spec meant for another command is named as such: ``plrv check`` on a singling-out
    spec says to run ``plrv pso``."""
    kind = "check" if command in ("sweep", "family", "compose", "prove", "reducible",
                                  "curve", "report") else command
    if kind not in SPEC_KINDS or set(raw) & set(SPEC_KINDS[kind][1]):
        return
    for other, (what, signature) in SPEC_KINDS.items():
        found = [t for t in signature if t in raw]
        if other != kind and found:
            shown = ", ".join(f"[{t}]" for t in found)
            raise SpecError(f"this is {what} (it has {shown}), not one for plrv {command}; "
                            f"run plrv {other} {file or 'FILE'}", file=file, key=f"[{found[0]}]")


def check_tables(raw: Mapping, known: Mapping[str, set | None], file: str | None) -> None:
    """Every table and key must be known (``None``: the table's keys are checked elsewhere)."""
    for name, table in raw.items():
        if name not in known:
            raise SpecError(f"unknown table; known: {', '.join(known)}"
                            f"{did_you_mean(name, known)}", file=file, key=f"[{name}]")
        if not isinstance(table, dict):
            raise SpecError("must be a table", file=file, key=name)
        allowed = known[name]
        if allowed is None:
            continue
        for key in table:
            if key not in allowed:
                raise SpecError(f"unknown key; {name} takes {', '.join(sorted(allowed))}"
                                f"{did_you_mean(key, allowed)}", file=file,
                                key=f"{name}.{key}")


def check_output_path(path: str | Path, option: str,
                      extensions: Sequence[str] | None = None) -> Path:
    """An output file the user named with ``option``, checked before any work is done: its
    folder exists and is writable, it is not a folder, and its extension is one of
    ``extensions`` (when given)."""
    p = Path(os.path.abspath(path))  # fixed now: user code may change the working folder
    where = f"{option} {path}"
    if p.is_dir():
        raise InvalidArgument(f"{where}: is a folder; give a file name", argument=option)
    try:
        mode = os.lstat(p).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise InvalidArgument(f"{where}: {exc.strerror}", argument=option) from None
    if mode is not None and stat.S_ISLNK(mode):
        raise InvalidArgument(f"{where}: is a symbolic link; name the file itself (a link "
                              f"would be replaced, not written through)", argument=option)
    if mode is not None and not stat.S_ISREG(mode):
        raise InvalidArgument(f"{where}: is not a regular file (a device, FIFO or socket); "
                              f"output goes to regular files only", argument=option)
    folder = p.parent
    if not folder.is_dir():
        raise InvalidArgument(f"{where}: the folder {folder} does not exist",
                              argument=option)
    if not os.access(folder, os.W_OK):
        raise InvalidArgument(f"{where}: cannot write in the folder {folder}",
                              argument=option)
    if extensions is not None and p.suffix.lower() not in extensions:
        raise InvalidArgument(f"{where}: unknown extension {p.suffix or '(none)'!r}; use "
                              f"{', '.join(extensions)}", argument=option)
    return p


def write_atomically(writers: Mapping[Path, Callable[[Path], None]],
                     options: Mapping[Path, str] | None = None) -> None:
    """Write several files all or nothing: each writer fills a temporary file beside its
    target, and only when every writer has succeeded are the targets replaced. A failure
    leaves no partial file and every existing target as it was; an operating-system error
    (a full disk, a folder gone) names the target's option, ``options[target]``."""
    done: list[tuple[Path, Path]] = []
    target = None
    try:
        for target, write in writers.items():
            fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                        suffix=".tmp")
            os.close(fd)
            done.append((Path(name), target))
            write(Path(name))
            os.chmod(name, 0o666 & ~_umask())  # as open() would create it (mkstemp: 0600)
        for tmp, target in done:
            os.replace(tmp, target)
    except OSError as exc:
        option = (options or {}).get(target) if target is not None else None
        if option is None:
            raise
        raise InvalidArgument(f"{option} {target}: cannot be written "
                              f"({exc.strerror or exc}); nothing was written",
                              argument=option) from None
    finally:
        for tmp, _ in done:
            tmp.unlink(missing_ok=True)


def _umask() -> int:
    """The process's umask (read by setting it and putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
