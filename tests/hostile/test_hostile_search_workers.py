"""``plrv search --workers/--scheduler``: bad values are exit 2 with one line naming the
option, before any search starts; never a verdict from a search that did not run."""

from __future__ import annotations

from importlib.util import find_spec

import pytest
from harness import assert_error, invoke


@pytest.fixture(autouse=True)
def _no_scheduler_from_the_environment(monkeypatch):
    monkeypatch.delenv("PLRV_SCHEDULER", raising=False)


@pytest.mark.parametrize("args, needle", [
    (["--workers", "0"], "--workers"),
    (["--workers", "-2"], "--workers"),
    (["--workers", "abc"], "--workers"),
    (["--workers", "1.5"], "--workers"),
    (["--workers", ""], "--workers"),
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:9"], ("--workers", "--scheduler")),
], ids=["zero", "negative", "letters", "fraction", "empty", "both"])
def test_bad_workers(args, needle):
    assert_error(invoke(["search", "apk-le-ppk", "--records", "1", *args]), needle)


@pytest.mark.skipif(find_spec("distributed") is None, reason="needs plrv[distributed]")
@pytest.mark.parametrize("address", ["tcp://127.0.0.1:9", "not an address", "foo://x:1",
                                     "tcp://", "tcp://h:99999", ""],
                         ids=["unreachable", "garbage", "protocol", "no-port", "port-range",
                              "empty"])
@pytest.mark.slow
def test_scheduler_that_cannot_be_reached(monkeypatch, address):
    import verifier.parallel.cluster as cluster

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", "1s", raising=False)
    assert_error(invoke(["search", "apk-le-ppk", "--records", "1", "--scheduler", address]),
                 "--scheduler")


def test_scheduler_from_the_environment_is_named(monkeypatch):
    """PLRV_SCHEDULER is the same option: an empty one is no scheduler (serial), and a bad
    one with --workers is refused naming both."""
    monkeypatch.setenv("PLRV_SCHEDULER", "tcp://127.0.0.1:9")
    assert_error(invoke(["search", "apk-le-ppk", "--records", "1", "--workers", "2"]),
                 "--workers", "--scheduler")
