"""User code named by a spec runs in a process of its own, under a time and a memory limit.

One :class:`Sandbox` serves the user functions of one spec: its first load starts a child
(:mod:`verifier.model.sandbox_child`: forked when plrv runs no other thread, else a fresh
``python -I``), which imports the user's modules and answers calls over a pipe as plain data
(:mod:`verifier.model.sandbox_wire`). The limits, from the spec's ``[limits]``:

* ``user_seconds`` (default 60): wall-clock seconds the run may spend waiting on user code in
  all, imports included. When they run out the child is killed and the function that was
  running is named;
* ``user_memory`` (default 4 GiB): the child's address space (``RLIMIT_AS``); an allocation
  beyond it raises ``MemoryError`` in the child.

Whatever happens in the child — any exit status, a signal, a closed pipe, an answer that is
not data — is a :class:`~verifier.core.errors.UserCodeError` naming the function, never a
verdict. Answers are cached by their exact arguments (a mechanism is a function of its input),
and :meth:`Remote.prefetch` evaluates many arguments in one round trip.

A sandbox pickled (to a Dask worker) is unpickled unstarted, with the same folder and limits,
once per worker process: each worker starts its own child on first use, and its shards share
that child's ``user_seconds``.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Iterable
from pathlib import Path

from verifier.core.budget import LIMITS, Budget
from verifier.core.errors import BudgetExceeded, UnknownName, UserCodeError, VerifierError
from verifier.model.program_enum import note_paths
from verifier.model.sandbox_child import prepare, serve
from verifier.model.sandbox_wire import (
    Closed,
    Timeout,
    WireError,
    decode,
    dumps,
    encode,
    loads,
    recv_frame,
    send_frame,
)
from verifier.model.user_code import Isolated

__all__ = ["Sandbox", "Remote", "sandbox_for", "DEFAULT_SECONDS", "DEFAULT_MEMORY"]

DEFAULT_SECONDS = LIMITS["user_seconds"].default
DEFAULT_MEMORY = LIMITS["user_memory"].default
_CACHE = 1 << 16  # answers kept per function (the oldest dropped first)
_BATCH = 1024  # calls per round trip of a prefetch
_GRACE = 2.0  # seconds a child that closed its pipe has to exit before it is killed
_BOOT = ("import sys, json; sys.path[:0] = [p for p in json.loads(sys.argv[5]) if p]; "
         "from verifier.model.sandbox_child import main; main()")


class _Child:
    """The running child: its pipes and how to stop it (held apart from the sandbox, so that
    the sandbox's finalizer can stop it)."""

    def __init__(self, memory: int):
        up_r, up_w = os.pipe()  # child → plrv
        down_r, down_w = os.pipe()  # plrv → child
        self.popen: subprocess.Popen | None = None
        self.pid = 0
        parent = os.getpid()
        if threading.active_count() == 1:
            prepare()
            pid = os.fork()
            if pid == 0:  # the child: never returns
                os.close(up_r)
                os.close(down_w)
                serve(down_r, up_w, memory, parent)
            self.pid = pid
        else:  # forking a process with threads could copy a held lock: start afresh
            self.popen = subprocess.Popen(
                [sys.executable, "-I", "-c", _BOOT, str(down_r), str(up_w), str(memory),
                 str(parent), json.dumps(sys.path)], pass_fds=(down_r, up_w),
                stdin=subprocess.DEVNULL, stdout=2, close_fds=True)
            self.pid = self.popen.pid
        os.close(down_r)
        os.close(up_w)
        self.rfd, self.wfd = up_r, down_w
        self.status: int | None = None  # a waitpid status once reaped

    def poll(self, wait: float) -> int | None:
        """The child's wait status, waiting up to ``wait`` seconds for it to end."""
        end = time.monotonic() + wait
        while self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = status
                if self.popen is not None:
                    self.popen.returncode = os.waitstatus_to_exitcode(status)
            elif time.monotonic() >= end:
                return None
            else:
                time.sleep(0.005)
        return self.status

    def stop(self) -> None:
        """Kill the child and reap it (SIGKILL cannot be caught: the wait is short)."""
        if self.status is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                self.status = os.waitpid(self.pid, 0)[1]
                if self.popen is not None:
                    self.popen.returncode = os.waitstatus_to_exitcode(self.status)
        for fd in (self.rfd, self.wfd):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.rfd = self.wfd = -1


class Sandbox:
    """The process (started on first use) running the user functions of one spec folder."""

    def __init__(self, folder: Path | str, seconds: int = DEFAULT_SECONDS,
                 memory: int = DEFAULT_MEMORY):
        self.folder = Path(folder).resolve()
        self.seconds, self.memory = seconds, memory
        self.left = float(seconds)  # float ok: wall-clock seconds of a time limit
        self._child: _Child | None = None
        self._ended: str | None = None  # why the child is gone, once it is
        self._loaded: dict[tuple[str, str, int | None], int] = {}
        self._lock = threading.Lock()

    def __reduce__(self):
        return (_shared, (self.folder, self.seconds, self.memory))

    def function(self, module: str, attr: str, reference: str, key: str) -> Remote:
        """Load ``module:attr`` in the child (an :class:`~verifier.core.errors.UnknownName`
        or :class:`~verifier.core.errors.UserCodeError` as loading in-process would be)."""
        remote = Remote(self, module, attr, reference, key)
        self._load(remote)
        return remote

    def program(self, module: str, attr: str, reference: str, key: str,
                paths: int) -> Remote:
        """Load ``module:attr`` as a program: each call is enumerated in the child (at most
        ``paths`` paths) and answered as its exact law, one round trip per input."""
        remote = Remote(self, module, attr, reference, key, paths)
        self._load(remote)
        return remote

    def close(self) -> None:
        with self._lock:
            if self._child is not None:
                self._child.stop()

    # ------------------------------------------------------------------ internals

    def _load(self, f: Remote) -> int:
        index = self._loaded.get((f.module, f.attr, f.paths))
        if index is None and f.paths is not None:  # the function, then its enumeration
            base = self._load(Remote(self, f.module, f.attr, f.reference, f.key))
            reply = self._exchange(["program", base, f.paths, f.reference], f)
            if reply[:1] != ["ok"] or len(reply) != 2 or type(reply[1]) is not int:
                raise self._unreadable(f, "an answer to loading that is not one")
            index = self._loaded[f.module, f.attr, f.paths] = reply[1]
        if index is None:
            reply = self._exchange(["load", f.module, f.attr, str(self.folder), f.key,
                                    f.reference], f)
            if reply[:1] == ["ok"] and len(reply) == 2 and type(reply[1]) is int:
                index = self._loaded[f.module, f.attr, None] = reply[1]
            elif reply[:1] in (["unknown"], ["user"]) and len(reply) == 2:
                text = _line(reply[1])
                if reply[0] == "unknown":
                    raise UnknownName(text, argument=f.key, value=f.reference)
                raise UserCodeError(text, function=f.reference, argument=f.key)
            else:
                raise self._unreadable(f, "an answer to loading that is not one")
        return index

    def _exchange(self, message: list | bytes, f: Remote) -> list:
        with self._lock:
            if self._ended is not None:
                raise f.fail(self._ended)
            if self._child is None:
                self._child = _Child(self.memory)
                weakref.finalize(self, self._child.stop)
            child, start = self._child, time.monotonic()
            try:
                payload = message if isinstance(message, bytes) else dumps(message)
                send_frame(child.wfd, payload, start + self.left)
                reply = loads(recv_frame(child.rfd, start + self.left))
                while type(reply) is list and len(reply) == 2 and reply[0] == "progress" \
                        and type(reply[1]) is int:  # a program's paths so far, then more
                    note_paths(reply[1])
                    reply = loads(recv_frame(child.rfd, start + self.left))
            except Timeout:
                self._end(f"user code ran past limits.user_seconds = {self.seconds} (seconds "
                          f"of user code in one run, imports included) and was stopped; "
                          f"raise limits.user_seconds in the spec if it needs longer")
                raise f.fail(self._ended or "") from None
            except Closed:
                self._end(self._gone(child))
                raise f.fail(self._ended or "") from None
            except WireError as exc:
                self._end(f"answered with data plrv cannot read ({exc})")
                raise f.fail(self._ended or "") from None
            finally:
                self.left = max(0.0, self.left - (time.monotonic() - start))
        if not isinstance(reply, list):
            raise self._unreadable(f, "an answer that is not a list")
        return reply

    def _end(self, why: str) -> None:
        self._ended = why
        if self._child is not None:
            self._child.stop()

    def _gone(self, child: _Child) -> str:
        status = child.poll(min(_GRACE, max(self.left, 0.1)))
        if status is None:
            return "the process running user code closed its pipe without answering"
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            try:
                name = signal.Signals(sig).name
            except ValueError:
                name = str(sig)
            hint = (f" (out of memory? limits.user_memory = {self.memory} bytes)"
                    if sig == signal.SIGKILL else "")
            return f"the process running user code was killed by signal {name}{hint}"
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else status
        return (f"user code ended its process with exit status {code} before answering "
                f"(os._exit or a crash); no verdict is given")

    def _unreadable(self, f: Remote, what: str) -> UserCodeError:
        self._end(f"answered with data plrv cannot read ({what})")
        return f.fail(self._ended or "")


_SHARED: dict[tuple[Path, int, int], Sandbox] = {}


def _shared(folder: Path, seconds: int, memory: int) -> Sandbox:
    """A sandbox unpickled in a worker process: one per folder and limits in that process,
    shared by every shard it runs."""
    key = (Path(folder), seconds, memory)
    if key not in _SHARED:
        _SHARED[key] = Sandbox(folder, seconds, memory)
    return _SHARED[key]


def sandbox_for(folder: Path | None, budget: Budget) -> Sandbox | None:
    """Where a spec in ``folder`` loads its user code: a sandbox with the budget's
    ``user_seconds`` and ``user_memory`` (``None`` without a folder: a spec given as a
    mapping from Python loads from ``sys.path``, in-process)."""
    if folder is None:
        return None
    return Sandbox(folder, budget.max_user_seconds, budget.max_user_memory)


def _line(text: object, size: int = 300) -> str:
    s = " ".join(str(text).split())
    return s if len(s) <= size else s[:size - 40] + " … " + s[-30:]


class Remote(Isolated):
    """A function in a sandbox's child, called with plain data and answering plain data;
    answers are cached by the exact encoding of their arguments. With ``paths`` it is a
    program: the child answers the exact law of its output (``limits.paths`` refused as
    :class:`~verifier.core.errors.BudgetExceeded`)."""

    __slots__ = ("sandbox", "module", "attr", "reference", "key", "paths", "_cache",
                 "__weakref__")

    def __init__(self, sandbox: Sandbox, module: str, attr: str, reference: str, key: str,
                 paths: int | None = None):
        self.sandbox, self.module, self.attr = sandbox, module, attr
        self.reference, self.key, self.paths = reference, key, paths
        self._cache: dict[bytes, object] = {}

    def __reduce__(self):
        return (Remote, (self.sandbox, self.module, self.attr, self.reference, self.key,
                         self.paths))

    @property
    def __name__(self) -> str:  # type: ignore[override]
        return self.attr

    def fail(self, message: str) -> UserCodeError:
        return UserCodeError(f"{self.key} = {self.reference!r}: {message}",
                             function=self.reference, argument=self.key)

    def __call__(self, *args: object) -> object:
        key = _key(args)
        answer = self._cache.get(key)
        if answer is None:
            index = self.sandbox._load(self)
            answer = self.sandbox._exchange(b'["call",%d,%s]' % (index, key), self)
            self._keep(key, answer)
        return self._read(answer)

    def prefetch(self, calls: Iterable[tuple]) -> None:
        """Answers to the argument tuples of ``calls``, :data:`_BATCH` to a round trip; no
        more than the cache keeps (later ones would push out the first before their use)."""
        batch: dict[bytes, None] = {}
        asked = 0
        for args in calls:
            if asked + len(batch) >= _CACHE:
                break
            key = _key(args)
            if key not in self._cache:
                batch[key] = None
                if len(batch) == _BATCH:
                    self._many(list(batch))
                    asked += len(batch)
                    batch.clear()
        if batch:
            self._many(list(batch))

    def _many(self, keys: list[bytes]) -> None:
        index = self.sandbox._load(self)
        reply = self.sandbox._exchange(b'["many",%d,[%s]]' % (index, b",".join(keys)), self)
        if reply[:1] != ["m"] or len(reply) != 2 or not isinstance(reply[1], list) or \
                len(reply[1]) != len(keys):
            raise self.sandbox._unreadable(self, "not one answer per call")
        for k, answer in zip(keys, reply[1], strict=True):
            self._keep(k, answer)

    def _keep(self, key: bytes, answer: object) -> None:
        if len(self._cache) >= _CACHE:  # the oldest answer goes
            del self._cache[next(iter(self._cache))]
        self._cache[key] = answer

    def _read(self, answer: object) -> object:
        if isinstance(answer, list) and len(answer) == 2 and isinstance(answer[1], str) and \
                answer[0] in ("x", "bad", "paths", "program"):
            text = _line(answer[1])
            if answer[0] == "paths" and self.paths is not None:
                exc = BudgetExceeded(f"{self.key} = {self.reference!r}: {text}")
                exc.key = "limits.paths"  # type: ignore[attr-defined]
                raise exc
            hint = (f" (limits.user_memory = {self.sandbox.memory} bytes)"
                    if answer[0] in ("x", "program") and
                    ("MemoryError" in text or "Cannot allocate memory" in text) else "")
            if answer[0] in ("paths", "program"):
                raise self.fail(text + hint)
            if answer[0] == "x":
                raise self.fail(f"the function raised {text}{hint}")
            raise self.fail(text)
        if not (isinstance(answer, list) and len(answer) == 2 and answer[0] == "v"):
            raise self.sandbox._unreadable(self, "an answer that is not one")
        try:
            return decode(answer[1])
        except (WireError, RecursionError) as exc:
            raise self.fail(f"answered with data plrv cannot read ({exc})") from None
        except VerifierError as exc:  # a Dist whose weights are not a distribution
            raise self.fail(f"returned an invalid distribution ({_line(exc, 160)})") from None


def _key(args: tuple) -> bytes:
    return dumps(encode(tuple(args)))
