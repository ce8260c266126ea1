"""The one trace notation's machinery: how a trace of any design is written as a step table,
over the notation the design declares for its own states and actions (`Notation`).

A step table has one row per step: the step's number, its action in the design's notation
(marked `(fair)` where the fair scheduler took it), then the state after it in the design's
named columns; under it, the design's line about the final state, if any. Pages, `replay`
and conformance failures lay the rows out as they need (a plain-text grid, a markdown table,
one line per step) and quote the design's legend. The LRU design's notation is
`model_checks.kernel.lru_notation`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from model_checks.kernel.text_table import grid

STEP = ("#", "action")
"""The columns every step table starts with; a design's state columns follow."""


class Notation(Protocol):
    """A design's notation: its legend, the columns its states are written in, and how one
    action, one state and the final state read."""

    @property
    def legend(self) -> str:
        """The notation's only description: pages quote it, `replay` prints it."""
        ...

    @property
    def headers(self) -> tuple[str, ...]:
        """The columns of a step table, `STEP` first."""
        ...

    def action(self, action: Any) -> str: ...

    def columns(self, state: Any) -> Sequence[str]:
        """The state as text, one per column of `headers` after `STEP`."""
        ...

    def footer(self, final: Any) -> str:
        """The line under a step table about the trace's final state (empty: none)."""
        ...


class Steps(Protocol):
    """A trace as the notation reads it: its transitions numbered from 1, and its last
    state."""

    def transitions(self) -> Iterator[tuple[int, Any, Any, Any]]: ...

    @property
    def final(self) -> Any: ...


def step_rows(notation: Notation, trace: Steps, fair_from: int | None = None
              ) -> list[tuple[str, ...]]:
    """One row per step (`notation.headers`); a step the fair scheduler took is marked
    `(fair)`."""
    rows = []
    for number, _, act, after in trace.transitions():
        fair = " (fair)" if fair_from is not None and number > fair_from else ""
        rows.append((str(number), notation.action(act) + fair, *notation.columns(after)))
    return rows


def step_text(notation: Notation, trace: Steps, fair_from: int | None = None) -> str:
    """The step table as plain text, then the notation's line about the final state (what
    `replay` prints)."""
    text = grid(notation.headers, step_rows(notation, trace, fair_from))
    line = notation.footer(trace.final)
    return text + ("\n" + line if line else "")
