"""The process that runs user code: it loads the user's modules and answers calls over a pipe.

It is forked from plrv (or started afresh when plrv runs threads), limits its own address
space (``RLIMIT_AS``, :func:`verifier.model.sandbox.Sandbox`'s ``memory``), turns off core
dumps, reads nothing from standard input and sends what user code prints to standard error,
so that plrv's standard output carries only its report. Requests and answers are frames of
:mod:`verifier.model.sandbox_wire`:

* ``["load", module, function, folder, key, reference]`` → ``["ok", index]``, or
  ``["unknown", message]`` (no such module or function) or ``["user", message]`` (importing
  failed);
* ``["program", index, paths, reference]`` → ``["ok", index]``: function ``index`` as a
  program, each call answered by its exact law (:mod:`verifier.model.program_enum`);
* ``["call", index, args]`` → one answer; ``["many", index, [args, …]]`` → ``["m", [answer,
  …]]``; an answer is ``["v", value]``, ``["x", what was raised]`` or ``["bad", why the
  value cannot be sent]``, and for a program ``["paths", message]`` (over ``limits.paths``)
  or ``["program", message]`` (it diverged, raised, or returned an unhashable output).

While a program is enumerated the child also sends ``["progress", paths]`` frames before its
answer — the paths run since the last one, at most every :data:`_TICK` seconds and the rest
just before the answer — which plrv adds to its progress bar
(:func:`verifier.model.program_enum.note_paths`).

Whatever user code does to this process — exit with any status, crash, close its streams,
loop — the parent sees an answer, an end of file or a deadline, and reports the function.
"""

from __future__ import annotations

import contextlib
import gc
import os
import resource
import signal
import sys
import time
from pathlib import Path
from typing import NoReturn

from verifier.model.sandbox_wire import (
    Closed,
    WireError,
    decode,
    dumps,
    encode,
    loads,
    recv_frame,
    send_frame,
)

__all__ = ["serve", "main", "prepare"]


def serve(rfd: int, wfd: int, memory: int, parent: int) -> NoReturn:
    """Answer requests on ``rfd`` until it is closed, then end the process (never returns:
    after a fork, plrv's own code must not run on in the child)."""
    status = 0
    try:
        gc.freeze()  # plrv's objects, copied by the fork: a collection would touch them all
        _die_with(parent)
        _close_others((rfd, wfd))
        _limit(memory)
        _own_streams()
        functions: list = []
        from verifier.model.program_enum import watching

        reporter = _Reporter(wfd)
        with watching(reporter):
            while True:
                try:
                    request = loads(recv_frame(rfd))
                except Closed:
                    break
                reply = _answer(request, functions)
                reporter.flush()
                send_frame(wfd, dumps(reply))
    except BaseException:
        status = 70
    finally:
        os._exit(status)


_TICK = 0.2  # seconds between two progress frames


class _Reporter:
    """The paths a program's enumeration runs, sent to plrv as ``["progress", paths]``."""

    def __init__(self, wfd: int):
        self.wfd, self.pending, self.last = wfd, 0, time.monotonic()

    def __call__(self, paths: int) -> None:
        self.pending += paths
        now = time.monotonic()
        if now - self.last >= _TICK:
            self.last = now
            self.flush()

    def flush(self) -> None:
        if self.pending:
            send_frame(self.wfd, dumps(["progress", self.pending]))
            self.pending = 0


def main() -> NoReturn:
    """Entry of a child started by ``python -c``: ``argv = [rfd, wfd, memory, parent]``."""
    rfd, wfd, memory, parent = (int(a) for a in sys.argv[1:5])
    prepare()
    serve(rfd, wfd, memory, parent)


_PRCTL: list = []  # libc's prctl, looked up before the fork (ctypes is slow in a new child)


def prepare() -> None:
    """Look up what the child needs that is slow to load after a fork (called by plrv)."""
    if not _PRCTL and sys.platform.startswith("linux"):
        import ctypes

        try:
            _PRCTL.append(ctypes.CDLL(None, use_errno=True).prctl)
        except (OSError, AttributeError):
            _PRCTL.append(None)


