"""One executor for every sweep of independent tasks (matrix cells, mutants, lattice points).

Contract: `run(tasks, backend, progress)` (or, in one call, `sweep(tasks, dask=ADDRESS or None,
processes=N, title=...)`) takes a list of picklable `Task`s (a module-level
function and its arguments, a pure function of them) and returns one result per task, in
submission order, whatever ran where: `Done` with the task's value, or `Failed` with its error
(the other tasks' results are kept). Backends: `LocalProcesses` (the default: this machine's
processes, or this process for one worker) and `DaskCluster` (a running `dask.distributed`
scheduler, the optional `paired-caches[cluster]` extra). Progress: tasks done / total, elapsed
time and an estimate, a line per finished task.

- `tasks`: a task, its two kinds of result and the call that runs one on a worker; `sweep`:
  the contract's two calls;
- `backends`: where tasks run (`LocalProcesses`, a dead pool restarted with the unfinished
  tasks); `cluster`: the Dask backend (`DaskCluster`), which checks that every worker runs
  this checkout's sources (`sources`: their digest); `waits`: every wait on a cluster,
  bounded, with a guard that gives up once no worker is left; `errors`: the cluster's
  errors;
- `progress`: a sweep's progress (`LineProgress`); `arguments`: the `--dask ADDRESS` flag
  every sweeping command shares;
- `file_cache`: the cache of deterministic results that several processes of one checkout
  compute alike (such as the kill matrix), keyed by the sources' digest.

Nothing here imports a checker: a task names its own function, so the executor is as cheap to
import as the command line that parses arguments before it.
"""

from model_checks.executor.arguments import DASK_HELP, add_dask_argument, backend_from
from model_checks.executor.backends import Backend, LocalProcesses, backend_for
from model_checks.executor.errors import ClusterError
from model_checks.executor.progress import LineProgress, Progress
from model_checks.executor.sweep import run, sweep
from model_checks.executor.tasks import Done, Failed, Result, Task, TaskFailed, values

__all__ = [
    "DASK_HELP",
    "Backend",
    "ClusterError",
    "Done",
    "Failed",
    "LineProgress",
    "LocalProcesses",
    "Progress",
    "Result",
    "Task",
    "TaskFailed",
    "add_dask_argument",
    "backend_for",
    "backend_from",
    "run",
    "sweep",
    "values",
]
