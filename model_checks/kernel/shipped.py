"""A repository file a command cites (a witness trace under docs/results/, a page of docs/),
as a path that opens where the command runs.

In a checkout the file is the checkout's; an installed package carries a copy of every cited
file under `model_checks/shipped/` (the build copies them: setup.py), so `doctor` and
`replay` cite paths that exist from any directory, a plain install included.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent
CHECKOUT = PACKAGE.parent
SHIPPED = PACKAGE / "shipped"


def located(relative: str) -> str:
    """`relative` (a path from the repository root, e.g. "docs/notation.md") as it opens from
    the current directory: unchanged when it does (a checkout's root), else the checkout's
    file or the installed package's copy as an absolute path; unchanged when neither exists
    (the caller's own file)."""
    if not relative or Path(relative).exists():
        return relative
    for root in (CHECKOUT, SHIPPED):
        if (root / relative).is_file():
            return str(root / relative)
    return relative
