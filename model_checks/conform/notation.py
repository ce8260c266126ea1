"""Conformance output within `WIDTH` columns: `wrap`, for every design's report (a
design's observations in its notation are its binding's: the LRU design's,
`lru_lockstep.notation`)."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable

WIDTH = 100
"""Default output of `conform` stays within this many columns."""


def wrap(lines: Iterable[str], width: int = WIDTH) -> list[str]:
    """Every line within `width` columns, continuation lines indented under the first."""
    out: list[str] = []
    for line in lines:
        if len(line) <= width:
            out.append(line)
            continue
        indent = " " * (len(line) - len(line.lstrip()) + 4)
        out += textwrap.wrap(line, width, subsequent_indent=indent, break_on_hyphens=False,
                             break_long_words=False)
    return out
