"""Independent pieces of an enumeration run serially, on a local Dask cluster or on a remote one.

The enumerating engines hand their shards to :func:`current_executor`; the command line
installs an executor with :func:`use_executor` for ``--workers N`` or ``--scheduler ADDRESS``
(:func:`executor_for`). Serial in-process is the default. Shards return exact data (integers,
rationals, the user's values; never floats), merged in shard order, so every result equals
the serial one: ``databases`` (joint tables), ``pairs`` (DP by brute force), ``chunks`` (the
first counterexample of a conjecture search).
"""

from verifier.parallel.cluster import executor_for, run_on  # dask is imported when used
from verifier.parallel.executor import (
    Executor,
    MissingDistributed,
    SerialExecutor,
    ShardFailed,
    current_executor,
    use_executor,
)

__all__ = ["Executor", "SerialExecutor", "ShardFailed", "MissingDistributed",
           "current_executor", "use_executor", "executor_for", "run_on"]
