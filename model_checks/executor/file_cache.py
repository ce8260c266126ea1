"""A file cache for deterministic results that several processes of one checkout compute
alike (`docs --check` and each worker of the test suite compute the kill matrix, for one).

An entry lives in `build/cache/NAME-DIGEST.json`, where DIGEST covers the sources
(`executor.sources.source_digest`: every .py file of spec/, reference/, model_checks/), the
versions of Python and of the libraries a result may depend on, and the caller's key (its
profile, say): any change of code, toolchain or key misses, and the value is computed again.
Only values that are a function of those are cached: derandomized runs bounded by counts,
never by the clock. Values are JSON. A write goes to a temporary file renamed into place, so
two processes computing one entry at once each leave a whole file; an entry that cannot be
read is computed again and rewritten. `PAIRED_CACHES_NO_FILE_CACHE=1` turns the cache off.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

from model_checks.executor.sources import source_digest

ROOT = Path(__file__).resolve().parents[2] / "build" / "cache"
LIBRARIES = ("hypothesis", "z3-solver", "torch", "numpy")
OFF = "PAIRED_CACHES_NO_FILE_CACHE"
T = TypeVar("T")


def _version(library: str) -> str:
    try:
        return metadata.version(library)
    except metadata.PackageNotFoundError:
        return "absent"


def entry_path(name: str, key: str, root: Path = ROOT) -> Path:
    """The file of entry `name` for `key` under `root`."""
    digest = hashlib.sha256()
    for part in (source_digest(), sys.version, *map(_version, LIBRARIES), name, key):
        digest.update(part.encode() + b"\0")
    return root / f"{name}-{digest.hexdigest()[:32]}.json"


def cached(name: str, key: str, compute: Callable[[], Any], decode: Callable[[Any], T],
           root: Path = ROOT) -> T:
    """`decode` of `compute()`'s JSON value, read from the entry if it exists and decodes,
    else computed and written there (`decode` raises ValueError, TypeError or KeyError on a
    value it cannot use: an entry in another shape is computed again)."""
    if os.environ.get(OFF) == "1":
        return decode(compute())
    path = entry_path(name, key, root)
    try:
        return decode(json.loads(path.read_text())["value"])
    except (OSError, ValueError, KeyError, TypeError):
        pass  # absent or unreadable: compute it again
    value = compute()
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, suffix=".tmp", delete=False) as out:
        json.dump({"name": name, "key": key, "value": value}, out)
    os.replace(out.name, path)
    return decode(value)
