"""Progress of a sweep: tasks done / total, elapsed time, an estimate of the time left.

`LineProgress` prints one plain line per finished task (what a log or CI keeps); on a terminal
it also keeps a status line under them, rewritten in place. The estimate assumes the tasks left
take as long on average as the tasks done; it is labelled "about". Each task's line ends with
its CPU time and the last line gives the tasks' total: what the sweep costs on an idle machine
(divided by the processes that ran it), whatever the load was.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, Protocol, TextIO

from model_checks.executor.tasks import Done, Failed


class Progress(Protocol):
    def started(self, total: int, where: str) -> None: ...

    def finished(self, result: Done[Any] | Failed) -> None: ...

    def closed(self) -> None: ...


def clock(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}:{rest:02d}" if minutes else f"{rest} s"


class LineProgress:
    """`describe(done)` is the text of a finished task's line (default: its label and time);
    a failed task's line is `FAILED label: error`. Lines go to `write` (default: print)."""

    def __init__(
        self,
        title: str,
        describe: Callable[[Done[Any]], str] | None = None,
        write: Callable[[str], None] | None = None,
        terminal: TextIO | None = None,
    ) -> None:
        self.title = title
        self.describe = describe or (lambda d: f"{d.label}: {d.seconds:.1f} s")
        self.write = write or (lambda line: print(line, flush=True))
        stdout = sys.stdout
        self.terminal = terminal if terminal is not None else (
            stdout if write is None and stdout.isatty() else None)
        self.total = self.done = self.failed = 0
        self.cpu = 0.0
        self.start = time.perf_counter()

    def started(self, total: int, where: str) -> None:
        self.total, self.start = total, time.perf_counter()
        self._line(f"{self.title}: {total} task{'' if total == 1 else 's'} on {where}")

    def counters(self, cpu: bool = False) -> str:
        """Tasks done / total, elapsed time, the estimate left; with `cpu`, the tasks' CPU time
        so far; the failed tasks last."""
        elapsed = time.perf_counter() - self.start
        text = f"{self.done}/{self.total}, {clock(elapsed)} elapsed"
        if 0 < self.done < self.total:
            text += f", about {clock(elapsed / self.done * (self.total - self.done))} left"
        if cpu:
            text += f", the tasks' CPU time {clock(self.cpu)}"
        return text + (f", {self.failed} failed" if self.failed else "")

    def finished(self, result: Done[Any] | Failed) -> None:
        self.done += 1
        self.cpu += result.cpu_seconds
        if isinstance(result, Failed):
            self.failed += 1
            text = f"FAILED {result.label}: {result.error}"
        else:
            text = f"{self.describe(result)} (CPU {result.cpu_seconds:.1f} s)"
        self._line(f"  [{self.counters()}] {text}" if self.terminal is None else f"  {text}")

    def closed(self) -> None:
        self._line(f"{self.title}: {self.counters(cpu=True)}")

    def _line(self, text: str) -> None:
        if self.terminal is None:
            self.write(text)
            return
        self.terminal.write(f"\r\x1b[K{text}\n")
        if self.done < self.total:
            self.terminal.write(f"{self.title}: {self.counters()}")
        self.terminal.flush()
