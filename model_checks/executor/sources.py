"""A digest of the sources a task's value depends on (spec/, reference/, model_checks/), so that
a cluster worker running another checkout is caught instead of returning other results."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

PACKAGES = ("spec", "reference", "model_checks")


@functools.cache
def source_digest() -> str:
    """sha256 over every .py file of PACKAGES (relative path and content), in path order."""
    root = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256()
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()
