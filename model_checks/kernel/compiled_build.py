"""The optional compiled build of spec/ and of the explorer's per-state modules
(`scripts/compile-spec`: mypyc, out of tree in build/mypyc/), and whether a process may run on
it.

A build is fresh when every source it was compiled from is unchanged and it holds every module
of spec/: its `SOURCES` file lists the sha256 digest of each source (as `sha256sum` writes
them), and `stale_sources` names each one that changed, is gone, or is not in the build. Only
a fresh build runs (`BuildStatus.fresh`): a stale one would check an older spec, so its reason
is said instead (the main job's summary prints `BuildStatus.words`).
`tests/spec/test_spec_compiled.py` compares the build's records with the pure packages' and
refuses a stale build with the same check.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The checkout the packages are imported from (where `scripts/compile-spec` writes build/)."""
BUILD = ROOT / "build" / "mypyc"
"""Where `scripts/compile-spec` writes the build."""
SOURCES = "SOURCES"
"""The build's list of source digests, in its folder."""
REBUILD = "bash scripts/compile-spec"


def stale_sources(listed: str, root: Path = ROOT) -> list[str]:
    """What makes a build whose SOURCES file reads `listed` stale: each listed source whose
    digest changed or that is gone, and each module of spec/ not listed (paths relative to
    `root`)."""
    found, digests = [], {}
    for line in listed.splitlines():
        digest, path = line.split("  ", 1)
        digests[path] = digest
    for path, digest in sorted(digests.items()):
        source = root / path
        if not source.exists() or hashlib.sha256(source.read_bytes()).hexdigest() != digest:
            found.append(f"{path} changed")
    every = {p.relative_to(root).as_posix() for p in (root / "spec").rglob("*.py")}
    found += [f"{path} is not in the build" for path in sorted(every - digests.keys())]
    return found


@dataclass(frozen=True)
class BuildStatus:
    """The compiled build at `folder`: `fresh` when it may run, else `why` not (absent,
    unreadable, or the stale sources)."""

    folder: Path
    fresh: bool
    why: str = ""

    def environment(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """`base` (default: this process's environment) with what runs a Python process on
        the build: the build first on the path, then the checkout (the modules it does not
        compile), and the current folder kept off it (`python -m` would put it first, and a
        checkout's own packages would be imported instead of the build's)."""
        env = dict(os.environ if base is None else base)
        path = [str(self.folder), str(self.folder.parents[1])]
        if env.get("PYTHONPATH"):
            path.append(env["PYTHONPATH"])
        env["PYTHONPATH"] = os.pathsep.join(path)
        env["PYTHONSAFEPATH"] = "1"
        return env

    def words(self) -> str:
        """Which code runs, in one line."""
        if self.fresh:
            return (f"compiled: spec/ and the explorer's per-state modules from {self.folder} "
                    "(mypyc, built from these sources)")
        return f"interpreted: {self.why}"


def status(folder: Path = BUILD) -> BuildStatus:
    """Whether the build at `folder` (a checkout's build/mypyc) may run: fresh for the
    checkout it sits in."""
    listed = folder / SOURCES
    if not listed.exists():
        return BuildStatus(folder, False, f"no compiled build in {folder} (optional: {REBUILD})")
    try:
        stale = stale_sources(listed.read_text(), folder.parents[1])
    except (OSError, ValueError) as error:
        return BuildStatus(folder, False, f"{listed} is unreadable ({error}): rerun {REBUILD}")
    if stale:
        shown = "; ".join(stale[:3]) + (f"; and {len(stale) - 3} more" if len(stale) > 3 else "")
        return BuildStatus(folder, False,
                           f"the build in {folder} is stale ({shown}): rerun {REBUILD}")
    return BuildStatus(folder, True)
