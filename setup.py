"""The build's one step beyond pyproject.toml: the wheel carries what the commands cite.

`doctor`, `replay` and the answer store name repository files (the witness traces under
docs/results/, the pages of docs/). A checkout has them; an installed package gets a copy of
each under `model_checks/shipped/` (read back by `model_checks.kernel.shipped.located`), so
every path a command prints opens from an installed package too. The files are read from the
checkout at build time, never stored twice in git; a cited file missing from the checkout
stops the build. The sdist carries the same files (`SdistWithCited`), so a wheel built from
an sdist ships what one built from the checkout does.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

ROOT = Path(__file__).resolve().parent
CITED = re.compile(r'"(docs/results/[^"]+/[^"/]+\.json(?:\.gz)?)"')


def cited_files() -> list[str]:
    """Every repository file the commands cite: the pages, and the witness traces the answer
    store and the other designs' answers name (relative to the repository root)."""
    found = {p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md")}
    for store in ("answers.json", "designs.json"):
        text = (ROOT / "model_checks" / "answers" / store).read_text()
        found.update(CITED.findall(text))
    found.update(p.relative_to(ROOT).as_posix()
                 for p in (ROOT / "docs" / "results" / "designs").glob("*/witnesses/*.json"))
    return sorted(found)


class BuildWithCited(build_py):
    """`build_py`, then a copy of every cited file under model_checks/shipped/."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "model_checks" / "shipped"
        for relative in cited_files():
            source = ROOT / relative
            if not source.is_file():
                raise SystemExit(f"error: {relative} is cited by the package but missing")
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target / relative)


class SdistWithCited(sdist):
    """`sdist`, its tree holding every cited file besides the package's own."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        missing = [r for r in cited_files() if not (ROOT / r).is_file()]
        if missing:
            raise SystemExit(f"error: {missing[0]} is cited by the package but missing")
        super().make_release_tree(base_dir, sorted({*files, *cited_files()}))


if __name__ == "__main__":  # as every build runs it; an import (a test's) only reads it
    setup(cmdclass={"build_py": BuildWithCited, "sdist": SdistWithCited})