def _die_with(parent: int) -> None:
    """Be killed when plrv ends, even by a signal (Linux ``PR_SET_PDEATHSIG``): a child stuck
    in user code never reads the end of its pipe."""
    if _PRCTL and _PRCTL[0] is not None:
        _PRCTL[0](1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # plrv ended before that took effect
        os._exit(0)


def _close_others(keep: tuple[int, ...]) -> None:
    """Close every inherited descriptor but the standard three and this child's pipes (another
    child's pipe kept open here would never see plrv end)."""
    low = 3
    for fd in sorted(keep):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 1 << 16)


def _limit(memory: int) -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = memory if hard == resource.RLIM_INFINITY else min(memory, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _own_streams() -> None:
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)  # what user code prints goes to plrv's standard error
    sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115


def _tidy_streams() -> None:
    """Flush what user code printed; a stream it closed or replaced is opened again on its
    descriptor (a closed descriptor 1 or 2 on the null device), so that the next call
    finds them as the first did."""
    for fd in (1, 2):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_WRONLY)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    for fd, name in ((1, "stdout"), (2, "stderr")):
        stream = getattr(sys, name)
        with contextlib.suppress(BaseException):
            stream.flush()
        if getattr(stream, "closed", True) or not hasattr(stream, "write"):
            setattr(sys, name, open(fd, "w", encoding="utf-8", errors="backslashreplace",  # noqa: SIM115
                                    closefd=False))


def _describe(exc: BaseException) -> str:
    from verifier.model.user_code import describe_exception

    try:
        return describe_exception(exc)
    except BaseException:
        return type(exc).__name__


def _answer(request: object, functions: list) -> list:
    if not isinstance(request, list) or not request:
        return ["bad", "a request plrv did not send"]
    if request[0] == "load":
        return _load(request, functions)
    if request[0] == "program":  # ["program", index, paths, reference]: its enumeration
        from verifier.model.program_enum import Enumerated

        functions.append(Enumerated(functions[request[1]], request[3], request[2], memo=False))
        return ["ok", len(functions) - 1]
    f = functions[request[1]]
    if request[0] == "call":
        return _call(f, request[2])
    return ["m", [_call(f, args) for args in request[2]]]


def _load(request: list, functions: list) -> list:
    from verifier.core.errors import UnknownName, UserCodeError
    from verifier.model.user_code import find_function

    _, module, attr, folder, key, reference = request
    try:
        f = find_function(module, attr, Path(folder), reference, key)
    except UnknownName as exc:
        return ["unknown", str(exc)]
    except UserCodeError as exc:
        return ["user", str(exc)]
    except BaseException as exc:  # importing runs user code
        return ["user", f"{key} = {reference!r}: cannot import module {module!r} "
                        f"({_describe(exc)})"]
    finally:
        _tidy_streams()
    functions.append(f)
    return ["ok", len(functions) - 1]


def _call(f, args: object) -> list:
    try:
        values = decode(args)
        assert isinstance(values, tuple)
        if _is_program(f):
            out = f(*values)
        else:  # a random choice here would be sampled, not enumerated
            from verifier.model.program import forbidding

            with forbidding():
                out = f(*values)
    except BaseException as exc:  # user code may raise anything
        return _failed(f, exc)
    finally:
        _tidy_streams()  # after each call: the next finds the streams as the first did
    try:
        return ["v", encode(out)]
    except (WireError, RecursionError, MemoryError) as exc:
        return ["bad", f"returned a value plrv cannot read ({_describe(exc)})"]
    except BaseException as exc:
        return ["bad", f"returned a value whose parts raised {_describe(exc)}"]


def _failed(f, exc: BaseException) -> list:
    """What a call raised: ``["x", …]``, or for a program's enumeration (whose errors name the
    program and the choice) ``["paths", message]`` over ``limits.paths`` and ``["program",
    message]`` for the rest."""
    from verifier.core.errors import BudgetExceeded, UserCodeError
    from verifier.model.program_enum import Enumerated

    if isinstance(f, Enumerated) and isinstance(exc, (BudgetExceeded, UserCodeError)):
        return ["paths" if isinstance(exc, BudgetExceeded) else "program", str(exc)]
    return ["x", _describe(exc)]


def _is_program(f) -> bool:
    from verifier.model.program_enum import Enumerated

    return isinstance(f, Enumerated)
