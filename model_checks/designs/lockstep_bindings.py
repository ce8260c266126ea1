"""The conformance's per-design part, declared once: per design, its binding, which the one
`conform` command (`model_checks.conform_command`, `--design NAME`) and the one lockstep driver
(`model_checks.conform.design_lockstep`) read. An entry (`designs.conformance.Entry`) is a
`design_lockstep.Binding` (how an implementation of the design is driven and viewed in the
design's terms; its runs are the one driver's, `designs.conform`), or `OwnRuns`: a binding
that declares its own cases and report (the LRU design's: its cases, configurations and
profiles, its report and weakness judgement, `conform.lru_lockstep.command`, and its history
checks, `history.command`), taken by the same run loop (`conform.run`), its steps by the same
driver. A design with no
entry has no conformance check."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from model_checks.conform.design_lockstep import Binding
from model_checks.designs.conformance import Entry, OwnRuns

LRU_OPTIONS = frozenset({"json", "processes", "profile", "variant", "require", "keep_going",
                         "threads", "async_clients", "check_log"})
"""What the LRU design's runs read beyond the common options: where records go, the engine's
process, the budget, the variants, the required properties, whether to stop at the first
disagreement, and its history checks' options."""


def _lru() -> Entry:
    return OwnRuns(_lru_runs, LRU_OPTIONS, without_adapter=True)


def _lru_runs(args: argparse.Namespace) -> int:
    """The LRU design's runs: its history checks where their options (or a missing adapter)
    ask for them, else its lockstep check (`conform.lru_lockstep.command`)."""
    from model_checks.conform.lru_lockstep import command as lockstep
    from model_checks.history import command as history

    return history.run(args) if history.wanted(args) else lockstep.run(args)


def _shm() -> Entry:
    from model_checks.designs.shm_lockstep import BINDING

    return BINDING


BINDINGS: dict[str, Callable[[], Entry]] = {"lru": _lru, "shm": _shm}
"""Per design name, its entry (imported when asked for)."""


def binding_of(design: str) -> Binding | None:
    """The one driver's binding of the design named `design`, or None if it has none (no
    entry, or an entry with runs of its own)."""
    entry = entry_of(design)
    return entry if isinstance(entry, Binding) else None


def entry_of(design: str) -> Entry | None:
    """The entry of the design named `design`, or None if it has none."""
    found = BINDINGS.get(design)
    return None if found is None else found()
