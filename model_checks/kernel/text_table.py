"""The one plain-text table every command prints: columns padded to their widest cell and
separated by two spaces, a dashed rule under the header, no trailing spaces."""

from __future__ import annotations

from collections.abc import Sequence


def grid(header: Sequence[str], body: Sequence[Sequence[str]]) -> str:
    """`header` and the rows of `body` (each as long as `header`) as a plain-text table."""
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
             for r in [header, *body]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
